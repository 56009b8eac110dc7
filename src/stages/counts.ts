// What a staged rollout observes: each NodePool's old NodeClaims (not on a target AMI), untouched or in flight, and
// the old Nodes a node hold picks from. Pure; the same for the inventory read before the apply and for the follow
// loop's snapshot, so the first decision and every later one count alike.
import { budgetMapping, type BudgetMember } from '../karpenter/budget-mapping.js';
import type { NodeClaimView, NodeView } from '../karpenter/views.js';
import { isDisrupting, isPicked } from '../rollout/track.js';
import type { PoolWaveCounts } from './controller.js';
import type { OldNode } from '../apis/node-hold.js';

export interface StagedScope {
  /** The NodePools in scope and their EC2NodeClass. */
  nodePools: ReadonlyArray<{ name: string; nodeClass: string }>;
  /** EC2NodeClass → the target AMI IDs. */
  targetImageIds: Record<string, readonly string[]>;
}

export interface PoolObservation {
  counts: PoolWaveCounts[];
  /**
   * Karpenter's `disrupting` per NodePool (karpenter/budget-mapping.ts): every replacement in flight and every NotReady
   * node, old or new. A budget hold of `n + disrupting` lets exactly `n` more start (DOMAIN.md §2.6).
   */
  disrupting: Map<string, number>;
  /** Old, untouched NodeClaims' Nodes, by NodePool: what a node hold holds or frees. */
  oldNodes: Map<string, OldNode[]>;
}

/**
 * A NodeClaim is old when its imageId is known and not a target (one still launching has none yet, and is a
 * replacement). Untouched: not picked by the disruption queue, not being deleted, its Node not tainted.
 */
export function observePools(
  claims: Iterable<NodeClaimView>,
  nodes: ReadonlyMap<string, NodeView>,
  scope: StagedScope,
): PoolObservation {
  const targets = new Map(scope.nodePools.map((p) => [p.name, new Set(scope.targetImageIds[p.nodeClass] ?? [])]));
  const counts = new Map(scope.nodePools.map((p) => [p.name, { name: p.name, untouched: 0, inflight: 0 }]));
  const oldNodes = new Map<string, OldNode[]>(scope.nodePools.map((p) => [p.name, []]));
  const members = new Map<string, BudgetMember[]>(scope.nodePools.map((p) => [p.name, []]));
  for (const claim of claims) {
    const pool = claim.nodePool !== undefined ? counts.get(claim.nodePool) : undefined;
    if (pool === undefined) continue;
    const node = claim.nodeName !== undefined ? nodes.get(claim.nodeName) : undefined;
    members.get(pool.name)!.push({
      initialized: node?.initialized === true,
      instanceTerminating: claim.conditions.InstanceTerminating?.status === 'True',
      ready: node?.ready === true,
      marked: isPicked(claim, node),
      nodeClaimDeleting: claim.deleting,
      nodeDeleting: node?.deleting === true,
    });
    if (claim.imageId === undefined || targets.get(pool.name)!.has(claim.imageId)) continue;
    if (isDisrupting(claim, node) || node?.deleting === true) {
      pool.inflight += 1;
      continue;
    }
    pool.untouched += 1;
    if (node === undefined) continue;
    const drifted = claim.conditions.Drifted;
    oldNodes.get(pool.name)!.push({
      name: node.name,
      doNotDisrupt: node.doNotDisrupt,
      heldByUs: node.heldBy !== undefined,
      ...(drifted?.status === 'True' && drifted.lastTransitionTime !== undefined
        ? { driftedSince: drifted.lastTransitionTime }
        : {}),
      // Pods are not watched; an empty node is only Karpenter's first pick, never a question of safety.
      empty: false,
    });
  }
  const disrupting = new Map([...members].map(([name, m]) => [name, budgetMapping(m).disrupting.length]));
  return { counts: [...counts.values()], oldNodes, disrupting };
}

/** Nodes karp-drift holds in a NodePool, whatever their NodeClaim: what a release must free. */
export function heldNodesOf(nodes: Iterable<NodeView>, nodePool: string): string[] {
  const out: string[] = [];
  for (const n of nodes) if (n.nodePool === nodePool && n.heldBy !== undefined) out.push(n.name);
  return out;
}
