// RBAC preflight: before its first write, karp-drift asks the API server (SelfSubjectAccessReview, what
// `kubectl auth can-i` does) whether its identity may do everything the rest of the run needs, and refuses with the
// whole table instead of failing halfway through a rollout.
// Each question is the request the run will send, in RBAC's terms: its namespace, and the object's name wherever the
// request names one. That matters: a rule restricted by resourceNames (deploy/rbac.yaml grants the Lease karp-drift
// so) never matches a question without a name (kubernetes pkg/apis/rbac/v1/evaluation_helpers.go
// ResourceNameMatches), so asking "update leases" of a real cluster is answered no where "update leases/karp-drift"
// is answered yes.
import { ApiException, AuthorizationV1Api } from '@kubernetes/client-node';
import { LEASE_NAME } from '../apis/lock.js';
import { recordNeeds } from './run-records.js';
import { KarpDriftError, RefusedError, RuntimeFailure } from '../errors.js';
import { columns } from '../text/table.js';
import { apiClient, apiErrorFrom } from './api-client.js';
import type { Cluster } from './client.js';
import { clusterFailure, type ApiCall, type Where } from './failures.js';
import { ApiError } from './request.js';
import { GaveUp, READ_RETRY, retrying, retryOn } from './retry.js';

export interface AccessNeed {
  verb: string;
  group: string;
  resource: string;
  /** Where the request goes; absent for cluster-scoped objects and for lists and watches across all namespaces. */
  namespace?: string;
  /** The object, for requests that name one (a get, patch or update of it); absent for lists, watches and creates. */
  name?: string;
  /** Why the run needs it, for the table. */
  why: string;
}

export interface AccessAnswer extends AccessNeed {
  allowed: boolean;
  reason?: string;
}

/** Each distinct question once (the first reason given is kept), in the order first asked. */
export function distinctNeeds(needs: readonly AccessNeed[]): AccessNeed[] {
  const seen = new Set<string>();
  return needs.filter((n) => {
    const key = [n.verb, n.group, n.resource, n.namespace ?? '', n.name ?? ''].join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const qualified = (need: Pick<AccessNeed, 'group' | 'resource'>) => (need.group ? `${need.resource}.${need.group}` : need.resource);
const object = (need: AccessNeed) => `${need.namespace ? `${need.namespace}/` : ''}${need.name ?? '*'}`;

export async function reviewAccess(cluster: Cluster, needs: readonly AccessNeed[]): Promise<AccessAnswer[]> {
  const api = apiClient(cluster, AuthorizationV1Api);
  return Promise.all(
    distinctNeeds(needs).map(async (need) => {
      const resourceAttributes = {
        verb: need.verb,
        group: need.group,
        resource: need.resource,
        ...(need.namespace ? { namespace: need.namespace } : {}),
        ...(need.name ? { name: need.name } : {}),
      };
      const ask = async () => {
        try {
          return await api.createSelfSubjectAccessReview({
            body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
          });
        } catch (err) {
          // A review is a question, stored nowhere: asking again after a 429 or 5xx is safe.
          throw err instanceof ApiException ? apiErrorFrom(err as ApiException<unknown>) : err;
        }
      };
      try {
        const review = await retrying(ask, retryOn(cluster, READ_RETRY));
        return { ...need, allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
      } catch (err) {
        throw reviewFailure(err, need, cluster);
      }
    }),
  );
}

/** A review that could not be had, in the CLI's words (never the client's `HTTP-Code: … Headers: …` dump). */
export function reviewFailure(err: unknown, need: AccessNeed, cluster: Where): KarpDriftError {
  if (err instanceof KarpDriftError) return err; // credentials rejected or not to be had, or unreachable (api-client.ts)
  const call: ApiCall = {
    doing: `asking whether it may ${need.verb} ${qualified(need)} ${object(need)} (SelfSubjectAccessReview)`,
    verb: 'create',
    resource: 'selfsubjectaccessreviews.authorization.k8s.io',
  };
  const answer = err instanceof GaveUp ? err.cause : err;
  if (answer instanceof ApiError && answer.code === 403) {
    const said = answer.status.message ? `: ${answer.status.message}` : '';
    return new RefusedError(
      `the identity in ${cluster.context} may not ask ${cluster.server} what it may do (creating a SelfSubjectAccessReview is forbidden, 403${said}); karp-drift checks every permission a run needs before its first write, so nothing was changed`,
      {
        cause: answer,
        hint: `bind the ClusterRole karp-drift-upgrade from deploy/rbac.yaml (docs/rbac-and-iam.md), which grants it; Kubernetes grants it to every authenticated user through the ClusterRoleBinding system:basic-user, unless that was changed (kubectl get clusterrolebinding system:basic-user -o yaml)`,
      },
    );
  }
  if (answer instanceof ApiError && answer.code === 404) {
    return new RuntimeFailure(`${call.doing}: ${cluster.server} (context "${cluster.context}") does not serve authorization.k8s.io/v1 selfsubjectaccessreviews (404)`, {
      cause: answer,
      hint: 'check that the kubeconfig points at the cluster\'s API server itself and not at a proxy that serves only some paths',
    });
  }
  return clusterFailure(err, call, cluster);
}

/** The preflight table, kubectl-style: VERB, RESOURCE, NAME (namespace/name, `*` for none), ALLOWED, WHY. */
export function accessTable(answers: readonly AccessAnswer[]): string {
  const rows = answers.map((a) => [a.verb, qualified(a), object(a), a.allowed ? 'yes' : 'no', a.why]);
  return columns(['VERB', 'RESOURCE', 'NAME', 'ALLOWED', 'WHY'], rows).replace(/^/gm, '  ');
}

/** Refuses (exit 3, nothing changed) when any need is denied, listing them all. */
export async function requireAccess(cluster: Cluster, needs: readonly AccessNeed[]): Promise<void> {
  const answers = await reviewAccess(cluster, needs);
  const denied = answers.filter((a) => !a.allowed);
  if (denied.length === 0) return;
  throw new RefusedError(
    `the identity in ${cluster.context} lacks ${denied.length} permission(s) this run needs; nothing was changed:\n${accessTable(answers)}`,
    { hint: 'bind the ClusterRole karp-drift-upgrade from deploy/rbac.yaml (docs/rbac-and-iam.md) to this identity' },
  );
}

/** A server-side apply (or its dry run: authorized as the write it tries) of each named object. */
export function applyNeeds(group: string, resource: string, names: readonly string[], why: string): AccessNeed[] {
  return names.map((name) => ({ verb: 'patch', group, resource, name, why }));
}

/**
 * What following a rollout reads (cluster/follow.ts, and the diagnosis's re-reads): each watch starts from a list,
 * and starts again from one after a 410 Expired.
 */
export function followNeeds(): AccessNeed[] {
  const both = (group: string, resource: string): AccessNeed[] =>
    ['list', 'watch'].map((verb) => ({ verb, group, resource, why: 'follow the rollout' }));
  return [
    ...both('karpenter.sh', 'nodeclaims'),
    ...both('', 'nodes'),
    ...both('karpenter.k8s.aws', 'ec2nodeclasses'),
    ...both('', 'events'),
    { verb: 'list', group: 'policy', resource: 'poddisruptionbudgets', why: 'diagnose a stall' },
    { verb: 'list', group: '', resource: 'pods', why: 'diagnose a stall' },
  ];
}

/**
 * The cluster lock every writing command takes (upgrade, rollback, pause, resume): the Lease karp-drift in the lock
 * namespace, read and updated by name, created when it is not there (a create names nothing: RBAC cannot limit it to
 * a name).
 */
export function lockNeeds(lockNamespace: string): AccessNeed[] {
  const why = `the cluster lock in ${lockNamespace}`;
  const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: lockNamespace, why };
  return [
    { ...lease, verb: 'get', name: LEASE_NAME },
    { ...lease, verb: 'create' },
    { ...lease, verb: 'update', name: LEASE_NAME },
    ...recordNeeds(lockNamespace),
  ];
}

/** What a run holds or releases: the budgets of these NodePools, and do-not-disrupt on nodes (which, it finds later). */
export interface HoldWrites {
  nodePools: readonly string[];
  nodes: boolean;
}

/**
 * What holding or releasing drift writes (pause, resume, a staged upgrade, a rollback that lifts holds): the lock, each
 * NodePool's budgets (read, then patched), do-not-disrupt on nodes (listed, read, patched), and the Events that record
 * it on the NodePools, filed in `default` as the API server files events of cluster-scoped objects.
 */
export function holdNeeds(lockNamespace: string, writes: HoldWrites): AccessNeed[] {
  const pool = (verb: string, name: string): AccessNeed => ({ verb, group: 'karpenter.sh', resource: 'nodepools', name, why: 'hold drift with a budget' });
  const node = (verb: string): AccessNeed => ({ verb, group: '', resource: 'nodes', why: 'hold drift with do-not-disrupt on nodes' });
  return [
    ...lockNeeds(lockNamespace),
    ...writes.nodePools.flatMap((name) => [pool('get', name), pool('patch', name)]),
    ...(writes.nodes ? [node('list'), node('get'), node('patch')] : []),
    { verb: 'create', group: '', resource: 'events', namespace: 'default', why: 'record holds as Events on the NodePools' },
  ];
}
