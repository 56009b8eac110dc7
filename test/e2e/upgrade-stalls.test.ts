// The ways a rollout gets stuck, end to end: each ends with exit 4, the changes applied, and the blocker named.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

describe('karp-drift upgrade stalls', () => {
  it.each([
    ['pdb-blocked', 'STALL-PDB', 'payments/ledger'],
    ['budget-blocked', 'STALL-BUDGET', 'frozen'],
    ['do-not-disrupt', 'STALL-DO-NOT-DISRUPT', 'karpenter.sh/do-not-disrupt'],
  ])('%s ends with exit 4 and %s', async (name, code, evidence) => {
    const sandbox = await scenario(name);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '6s']);
    expect(run.code, run.stderr).toBe(4);
    const blocked = run.events.filter((e) => e.type === 'blocked');
    expect(blocked.map((b) => b.code)).toContain(code);
    expect(JSON.stringify(blocked)).toContain(evidence);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'stalled' });
    expect(run.stderr).toContain('the changes stay applied');
  });
});
