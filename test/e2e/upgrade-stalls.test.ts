// The ways a rollout gets stuck, end to end: each ends with exit 4, the changes applied, and the blocker named in
// Karpenter's own words. The default upgrade is staged, so a stall leaves it paused (`done` paused, cause stalled).
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

describe('karp-drift upgrade stalls', () => {
  it.each([
    // Each quotes Karpenter's own event, in the words of the Karpenter the sandbox simulates (v1.14).
    ['pdb-blocked', 'STALL-PDB', 'event DisruptionBlocked on Node/', 'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])'],
    ['budget-blocked', 'STALL-BUDGET', 'event DisruptionBlocked on NodePool/frozen', 'No allowed disruptions for disruption reason Drifted due to blocking budget'],
    ['do-not-disrupt', 'STALL-DO-NOT-DISRUPT', 'event DisruptionBlocked on Node', 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ml/training-'],
  ])('%s ends with exit 4 and %s', async (name, code, quoted, message) => {
    const sandbox = await scenario(name);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '6s']);
    expect(run.code, run.stderr).toBe(4);
    const blocked = run.events.filter((e) => e.type === 'blocked');
    expect(blocked.map((b) => b.code)).toContain(code);
    const evidence = blocked.filter((b) => b.code === code).flatMap((b) => b.evidence as string[]);
    expect(evidence.some((line) => line.startsWith(quoted) && line.includes(message)), evidence.join('\n')).toBe(true);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'stalled' });
    expect(run.stderr).toContain('the changes stay applied');
  });
});
