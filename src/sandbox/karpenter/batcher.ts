// The two marks scheduling runs leave for each other (kubernetes-sigs/karpenter pkg/controllers/provisioning/
// batcher.go Trigger; pkg/controllers/state/cluster.go NominateNodeForPod): a trigger wakes the provisioner, and a
// nomination keeps disruption off a node a run relies on for a pod (`Node is nominated for a pending pod`).
import type { SimContext } from './context.js';

/** statenode.go nominationWindow: max(2 × BatchMaxDuration, 10 s), 20 s with the default 10 s batch. */
const NOMINATION_WINDOW_MS = 20_000;

/** Batcher.Trigger: the provisioner runs once no trigger has come for a second (at most ten after the first). */
export function triggerProvisioner(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  ctx.memory.provisionerBatch = { first: ctx.memory.provisionerBatch?.first ?? now, last: now };
}

/** Cluster.NominateNodeForPod. */
export function nominate(ctx: SimContext, nodeClaim: string | undefined): void {
  if (nodeClaim) ctx.memory.nominatedUntil.set(nodeClaim, ctx.clock.now().getTime() + NOMINATION_WINDOW_MS);
}
