// How fast a staged wave goes, read from the simulated Karpenter's own record of the drift commands it started
// (sandbox.simulator.disruptions), never from karp-drift's events: a wave starts exactly its target, side by side as
// far as Karpenter takes them (its own in-flight replacements are not subtracted twice), a NotReady node outside
// the rollout does not keep a canary from starting, and a wave is shared among the stage's NodePools.
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { follow } from './staged.js';

type Record = ReturnType<Awaited<ReturnType<typeof scenario>>['simulator']['disruptions']['entries']>[number];

const UPGRADE = ['upgrade', '--to', '1.30', '--yes', '-o', 'json'];

describe('the pace of a staged wave', () => {
  it("a wave of 8 in general (its own budget 12) starts its 8, a 9th only in the race of a completion, side by side as far as Karpenter goes", async () => {
    const sandbox = await scenario('staged', 180);
    const run = follow(sandbox, [...UPGRADE, '--canary', 'general', '--waves', '8,100%', '--soak', '1h']);
    await run.until((e) => e.type === 'soak', 120_000);
    run.child.kill('SIGINT');
    await run.exited;
    const general = sandbox.simulator.disruptions.entries().filter((d: Record) => d.nodePool === 'general');
    // The wave's 8 start; a 9th only in the race docs/staged-rollouts.md states (DOMAIN.md §2.6): a replacement that
    // finishes just before Karpenter's next pass frees a slot before karp-drift rewrites the hold, at most one per
    // completion before the wave's last start. A loaded machine stretches that interval (a real second is 3 simulated
    // minutes here); on an idle one the run starts exactly 8.
    const started = new Set(general.map((d) => d.nodeClaim)).size;
    const lastStart = general.map((d) => d.time).sort()[7]!;
    const endedBefore = general.filter((d) => (d.finished ?? d.failed ?? '~') < lastStart).length;
    const commands = JSON.stringify(general, null, 1);
    expect(started, commands).toBeGreaterThanOrEqual(8);
    expect(started - 8, commands).toBeLessThanOrEqual(endedBefore);
    // Karpenter itself refuses a candidate whose pods would land on a replacement still initializing, so the 8 do not
    // all run at once; what the wave allows is never exceeded, and more than one does run at a time.
    const most = sandbox.simulator.disruptions.maxInFlight().get('general')!;
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('a NotReady node outside the rollout does not keep a canary of 1 from starting', async () => {
    const sandbox = await scenario('staged', 180);
    // One of canary's nodes goes NotReady and the user keeps it (do-not-disrupt): Karpenter counts it as disrupting.
    const store = sandbox.kube.store;
    const node = store.list('nodes').find((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'canary')!;
    const held = store.update('nodes', {
      ...node,
      metadata: { ...node.metadata, annotations: { ...node.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' } },
    });
    const status = held.status as { conditions: { type: string; status: string }[] };
    store.update(
      'nodes',
      { ...held, status: { ...status, conditions: status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } },
      { subresource: 'status', manager: 'kubelet' },
    );
    const run = follow(sandbox, [...UPGRADE, '--canary', 'canary', '--waves', '1,100%', '--soak', '1h', '--stall-timeout', '10m']);
    await run.until((e) => e.type === 'soak', 120_000);
    run.child.kill('SIGINT');
    await run.exited;
    expect(sandbox.simulator.disruptions.entries().filter((d: Record) => d.nodePool === 'canary')).toHaveLength(1);
  });

  it("a wave is shared among the stage's NodePools: each gets one as soon as the wave has as many", async () => {
    const sandbox = await scenario('staged', 180);
    // One stage of canary 3, general 24 and batch 6; wave 1 = 3 nodes: one each, not three of one NodePool.
    const run = follow(sandbox, [...UPGRADE, '--waves', '3,100%', '--soak', '1h']);
    await run.until((e) => e.type === 'soak', 120_000);
    run.child.kill('SIGINT');
    await run.exited;
    const byPool = (p: string) => sandbox.simulator.disruptions.entries().filter((d: Record) => d.nodePool === p).length;
    expect([byPool('canary'), byPool('general'), byPool('batch')]).toEqual([1, 1, 1]);
  });
});
