// Node and NodeClaim termination (kubernetes-sigs/karpenter pkg/controllers/node/termination, nodeclaim/lifecycle
// finalize; DOMAIN.md §1.4): a deleted NodeClaim deletes its Node; the Node is tainted and drained through evictions
// that honour PDBs and do-not-disrupt (FailedDraining while pods wait), then the instance is terminated
// (InstanceTerminating) and the karpenter.sh/termination finalizers are removed, Node first.
import type { KubeObject } from '../kube-api/types.js';
import { NODECLAIMS, key, setConditions, spec, status, writeObject, type SimContext } from './context.js';
import { taint } from './disruption-controller.js';
import { blockingPdb, recordEviction } from './pdbs.js';
import { doNotDisruptHolds, recreatePod, reschedulablePods } from './pods.js';
import { TERMINATION_FINALIZER, conditionOf, rfc3339 } from './objects.js';

const TGP_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';

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
      metadata: {
        ...claim.metadata,
        annotations: { ...claim.metadata.annotations, [TGP_ANNOTATION]: rfc3339(deadline) },
      },
    });
  }
  const nodeName = status<{ nodeName?: string }>(current).nodeName;
  const node = nodeName ? ctx.store.get('nodes', nodeName) : undefined;
  if (node) {
    if (!node.metadata.deletionTimestamp) ctx.store.delete('nodes', nodeName ?? '');
    drainNode(ctx, ctx.store.get('nodes', nodeName ?? '') ?? node, current);
    return;
  }
  // The Node is gone (or never registered): terminate the instance, then let the NodeClaim go.
  if (
    conditionOf(current, 'InstanceTerminating')?.status !== 'True' &&
    conditionOf(current, 'Launched')?.status === 'True'
  ) {
    current = setConditions(ctx, NODECLAIMS, current, [
      { type: 'InstanceTerminating', status: 'True', reason: 'InstanceTerminating', message: '' },
    ]);
  }
  ctx.store.update(
    NODECLAIMS,
    {
      ...current,
      metadata: {
        ...current.metadata,
        finalizers: (current.metadata.finalizers ?? []).filter((f) => f !== TERMINATION_FINALIZER),
      },
    },
    { manager: 'karpenter' },
  );
  ctx.memory.lifecycle.delete(current.metadata.name ?? '');
  ctx.memory.deletingSince.delete(current.metadata.name ?? '');
  ctx.log(`deleted nodeclaim ${current.metadata.name}`);
}

function drainNode(ctx: SimContext, node: KubeObject, claim: KubeObject): void {
  taint(ctx, node);
  const nodeName = node.metadata.name ?? '';
  const now = ctx.clock.now().getTime();
  const deadline = tgpDeadline(ctx, claim);
  const waiting: KubeObject[] = [];
  const pods = reschedulablePods(ctx, nodeName).filter((p) => !ctx.memory.terminating.has(key(p)));
  for (const pod of pods) {
    // terminator.go DeleteExpiringPods: at the deadline minus the pod's own grace period the pod is deleted,
    // whatever its PDB or do-not-disrupt say, so it gets all of that grace before the instance goes.
    if (deadline !== undefined && now >= deadline - podGraceMs(pod)) {
      forceDelete(ctx, pod, claim, deadline, now, node.metadata.labels?.['karpenter.sh/nodepool']);
      continue;
    }
    if (doNotDisruptHolds(ctx, pod) || blockingPdb(ctx, pod) !== undefined) {
      waiting.push(pod);
      continue;
    }
    evict(ctx, pod, node.metadata.labels?.['karpenter.sh/nodepool']);
  }
  const terminatingHere = [...ctx.memory.terminating.keys()].some((k) => {
    const [namespace, name] = k.split('/') as [string, string];
    return spec<{ nodeName?: string }>(ctx.store.get('pods', name, namespace) ?? node).nodeName === nodeName;
  });
  // Once the terminationGracePeriod has elapsed the instance is terminated without waiting for the drain.
  const elapsed = deadline !== undefined && now >= deadline;
  if (!elapsed && (waiting.length > 0 || terminatingHere)) {
    setDrained(ctx, claim, false);
    if (waiting.length > 0) {
      ctx.events.publish({
        object: node,
        type: 'Warning',
        reason: 'FailedDraining',
        message: `Failed to drain node, ${waiting.length} pods are waiting to be evicted`,
      });
    }
    return;
  }
  // Drained: what is left (DaemonSet pods) goes with the node.
  for (const pod of ctx.store.objects.podsOnNode(nodeName))
    ctx.store.delete('pods', pod.metadata.name ?? '', pod.metadata.namespace);
  setDrained(ctx, claim, true);
  const latest = ctx.store.get('nodes', nodeName);
  if (latest)
    ctx.store.update(
      'nodes',
      {
        ...latest,
        metadata: {
          ...latest.metadata,
          finalizers: (latest.metadata.finalizers ?? []).filter((f) => f !== TERMINATION_FINALIZER),
        },
      },
      { manager: 'karpenter' },
    );
  ctx.memory.notReady.delete(nodeName);
  ctx.log(`deleted node ${nodeName}`);
}

/** spec.terminationGracePeriodSeconds; the API server defaults it to 30. */
function podGraceMs(pod: KubeObject): number {
  return (spec<{ terminationGracePeriodSeconds?: number }>(pod).terminationGracePeriodSeconds ?? 30) * 1000;
}

function evict(ctx: SimContext, pod: KubeObject, nodePool: string | undefined): void {
  recordEviction(ctx, pod);
  ctx.events.publish({ object: pod, type: 'Normal', reason: 'Evicted', message: 'Evicted pod: Drifted' });
  terminate(ctx, pod, nodePool);
}

/** The pod deleted (not evicted) at the terminationGracePeriod deadline, with terminator/events.go's `Disrupted`. */
function forceDelete(
  ctx: SimContext,
  pod: KubeObject,
  claim: KubeObject,
  deadline: number,
  now: number,
  nodePool: string | undefined,
): void {
  const granted = Math.max(0, Math.floor((deadline - now) / 1000));
  const at = goTime(claim.metadata.annotations?.[TGP_ANNOTATION]);
  ctx.events.publish({
    object: pod,
    type: 'Normal',
    reason: 'Disrupted',
    message: `Deleting the pod to accommodate the terminationTime ${at} of the node. The pod was granted ${granted} seconds of grace-period of its ${podGraceMs(pod) / 1000} terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.`,
  });
  ctx.log(`deleting pod ${key(pod)}: terminationGracePeriod of nodeclaim ${claim.metadata.name} expiring`);
  terminate(ctx, pod, nodePool);
}

function terminate(ctx: SimContext, pod: KubeObject, nodePool: string | undefined): void {
  const slow = ctx.faults.slowDrain?.podTerminationSeconds ?? 0;
  if (slow > 0) ctx.memory.terminating.set(key(pod), ctx.clock.now().getTime() + slow * 1000);
  else ctx.store.delete('pods', pod.metadata.name ?? '', pod.metadata.namespace);
  recreatePod(ctx, pod, nodePool);
}

/** Go's default time.Time format, as `%v` prints the deadline: `2026-11-23 10:30:00 +0000 UTC`. */
function goTime(rfc3339Time: string | undefined): string {
  const ms = Date.parse(rfc3339Time ?? '');
  return Number.isNaN(ms)
    ? (rfc3339Time ?? '')
    : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

function setDrained(ctx: SimContext, claim: KubeObject, drained: boolean): void {
  const latest = ctx.store.get(NODECLAIMS, claim.metadata.name ?? '');
  if (!latest) return;
  const want = drained ? 'True' : 'Unknown';
  if (conditionOf(latest, 'Drained')?.status === want) return;
  setConditions(ctx, NODECLAIMS, latest, [
    drained
      ? { type: 'Drained', status: 'True', reason: 'Drained', message: '' }
      : { type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' },
  ]);
}

// Go's time.ParseDuration for the forms the CRD allows (e.g. 24h, 1h30m, 90s).
function goDurationMs(text: string): number {
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g))
    ms += Number(n) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : 1000);
  return ms;
}
