// How fast a staged wave goes, read from the simulated Karpenter's own record of the drift commands it started
// (sandbox.simulator.disruptions), never from karp-drift's events: a wave starts exactly its target, side by side up
// to the NodePool's own budgets (its own in-flight replacements are not subtracted twice), a NotReady node outside
// the rollout does not keep a canary from starting, and a wave is shared among the stage's NodePools.
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { follow } from './staged.js';

type Record = ReturnType<Awaited<ReturnType<typeof scenario>>['simulator']['disruptions']['entries']>[number];

const UPGRADE = ['upgrade', '--to', '1.30', '--yes', '-o', 'json'];

describe('the pace of a staged wave', () => {
  it("a wave of 8 in general (its own budget 12) starts all 8 before any is done, and never a 9th", async () => {
    const sandbox = await scenario('staged', 60);
    const run = follow(sandbox, [...UPGRADE, '--canary', 'general', '--waves', '8,100%', '--soak', '1h']);
    await run.until((e) => e.type === 'soak', 120_000);
    run.child.kill('SIGINT');
    await run.exited;
    const general = sandbox.simulator.disruptions.entries().filter((d: Record) => d.nodePool === 'general');
    expect(general).toHaveLength(8);
    const firstDone = Math.min(...general.map((d) => Date.parse(d.finished!)));
    expect(general.every((d) => Date.parse(d.time) < firstDone)).toBe(true);
  });

  it('a NotReady node outside the rollout does not keep a canary of 1 from starting', async () => {
    const sandbox = await scenario('staged', 60);
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
    const sandbox = await scenario('staged', 60);
    // One stage of canary 3, general 24 and batch 6; wave 1 = 3 nodes: one each, not three of one NodePool.
    const run = follow(sandbox, [...UPGRADE, '--waves', '3,100%', '--soak', '1h']);
    await run.until((e) => e.type === 'soak', 120_000);
    run.child.kill('SIGINT');
    await run.exited;
    const byPool = (p: string) => sandbox.simulator.disruptions.entries().filter((d: Record) => d.nodePool === p).length;
    expect([byPool('canary'), byPool('general'), byPool('batch')]).toEqual([1, 1, 1]);
  });
});
