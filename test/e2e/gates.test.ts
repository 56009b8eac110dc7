// Health gates end to end: the built CLI runs a staged rollout on the `bad-ami` sandbox (gates.ts): the canary caught
// and held, rolled back, and gate commands that fail or time out. Deadlines are given in real seconds, as the CLI
// measures them (the sandbox runs 60× faster).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { karpDrift } from './cli-sandbox.js';
import { CANARY, GOOD, badAmi, imagesByPool, nodePools, startedIn, gates, findingsOf } from './gates.js';

describe('health gates on a bad AMI (bad-ami sandbox)', () => {
  it('crash-loop: the canary is caught (exit 6), nothing outside it replaced, every NodePool held; rollback lifts the holds and brings the canary back', async () => {
    const sandbox = await badAmi();
    const before = nodePools(sandbox);
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const run = await karpDrift(sandbox, [...CANARY, '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);

    const failed = gates(run).find((g) => g.result === 'failed')!;
    expect(failed).toMatchObject({ gate: 'health', failures: 1, failureLimit: 1 });
    const findings = findingsOf(failed);
    expect(findings.length).toBeGreaterThan(0);
    const newAmis = run.events.find((e) => e.type === 'applied')!.amiSelectorTerms as Array<{ id: string }>;
    for (const f of findings) {
      expect(f.code).toBe('POD-FAILING');
      expect(f.nodePool).toBe('canary');
      expect(newAmis.map((t) => t.id)).toContain(f.ami);
      // The kubelet's own words: the waiting reason and the last termination.
      expect(f.evidence.join('\n')).toMatch(/CrashLoopBackOff: back-off .* restarting failed container/);
      expect(f.evidence.join('\n')).toContain('exit code 139');
    }
    expect(run.events.at(-1)).toMatchObject({
      type: 'done',
      result: 'halted',
      cause: 'gate',
      paused: ['canary', 'general'],
    });
    expect(run.stderr).toContain('error: halted by a health gate: POD-FAILING');

    // Karpenter's record: no drift command ever started in general, whose nodes all still run the old AMIs, and
    // both NodePools are held at 0.
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(startedIn(sandbox, 'canary').length).toBeGreaterThan(0);
    expect(imagesByPool(sandbox).general!.every((i) => old.has(i))).toBe(true);
    for (const pool of ['canary', 'general']) {
      const held = nodePools(sandbox)[pool]!;
      expect(held.hold, pool).toBeDefined();
      expect((held.budgets as unknown[]).at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
    }
    // What a teammate's `kubectl describe nodepool` shows: a Warning on each held NodePool, found by its uid.
    for (const pool of ['canary', 'general']) {
      const uid = sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.metadata.uid;
      const paused = (sandbox.kube.store.list('events') as unknown as Array<{ reason: string; type: string; involvedObject: { uid: string } }>)
        .filter((e) => e.reason === 'StagedRolloutPaused' && e.involvedObject.uid === uid);
      expect(paused.map((e) => e.type), pool).toEqual(['Warning']);
    }
    const halted = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1500));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.time > halted)).toEqual([]);

    // A human looked and rolls back: the holds come off once the old AMIs are resolved, and the canary comes back.
    const onNew = Object.values(imagesByPool(sandbox)).flat().filter((i) => !old.has(i)).length;
    const back = await karpDrift(sandbox, ['rollback', '--yes', '-o', 'json'], 120_000);
    expect(back.code, back.stderr).toBe(0);
    // It replaces only what runs the new AMI, and says so (not every node of both NodePools).
    const warned = /rolling back drifts the (\d+) nodes? of nodepool\/canary, nodepool\/general that runs? the AMIs pinned now/.exec(back.stderr);
    expect(Number(warned?.[1]), back.stderr).toBe(onNew);
    expect(
      back.events
        .filter((e) => e.type === 'release')
        .map((e) => e.nodePool)
        .sort(),
    ).toEqual(['canary', 'general']);
    expect(back.stderr).toContain('the rollback releases the holds once Karpenter has resolved the previous AMIs');
    expect(back.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    const after = imagesByPool(sandbox);
    expect(after.canary!.length).toBeGreaterThan(0);
    expect([...after.canary!, ...after.general!].every((i) => old.has(i))).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);

  it('--on-failure rollback: halted, rolled back and followed back in one run (exit 6 still, plain-text log)', async () => {
    const sandbox = await badAmi();
    const before = nodePools(sandbox);
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-gates-'));
    const resultFile = join(dir, 'result.json');
    const run = await karpDrift(sandbox, [...CANARY, '--on-failure', 'rollback', '--result-file', resultFile], 150_000);
    expect(run.code, run.stderr).toBe(6);
    // Every report counts the canary's replacements on the bad AMI (the result file said 0 once rolled back).
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { nodesReplaced: number; done: { nodePools: Array<{ name: string; replaced: number }> } };
    expect(result.nodesReplaced).toBeGreaterThan(0);
    expect(result.nodesReplaced).toBe(result.done.nodePools.find((p) => p.name === 'canary')!.replaced);
    rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).toContain('Health gate failed while the rollout runs');
    expect(run.stderr).toContain('--on-failure rollback: restoring ec2nodeclass/default');
    expect(run.stderr).toMatch(
      /error: halted by a health gate: POD-FAILING .*; rolled back: ec2nodeclass\/default restored, every node of nodepool\/canary, nodepool\/general back on the previous AMIs \(Kubernetes 1\.29\)/,
    );
    expect(run.stderr).toContain('the holds are released');
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(
      Object.values(imagesByPool(sandbox))
        .flat()
        .every((i) => old.has(i)),
    ).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);

  it('a failing gate command halts after the canary with its output as the evidence (plain text)', async () => {
    const sandbox = await badAmi();
    const run = await karpDrift(sandbox, [
      ...CANARY,
      '--release',
      GOOD,
      '--gate-cmd',
      'echo "checking p99 latency"; echo "p99 2.31s > 1s" >&2; exit 3',
    ]);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain('GATE-CMD-FAILED the gate command exited 3 after');
    expect(run.stderr).toContain('checking p99 latency');
    expect(run.stderr).toContain('p99 2.31s > 1s');
    // The built-in gates passed at the same checkpoint: only the command stopped it, and never reached general.
    expect(run.stderr).not.toContain('POD-FAILING');
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(nodePools(sandbox).general!.hold).toBeDefined();
  });

  it('a gate command that times out is inconclusive: halted, never passed (-o json)', async () => {
    const sandbox = await badAmi();
    const run = await karpDrift(sandbox, [
      ...CANARY,
      '--release',
      GOOD,
      '--gate-cmd',
      'echo "querying prometheus"; sleep 60',
      '--gate-timeout',
      '1s',
      '-o',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(6);
    const halt = gates(run).at(-1)!;
    expect(halt).toMatchObject({ gate: 'command', point: 'wave-end', result: 'inconclusive' });
    expect(findingsOf(halt)[0]).toMatchObject({ code: 'GATE-CMD-TIMEOUT', evidence: ['querying prometheus'] });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted' });
    expect(startedIn(sandbox, 'general')).toEqual([]);
  });
});
