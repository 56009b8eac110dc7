// Kubernetes Events that karp-drift records on the NodePools it paces, so that a teammate running
// `kubectl get events` or `kubectl describe nodepool`, or looking at Argo CD, sees what is holding drift and why,
// without karp-drift on their machine. core/v1 Events (what kubectl describe shows), source `karp-drift`, in the
// `default` namespace as the API server files events of cluster-scoped objects.
import { randomBytes } from 'node:crypto';
import type { Cluster } from './client.js';
import { ApiError, sendJson } from './request.js';
import { retrying } from './retry.js';
import type { KarpenterApi } from '../karpenter/views.js';

export type StageEventReason =
  | 'StagedRolloutStage'
  | 'StagedRolloutWave'
  | 'StagedRolloutSoak'
  | 'StagedRolloutHold'
  | 'StagedRolloutRelease'
  | 'StagedRolloutPaused'
  | 'StagedRolloutResumed'
  | 'StagedRolloutCompleted';

export interface EventTarget {
  api: KarpenterApi;
  nodePool: { name: string; uid: string };
}

/**
 * Best effort: an Event that cannot be written (RBAC, a hiccup) never fails the rollout it describes. No Event
 * without the NodePool's uid: `kubectl describe` finds an object's Events by its uid, so one written without it would
 * be seen by nobody. Under a staged run's cluster lock it is tried again as the run's holds are (retry.ts `retryOn`),
 * under the same name, so a create whose answer was lost answers 409 AlreadyExists the second time: written once.
 */
export async function recordNodePoolEvent(
  cluster: Cluster,
  target: EventTarget,
  reason: StageEventReason,
  message: string,
  options: { type?: 'Normal' | 'Warning'; now?: Date; signal?: AbortSignal } = {},
): Promise<boolean> {
  if (target.nodePool.uid === '') return false;
  const now = options.now ?? new Date();
  const name = `${target.nodePool.name}.${randomBytes(8).toString('hex')}`;
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const body = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: {
      apiVersion: `karpenter.sh/${target.api}`,
      kind: 'NodePool',
      name: target.nodePool.name,
      uid: target.nodePool.uid,
    },
    reason,
    message,
    type: options.type ?? 'Normal',
    source: { component: 'karp-drift' },
    reportingComponent: 'karp-drift',
    reportingInstance: 'karp-drift',
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
  let tries = 0;
  const post = async () => {
    try {
      await sendJson(cluster, '/api/v1/namespaces/default/events', { method: 'POST', body }, {}, options.signal);
    } catch (err) {
      if (tries++ > 0 && err instanceof ApiError && err.code === 409) return; // the first one landed
      throw err;
    }
  };
  try {
    const { lease } = cluster;
    if (lease === undefined) await post();
    else await retrying(post, lease.retry, options.signal ? AbortSignal.any([options.signal, lease.lost]) : lease.lost);
    return true;
  } catch {
    return false;
  }
}
