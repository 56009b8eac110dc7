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
    const wanted = {
      NodeClassReady: classReady ? 'True' : 'False',
      ValidationSucceeded: 'True',
      Ready: classReady ? 'True' : 'False',
    } as const;
    const same =
      JSON.stringify(current.resources) === JSON.stringify(resources) &&
      current.nodes === t.nodes &&
      Object.entries(wanted).every(([type, s]) => conditionOf(pool, type)?.status === s);
    if (same) continue;
    setConditions(
      ctx,
      NODEPOOLS,
      pool,
      [
        {
          type: 'NodeClassReady',
          status: wanted.NodeClassReady,
          reason: classReady ? 'NodeClassReady' : nodeClass ? 'NodeClassNotReady' : 'NodeClassNotFound',
          message: classReady ? '' : nodeClass ? 'NodeClass is NotReady' : 'NodeClass not found on cluster',
        },
        { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '' },
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
