// Reads the Argo CD Applications and Flux Kustomizations (with their GitRepositories) that track the classes and
// NodePools in a plan, so `plan` and `upgrade` can say which repository, path and revision to change. Optional and
// read-only: a read the identity may not make, or of a kind the cluster does not serve, is said and never fails the
// command (the optional ClusterRole karp-drift-gitops-reader of deploy/rbac-gitops.yaml grants these reads).
import {
  applicationSource,
  kustomizationSource,
  kustomizationSourceRef,
  ownerKey,
  type GitOpsOwnerRef,
  type GitOpsSourceRead,
} from '../apis/gitops-sources.js';
import type { Cluster } from './client.js';
import { ApiError, getJson } from './request.js';
import { READ_RETRY, retrying } from './retry.js';

export const GITOPS_READER_ROLE = 'karp-drift-gitops-reader';

const APPLICATIONS = '/apis/argoproj.io/v1alpha1';
const KUSTOMIZATIONS = '/apis/kustomize.toolkit.fluxcd.io/v1';
const GIT_REPOSITORIES = '/apis/source.toolkit.fluxcd.io/v1';

/** Each owner once, by ownerKey. */
export async function readGitOpsSources(
  cluster: Cluster,
  refs: readonly GitOpsOwnerRef[],
  signal?: AbortSignal,
): Promise<Map<string, GitOpsSourceRead>> {
  const unique = [...new Map(refs.map((r) => [ownerKey(r), r])).values()];
  const read = await Promise.all(unique.map(async (ref) => [ownerKey(ref), await readOne(cluster, ref, signal)] as const));
  return new Map(read);
}

async function readOne(cluster: Cluster, ref: GitOpsOwnerRef, signal?: AbortSignal): Promise<GitOpsSourceRead> {
  try {
    if (ref.kind === 'Application') return await readApplication(cluster, ref, signal);
    if (ref.kind === 'Kustomization') return await readKustomization(cluster, { ...ref, namespace: ref.namespace! }, signal);
    return { ref, unread: `karp-drift reads Argo CD Applications and Flux Kustomizations; a HelmRelease takes the values from where its chart's values are kept` };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { ref, unread: unreadWhy(err) };
  }
}

async function readApplication(cluster: Cluster, ref: GitOpsOwnerRef, signal?: AbortSignal): Promise<GitOpsSourceRead> {
  if (ref.namespace !== undefined) {
    const path = `${APPLICATIONS}/namespaces/${encodeURIComponent(ref.namespace)}/applications/${encodeURIComponent(ref.name)}`;
    return applicationSource(ref, await get(cluster, path, {}, signal));
  }
  // Argo CD's tracking leaves its own namespace out (argocd, usually): the Application is found by name.
  const list = await get<{ items?: unknown[] }>(cluster, `${APPLICATIONS}/applications`, { fieldSelector: `metadata.name=${ref.name}` }, signal);
  const items = list.items ?? [];
  if (items.length === 0) return { ref, unread: `no Application named ${ref.name} in any namespace` };
  if (items.length > 1) {
    const where = items.map((i) => (i as { metadata?: { namespace?: string } }).metadata?.namespace ?? '?').join(', ');
    return { ref, unread: `Applications named ${ref.name} in ${where}: the tracking does not say which` };
  }
  return applicationSource(ref, items[0]);
}

async function readKustomization(cluster: Cluster, ref: GitOpsOwnerRef & { namespace: string }, signal?: AbortSignal): Promise<GitOpsSourceRead> {
  const ks = await get(cluster, `${KUSTOMIZATIONS}/namespaces/${encodeURIComponent(ref.namespace)}/kustomizations/${encodeURIComponent(ref.name)}`, {}, signal);
  const source = kustomizationSourceRef(ks);
  if (source === undefined || source.kind !== 'GitRepository')
    return kustomizationSource(ref, ks, { unread: source === undefined ? 'no spec.sourceRef' : `karp-drift reads GitRepositories, not ${source.kind}s` });
  const path = `${GIT_REPOSITORIES}/namespaces/${encodeURIComponent(source.namespace)}/gitrepositories/${encodeURIComponent(source.name)}`;
  const repository = await get(cluster, path, {}, signal).then(
    (object) => ({ object }),
    (err: unknown) => {
      if (signal?.aborted) throw err;
      return { unread: unreadWhy(err) };
    },
  );
  return kustomizationSource(ref, ks, repository);
}

function get<T = unknown>(cluster: Cluster, path: string, query: Record<string, string>, signal?: AbortSignal): Promise<T> {
  return retrying(() => getJson<T>(cluster, path, query, signal), READ_RETRY, signal);
}

/** The API server's own words; a 403 also says which role grants the read. */
function unreadWhy(err: unknown): string {
  const e = err instanceof Error && 'cause' in err && err.cause instanceof ApiError ? err.cause : err;
  if (e instanceof ApiError) {
    const message = e.status.message ?? e.message;
    if (e.code === 403) return `${message} (the optional ClusterRole ${GITOPS_READER_ROLE} of deploy/rbac-gitops.yaml grants it)`;
    if (e.code === 404) return `not found: ${message}`;
    return message;
  }
  return err instanceof Error ? err.message : String(err);
}
