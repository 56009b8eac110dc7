// The provisioner (kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go Reconcile, Schedule,
// batcher.go; controller.go's pod and node triggers): woken when kube-scheduler leaves a pod pending and when a node is
// tainted for disruption, it waits until no trigger has come for a second (at most ten), then places the pending pods
// and the deleting nodes' pods on the active nodes, NodeClaims not yet launched included, nominates the nodes it
// relies on, and creates a NodeClaim for each group of pods that fits nowhere. So a node deleted without a
// replacement leaves its pods Pending until the capacity this launches comes up.
import { nextHostname, schedulingInput, schedulingPod, stateNodes } from './cluster-state.js';
import { nominate } from './batcher.js';
import { NODEPOOLS, key, type SimContext } from './context.js';
import { createNodeClaim, instanceTypeFor } from './replacement.js';
import { solve } from './scheduler.js';

/** options.go BatchIdleDuration and BatchMaxDuration. */
const BATCH_IDLE_MS = 1000;
const BATCH_MAX_MS = 10_000;

export function reconcileProvisioner(ctx: SimContext): void {
  const batch = ctx.memory.provisionerBatch;
  const now = ctx.clock.now().getTime();
  if (!batch || (now < batch.last + BATCH_IDLE_MS && now < batch.first + BATCH_MAX_MS)) return;
  ctx.memory.provisionerBatch = undefined;
  const input = schedulingInput(ctx, stateNodes(ctx));
  const pods = [...input.pending, ...input.deleting];
  if (pods.length === 0) return;
  if (input.templates.length === 0) return ctx.log('no nodepools found');
  const results = solve(pods.map(schedulingPod), [...input.active.values()], input.templates, () => nextHostname(ctx));
  for (const placed of results.existing) if (placed.pods.length > 0) nominate(ctx, placed.node.nodeClaim);
  if (results.newNodeClaims.length === 0) return;
  const byKey = new Map(pods.map((p) => [key(p), p]));
  ctx.log(`found provisionable pod(s): ${results.newNodeClaims.flatMap((n) => n.pods.map((p) => p.key)).slice(0, 5).join(', ')}`);
  for (const made of results.newNodeClaims) {
    const pool = ctx.store.get(NODEPOOLS, made.template.nodePool);
    if (!pool) continue;
    const placed = made.pods.flatMap((p) => byKey.get(p.key) ?? []);
    const claim = createNodeClaim(ctx, pool, instanceTypeFor(ctx, pool, placed));
    nominate(ctx, claim.metadata.name);
  }
}
