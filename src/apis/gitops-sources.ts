// Where an EC2NodeClass or NodePool that Argo CD or Flux applies comes from: which Application or Kustomization tracks
// it (its labels and annotations), and that object's repository, path and revision, read with zod schemas of the few
// fields karp-drift needs. Argo CD: argoproj.io/v1alpha1 Application `spec.source` (or `spec.sources`), `status.sync`
// (argo-cd pkg/apis/application/v1alpha1/types.go). Flux: kustomize.toolkit.fluxcd.io/v1 Kustomization `spec.path`,
// `spec.sourceRef`, `status.lastAppliedRevision`, and the source.toolkit.fluxcd.io/v1 GitRepository `spec.url`,
// `spec.ref` it names (fluxcd/kustomize-controller api/v1/kustomization_types.go, source-controller api/v1). Pure.
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used

export type GitOpsKind = 'Application' | 'Kustomization' | 'HelmRelease';

/** The object a GitOps tool tracks a resource by, as the resource's metadata names it. */
export interface GitOpsOwnerRef {
  tool: 'Argo CD' | 'Flux';
  kind: GitOpsKind;
  name: string;
  /** Absent: Argo CD's tracking names an Application in its own control-plane namespace without saying which. */
  namespace?: string;
  /** The label or annotation that says so. */
  trackedBy: string;
}

/** One source the owner syncs from (an Application may have several: `spec.sources`). */
export interface GitSource {
  repoURL: string;
  /** The directory in the repository (absent: its root, or a Helm chart from a chart repository). */
  path?: string;
  /** What the tool follows: Argo CD's targetRevision, a GitRepository's ref (branch, tag, semver, name or commit). */
  ref?: string;
  /** A Helm chart from a chart repository (Argo CD `chart`): the values live elsewhere. */
  chart?: string;
  /** Argo CD Helm sources: the values files, relative to `path`. */
  valueFiles?: string[];
}

/** What was read of the owner. */
export interface GitOpsSource {
  owner: GitOpsOwnerRef & { namespace: string };
  sources: GitSource[];
  /** The revision last synced: Argo CD `status.sync.revision` (or `revisions`), Flux `status.lastAppliedRevision`. */
  revision?: string;
  /** Argo CD `status.sync.status` (Synced, OutOfSync); Flux the Kustomization's Ready condition (True, False). */
  status?: string;
  /** A source the owner names that karp-drift did not read (a Flux OCIRepository, a GitRepository it may not read). */
  note?: string;
}

/** An owner found by its tracking metadata, and either what was read of it or why nothing was. */
export type GitOpsSourceRead = { ref: GitOpsOwnerRef; source: GitOpsSource } | { ref: GitOpsOwnerRef; unread: string };

export const ARGOCD_TRACKING_ID = 'argocd.argoproj.io/tracking-id';
export const ARGOCD_INSTANCE_LABEL = 'app.kubernetes.io/instance';
const FLUX_KUSTOMIZATION = 'kustomize.toolkit.fluxcd.io';
const FLUX_HELMRELEASE = 'helm.toolkit.fluxcd.io';

/**
 * The Application or Kustomization that tracks an object. Argo CD 3.x tracks by annotation
 * `<app>:<group>/<kind>:<namespace>/<name>`, 2.x by the `app.kubernetes.io/instance` label, whose value is the app's
 * name (`<namespace>_<name>` for an Application outside Argo CD's namespace, argo-cd util/argo/resource_tracking.go);
 * Helm charts set that label too, so it counts only when Argo CD's controller is known to apply the object
 * (`argoCdManages`, from managedFields). Flux's kustomize-controller and helm-controller label what they apply with
 * the owner's name and namespace.
 */
export function gitopsOwnerOf(
  meta: { labels: Readonly<Record<string, string>>; annotations: Readonly<Record<string, string>> },
  argoCdManages = false,
): GitOpsOwnerRef | undefined {
  const tracking = meta.annotations[ARGOCD_TRACKING_ID];
  if (tracking !== undefined) {
    const app = tracking.split(':')[0] ?? '';
    if (app !== '') return { tool: 'Argo CD', kind: 'Application', ...appName(app), trackedBy: `annotation ${ARGOCD_TRACKING_ID}` };
  }
  for (const [group, kind] of [
    [FLUX_KUSTOMIZATION, 'Kustomization'],
    [FLUX_HELMRELEASE, 'HelmRelease'],
  ] as const) {
    const name = meta.labels[`${group}/name`];
    const namespace = meta.labels[`${group}/namespace`];
    if (name !== undefined && namespace !== undefined) return { tool: 'Flux', kind, name, namespace, trackedBy: `labels ${group}/name and ${group}/namespace` };
  }
  const instance = meta.labels[ARGOCD_INSTANCE_LABEL];
  if (argoCdManages && instance !== undefined && instance !== '')
    return { tool: 'Argo CD', kind: 'Application', ...appName(instance), trackedBy: `label ${ARGOCD_INSTANCE_LABEL}` };
  return undefined;
}

// An Application name is a DNS subdomain: no `_`, so the first one parts a namespace from the name.
function appName(value: string): { name: string; namespace?: string } {
  const at = value.indexOf('_');
  return at < 0 ? { name: value } : { namespace: value.slice(0, at), name: value.slice(at + 1) };
}

/** The key an owner is read once under, however many objects it tracks. */
export const ownerKey = (ref: Pick<GitOpsOwnerRef, 'kind' | 'name' | 'namespace'>): string => `${ref.kind}/${ref.namespace ?? '*'}/${ref.name}`;

const argoSource = z.object({
  repoURL: z.string(),
  path: z.string().optional(),
  targetRevision: z.string().optional(),
  chart: z.string().optional(),
  helm: z.object({ valueFiles: z.array(z.string()).optional() }).optional(),
});
const application = z.object({
  metadata: z.object({ name: z.string(), namespace: z.string() }),
  spec: z.object({ source: argoSource.optional(), sources: z.array(argoSource).optional() }),
  status: z
    .object({ sync: z.object({ status: z.string().optional(), revision: z.string().optional(), revisions: z.array(z.string()).optional() }).optional() })
    .optional(),
});

/** An Application as read, or why it cannot be used (its shape is not an Application's). */
export function applicationSource(ref: GitOpsOwnerRef, object: unknown): GitOpsSourceRead {
  const parsed = application.safeParse(object);
  if (!parsed.success) return { ref, unread: `Application ${ref.namespace ?? ''}/${ref.name} has no spec.source a repository can be read from` };
  const { metadata, spec, status } = parsed.data;
  const sources = [...(spec.source ? [spec.source] : []), ...(spec.sources ?? [])].map(
    (s): GitSource => ({
      repoURL: s.repoURL,
      ...(s.path !== undefined && s.path !== '' ? { path: s.path } : {}),
      ...(s.targetRevision !== undefined && s.targetRevision !== '' ? { ref: s.targetRevision } : {}),
      ...(s.chart !== undefined ? { chart: s.chart } : {}),
      ...(s.helm?.valueFiles !== undefined && s.helm.valueFiles.length > 0 ? { valueFiles: s.helm.valueFiles } : {}),
    }),
  );
  const revision = status?.sync?.revision ?? status?.sync?.revisions?.join(', ');
  return {
    ref,
    source: {
      owner: { ...ref, namespace: metadata.namespace },
      sources,
      ...(revision !== undefined && revision !== '' ? { revision } : {}),
      ...(status?.sync?.status !== undefined ? { status: status.sync.status } : {}),
    },
  };
}

const kustomization = z.object({
  metadata: z.object({ namespace: z.string() }),
  spec: z.object({ path: z.string().optional(), sourceRef: z.object({ kind: z.string(), name: z.string(), namespace: z.string().optional() }) }),
  status: z
    .object({
      lastAppliedRevision: z.string().optional(),
      conditions: z.array(z.object({ type: z.string(), status: z.string() })).optional(),
    })
    .optional(),
});
const gitRepository = z.object({
  spec: z.object({
    url: z.string(),
    ref: z
      .object({ branch: z.string().optional(), tag: z.string().optional(), semver: z.string().optional(), name: z.string().optional(), commit: z.string().optional() })
      .optional(),
  }),
});

/** Where a Kustomization's source is, for reading it: its sourceRef, defaulting to the Kustomization's namespace. */
export function kustomizationSourceRef(object: unknown): { kind: string; name: string; namespace: string } | undefined {
  const parsed = kustomization.safeParse(object);
  if (!parsed.success) return undefined;
  const { sourceRef } = parsed.data.spec;
  return { kind: sourceRef.kind, name: sourceRef.name, namespace: sourceRef.namespace ?? parsed.data.metadata.namespace };
}

/**
 * A Kustomization as read, with its GitRepository when that was read (`repository`), else why not (`repositoryUnread`).
 * Flux's path is relative to the repository's root (`./clusters/prod`).
 */
export function kustomizationSource(
  ref: GitOpsOwnerRef & { namespace: string },
  object: unknown,
  repository: { object: unknown } | { unread: string },
): GitOpsSourceRead {
  const parsed = kustomization.safeParse(object);
  if (!parsed.success) return { ref, unread: `Kustomization ${ref.namespace}/${ref.name} has no spec.sourceRef` };
  const { spec, status } = parsed.data;
  const sourceRef = kustomizationSourceRef(object)!;
  const path = spec.path !== undefined ? spec.path.replace(/^\.\//, '').replace(/\/$/, '') : undefined;
  const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const base = {
    owner: ref,
    ...(status?.lastAppliedRevision !== undefined ? { revision: status.lastAppliedRevision } : {}),
    ...(ready !== undefined ? { status: ready === 'True' ? 'Ready' : `Ready=${ready}` } : {}),
  };
  const named = `${sourceRef.kind} ${sourceRef.namespace}/${sourceRef.name}`;
  const repo = 'object' in repository ? gitRepository.safeParse(repository.object) : undefined;
  if (repo === undefined || !repo.success) {
    const why = 'unread' in repository ? repository.unread : `${named} has no spec.url`;
    return { ref, source: { ...base, sources: [], note: `the repository is ${named}, not read: ${why}` } };
  }
  const r = repo.data.spec.ref;
  const refText = r?.commit ?? r?.name ?? r?.tag ?? (r?.semver !== undefined ? `semver ${r.semver}` : undefined) ?? r?.branch;
  return {
    ref,
    source: {
      ...base,
      sources: [{ repoURL: repo.data.spec.url, ...(path !== undefined && path !== '' && path !== '.' ? { path } : {}), ...(refText !== undefined ? { ref: refText } : {}) }],
    },
  };
}
