// Containers that crash as soon as they start, as the kubelet reports them (pkg/kubelet/kuberuntime
// kuberuntime_manager.go doBackOff, flowcontrol.Backoff): after each exit the container waits in CrashLoopBackOff
// for a back-off that starts at 10 s, doubles with each restart and stops at 5 minutes, then is restarted, crashes
// again and restartCount goes up by one. The pod stays Running and never Ready (ContainersNotReady).
// A pod crash-loops when its container runs the scenario's crashing command (workloads' `crashLooping`) or when it
// starts on a node of a bad AMI release whose symptom is crash-loop (bad-ami.ts). Each restart is one status write,
// taken from a queue ordered by when it falls due, so a pass costs the restarts due now, within the step's budget.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube-api/types.js';
import { key, spec, status, type SimContext } from './context.js';
import { rfc3339 } from './objects.js';

const INITIAL_BACKOFF_SECONDS = 10;
const MAX_BACKOFF_SECONDS = 300;
/** A bad AMI's crash: SIGSEGV (128 + 11), as when a library on the image is broken. */
export const BAD_AMI_EXIT_CODE = 139;

type Container = { name: string; image?: string };

/** The back-off after the restartCount-th restart: 10 s, 20 s, 40 s, … up to 5 minutes. */
export function backOffSeconds(restartCount: number): number {
  return Math.min(INITIAL_BACKOFF_SECONDS * 2 ** Math.max(0, restartCount - 1), MAX_BACKOFF_SECONDS);
}

/** Go's time.Duration String for whole seconds, as the kubelet's message prints the back-off: 10s, 1m20s, 5m0s. */
export function goSeconds(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}

/**
 * The status of a pod whose containers have crashed `restartCount` times, the last just now; its next restart is
 * queued. Called as the pod starts (restartCount 1: the kubelet restarts a container at once after its first exit)
 * and at each restart.
 */
export function crashLoopStatus(
  ctx: SimContext,
  pod: KubeObject,
  restartCount: number,
  exitCode: number,
): Record<string, unknown> {
  const t = rfc3339(ctx.clock.wall());
  const containers = spec<{ containers?: Container[] }>(pod).containers ?? [];
  const names = containers.map((c) => c.name);
  const uid = pod.metadata.uid ?? '';
  const backOff = backOffSeconds(restartCount);
  const unready = { reason: 'ContainersNotReady', message: `containers with unready status: [${names.join(' ')}]` };
  const condition = (type: string) =>
    type === 'Ready' || type === 'ContainersReady'
      ? { type, status: 'False', ...unready, lastTransitionTime: t }
      : { type, status: 'True', lastTransitionTime: t };
  const previous = status<{ conditions?: Array<{ type: string }> }>(pod).conditions ?? [];
  // Conditions keep their transition times once the pod is crash-looping: only the container statuses change.
  const conditions =
    restartCount > 1 && previous.length > 0
      ? previous
      : ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(condition);
  ctx.memory.crashLoops.push(ctx.clock.now().getTime() + backOff * 1000, { podKey: key(pod), uid, exitCode });
  return {
    ...status<Record<string, unknown>>(pod),
    phase: 'Running',
    ...(restartCount === 1 ? { startTime: t } : {}),
    conditions,
    containerStatuses: containers.map((c) => {
      const containerID = `containerd://${hash(`${uid}/${c.name}/${restartCount}`)}`;
      return {
        name: c.name,
        image: c.image ?? '',
        imageID: imageIdOf(c.image),
        containerID,
        ready: false,
        started: false,
        restartCount,
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${goSeconds(backOff)} restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${uid})`,
          },
        },
        lastState: { terminated: { exitCode, reason: 'Error', startedAt: t, finishedAt: t, containerID } },
      };
    }),
  };
}

/** What the kubelet reports for a container that started and runs (the pods controller's start of a healthy pod). */
export function runningContainerStatuses(pod: KubeObject, startedAt: string): Array<Record<string, unknown>> {
  const uid = pod.metadata.uid ?? '';
  return (spec<{ containers?: Container[] }>(pod).containers ?? []).map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: imageIdOf(c.image),
    containerID: `containerd://${hash(`${uid}/${c.name}/0`)}`,
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt } },
  }));
}

/** Restarts the containers whose back-off has run out; each crashes again at once. */
export function reconcileCrashLoops(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  while (!ctx.budget.exhausted()) {
    const due = ctx.memory.crashLoops.popDue(now);
    if (!due) return;
    const [namespace, name] = due.podKey.split('/') as [string, string];
    const pod = ctx.store.get('pods', name, namespace);
    // Gone (drained with its node) or replaced: nothing left to restart.
    if (!pod || pod.metadata.uid !== due.uid || pod.metadata.deletionTimestamp) continue;
    const restarts =
      status<{ containerStatuses?: Array<{ restartCount?: number }> }>(pod).containerStatuses?.[0]?.restartCount ?? 0;
    const updated = ctx.store.update(
      'pods',
      { ...pod, status: crashLoopStatus(ctx, pod, restarts + 1, due.exitCode) },
      { subresource: 'status', manager: 'kubelet' },
    );
    const message = `Back-off restarting failed container ${containerNames(pod)} in pod ${name}_${namespace}(${due.uid})`;
    ctx.events.publish({
      object: updated,
      type: 'Warning',
      reason: 'BackOff',
      message,
      source: 'kubelet',
      dedupe: [due.uid, 'BackOff'],
    });
  }
}

function containerNames(pod: KubeObject): string {
  return (spec<{ containers?: Container[] }>(pod).containers ?? []).map((c) => c.name).join(',');
}

// The sandbox pulls no images and runs no containers: IDs are derived, so a scenario replays the same way without
// drawing from the simulator's random generator.
function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function imageIdOf(image: string | undefined): string {
  return image ? `${image.split(':')[0]}@sha256:${hash(image)}` : '';
}
