// The health gates compare the cluster with how it was before the first write: a PodDisruptionBudget already below
// its desiredHealthy, a workload already crash-looping on the old AMI, a NodePool already failing to register nodes
// are the cluster's own trouble, not the new AMI's, and must not halt the rollout. Pure.
import { selectorMatches } from '../karpenter/convert.js';
import type { NodeClaimView, NodePoolView, NodeView, PdbView, PodView } from '../karpenter/views.js';
import { failingNow, livePod, workloadOf } from '../rollout/replacement-health.js';

export interface GateScope {
  nodePools: readonly string[];
  /** EC2NodeClass → the target AMI IDs: a NodeClaim on one of them runs the new AMI. */
  targetImageIds: Readonly<Record<string, readonly string[]>>;
}

export interface GateBaseline {
  at: Date;
  /** NodeClaims that existed before: any other NodeClaim of the scope is a replacement (or a new node) to gate. */
  nodeClaims: ReadonlySet<string>;
  /** `ns/name` of the PDBs covering pods on the scope's nodes that had currentHealthy ≥ desiredHealthy. */
  healthyPdbs: ReadonlySet<string>;
  /** Workloads (`ns/Kind/name`) with a pod already failing on a node not on a target AMI. */
  failingWorkloads: ReadonlySet<string>;
  /** NodePools whose NodeRegistrationHealthy was already False, with that condition's lastTransitionTime. */
  registrationFailed: ReadonlyMap<string, string>;
}

export interface BaselineInput {
  nodeClaims: Iterable<NodeClaimView>;
  nodes: Iterable<NodeView>;
  pods: readonly PodView[];
  pdbs: readonly PdbView[];
  nodePools: readonly NodePoolView[];
}

export const pdbKey = (p: Pick<PdbView, 'namespace' | 'name'>): string => `${p.namespace}/${p.name}`;

export function onTarget(claim: NodeClaimView, scope: GateScope): boolean {
  return claim.imageId !== undefined && (scope.targetImageIds[claim.nodeClass ?? ''] ?? []).includes(claim.imageId);
}

export function takeBaseline(input: BaselineInput, scope: GateScope, now: Date): GateBaseline {
  const pools = new Set(scope.nodePools);
  const claims = [...input.nodeClaims];
  const scopeNodes = new Set<string>();
  for (const n of input.nodes) if (n.nodePool !== undefined && pools.has(n.nodePool)) scopeNodes.add(n.name);
  const newNodes = new Set<string>();
  for (const c of claims) {
    if (c.nodeName === undefined || c.nodePool === undefined || !pools.has(c.nodePool)) continue;
    scopeNodes.add(c.nodeName);
    if (onTarget(c, scope)) newNodes.add(c.nodeName);
  }
  const scopePods = input.pods.filter((p) => p.nodeName !== undefined && scopeNodes.has(p.nodeName) && livePod(p));
  const failingWorkloads = new Set<string>();
  for (const p of scopePods) {
    // A pod failing on a node already on the target AMI says nothing about the old one: it does not excuse.
    if (newNodes.has(p.nodeName!)) continue;
    if (failingNow(p)) failingWorkloads.add(workloadOf(p));
  }
  const healthyPdbs = new Set<string>();
  for (const pdb of input.pdbs) {
    if (pdb.currentHealthy === undefined || pdb.desiredHealthy === undefined) continue;
    if (pdb.currentHealthy < pdb.desiredHealthy) continue;
    if (scopePods.some((p) => p.namespace === pdb.namespace && selectorMatches(pdb.selector, p.labels)))
      healthyPdbs.add(pdbKey(pdb));
  }
  const registrationFailed = new Map<string, string>();
  for (const p of input.nodePools) {
    const c = p.conditions.NodeRegistrationHealthy;
    if (pools.has(p.name) && c?.status === 'False') registrationFailed.set(p.name, c.lastTransitionTime ?? '');
  }
  return { at: now, nodeClaims: new Set(claims.map((c) => c.name)), healthyPdbs, failingWorkloads, registrationFailed };
}
