// What `upgrade --apply-by git` records on a class once its planned terms arrived from Git, for `rollback`: the terms
// it had before (the same annotations an apply by karp-drift records), the target and run, that Git applied them, and
// the owner's revision then. A JSON merge patch of metadata.annotations alone (an Update by karp-drift): the terms stay
// the GitOps tool's, and its next sync, which applies only the fields its files set, leaves these annotations alone.
import { karpenterResources } from '../karpenter/resources.js';
import type { KarpenterApi } from '../karpenter/views.js';
import { ANNOTATIONS, FIELD_MANAGER } from './apply.js';
import type { Cluster } from './client.js';
import { clusterFailure } from './failures.js';
import { sendJson } from './request.js';
import { READ_RETRY, retrying } from './retry.js';

/** Set once the terms arrived by `upgrade --apply-by git`: `rollback` then goes by Git too. */
export const SYNC_ANNOTATIONS = {
  appliedBy: 'karp-drift.io/applied-by',
  /** The revision the owner reported when the planned terms arrived (the commit to revert, as near as it can tell). */
  syncedRevision: 'karp-drift.io/synced-revision',
} as const;

/** Sets (a string) or removes (null) karp-drift's annotations on a class, nothing else. */
export async function annotateNodeClass(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  annotations: Record<string, string | null>,
  signal?: AbortSignal,
): Promise<void> {
  const path = `${karpenterResources(api).nodeClasses.path}/${encodeURIComponent(name)}`;
  const body = { metadata: { annotations } };
  try {
    await retrying(
      () => sendJson(cluster, path, { method: 'PATCH', body, contentType: 'application/merge-patch+json' }, { fieldManager: FIELD_MANAGER }, signal),
      READ_RETRY,
      signal,
    );
  } catch (err) {
    throw clusterFailure(err, { doing: `recording on ec2nodeclass/${name}`, verb: 'patch', resource: 'ec2nodeclasses.karpenter.k8s.aws' }, cluster);
  }
}

/** Every annotation a run records on a class, to remove them all (null each). */
export const ALL_RECORDS: readonly string[] = [
  ANNOTATIONS.previousTerms,
  ANNOTATIONS.previousFamily,
  ANNOTATIONS.target,
  ANNOTATIONS.runId,
  ANNOTATIONS.promotedFrom,
  SYNC_ANNOTATIONS.appliedBy,
  SYNC_ANNOTATIONS.syncedRevision,
];
