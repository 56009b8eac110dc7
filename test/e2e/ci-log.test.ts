// A rollout followed without a terminal, as a CI job runs it: a blocker shows in the log as soon as it is diagnosed,
// long before --stall-timeout, and once; the NDJSON says which blocked events are early and which the stall verdict,
// every `time` has one format, and `done` names the cluster.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

describe('upgrade in a CI log', () => {
  it('prints a PDB block once, before the stall summary', async () => {
    const sandbox = await scenario('pdb-blocked');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--stall-timeout', '12s']);
    expect(run.code, run.stderr).toBe(4);
    const early = run.stderr.indexOf('] STALL-PDB: PDB "payments/ledger" prevents pod evictions');
    const summary = run.stderr.indexOf('Rollout stalled');
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(summary);
    expect(run.stderr.match(/^\[\S+\] STALL-PDB:/gm)).toHaveLength(1);
  });

  it('NDJSON: blocked events early, then the stall verdict, none twice; one time format; done names the cluster', async () => {
    const sandbox = await scenario('pdb-blocked');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '12s']);
    expect(run.code, run.stderr).toBe(4);
    const blocked = run.events.filter((e) => e.type === 'blocked');
    const stages = blocked.map((b) => b.stage);
    expect(stages).toContain('early');
    expect(stages.indexOf('stall')).toBeGreaterThan(stages.lastIndexOf('early'));
    const keys = blocked.map((b) => `${String(b.stage)}/${String(b.code)}/${String(b.nodePool)}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(blocked.filter((b) => b.stage === 'stall').map((b) => b.code)).toContain('STALL-PDB');
    for (const e of run.events) expect(e.time, e.type).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const done = run.events.at(-1)!;
    // The default upgrade is staged: a stall leaves it paused.
    expect(done).toMatchObject({ type: 'done', result: 'paused', cause: 'stalled', cluster: { context: 'karp-drift-sandbox-pdb-blocked', name: 'karp-drift-sandbox-pdb-blocked' } });
    expect((done.cluster as { server: string }).server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.stringify(done)).not.toContain(sandbox.kube.token);
  });
});
