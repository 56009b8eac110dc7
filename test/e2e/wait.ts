// `karp-drift wait` end to end, shared by wait*.test.ts: what the sandbox's store says, not karp-drift's account.
import type { Sandbox } from '../../src/sandbox/sandbox.js';

/**
 * The writes since request `from` that change the cluster: not the questions a run asks (SelfSubjectAccessReview,
 * SelfSubjectReview), nor its own record for `karp-drift history` (the ConfigMaps karp-drift-run-NN).
 */
export const writesSince = (sandbox: Sandbox, from: number) =>
  sandbox.kube.requests
    .slice(from)
    .filter((r) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb))
    .filter((r) => !['selfsubjectaccessreviews', 'selfsubjectreviews', 'configmaps'].includes(r.resource ?? '')).length;

/** The run records the API server holds, by command. */
export const recordedCommands = (sandbox: Sandbox): string[] =>
  sandbox.kube.store
    .list('configmaps', 'kube-system')
    .filter((cm) => cm.metadata.labels?.['karp-drift.io/record'] === 'run')
    .map((cm) => (JSON.parse((cm as unknown as { data: Record<string, string> }).data['run.json']!) as { command: string }).command)
    .sort();

/**
 * Every NodeClaim not being deleted runs an AMI its class resolves now, or (`pinned`) one its class pins by id: right
 * after an apply, `status.amis` may still list the old AMIs until Karpenter's class controller has caught up, while the
 * pinned ids are the target at once.
 */
export function allOnTarget(sandbox: Sandbox, by: 'resolved' | 'pinned' = 'resolved'): boolean {
  const amis = new Map(
    sandbox.kube.store.list('ec2nodeclasses.karpenter.k8s.aws').map((c) => [
      c.metadata.name,
      by === 'pinned'
        ? ((c.spec as { amiSelectorTerms?: Array<{ id?: string }> }).amiSelectorTerms ?? []).flatMap((t) => (t.id ? [t.id] : []))
        : ((c.status as { amis?: Array<{ id: string }> }).amis ?? []).map((a) => a.id),
    ]),
  );
  const classOf = new Map(
    sandbox.kube.store
      .list('nodepools.karpenter.sh')
      .map((p) => [
        p.metadata.name,
        (p.spec as { template: { spec: { nodeClassRef: { name: string } } } }).template.spec.nodeClassRef.name,
      ]),
  );
  return sandbox.kube.store
    .list('nodeclaims.karpenter.sh')
    .filter((c) => c.metadata.deletionTimestamp === undefined)
    .every((c) =>
      (amis.get(classOf.get(c.metadata.labels?.['karpenter.sh/nodepool']) ?? '') ?? []).includes(
        (c.status as { imageID?: string }).imageID ?? '',
      ),
    );
}

