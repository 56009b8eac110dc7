// The NodePool status controllers: counter (KC pkg/controllers/nodepool/counter) writes status.resources, the
// capacity of the NodePool's nodes summed (cpu, memory, pods, ephemeral-storage, and `nodes`, each from "0") with
// status.nodes; readiness (pkg/controllers/nodepool/readiness) and validation write NodeClassReady,
// ValidationSucceeded and the root Ready. kubectl's NODES and READY columns read them. Karpenter counts from its
// cluster state (a state node per NodeClaim) and requeues every 5 s; here the counts are kept from the store's change
// feed, so a pass writes only the NodePools whose counts or class readiness changed, within the step's work budget.
import { EC2NODECLASSES, NODEPOOLS, setConditions, status, type SimContext } from './context.js';
import { COUNTED, nodeClassOf, quantityText } from './nodepool-counts.js';
import { nodeClassReady } from './nodeclass-controller.js';
import { conditionOf } from './objects.js';

export function reconcileNodePools(ctx: SimContext): void {
  const counts = ctx.nodePoolCounts;
  for (const name of [...counts.dirty]) {
    if (ctx.budget.exhausted()) return;
    counts.dirty.delete(name);
    const pool = ctx.store.get(NODEPOOLS, name);
    if (!pool || pool.metadata.deletionTimestamp) continue;
    const t = counts.totals.get(name) ?? { cpu: 0, memory: 0, pods: 0, 'ephemeral-storage': 0, nodes: 0 };
    const resources = Object.fromEntries([...COUNTED, 'nodes' as const].map((r) => [r, quantityText(t[r], r)]));
    const nodeClass = ctx.store.get(EC2NODECLASSES, nodeClassOf(pool) ?? '');
    const classReady = nodeClass ? nodeClassReady(ctx, nodeClass)?.status === 'True' : false;
    const current = status<{ resources?: unknown; nodes?: number }>(pool);
    const generation = pool.metadata.generation ?? 1;
    const wanted = {
      NodeClassReady: classReady ? 'True' : 'False',
      ValidationSucceeded: 'True',
      Ready: classReady ? 'True' : 'False',
    } as const;
    const same =
      JSON.stringify(current.resources) === JSON.stringify(resources) &&
      current.nodes === t.nodes &&
      Object.entries(wanted).every(
        ([type, s]) => conditionOf(pool, type)?.status === s && conditionOf(pool, type)?.observedGeneration === generation,
      );
    if (same) continue;
    const nodeClassCondition = {
      type: 'NodeClassReady',
      status: wanted.NodeClassReady,
      reason: classReady ? 'NodeClassReady' : nodeClass ? 'NodeClassNotReady' : 'NodeClassNotFound',
      message: classReady ? '' : nodeClass ? 'NodeClass is NotReady' : 'NodeClass not found on cluster',
    };
    const validation = { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '' } as const;
    let latest = pool;
    // A new generation (any spec write: a budget included) is reconciled by the validation and readiness controllers
    // apart, and operatorpkg's root Ready is Unknown, ReconcilingDependents, while a dependent still has the old
    // observedGeneration (condition_set.go recomputeRootCondition): a True Ready goes Unknown and back.
    const stale = conditionOf(pool, 'NodeClassReady');
    if (stale && stale.observedGeneration !== generation && conditionOf(pool, 'Ready') !== undefined) {
      latest = setConditions(ctx, NODEPOOLS, pool, [
        validation,
        { type: 'Ready', status: 'Unknown', reason: 'ReconcilingDependents', message: `NodeClassReady=${stale.status}` },
      ]);
    }
    setConditions(
      ctx,
      NODEPOOLS,
      latest,
      [
        nodeClassCondition,
        validation,
        {
          type: 'Ready',
          status: wanted.Ready,
          reason: classReady ? 'Ready' : 'UnhealthyDependents',
          message: classReady ? '' : 'NodeClassReady=False',
        },
      ],
      { resources, nodes: t.nodes },
    );
  }
}
