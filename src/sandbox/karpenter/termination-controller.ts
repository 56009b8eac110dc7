// Node and NodeClaim termination (kubernetes-sigs/karpenter pkg/controllers/node/termination/controller.go finalize,
// terminator/terminator.go Drain; nodeclaim/lifecycle finalize; utils/termination EnsureTerminated; DOMAIN.md §1.4).
// A deleted NodeClaim deletes its Node. The Node is tainted and drained, re-checked every second: its pods are
// evicted (PDBs and do-not-disrupt honoured), and while any is still there the drain fails with `FailedDraining`
// "Failed to drain node, N pods are waiting to be evicted" on the Node and `Drained` Unknown on the NodeClaim. Once
// they are gone (DaemonSet pods last, with the node): `Drained` and `VolumesDetached` True, then the instance is
// terminated (`InstanceTerminating` True) and looked at again 5 s later, when it is gone: the Node's
// karpenter.sh/termination finalizer is removed, then the NodeClaim's, each with operatorpkg's `Finalized` event.
import type { KubeObject } from '../kube-api/types.js';
import { NODECLAIMS, key, setConditions, spec, status, writeObject, type SimContext } from './context.js';
import { taint } from './disruption-queue.js';
import { blockingPdb, recordEviction } from './pdbs.js';
import { doNotDisruptHolds, isDaemonSetPod, isTerminal, recreatePod } from './pods.js';
import { TERMINATION_FINALIZER, conditionOf, isTrue, rfc3339 } from './objects.js';

const TGP_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';
/** controller.go: a drain that is not done is retried a second later. */
const DRAIN_RETRY_MS = 1000;
/** controller.go: after the instance's deletion is requested, it is looked at again 5 s later. */
const INSTANCE_RECHECK_MS = 5000;

export function reconcileTermination(ctx: SimContext): void {
  for (const claim of ctx.store.list(NODECLAIMS)) {
    if (!claim.metadata.deletionTimestamp || !claim.metadata.finalizers?.includes(TERMINATION_FINALIZER)) continue;
    if (ctx.budget.exhausted()) return;
    finalizeNodeClaim(ctx, claim);
  }
}

/** The simulated instant the claim's terminationGracePeriod runs out, counted from when deletion was first seen. */
function tgpDeadline(ctx: SimContext, claim: KubeObject): number | undefined {
  const tgp = spec<{ terminationGracePeriod?: string }>(claim).terminationGracePeriod;
  const name = claim.metadata.name ?? '';
  if (!tgp) return undefined;
  const since = ctx.memory.deletingSince.get(name) ?? ctx.clock.now().getTime();
  ctx.memory.deletingSince.set(name, since);
  return since + goDurationMs(tgp);
}

function finalizeNodeClaim(ctx: SimContext, claim: KubeObject): void {
  let current = claim;
  const tgp = spec<{ terminationGracePeriod?: string }>(claim).terminationGracePeriod;
  if (tgp && !claim.metadata.annotations?.[TGP_ANNOTATION]) {
    const deadline = new Date(Date.parse(claim.metadata.deletionTimestamp ?? '') + goDurationMs(tgp));
    current = writeObject(ctx, NODECLAIMS, {
      ...claim,
      metadata: { ...claim.metadata, annotations: { ...claim.metadata.annotations, [TGP_ANNOTATION]: rfc3339(deadline) } },
    });
  }
  const nodeName = status<{ nodeName?: string }>(current).nodeName;
  const node = nodeName ? ctx.store.get('nodes', nodeName) : undefined;
  if (node) {
    if (!node.metadata.deletionTimestamp) ctx.store.delete('nodes', nodeName ?? '');
    if (!terminateNode(ctx, ctx.store.get('nodes', nodeName ?? '') ?? node, current)) return;
    current = ctx.store.get(NODECLAIMS, current.metadata.name ?? '') ?? current;
  }
  // The Node is gone (or never registered): the instance is terminated, then the NodeClaim goes.
  if (!instanceGone(ctx, current)) return;
  removeFinalizer(ctx, NODECLAIMS, current);
  ctx.memory.lifecycle.delete(current.metadata.name ?? '');
  ctx.memory.deletingSince.delete(current.metadata.name ?? '');
  ctx.log(`deleted nodeclaim ${current.metadata.name}`);
}

/** The node termination controller's reconcile; true once the Node is gone. */
function terminateNode(ctx: SimContext, node: KubeObject, claim: KubeObject): boolean {
  const nodeName = node.metadata.name ?? '';
  const now = ctx.clock.now().getTime();
  if (now < (ctx.memory.terminationAt.get(nodeName) ?? 0)) return false;
  taint(ctx, node);
  const waiting = drain(ctx, node, claim);
  if (waiting > 0) {
    ctx.events.publish({
      object: node,
      type: 'Warning',
      reason: 'FailedDraining',
      message: `Failed to drain node, ${waiting} pods are waiting to be evicted`,
    });
    setCondition(ctx, claim, { type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' });
    ctx.memory.terminationAt.set(nodeName, now + DRAIN_RETRY_MS);
    return false;
  }
  setCondition(ctx, claim, { type: 'Drained', status: 'True', reason: 'Drained', message: '' });
  setCondition(ctx, claim, { type: 'VolumesDetached', status: 'True', reason: 'VolumesDetached', message: '' });
  if (!instanceGone(ctx, ctx.store.get(NODECLAIMS, claim.metadata.name ?? '') ?? claim)) {
    ctx.memory.terminationAt.set(nodeName, now + INSTANCE_RECHECK_MS);
    return false;
  }
  ctx.memory.terminationAt.delete(nodeName);
  ctx.memory.notReady.delete(nodeName);
  const latest = ctx.store.get('nodes', nodeName);
  if (latest) removeFinalizer(ctx, 'nodes', latest);
  ctx.log(`deleted node ${nodeName}`);
  return true;
}

/**
 * termination.EnsureTerminated: the first call asks the cloud provider to delete the instance (`InstanceTerminating`
 * True) and answers not yet; the instance is gone when looked at again, 5 s later. A NodeClaim that never launched
 * has no instance.
 */
function instanceGone(ctx: SimContext, claim: KubeObject): boolean {
  if (conditionOf(claim, 'Launched')?.status !== 'True') return true;
  const name = claim.metadata.name ?? '';
  const now = ctx.clock.now().getTime();
  if (!isTrue(claim, 'InstanceTerminating')) {
    setCondition(ctx, claim, { type: 'InstanceTerminating', status: 'True', reason: 'InstanceTerminating', message: '' });
    ctx.memory.instanceGoneAt.set(name, now + INSTANCE_RECHECK_MS);
    return false;
  }
  const goneAt = ctx.memory.instanceGoneAt.get(name) ?? now;
  if (now < goneAt) return false;
  ctx.memory.instanceGoneAt.delete(name);
  return true;
}

/**
 * terminator.Drain: evicts the pods it may (the DaemonSet pods once the others are gone) and counts those still
 * waiting for their eviction or their end (IsWaitingEviction: not finished, not a mirror pod, not tolerating the
 * disruption taint). A pod past the NodeClaim's terminationGracePeriod deadline, less its own grace period, is
 * deleted whatever its PDB or do-not-disrupt say.
 */
function drain(ctx: SimContext, node: KubeObject, claim: KubeObject): number {
  const nodeName = node.metadata.name ?? '';
  const now = ctx.clock.now().getTime();
  const deadline = tgpDeadline(ctx, claim);
  const waiting = ctx.store.objects.podsOnNode(nodeName).filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp && !isMirror(p));
  const ordinary = waiting.filter((p) => !isDaemonSetPod(p));
  // Once the terminationGracePeriod has elapsed the instance is terminated without waiting for the drain.
  if (deadline !== undefined && now >= deadline) return 0;
  if (ordinary.length === 0) {
    // The last group: DaemonSet pods go with the node (no controller brings them back to a tainted node).
    for (const pod of waiting) ctx.store.delete('pods', pod.metadata.name ?? '', pod.metadata.namespace);
    return 0;
  }
  for (const pod of ordinary) {
    if (ctx.memory.terminating.has(key(pod))) continue;
    if (deadline !== undefined && now >= deadline - podGraceMs(pod)) forceDelete(ctx, pod, claim, deadline, now);
    else if (!doNotDisruptHolds(ctx, pod) && blockingPdb(ctx, pod) === undefined) evict(ctx, pod);
  }
  return waiting.length;
}

const isMirror = (pod: KubeObject) => (pod.metadata.ownerReferences ?? []).some((r) => r.kind === 'Node');

/** spec.terminationGracePeriodSeconds; the API server defaults it to 30. */
function podGraceMs(pod: KubeObject): number {
  return (spec<{ terminationGracePeriodSeconds?: number }>(pod).terminationGracePeriodSeconds ?? 30) * 1000;
}

function evict(ctx: SimContext, pod: KubeObject): void {
  recordEviction(ctx, pod);
  ctx.events.publish({ object: pod, type: 'Normal', reason: 'Evicted', message: 'Evicted pod: Drifted' });
  terminate(ctx, pod);
}

/** The pod deleted (not evicted) at the terminationGracePeriod deadline, with terminator/events.go's `Disrupted`. */
function forceDelete(ctx: SimContext, pod: KubeObject, claim: KubeObject, deadline: number, now: number): void {
  const granted = Math.max(0, Math.floor((deadline - now) / 1000));
  const at = goTime(claim.metadata.annotations?.[TGP_ANNOTATION]);
  ctx.events.publish({
    object: pod,
    type: 'Normal',
    reason: 'Disrupted',
    message: `Deleting the pod to accommodate the terminationTime ${at} of the node. The pod was granted ${granted} seconds of grace-period of its ${podGraceMs(pod) / 1000} terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.`,
  });
  ctx.log(`deleting pod ${key(pod)}: terminationGracePeriod of nodeclaim ${claim.metadata.name} expiring`);
  terminate(ctx, pod);
}

// The pod terminates (at once, or for slowDrain's seconds), and its ReplicaSet creates the pod that replaces it.
function terminate(ctx: SimContext, pod: KubeObject): void {
  const slow = ctx.faults.slowDrain?.podTerminationSeconds ?? 0;
  if (slow > 0) ctx.memory.terminating.set(key(pod), ctx.clock.now().getTime() + slow * 1000);
  else ctx.store.delete('pods', pod.metadata.name ?? '', pod.metadata.namespace);
  recreatePod(ctx, pod);
}

/** Go's default time.Time format, as `%v` prints the deadline: `2026-11-23 10:30:00 +0000 UTC`. */
function goTime(rfc3339Time: string | undefined): string {
  const ms = Date.parse(rfc3339Time ?? '');
  return Number.isNaN(ms)
    ? (rfc3339Time ?? '')
    : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

function setCondition(
  ctx: SimContext,
  claim: KubeObject,
  condition: { type: string; status: 'True' | 'Unknown'; reason: string; message: string },
): void {
  const latest = ctx.store.get(NODECLAIMS, claim.metadata.name ?? '');
  if (!latest || conditionOf(latest, condition.type)?.status === condition.status) return;
  setConditions(ctx, NODECLAIMS, latest, [condition]);
}

/** Removes karpenter.sh/termination; operatorpkg's status controller publishes `Finalized` for it. */
function removeFinalizer(ctx: SimContext, resource: string, object: KubeObject): void {
  ctx.store.update(
    resource,
    { ...object, metadata: { ...object.metadata, finalizers: (object.metadata.finalizers ?? []).filter((f) => f !== TERMINATION_FINALIZER) } },
    { manager: 'karpenter' },
  );
  ctx.events.publish({ object, type: 'Normal', reason: 'Finalized', message: `Finalized ${TERMINATION_FINALIZER}` });
}

// Go's time.ParseDuration for the forms the CRD allows (e.g. 24h, 1h30m, 90s).
function goDurationMs(text: string): number {
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g))
    ms += Number(n) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : 1000);
  return ms;
}
