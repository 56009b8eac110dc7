// Creates objects the way their owners do, so managedFields and annotations look as they do on a real cluster:
// `kubectl apply` (client-side) and Argo CD syncing with server-side apply. karp-drift reads both to warn before it
// changes a field someone else's tooling will put back.
import { serverSideApply } from '../kube-api/server-side-apply.js';
import type { KubeStore, ResourceRef } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';

export const KUBECTL_MANAGER = 'kubectl-client-side-apply';
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const ARGOCD_MANAGER = 'argocd-controller';
export const ARGOCD_INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const ARGOCD_TRACKING_ID = 'argocd.argoproj.io/tracking-id';

/**
 * `kubectl apply` of a new object: kubectl stores the manifest it applied, annotations included (an empty map when
 * there are none), as JSON in the last-applied annotation, and the server records an Update by
 * kubectl-client-side-apply (kubectl apply/apply.go, util.GetModifiedConfiguration).
 */
export function kubectlApply(store: KubeStore, resource: string, manifest: KubeObject): KubeObject {
  const annotations = { ...manifest.metadata.annotations };
  const applied = { ...manifest, metadata: { ...manifest.metadata, annotations } };
  // Go's json.Marshal of an unstructured object sorts keys, and its encoder ends the document with a newline.
  const lastApplied = `${canonicalJson(applied)}\n`;
  const object = {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { ...annotations, [LAST_APPLIED]: lastApplied } },
  };
  return store.create(resource, object, { manager: KUBECTL_MANAGER });
}

/** The GitOps tools the sandbox stands in for (sandbox/gitops/), by their field managers and tracking metadata. */
export type GitOpsTool = 'argocd' | 'flux';
export const FLUX_MANAGER = 'kustomize-controller';
export const FLUX_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
export const FLUX_NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';

/**
 * What owns the synced objects: an Argo CD Application (in Argo CD's namespace, deploying to its destination
 * namespace) or a Flux Kustomization (in flux-system, with the GitRepository it builds from).
 */
export interface GitOpsOwner {
  tool: GitOpsTool;
  name: string;
  namespace: string;
  /** Argo CD: the Application's destination namespace, which a cluster-scoped object's tracking id names. */
  destinationNamespace: string;
}

export const SANDBOX_OWNERS: Readonly<Record<GitOpsTool, GitOpsOwner>> = {
  argocd: { tool: 'argocd', name: 'karpenter', namespace: 'argocd', destinationNamespace: 'karpenter' },
  flux: { tool: 'flux', name: 'karpenter', namespace: 'flux-system', destinationNamespace: 'karpenter' },
};

export const managerOf = (tool: GitOpsTool): string => (tool === 'argocd' ? ARGOCD_MANAGER : FLUX_MANAGER);

/**
 * The manifest as the tool applies it, with the metadata it tracks the object by. Argo CD: its label (the 2.x default)
 * and its tracking-id annotation (the 3.x default; both with `annotation+label`), a cluster-scoped object taking the
 * application's destination namespace in the id (argo-cd util/argo/resource_tracking.go). Flux: the Kustomization's
 * name and namespace labels (kustomize-controller's inventory labels).
 */
export function trackedManifest(store: KubeStore, resource: ResourceRef, manifest: KubeObject, owner: GitOpsOwner): KubeObject {
  const r = store.info(resource);
  if (owner.tool === 'flux') {
    const labels = { ...manifest.metadata.labels, [FLUX_NAME_LABEL]: owner.name, [FLUX_NAMESPACE_LABEL]: owner.namespace };
    return { ...manifest, metadata: { ...manifest.metadata, labels } };
  }
  const name = manifest.metadata.name ?? '';
  const namespace = r.namespaced ? (manifest.metadata.namespace ?? owner.destinationNamespace) : undefined;
  const trackingId = `${owner.name}:${r.group}/${r.kind}:${namespace ?? owner.destinationNamespace}/${name}`;
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { ...manifest.metadata.labels, [ARGOCD_INSTANCE_LABEL]: owner.name },
      annotations: { ...manifest.metadata.annotations, [ARGOCD_TRACKING_ID]: trackingId },
    },
  };
}

/**
 * A sync with server-side apply (Argo CD `ServerSideApply=true`, Flux always): an apply by the tool's manager that owns
 * every field it sent, forced (Argo CD runs it with --force-conflicts, Flux with ForceOwnership), so a field another
 * manager changed is taken back. Returns the object as stored (unchanged when the apply changed nothing).
 */
export function gitopsApply(store: KubeStore, resource: ResourceRef, manifest: KubeObject, owner: GitOpsOwner): KubeObject {
  const r = store.info(resource);
  const applied = trackedManifest(store, r, manifest, owner);
  const name = applied.metadata.name ?? '';
  const namespace = r.namespaced ? applied.metadata.namespace : undefined;
  const live = store.get(r, name, namespace);
  const manager = managerOf(owner.tool);
  const object = serverSideApply({
    live,
    applied,
    manager,
    force: true,
    now: store.now().toISOString(),
    resource: r,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    listSemantics: store.listSemantics(r),
  });
  const options = { manager, managedFieldsComputed: true };
  return live ? store.update(r, object, options) : store.create(r, object, options);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value != null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
