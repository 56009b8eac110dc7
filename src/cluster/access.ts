// RBAC preflight: before its first write, karp-drift asks the API server (SelfSubjectAccessReview, what
// `kubectl auth can-i` does) whether its identity may do everything the rest of the run needs, and refuses with the
// whole table instead of failing halfway through a rollout.
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { KarpDriftError, RefusedError, RuntimeFailure } from '../errors.js';
import { columns } from '../text/table.js';
import { apiClient } from './api-client.js';
import type { Cluster } from './client.js';

export interface AccessNeed {
  verb: string;
  group: string;
  resource: string;
  name?: string;
  /** Why the run needs it, for the table. */
  why: string;
}

export interface AccessAnswer extends AccessNeed {
  allowed: boolean;
  reason?: string;
}

export async function reviewAccess(cluster: Cluster, needs: readonly AccessNeed[]): Promise<AccessAnswer[]> {
  const api = apiClient(cluster, AuthorizationV1Api);
  return Promise.all(
    needs.map(async (need) => {
      try {
        const review = await api.createSelfSubjectAccessReview({
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { verb: need.verb, group: need.group, resource: need.resource, ...(need.name ? { name: need.name } : {}) } },
          },
        });
        return { ...need, allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
      } catch (err) {
        if (err instanceof KarpDriftError) throw err; // credentials rejected or not to be had (api-client.ts)
        throw new RuntimeFailure(`asking ${cluster.server} whether karp-drift may ${need.verb} ${need.resource} (SelfSubjectAccessReview) failed: ${(err as Error).message}`, { cause: err });
      }
    }),
  );
}

/** The preflight table, kubectl-style: VERB, RESOURCE, NAME, ALLOWED, WHY. */
export function accessTable(answers: readonly AccessAnswer[]): string {
  const rows = answers.map((a) => [a.verb, a.group ? `${a.resource}.${a.group}` : a.resource, a.name ?? '*', a.allowed ? 'yes' : 'no', a.why]);
  return columns(['VERB', 'RESOURCE', 'NAME', 'ALLOWED', 'WHY'], rows).replace(/^/gm, '  ');
}

/** What following a rollout reads (cluster/follow.ts, and the diagnosis's re-reads). */
export function followNeeds(): AccessNeed[] {
  const watch = (group: string, resource: string): AccessNeed => ({ verb: 'watch', group, resource, why: 'follow the rollout' });
  return [
    watch('karpenter.sh', 'nodeclaims'),
    watch('', 'nodes'),
    watch('karpenter.k8s.aws', 'ec2nodeclasses'),
    watch('', 'events'),
    { verb: 'list', group: 'policy', resource: 'poddisruptionbudgets', why: 'diagnose a stall' },
    { verb: 'list', group: '', resource: 'pods', why: 'diagnose a stall' },
  ];
}

/** Refuses (exit 3, nothing changed) when any need is denied, listing them all. */
export async function requireAccess(cluster: Cluster, needs: readonly AccessNeed[]): Promise<void> {
  const answers = await reviewAccess(cluster, needs);
  const denied = answers.filter((a) => !a.allowed);
  if (denied.length === 0) return;
  throw new RefusedError(
    `the identity in ${cluster.context} lacks ${denied.length} permission(s) this run needs; nothing was changed:\n${accessTable(answers)}`,
    { hint: 'bind the ClusterRole karp-drift-upgrade from deploy/rbac.yaml (README "RBAC") to this identity' },
  );
}

/** The cluster lock every writing command takes (upgrade, rollback, pause, resume). */
export function lockNeeds(lockNamespace: string): AccessNeed[] {
  const lease = (verb: string): AccessNeed => ({ verb, group: 'coordination.k8s.io', resource: 'leases', why: `the cluster lock in ${lockNamespace}` });
  return [lease('get'), lease('create'), lease('update')];
}

/** What holding or releasing drift writes (pause, resume, a staged upgrade): the lock, the holds and their Events. */
export function holdNeeds(lockNamespace: string, mechanisms: ReadonlySet<'budget' | 'node'>): AccessNeed[] {
  return [
    ...lockNeeds(lockNamespace),
    ...(mechanisms.has('budget') ? [{ verb: 'patch', group: 'karpenter.sh', resource: 'nodepools', why: 'hold drift with a budget' }] : []),
    ...(mechanisms.has('node') ? [{ verb: 'patch', group: '', resource: 'nodes', why: 'hold drift with do-not-disrupt on nodes' }] : []),
    { verb: 'create', group: '', resource: 'events', why: 'record holds as Events on the NodePools' },
  ];
}
