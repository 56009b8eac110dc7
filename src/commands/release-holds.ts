// Releasing karp-drift's holds on drift, shared by `resume` and `rollback` (a rollback after a halted or interrupted
// staged rollout must lift the holds, or Karpenter would never drift the nodes back): put each NodePool's own budgets
// back exactly, remove only the do-not-disrupt annotations karp-drift added, and record an Event on each NodePool.
import type { HoldWrites } from '../cluster/access.js';
import type { Cluster } from '../cluster/client.js';
import { recordNodePoolEvent } from '../cluster/events.js';
import { releaseBudgetHold, releaseNode, setPauseRecord } from '../cluster/holds.js';
import { PAUSE_ANNOTATION } from '../apis/pause-record.js';
import { listAll } from '../cluster/list.js';
import { NODES } from '../karpenter/resources.js';
import type { KarpenterApi, NodePoolView, NodeView } from '../karpenter/views.js';
import { holdOutcomeText, type PoolHoldOutcome } from '../report/holds.js';
import { HOLD_ANNOTATION } from '../apis/budget-hold.js';
import type { LockHolder } from '../apis/lock.js';

export interface HeldDrift {
  /** NodePools with a budget hold or with held nodes. */
  pools: NodePoolView[];
  /** Nodes of those NodePools that karp-drift holds with do-not-disrupt. */
  nodes: NodeView[];
}

/** Which of these NodePools karp-drift holds, and how (pure). */
export function heldIn(pools: readonly NodePoolView[], nodes: readonly NodeView[]): HeldDrift {
  const heldNodes = nodes.filter((n) => n.heldBy !== undefined && pools.some((p) => p.name === n.nodePool));
  return {
    pools: pools.filter(
      (p) => p.annotations?.[HOLD_ANNOTATION] !== undefined || heldNodes.some((n) => n.nodePool === p.name),
    ),
    nodes: heldNodes,
  };
}

/** Reads the Nodes of Karpenter's NodePools and says which of `pools` karp-drift holds (pause --held, resume). */
export async function readHeld(
  cluster: Cluster,
  pools: readonly NodePoolView[],
  signal?: AbortSignal,
): Promise<HeldDrift> {
  const nodes = await listAll(cluster, NODES, { query: { labelSelector: 'karpenter.sh/nodepool' }, signal });
  return heldIn(pools, nodes.items);
}

/** What releasing `held` writes, for the access review: the budgets of the NodePools holding them, and nodes. */
export function heldWrites(held: HeldDrift): HoldWrites {
  return {
    nodePools: held.pools.filter((p) => p.annotations?.[HOLD_ANNOTATION] !== undefined).map((p) => p.name),
    nodes: held.nodes.length > 0,
  };
}

/** Releases every hold in `held`, NodePool by NodePool; the caller holds the cluster lock. */
export async function releaseHolds(
  cluster: Cluster,
  api: KarpenterApi,
  held: HeldDrift,
  holder: LockHolder,
  signal: AbortSignal,
): Promise<PoolHoldOutcome[]> {
  const done: PoolHoldOutcome[] = [];
  for (const pool of held.pools) {
    signal.throwIfAborted();
    const outcomes: PoolHoldOutcome[] = [];
    if (pool.annotations?.[HOLD_ANNOTATION] !== undefined) {
      const r = await releaseBudgetHold(cluster, api, pool.name, signal);
      outcomes.push({ nodePool: pool.name, mechanism: 'budget', budgets: r.budgets, unchanged: !r.changed });
    }
    const nodes = held.nodes.filter((n) => n.nodePool === pool.name);
    if (nodes.length > 0) {
      let released = 0;
      for (const n of nodes) if (await releaseNode(cluster, n.name, signal)) released++;
      outcomes.push({ nodePool: pool.name, mechanism: 'node', nodes: released, unchanged: released === 0 });
      // The budget release drops it in the same write; a NodePool held with its nodes only needs its own.
      if (pool.annotations?.[PAUSE_ANNOTATION] !== undefined) await setPauseRecord(cluster, api, pool.name, null, signal);
    }
    for (const outcome of outcomes) {
      await recordNodePoolEvent(
        cluster,
        { api, nodePool: pool },
        'StagedRolloutResumed',
        `${holdOutcomeText('resumed', outcome)}, by karp-drift ${holder.command.split(' ')[0]} (${holder.user}@${holder.host})`,
      );
    }
    done.push(...outcomes);
  }
  return done;
}
