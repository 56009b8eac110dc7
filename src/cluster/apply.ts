// Server-side apply of an EC2NodeClass's AMI selection, and nothing else: field manager `karp-drift`, only
// `spec.amiSelectorTerms` (plus `spec.amiFamily` when id terms need it) and karp-drift's bookkeeping annotations.
// Karpenter hashes neither (DOMAIN.md §2.2), so the change causes AMIDrift only, never NodeClassDrift.
// The object's resourceVersion from the plan rides along as a precondition: a class changed since the plan is refused.
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { RefusedError, RuntimeFailure } from '../errors.js';
import { apiClient, apiErrorFrom } from './api-client.js';
import type { Cluster } from './client.js';
import { appliedFields, type AppliedFields } from './owned-fields.js';
import { READ_RETRY, retrying, retryOn, GaveUp } from './retry.js';
import type { AmiSelectorTerm, KarpenterApi } from '../karpenter/views.js';

export const FIELD_MANAGER = 'karp-drift';

const clients = new WeakMap<Cluster, CustomObjectsApi>();
/** Each client's connection: its calls retry as the connection's calls do now (retry.ts `retryOn`). */
const connections = new WeakMap<CustomObjectsApi, Cluster>();

/** The generated client server-side apply goes through, one per cluster connection, made on first use. */
export function customObjects(cluster: Cluster): CustomObjectsApi {
  let api = clients.get(cluster);
  if (!api) {
    clients.set(cluster, (api = apiClient(cluster, CustomObjectsApi)));
    connections.set(api, cluster);
  }
  return api;
}

/** Bookkeeping in metadata.annotations (not hashed by Karpenter): what rollback restores, and what this run set. */
export const ANNOTATIONS = {
  previousTerms: 'karp-drift.io/previous-ami-selector-terms',
  previousFamily: 'karp-drift.io/previous-ami-family',
  target: 'karp-drift.io/target',
  runId: 'karp-drift.io/run-id',
  /** Set only when the AMIs were promoted from an --amis-file; an apply without it (SSA) removes it. */
  promotedFrom: 'karp-drift.io/promoted-from',
  /** `upgrade --templates` created the object, in this run: `rollback` deletes it (and nothing it did not create). */
  createdBy: 'karp-drift.io/created-by-run',
} as const;

export interface NodeClassApply {
  name: string;
  karpenterApi: KarpenterApi;
  /** The resourceVersion the plan read: the apply's precondition. */
  resourceVersion: string;
  amiFamily?: string;
  amiSelectorTerms: AmiSelectorTerm[];
  annotations: Record<string, string>;
  /** Take the fields from their current managers (people with kubectl, or --force-conflicts). */
  force: boolean;
}

export interface ApplyResult {
  resourceVersion: string;
  generation: number;
}

/**
 * The apply configuration: the AMI selection and the bookkeeping annotations, plus `kept`, what karp-drift's earlier
 * applies own besides them (an `upgrade --templates` applied the whole object), so that no field of karp-drift's goes
 * because this apply left it out. Pure, for tests and for --dry-run output.
 */
export function applyConfiguration(a: NodeClassApply, kept: AppliedFields = { labels: {}, annotations: {}, spec: {} }): Record<string, unknown> {
  const bookkeeping = new Set<string>(Object.values(ANNOTATIONS));
  const annotations = {
    ...Object.fromEntries(Object.entries(kept.annotations).filter(([k]) => !bookkeeping.has(k))),
    ...a.annotations,
  };
  const { amiFamily: _family, amiSelectorTerms: _terms, ...spec } = kept.spec;
  return {
    apiVersion: `karpenter.k8s.aws/${a.karpenterApi}`,
    kind: 'EC2NodeClass',
    metadata: {
      name: a.name,
      resourceVersion: a.resourceVersion,
      ...(Object.keys(kept.labels).length > 0 ? { labels: kept.labels } : {}),
      annotations,
    },
    spec: { ...spec, ...(a.amiFamily ? { amiFamily: a.amiFamily } : {}), amiSelectorTerms: a.amiSelectorTerms },
  };
}

/** What karp-drift's applies own on the class now (nothing when it is gone: the apply then says so itself). */
async function keptFields(api: CustomObjectsApi, a: NodeClassApply): Promise<AppliedFields | undefined> {
  try {
    const live = (await withRetries(api, () =>
      api.getClusterCustomObject({ group: 'karpenter.k8s.aws', version: a.karpenterApi, plural: 'ec2nodeclasses', name: a.name }),
    )) as Parameters<typeof appliedFields>[0];
    return appliedFields(live, FIELD_MANAGER);
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    if (err.code === 404) return undefined;
    const { reason, message } = statusOf(err as ApiException<unknown>);
    throw new RuntimeFailure(`reading ec2nodeclass/${a.name} before applying it (HTTP ${err.code}, ${reason ?? 'error'}): ${message ?? ''}; nothing was changed`, { cause: err });
  }
}

/** The annotations a run records, so `rollback` can restore exactly what was there. */
export function bookkeeping(before: { amiFamily?: string; amiSelectorTerms: AmiSelectorTerm[] }, target: string, runId: string, promotedFrom?: string): Record<string, string> {
  return {
    ...(promotedFrom !== undefined ? { [ANNOTATIONS.promotedFrom]: promotedFrom } : {}),
    [ANNOTATIONS.previousTerms]: JSON.stringify(before.amiSelectorTerms),
    ...(before.amiFamily ? { [ANNOTATIONS.previousFamily]: before.amiFamily } : {}),
    [ANNOTATIONS.target]: target,
    [ANNOTATIONS.runId]: runId,
  };
}

interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

function statusOf(err: ApiException<unknown>): StatusBody {
  try {
    return (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as StatusBody;
  } catch {
    return { message: String(err.body) };
  }
}

// A server-side apply is idempotent (the same configuration applied twice is one change), so unlike most writes it
// may be retried on 429 (with Retry-After) and 5xx; a retry after a lost answer meets its own resourceVersion
// precondition changed and says "plan is stale", which the caller re-plans from.
async function withRetries<T>(api: CustomObjectsApi, call: () => Promise<T>): Promise<T> {
  try {
    return await retrying(async () => {
      try {
        return await call();
      } catch (err) {
        if (err instanceof ApiException && (err.code === 429 || err.code >= 500)) {
          throw Object.assign(apiErrorFrom(err as ApiException<unknown>), { original: err });
        }
        throw err;
      }
    }, retryOn(connections.get(api) ?? {}, READ_RETRY), connections.get(api)?.lease?.lost);
  } catch (err) {
    const inner = err instanceof GaveUp ? err.cause : err;
    throw (inner as { original?: unknown }).original ?? inner;
  }
}

export async function applyNodeClass(api: CustomObjectsApi, a: NodeClassApply, options: { dryRun: boolean }): Promise<ApplyResult> {
  const where = `ec2nodeclass/${a.name}`;
  try {
    const kept = await keptFields(api, a);
    const result = (await withRetries(api, () => api.patchClusterCustomObject(
      {
        group: 'karpenter.k8s.aws',
        version: a.karpenterApi,
        plural: 'ec2nodeclasses',
        name: a.name,
        body: applyConfiguration(a, kept),
        fieldManager: FIELD_MANAGER,
        force: a.force,
        ...(options.dryRun ? { dryRun: 'All' } : {}),
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    ))) as { metadata?: { resourceVersion?: string; generation?: number } };
    return { resourceVersion: result.metadata?.resourceVersion ?? '', generation: result.metadata?.generation ?? 0 };
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const status = statusOf(err as ApiException<unknown>);
    if (err.code === 409 && (status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict')) {
      const owners = (status.details?.causes ?? []).map((c) => `${c.field ?? ''} (${c.message ?? ''})`).join('; ');
      throw new RefusedError(`applying ${where}: ${status.message ?? 'field manager conflict'}: ${owners}; nothing was changed`, {
        cause: apiErrorFrom(err),
        hint: 'change the AMI selection where that manager takes it from (Git, Helm values, Terraform), or re-run with --force-conflicts to take the fields',
      });
    }
    if (err.code === 409) {
      throw new RefusedError(`plan is stale: ${where} changed since it was read (resourceVersion ${a.resourceVersion}); nothing was changed`, {
        cause: apiErrorFrom(err),
        hint: 're-run the command to plan against the current object',
      });
    }
    const causes = (status.details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
    throw new RuntimeFailure(`the API server rejected the apply of ${where} (HTTP ${err.code}, ${status.reason ?? 'error'}): ${causes || status.message || ''}`, {
      cause: apiErrorFrom(err),
      hint: err.code === 403 ? `grant the karp-drift identity "patch" on ec2nodeclasses.karpenter.k8s.aws (docs/rbac-and-iam.md)` : undefined,
    });
  }
}

export interface ObjectApply {
  group: string;
  version: string;
  plural: string;
  name: string;
  /** The whole object as rendered: karp-drift owns every field it sets. */
  body: Record<string, unknown>;
  force: boolean;
  /** The resourceVersion the diff was computed against, as a precondition; absent when the object is created. */
  resourceVersion?: string;
}

/** Server-side apply of a whole rendered object (`upgrade --templates`): created if absent, else updated. */
export async function applyObject(api: CustomObjectsApi, a: ObjectApply, options: { dryRun: boolean }): Promise<ApplyResult> {
  const where = `${a.plural.replace(/(ss)es$|s$/, '$1')}/${a.name}`; // ec2nodeclasses → ec2nodeclass, nodepools → nodepool
  const body = a.resourceVersion ? { ...a.body, metadata: { ...(a.body.metadata as object), resourceVersion: a.resourceVersion } } : a.body;
  try {
    const result = (await withRetries(api, () =>
      api.patchClusterCustomObject(
        { group: a.group, version: a.version, plural: a.plural, name: a.name, body, fieldManager: FIELD_MANAGER, force: a.force, ...(options.dryRun ? { dryRun: 'All' } : {}) },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      ),
    )) as { metadata?: { resourceVersion?: string; generation?: number } };
    return { resourceVersion: result.metadata?.resourceVersion ?? '', generation: result.metadata?.generation ?? 0 };
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const status = statusOf(err as ApiException<unknown>);
    const causes = (status.details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
    if (err.code === 409 && a.resourceVersion && !(status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict')) {
      throw new RefusedError(`${where} changed since its diff was shown (resourceVersion ${a.resourceVersion}); nothing more was changed`, {
        cause: apiErrorFrom(err),
        hint: 're-run the command to diff against the current object',
      });
    }
    if (err.code === 409) {
      throw new RefusedError(`applying ${where}: ${status.message ?? 'conflict'}${causes ? ` (${causes})` : ''}; nothing more was changed`, {
        cause: apiErrorFrom(err),
        hint: 'change these fields where their manager takes them from, or re-run with --force-conflicts',
      });
    }
    throw new RuntimeFailure(`the API server rejected the apply of ${where} (HTTP ${err.code}, ${status.reason ?? 'error'}): ${causes || status.message || ''}`, { cause: apiErrorFrom(err) });
  }
}
