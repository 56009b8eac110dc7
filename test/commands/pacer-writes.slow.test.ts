// How often a staged rollout writes its NodePools (issue 35 item 6): every spec write bumps a NodePool's generation,
// and Karpenter resets NodeRegistrationHealthy at every bump (DOMAIN.md §1.3). The pacer (commands/staged-pacer.ts)
// runs here as the follow loop runs it — one step a second — against the `staged` sandbox, with this machine's clock
// and the cluster's both the sandbox's simulated one, so a rollout of most of an hour takes seconds. Its writes are
// counted from the sandbox's own request log and the NodePools' generations.
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { readInventory } from '../../src/cluster/inventory.js';
import { nodeClaimView, nodeView } from '../../src/karpenter/convert.js';
import type { NodeView } from '../../src/karpenter/views.js';
import { createPacer } from '../../src/commands/staged-pacer.js';
import { SWITCH_AHEAD_MS } from '../../src/commands/pacer-holds.js';
import { planStages } from '../../src/stages/stage-plan.js';
import { parseWaves } from '../../src/stages/waves.js';
import { controlPlaneAmis, manualSandbox, pinToControlPlane } from '../sandbox/karpenter/harness.js';

const POOLS = ['canary', 'general'];
const SOAK_MS = 10 * 60_000;

/** The staged rollout of canary (3 nodes) then general (24) in waves 1, 10%, 100% with 10-minute soaks; its writes. */
async function stagedRollout() {
  const sandbox = await manualSandbox('staged');
  const cluster = loadCluster({ kubeconfig: sandbox.kubeconfigPath, localClock: () => sandbox.clock.wall().getTime() });
  onTestFinished(async () => {
    cluster.close();
    await sandbox.stop();
  });
  const inventory = await readInventory(cluster, { nodeClasses: ['default'] });
  const pools = inventory.nodePools.filter((p) => POOLS.includes(p.name));
  const oldNodes = (pool: string) => inventory.nodeClaims.filter((c) => c.nodePool === pool).length;
  const waves = parseWaves('1,10%,100%');
  if ('error' in waves) throw new Error(waves.error);
  const planned = planStages(
    pools.map((pool) => ({ pool, oldNodes: oldNodes(pool.name), limit: Infinity })),
    { canary: ['canary'], waves: waves.steps, soakMs: SOAK_MS, holdWith: 'budget' },
    true,
  );
  if (!('plan' in planned)) throw new Error(JSON.stringify(planned));
  const target = controlPlaneAmis(sandbox, 'default');
  const pacer = createPacer({
    cluster,
    api: 'v1',
    plan: planned.plan,
    scope: { nodePools: POOLS.map((name) => ({ name, nodeClass: 'default' })), targetImageIds: { default: target } },
    runId: 'run-writes',
    target: '1.30',
    who: 'test@sandbox',
    nodePools: pools,
  });
  const generation = (pool: string) => sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.metadata.generation ?? 0;
  const before = Object.fromEntries(POOLS.map((p) => [p, generation(p)]));
  const writesBefore = sandbox.kube.requests.length;
  const started = sandbox.clock.wall().getTime();
  await pacer.prime(inventory, sandbox.clock.wall());
  await pinToControlPlane(sandbox, 'default');

  const views = () => ({
    claims: sandbox.kube.store.list('nodeclaims.karpenter.sh').map((o) => nodeClaimView(o as Parameters<typeof nodeClaimView>[0])),
    nodes: new Map<string, NodeView>(
      sandbox.kube.store.list('nodes').map((o) => {
        const n = nodeView(o);
        return [n.name, n];
      }),
    ),
  });
  let phase = '';
  /** Spec writes (generation bumps) made in a step that found the rollout soaking and left it soaking. */
  let bumpsWhileSoaking = 0;
  let soakingMs = 0;
  for (let s = 0; s < 3 * 3600 && phase !== 'done'; s++) {
    sandbox.clock.advance(1000);
    sandbox.simulator.pass();
    const { claims, nodes } = views();
    const generations = POOLS.map(generation).join();
    const was = phase;
    phase = (await pacer.step(claims, nodes, sandbox.clock.wall())).phase;
    if (was === 'soak' && phase === 'soak') {
      soakingMs += 1000;
      if (POOLS.map(generation).join() !== generations) bumpsWhileSoaking++;
    }
  }
  expect(phase).toBe('done');
  await pacer.finish(views().nodes, sandbox.clock.wall());
  const minutes = (sandbox.clock.wall().getTime() - started) / 60_000;
  const patches = (pool: string) =>
    sandbox.kube.requests
      .slice(writesBefore)
      .filter((r) => r.verb === 'patch' && r.resource === 'nodepools' && r.name === pool && r.code < 300).length;
  return {
    minutes,
    pools: Object.fromEntries(
      POOLS.map((p) => [p, { writes: patches(p), generations: generation(p) - before[p]! }]),
    ) as Record<string, { writes: number; generations: number }>,
    replacements: sandbox.simulator.disruptions.entries().length,
    soakingMinutes: soakingMs / 60_000,
    bumpsWhileSoaking,
  };
}

describe('NodePool writes over a staged rollout', () => {
  // Measured (the figures of docs/staged-rollouts.md): 98 simulated minutes at Karpenter's pace (one to three
  // replacements of a NodePool at a time), canary 9 writes (6 generations), general 36 (30); before issue 35 (the switch
  // moved every minute, whatever the hold) about one a minute.
  it('writes each NodePool only when its hold changes, and moves the switch only while the hold lets drift start', async () => {
    const r = await stagedRollout();
    console.log(JSON.stringify(r));
    expect(r.minutes).toBeGreaterThan(40);
    expect(r.replacements).toBeGreaterThanOrEqual(27);
    // A soak holds every NodePool at 0, which holds by itself: nothing is written for the switch in 30 minutes of them.
    expect(r.soakingMinutes).toBeGreaterThan(25);
    expect(r.bumpsWhileSoaking).toBe(0);
    for (const [pool, { writes, generations }] of Object.entries(r.pools)) {
      // Every spec write bumps the generation; the other writes are the record's alone (a soak's end: metadata).
      expect(generations, pool).toBeLessThanOrEqual(writes);
      // A wave opening, its last start made, the switch moved every SWITCH_AHEAD_MS − 1 minute while starts remain:
      // one generation in three minutes at most over the rollout (moving the switch every minute made more than one a
      // minute).
      expect(generations / r.minutes, pool).toBeLessThanOrEqual(1 / 3);
      expect(writes / r.minutes, pool).toBeLessThanOrEqual(60_000 / (SWITCH_AHEAD_MS - 60_000));
    }
  }, 300_000);
});
