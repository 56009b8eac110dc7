// What the cluster's other controllers do to pods during a rollout, reduced to their outcome: a ReplicaSet recreates
// an evicted pod, kube-scheduler binds it to a node where it fits, and the kubelet starts it after
// `podStartSeconds`: Running and Ready, or crash-looping (crash-loop.ts) when its container crashes or a bad AMI's
// node breaks every container (bad-ami.ts). PDB status follows from the pods (the sandbox store recomputes it on
// every pod write).
import { DO_NOT_DISRUPT } from '../../karpenter/labels.js';
import { podView } from '../../karpenter/convert.js';
import type { PodView } from '../../karpenter/views.js';
import { doNotDisrupt, invalidDoNotDisruptMessage, isActivePod } from '../../karpenter/disruptable.js';
import type { KubeObject } from '../kube-api/types.js';
import { generatedName } from '../scenarios/names.js';
import { key, spec, status, type SimContext } from './context.js';
import { compatible as nodeMatches } from './drift-controller.js';
import { triggerProvisioner } from './batcher.js';
import { podRequirementTerms } from './requirements.js';
import { add, fits, podRequests, resourceList } from './resources.js';
import { tolerates, type Taint, type Toleration } from './scheduler.js';
import { networkDown, nodeSymptom } from './bad-ami.js';
import { BAD_AMI_EXIT_CODE, crashLoopStatus, runningContainerStatuses } from './crash-loop.js';
import {
  CRASHING_COMMAND,
  DISRUPTED_TAINT,
  DISRUPTING_TAINT_V1BETA1,
  isTrue,
  rfc3339,
} from './objects.js';

type Pod = KubeObject & {
  spec?: { nodeName?: string; nodeSelector?: Record<string, string> };
  status?: { phase?: string; conditions?: unknown[] };
};

export function isDaemonSetPod(pod: KubeObject): boolean {
  return (pod.metadata.ownerReferences ?? []).some((r) => r.kind === 'DaemonSet');
}

export function isTerminal(pod: KubeObject): boolean {
  const phase = (pod as Pod).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Pods that must move when the node goes (Karpenter's "reschedulable" pods): not DaemonSet-owned, not finished. */
export function reschedulablePods(ctx: SimContext, nodeName: string): KubeObject[] {
  return ctx.store.objects
    .podsOnNode(nodeName)
    .filter((p) => !isDaemonSetPod(p) && !isTerminal(p) && !p.metadata.deletionTimestamp);
}

// The store never mutates an object once stored (kube-api/store.ts: a write stores a new one), so a view read from an
// object holds for as long as the object does: every disruption pass validates every drifted node's pods, and reads
// each version once.
const views = new WeakMap<KubeObject, PodView>();

/** karpenter/convert.ts podView, once per version of the pod. */
export function viewOf(pod: KubeObject): PodView {
  let view = views.get(pod);
  if (!view) views.set(pod, (view = podView(pod)));
  return view;
}

/** A Node's `karpenter.sh/do-not-disrupt`: exactly "true" (statenode.go ValidateNodeDisruptable). */
export function hasDoNotDisrupt(node: KubeObject): boolean {
  return node.metadata.annotations?.[DO_NOT_DISRUPT] === 'true';
}

/** Pods Karpenter checks for do-not-disrupt: every active pod bound to the node, DaemonSet and mirror pods too. */
export function activePods(ctx: SimContext, nodeName: string): KubeObject[] {
  return ctx.store.objects.podsOnNode(nodeName).filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp);
}

/**
 * A pod's `karpenter.sh/do-not-disrupt` holds now (scheduling.go IsDoNotDisruptActive: "true", or a positive duration
 * since status.startTime), publishing the events Karpenter publishes as it reads one (pkg/utils/pod/events.go).
 */
export function doNotDisruptHolds(ctx: SimContext, pod: KubeObject): boolean {
  const view = viewOf(pod);
  if (!isActivePod(view)) return false;
  const dnd = doNotDisrupt(view, ctx.clock.wall());
  const uid = pod.metadata.uid ?? key(pod);
  if (dnd.state === 'invalid') {
    const message = invalidDoNotDisruptMessage(dnd.error);
    ctx.events.publish({
      object: pod,
      type: 'Warning',
      reason: 'InvalidDoNotDisruptAnnotation',
      message,
      dedupe: [uid, dnd.error],
    });
  } else if (dnd.state === 'active' && dnd.until !== undefined) {
    const at = rfc3339(dnd.until);
    const message = `The karpenter.sh/do-not-disrupt grace period will elapse at ${at}`;
    ctx.events.publish({ object: pod, type: 'Normal', reason: 'DoNotDisruptUntil', message, dedupe: [uid, at] });
  } else if (dnd.state === 'expired') {
    const message = 'The karpenter.sh/do-not-disrupt grace period has elapsed, pod is now disruptable';
    ctx.events.publish({
      object: pod,
      type: 'Normal',
      reason: 'DoNotDisruptGracePeriodElapsed',
      message,
      dedupe: [uid],
    });
  }
  return dnd.state === 'active';
}

/** A node pods may land on: Ready, initialized, not tainted for disruption, not being deleted. */
export function schedulable(node: KubeObject): boolean {
  const taints = spec<{ taints?: Array<{ key: string }>; unschedulable?: boolean }>(node);
  return (
    !node.metadata.deletionTimestamp &&
    isTrue(node, 'Ready') &&
    node.metadata.labels?.['karpenter.sh/initialized'] === 'true' &&
    !taints.unschedulable &&
    !(taints.taints ?? []).some((t) => t.key === DISRUPTED_TAINT.key || t.key === DISRUPTING_TAINT_V1BETA1.key)
  );
}

// kube-scheduler's filters and its default score (NodeResourcesFit, LeastAllocated): of the nodes the pod's
// nodeSelector and required node affinity allow, whose taints it tolerates and whose free room (allocatable minus
// every pod bound there, terminating ones included) takes its requests, the one with the least CPU requested;
// kube-scheduler breaks ties at random, the sandbox by name so a scenario replays.
function nodeFor(ctx: SimContext, pod: Pod): string | undefined {
  const selector = pod.spec?.nodeSelector ?? {};
  const terms = podRequirementTerms(pod);
  const requests = podRequests(pod);
  const tolerations = spec<{ tolerations?: Toleration[] }>(pod).tolerations ?? [];
  let best: { name: string; load: number } | undefined;
  // Only the selected NodePool's nodes: a drain binds a pod per evicted pod, and on `large` a scan of every node per
  // pod held the simulator's passes at about 4 a second.
  for (const node of ctx.schedulableNodes.candidates(selector)) {
    const labels = node.metadata.labels ?? {};
    if (!terms.some((term) => nodeMatches(term, labels))) continue;
    if (!tolerates(tolerations, spec<{ taints?: Taint[] }>(node).taints ?? [])) continue;
    const name = node.metadata.name ?? '';
    const allocatable = resourceList(status<{ allocatable?: Record<string, string> }>(node).allocatable);
    const used = ctx.nodeUsage.of(name);
    if (!fits(add(used, requests), allocatable)) continue;
    const load = allocatable.cpu > 0 ? used.cpu / allocatable.cpu : used.pods;
    if (!best || load < best.load || (load === best.load && name < best.name)) best = { name, load };
  }
  return best?.name;
}

/**
 * A pod created without a node (by a ReplicaSet after an eviction, or by any client: a scaled Deployment) waits for
 * kube-scheduler, which binds it (or marks it unschedulable) after a latency drawn uniformly from
 * [0, 2 × `podScheduleSeconds`). Until then no controller counts it anywhere: a scheduling run in between sees the room
 * an evicted pod left, which is how Karpenter comes to delete a drifted node without a replacement. Drawn, not fixed: a
 * fixed latency lines up with the one-second passes, so either every pass after an eviction saw the room or none did;
 * a drawn one gives each pass the chance the reference runs showed (a delete in one burst of five in run b2, one a wave
 * in run c). The simulator calls it from the store's change feed, for every pod added without a node.
 */
export function awaitKubeScheduler(ctx: SimContext, pod: KubeObject): void {
  if (spec<{ nodeName?: string }>(pod).nodeName || pod.metadata.deletionTimestamp) return;
  const latencyMs = ctx.rng.next() * 2 * ctx.timing.podScheduleSeconds * 1000;
  ctx.memory.unscheduled.set(key(pod), ctx.clock.now().getTime() + latencyMs);
}

/** The ReplicaSet's answer to an eviction: the same pod template under a new name, Pending, for kube-scheduler. */
export function recreatePod(ctx: SimContext, evicted: KubeObject): void {
  const old = evicted as Pod;
  const owner = old.metadata.ownerReferences?.[0];
  if (!owner) return; // a bare pod has no controller to bring it back
  const base =
    owner.kind === 'ReplicaSet' ? owner.name : (old.metadata.generateName ?? `${old.metadata.name}-`).replace(/-$/, '');
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: generatedName(ctx.rng, `${base}-`, ctx.taken.names),
      namespace: old.metadata.namespace,
      labels: old.metadata.labels,
      ...(old.metadata.annotations ? { annotations: old.metadata.annotations } : {}),
      ownerReferences: old.metadata.ownerReferences,
    },
    spec: { ...(old.spec ?? {}), nodeName: undefined },
    status: { phase: 'Pending' },
  };
  delete pod.spec!.nodeName;
  ctx.store.create('pods', pod, { wholeObject: true, manager: 'kube-controller-manager' });
}

function bind(ctx: SimContext, pod: Pod): boolean {
  const nodeName = nodeFor(ctx, pod);
  if (!nodeName) return false;
  const now = ctx.clock.wall();
  const bound = ctx.store.update(
    'pods',
    { ...pod, spec: { ...pod.spec, nodeName } },
    { wholeObject: true, manager: 'kube-scheduler' },
  );
  ctx.store.update(
    'pods',
    {
      ...bound,
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(now) }],
      },
    },
    { subresource: 'status', manager: 'kube-scheduler' },
  );
  ctx.memory.starting.set(key(pod), ctx.clock.now().getTime() + ctx.timing.podStartSeconds * 1000);
  return true;
}

/** kube-scheduler found no node: PodScheduled False Unschedulable, which makes the pod Karpenter's to provision for. */
function markUnschedulable(ctx: SimContext, pod: Pod): void {
  const total = ctx.schedulableNodes.byName.size;
  ctx.store.update(
    'pods',
    {
      ...pod,
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: `0/${total} nodes are available: ${total} node(s) didn't match Pod's node affinity/selector or had insufficient resources.`,
            lastTransitionTime: rfc3339(ctx.clock.wall()),
          },
        ],
      },
    },
    { subresource: 'status', manager: 'kube-scheduler' },
  );
  ctx.memory.pending.add(key(pod));
  triggerProvisioner(ctx);
}

/**
 * kube-scheduler: binds the pods it has not looked at yet (or marks them unschedulable) and retries the unschedulable
 * ones. While pods stay pending the provisioner is woken every 10 s (its pod controller requeues them). It runs before
 * the disruption controller in a pass, so a pod due by then is bound before Karpenter's scheduling simulation looks.
 */
export function reconcileKubeScheduler(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const [podKey, at] of ctx.memory.unscheduled) {
    if (now < at) continue;
    if (ctx.budget.exhausted()) return;
    ctx.memory.unscheduled.delete(podKey);
    const pod = podAt(ctx, podKey);
    if (pod && !pod.spec?.nodeName && !pod.metadata.deletionTimestamp && !bind(ctx, pod)) markUnschedulable(ctx, pod);
  }
  for (const podKey of ctx.memory.pending) {
    if (ctx.budget.exhausted()) return;
    const pod = podAt(ctx, podKey);
    if (!pod || pod.spec?.nodeName || pod.metadata.deletionTimestamp || bind(ctx, pod)) ctx.memory.pending.delete(podKey);
  }
  if (ctx.memory.pending.size > 0 && now >= ctx.memory.pendingRetriggerAt) {
    ctx.memory.pendingRetriggerAt = now + 10_000;
    triggerProvisioner(ctx);
  }
}

/**
 * The kubelet and the ReplicaSets' other half: removes pods whose termination has ended, then kube-scheduler's turn
 * for pods recreated since, and starts bound pods whose start time has come.
 */
export function reconcilePods(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const [podKey, until] of ctx.memory.terminating) {
    if (now < until) continue;
    if (ctx.budget.exhausted()) return;
    ctx.memory.terminating.delete(podKey);
    const [namespace, name] = podKey.split('/') as [string, string];
    if (ctx.store.get('pods', name, namespace)) ctx.store.delete('pods', name, namespace);
  }
  reconcileKubeScheduler(ctx);
  if (ctx.budget.exhausted()) return;
  for (const [podKey, at] of ctx.memory.starting) {
    if (now < at) continue;
    if (ctx.budget.exhausted()) return;
    ctx.memory.starting.delete(podKey);
    const pod = podAt(ctx, podKey);
    // A never-ready AMI's node has no pod network: the kubelet never starts a pod there (its DaemonSet pods, the only
    // ones bound to it, stay Pending).
    if (pod && nodeSymptom(ctx, spec<{ nodeName?: string }>(pod).nodeName) !== 'never-ready')
      ctx.store.update(
        'pods',
        { ...pod, status: startedStatus(ctx, pod) },
        { subresource: 'status', manager: 'kubelet' },
      );
  }
}

function podAt(ctx: SimContext, podKey: string): Pod | undefined {
  const [namespace, name] = podKey.split('/') as [string, string];
  return ctx.store.get('pods', name, namespace);
}

/** The kubelet's status for a pod it starts: Running and Ready, unless its container crashes or its node is down. */
function startedStatus(ctx: SimContext, pod: KubeObject): Record<string, unknown> {
  const nodeName = spec<{ nodeName?: string }>(pod).nodeName;
  const containers = spec<{ containers?: Array<{ command?: string[] }> }>(pod).containers ?? [];
  if (containers.some((c) => JSON.stringify(c.command) === JSON.stringify(CRASHING_COMMAND)))
    return crashLoopStatus(ctx, pod, 1, 1);
  if (nodeSymptom(ctx, nodeName) === 'crash-loop') return crashLoopStatus(ctx, pod, 1, BAD_AMI_EXIT_CODE);
  const t = rfc3339(ctx.clock.wall());
  // A node whose network the bad AMI has taken down: the node lifecycle controller keeps its pods unready.
  const down = networkDown(ctx, nodeName);
  return {
    ...status<Record<string, unknown>>(pod),
    phase: 'Running',
    startTime: t,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
      type,
      status: down && type === 'Ready' ? 'False' : 'True',
      lastTransitionTime: t,
    })),
    containerStatuses: runningContainerStatuses(pod, t),
  };
}
