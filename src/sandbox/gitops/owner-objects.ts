// The objects a GitOps tool keeps about what it syncs, as the stand-in keeps them: an Argo CD Application (spec.source
// with the repository, path and revision; status.sync, operationState, history) or a Flux Kustomization with the
// GitRepository it builds from (spec.path, spec.sourceRef; status.lastAppliedRevision, the artifact's revision, Ready).
// Shapes follow the vendored CRDs (vendor/argo-cd, vendor/flux), which the sandbox serves and validates against.
import type { KubeStore } from '../kube-api/registry-store.js';
import type { GitOpsOwner } from '../scenarios/field-managers.js';
import { ensureNamespace } from '../scenarios/workloads.js';

export const APPLICATIONS = 'applications.argoproj.io';
export const KUSTOMIZATIONS = 'kustomizations.kustomize.toolkit.fluxcd.io';
export const GIT_REPOSITORIES = 'gitrepositories.source.toolkit.fluxcd.io';
/** The sandbox's Flux GitRepository: Flux reaches repositories over HTTP(S) or SSH only (its CRD's url pattern). */
export const FLUX_REPOSITORY = 'fleet-infra';
export const FLUX_BRANCH = 'main';

/** One sync as the owner's status records it. */
export interface SyncRecord {
  revision: string;
  /** undefined: every object applied. */
  failure?: string;
  at: Date;
  /** The objects applied, for Argo CD's syncResult. */
  resources: Array<{ group: string; version: string; kind: string; name: string; namespace: string; failed?: string }>;
}

/** The repository URL the owner names: the directory itself for Argo CD (`file://`), a stand-in URL for Flux. */
export function repositoryUrl(owner: GitOpsOwner, dir: string): string {
  return owner.tool === 'argocd' ? `file://${dir}` : `https://git.sandbox.invalid/${FLUX_REPOSITORY}.git`;
}

export function createOwnerObjects(store: KubeStore, owner: GitOpsOwner, dir: string, intervalSeconds: number): void {
  ensureNamespace(store, owner.namespace);
  const meta = { name: owner.name, namespace: owner.namespace };
  if (owner.tool === 'argocd') {
    store.create(
      APPLICATIONS,
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: meta,
        spec: {
          project: 'default',
          source: { repoURL: repositoryUrl(owner, dir), path: '.', targetRevision: 'HEAD' },
          destination: { server: 'https://kubernetes.default.svc', namespace: owner.destinationNamespace },
          syncPolicy: { automated: { selfHeal: true }, syncOptions: ['ServerSideApply=true'] },
        },
      },
      { manager: 'argocd-server' },
    );
    return;
  }
  const interval = `${Math.max(1, Math.round(intervalSeconds))}s`;
  store.create(
    GIT_REPOSITORIES,
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: FLUX_REPOSITORY, namespace: owner.namespace },
      spec: { url: repositoryUrl(owner, dir), interval, ref: { branch: FLUX_BRANCH } },
    },
    { manager: 'flux' },
  );
  store.create(
    KUSTOMIZATIONS,
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: meta,
      spec: { interval, path: './', prune: false, sourceRef: { kind: 'GitRepository', name: FLUX_REPOSITORY } },
    },
    { manager: 'flux' },
  );
}

/** Writes the sync's outcome on the owner's status, as the tool's controllers do. */
export function recordSync(store: KubeStore, owner: GitOpsOwner, sync: SyncRecord, history: readonly SyncRecord[]): void {
  const at = sync.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (owner.tool === 'argocd') {
    const app = store.get(APPLICATIONS, owner.name, owner.namespace)!;
    const source = (app.spec as { source: Record<string, unknown> }).source;
    const destination = (app.spec as { destination: Record<string, unknown> }).destination;
    const deployed = history.filter((h) => h.failure === undefined);
    const status = {
      sync: { status: sync.failure === undefined ? 'Synced' : 'OutOfSync', revision: sync.revision, comparedTo: { source, destination } },
      health: { status: 'Healthy' },
      sourceType: 'Directory',
      reconciledAt: at,
      operationState: {
        phase: sync.failure === undefined ? 'Succeeded' : 'Failed',
        message: sync.failure ?? 'successfully synced (all tasks run)',
        startedAt: at,
        finishedAt: at,
        operation: { sync: { revision: sync.revision, syncOptions: ['ServerSideApply=true'] }, initiatedBy: { automated: true } },
        syncResult: {
          revision: sync.revision,
          source,
          resources: sync.resources.map((r) => ({
            group: r.group,
            version: r.version,
            kind: r.kind,
            name: r.name,
            namespace: r.namespace,
            status: r.failed === undefined ? 'Synced' : 'SyncFailed',
            message: r.failed ?? `${r.kind.toLowerCase()}.${r.group} serverside-applied`,
          })),
        },
      },
      // Argo CD keeps the last 10 deployments (spec.revisionHistoryLimit), ids counting up: `argocd app rollback` names one.
      history: deployed.slice(-10).map((h) => ({
        id: history.indexOf(h),
        revision: h.revision,
        deployedAt: h.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        deployStartedAt: h.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        source,
      })),
    };
    store.update(APPLICATIONS, { ...app, status }, { manager: 'argocd-application-controller' });
    return;
  }
  const revision = `${FLUX_BRANCH}@sha1:${sync.revision}`;
  const ready = (reason: string, message: string, generation: number | undefined) => ({
    type: 'Ready',
    status: sync.failure === undefined ? 'True' : 'False',
    reason,
    message,
    lastTransitionTime: at,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  });
  const repo = store.get(GIT_REPOSITORIES, FLUX_REPOSITORY, owner.namespace)!;
  store.update(
    GIT_REPOSITORIES,
    {
      ...repo,
      status: {
        observedGeneration: repo.metadata.generation,
        artifact: {
          revision,
          digest: `sha256:${sync.revision.padEnd(64, '0')}`,
          lastUpdateTime: at,
          path: `gitrepository/${owner.namespace}/${FLUX_REPOSITORY}/${sync.revision}.tar.gz`,
          url: `http://source-controller.${owner.namespace}.svc.cluster.local./gitrepository/${owner.namespace}/${FLUX_REPOSITORY}/${sync.revision}.tar.gz`,
        },
        conditions: [{ ...ready('Succeeded', `stored artifact for revision '${revision}'`, repo.metadata.generation), status: 'True' }],
      },
    },
    { manager: 'source-controller', subresource: 'status' },
  );
  const ks = store.get(KUSTOMIZATIONS, owner.name, owner.namespace)!;
  const previous = (ks.status as { lastAppliedRevision?: string } | undefined)?.lastAppliedRevision;
  store.update(
    KUSTOMIZATIONS,
    {
      ...ks,
      status: {
        observedGeneration: ks.metadata.generation,
        lastAttemptedRevision: revision,
        // A failed apply leaves the last applied revision where it was.
        ...(sync.failure === undefined ? { lastAppliedRevision: revision } : previous !== undefined ? { lastAppliedRevision: previous } : {}),
        conditions: [
          sync.failure === undefined
            ? ready('ReconciliationSucceeded', `Applied revision: ${revision}`, ks.metadata.generation)
            : ready('ReconciliationFailed', sync.failure, ks.metadata.generation),
        ],
      },
    },
    { manager: 'kustomize-controller', subresource: 'status' },
  );
}
