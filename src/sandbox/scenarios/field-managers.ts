// Creates objects the way their owners do, so managedFields and annotations look as they do on a real cluster:
// `kubectl apply` (client-side) and Argo CD syncing with server-side apply. karp-drift reads both to warn before it
// changes a field someone else's tooling will put back.
import { serverSideApply } from '../kube-api/server-side-apply.js';
import type { KubeStore } from '../kube-api/registry-store.js';
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

/**
 * An Argo CD sync with `ServerSideApply=true`: an apply by argocd-controller that owns every field it sent. Argo CD
 * tracks the resource with both its label (the 2.x default) and its tracking-id annotation (the 3.x default; both
 * with `annotation+label`); a cluster-scoped object takes the application's destination namespace in the id
 * (argo-cd util/argo/resource_tracking.go).
 */
export function argoCdApply(
  store: KubeStore,
  resource: string,
  manifest: KubeObject,
  app: string,
  appNamespace: string,
): KubeObject {
  const r = store.info(resource);
  const name = manifest.metadata.name ?? '';
  const namespace = r.namespaced ? (manifest.metadata.namespace ?? 'default') : undefined;
  const trackingId = `${app}:${r.group}/${r.kind}:${namespace ?? appNamespace}/${name}`;
  const applied = {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      labels: { ...manifest.metadata.labels, [ARGOCD_INSTANCE_LABEL]: app },
      annotations: { ...manifest.metadata.annotations, [ARGOCD_TRACKING_ID]: trackingId },
    },
  };
  const object = serverSideApply({
    live: undefined,
    applied,
    manager: ARGOCD_MANAGER,
    force: false,
    now: store.now().toISOString(),
    resource: r,
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    listSemantics: store.listSemantics(r),
  });
  return store.create(r, object, { manager: ARGOCD_MANAGER, managedFieldsComputed: true });
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
