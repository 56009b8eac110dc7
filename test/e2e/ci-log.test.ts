// A rollout followed without a terminal, as a CI job runs it: a blocker shows in the log as soon as it is diagnosed,
// long before --stall-timeout, and once; the NDJSON says which blocked events are early and which the stall verdict,
// every `time` has one format, and `done` names the cluster.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

// pdb-blocked with a second single-replica workload under minAvailable 1 beside "ledger": two PDBs block the one
// node NodePool "general" keeps on the old AMI, two STALL-PDBs of one NodePool.
const TWO_PDBS = `extends: pdb-blocked
name: two-pdbs
workloads:
  - { name: web, nodePool: general, replicas: 8, pdb: { maxUnavailable: 1 } }
  - { name: ledger, namespace: payments, nodePool: general, replicas: 1, pdb: { minAvailable: 1 } }
  - { name: audit, namespace: payments, nodePool: general, replicas: 1, pdb: { minAvailable: 1 } }
`;

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

  // Each blocker was keyed by code and NodePool, so the two overwrote each other's record and both were printed on
  // every turn, about a pair a second (issue 35: 82,375 lines in 15 minutes; test/report/blocker-log.test.ts
  // counts those 15 minutes). Here the blockers are diagnosed 10 s before the stall: 20-odd pairs before the fix.
  it('two PDBs on one NodePool: each printed once, a log of bounded length', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-two-pdbs-')), 'two-pdbs.yaml');
    writeFileSync(file, TWO_PDBS);
    const sandbox = await scenario(file);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--stall-timeout', '20s']);
    expect(run.code, run.stderr).toBe(4);
    const early = run.stderr.match(/^\[\S+\] STALL-PDB: PDB "\S+"/gm)?.map((l) => l.replace(/^\[\S+\] /, ''));
    expect(early?.sort()).toEqual(['STALL-PDB: PDB "payments/audit"', 'STALL-PDB: PDB "payments/ledger"']);
    // What the run says before its stall summary: the plan's lines, the stages', a few progress lines, three blockers.
    const log = run.stderr.slice(0, run.stderr.indexOf('Rollout stalled'));
    expect(log.split('\n').length, log).toBeLessThan(60);
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
