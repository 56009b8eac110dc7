// Which nodes a disruption pass may act on (kubernetes-sigs/karpenter pkg/controllers/disruption/helpers.go
// GetCandidates, types.go NewCandidate; pkg/controllers/state/statenode.go ValidateNodeDisruptable,
// ValidatePodsDisruptable): every state node is validated on every pass, and one that may not be disrupted is
// reported with DisruptionBlocked on its Node and NodeClaim (deduplicated per object for 2 minutes, whatever the
// message), in Karpenter's words capitalised by pretty.Sentence: `Nodeclaim does not have an associated node`,
// `Node isn't initialized`, `Node is deleting or marked for deletion`, `Node is nominated for a pending pod`, a
// Node's do-not-disrupt; then, for the drifted ones, the pods' do-not-disrupt and PDBs (a NodeClaim with its own
// terminationGracePeriod ignores those: drift is an "eventual" method).
// Karpenter validates the pods of every node this way, drifted or not; the sandbox only those of drifted nodes, whose
// verdict is the only one it acts on, so a large fleet costs its drifted nodes' pods per pass.
import type { KubeObject } from '../kube-api/types.js';
import type { StateNode } from './cluster-state.js';
import { NODEPOOLS, key, spec, type SimContext } from './context.js';
import { conditionOf } from './objects.js';
import { blockingPdb } from './pdbs.js';
import { activePods, doNotDisruptHolds, hasDoNotDisrupt, reschedulablePods } from './pods.js';

/** A node that passed validation (Karpenter's Candidate). */
export interface Candidate {
  state: StateNode;
  claim: KubeObject;
  node: KubeObject;
  nodePool: string;
  /** The Drifted condition's lastTransitionTime; undefined when not drifted. */
  driftedAt?: string;
  /** Drifted, and no pod that must move: drift takes these first (not looked at for the others). */
  empty: boolean;
}

/** Every node that may be disrupted now, drifted or not; DisruptionBlocked on the others. */
export function candidates(ctx: SimContext, nodes: readonly StateNode[]): Candidate[] {
  const pools = new Set(ctx.store.list(NODEPOOLS).map((p) => p.metadata.name ?? ''));
  const now = ctx.clock.now().getTime();
  const out: Candidate[] = [];
  for (const n of nodes) {
    const reason = nodeBlock(ctx, n, now);
    if (reason !== undefined) {
      publishBlocked(ctx, n.node, n.claim, reason);
      continue;
    }
    const node = n.node!;
    if (!pools.has(n.nodePool)) {
      publishBlocked(ctx, node, n.claim, `NodePool "${n.nodePool}" not found`);
      continue;
    }
    const drifted = conditionOf(n.claim, 'Drifted');
    const driftedAt = drifted?.status === 'True' ? drifted.lastTransitionTime : undefined;
    if (driftedAt !== undefined) {
      const podBlock = blockReason(ctx, n.claim, node);
      if (podBlock !== undefined) {
        publishBlocked(ctx, node, n.claim, podBlock);
        continue;
      }
    }
    const empty = driftedAt !== undefined && reschedulablePods(ctx, node.metadata.name ?? '').length === 0;
    out.push({ state: n, claim: n.claim, node, nodePool: n.nodePool, ...(driftedAt ? { driftedAt } : {}), empty });
  }
  return out;
}

/** statenode.go ValidateNodeDisruptable, in pretty.Sentence's capitalisation. */
function nodeBlock(ctx: SimContext, n: StateNode, now: number): string | undefined {
  if (!n.node) return 'Nodeclaim does not have an associated node';
  if (!n.initialized) return "Node isn't initialized";
  if (n.markedForDeletion || n.node.metadata.deletionTimestamp) return 'Node is deleting or marked for deletion';
  if ((ctx.memory.nominatedUntil.get(n.claim.metadata.name ?? '') ?? 0) > now) return 'Node is nominated for a pending pod';
  if (hasDoNotDisrupt(n.node)) return 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';
  return undefined;
}

/** disruption/events.go Blocked: on the Node and the NodeClaim, each deduplicated on its uid (every 2 minutes). */
export function publishBlocked(ctx: SimContext, node: KubeObject | undefined, claim: KubeObject, message: string): void {
  for (const object of node ? [node, claim] : [claim])
    ctx.events.publish({ object, type: 'Normal', reason: 'DisruptionBlocked', message });
}

/**
 * Why a drifted node's pods keep it from disruption now, in Karpenter's words (statenode.go
 * ValidatePodsDisruptable): do-not-disrupt on any active pod first, then the PDBs of the pods Karpenter would evict.
 */
export function blockReason(ctx: SimContext, claim: KubeObject, node: KubeObject): string | undefined {
  if (hasDoNotDisrupt(node)) return 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';
  const pods = activePods(ctx, node.metadata.name ?? '');
  const held = pods.find((pod) => doNotDisruptHolds(ctx, pod));
  let reason = held ? `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=${key(held)})` : undefined;
  for (const pod of pods) reason ??= blockingPdb(ctx, pod);
  // Drift is an "eventual" method: a NodeClaim with its own terminationGracePeriod ignores pod-level blockers.
  return spec<{ terminationGracePeriod?: string }>(claim).terminationGracePeriod ? undefined : reason;
}

/**
 * The consolidation methods that run after drift found nothing (emptiness.go, consolidation.go ShouldDisrupt): a
 * NodePool whose consolidateAfter is Never publishes `Unconsolidatable` on each candidate's Node and NodeClaim (15-
 * minute dedupe). The consolidation itself is not simulated.
 */
export function publishUnconsolidatable(ctx: SimContext, found: readonly Candidate[]): void {
  const disabled = new Set(
    ctx.store
      .list(NODEPOOLS)
      .filter((p) => spec<{ disruption?: { consolidateAfter?: string } }>(p).disruption?.consolidateAfter === 'Never')
      .map((p) => p.metadata.name ?? ''),
  );
  for (const c of found) {
    if (!disabled.has(c.nodePool)) continue;
    for (const object of [c.node, c.claim])
      ctx.events.publish({
        object,
        type: 'Normal',
        reason: 'Unconsolidatable',
        message: `NodePool "${c.nodePool}" has consolidation disabled`,
        dedupeTimeoutMs: 15 * 60_000,
      });
  }
}
