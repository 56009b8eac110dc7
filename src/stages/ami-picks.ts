// Which old nodes the `1/ami` wave replaces first: one per target AMI not tested yet, so each AMI (a family, arch and
// variant the stage's old nodes move onto) is exercised on one replacement before anything else of the stage starts.
// Pure; the pacer asks it on every turn of the wave, from the snapshot.
//
// What makes a pick test the AMI:
// - it runs pods: Karpenter disrupts empty drifted nodes first and deletes them without a replacement
//   (kubernetes-sigs/karpenter v1.14.1 `disruption/drift.go`), which tests nothing;
// - Karpenter takes it and not a neighbour: a budget lets Karpenter choose among ALL of the NodePool's drifted nodes
//   (empty first, then oldest `Drifted`: DOMAIN.md §2.5 step 4). A budget alone is exact only in a NodePool whose
//   untouched old nodes all run pods and all move onto that one AMI; elsewhere the pick is made exact with
//   `karpenter.sh/do-not-disrupt` on the NodePool's other old nodes for the wave (`exact: false`), which Karpenter
//   reads on every pass (§2.7). NodePools held with their nodes anyway (`--hold-with node`) are always exact.
// An AMI is tested (no pick) once a NodeClaim in scope runs it, or an old node that moves onto it is being replaced:
// the replacement has no `status.imageID` until it launches, and picking again meanwhile would start a second one.
// With the built-in gates, a NodeClaim counts only if Karpenter launched it for a drift command (`counts`): the
// wave's checkpoint asks each AMI a drift replacement runs to be tested by one (gates/coverage.ts), and a scale-up
// node on it would otherwise leave the AMI with no drift replacement at all. That is pacing ("pick no more"); whether
// the replacement then tested the AMI (a pod the workloads gate judges, Ready on it) is the gates' verdict.
// The replacement's own arch is Karpenter's choice (it may launch another instance type); an AMI still untested when
// the wave's replacements are done is picked again, one node at a time, until it is tested or has no node left.
import type { AmiFamily, Arch, Variant } from '../ami/families.js';
import { nodesWithReschedulablePods } from '../karpenter/disruptable.js';
import type { Inventory, NodeClaimView, NodeView } from '../karpenter/views.js';
import type { Plan } from '../plan/plan.js';
import { targetOf } from '../plan/targets.js';
import { isDisrupting } from '../rollout/track.js';
import type { HoldMechanism } from './hold-mechanism.js';
import { inOrder } from '../text/order.js';

/** An EC2NodeClass's family and target AMIs: what its old nodes move onto. */
export interface ClassTargets {
  family?: AmiFamily;
  targets: ReadonlyArray<{ id: string; arch: Arch; variant: Variant }>;
}

export interface AmiPickScope {
  /** Every NodePool in scope, its class and how the staged rollout holds it. */
  nodePools: ReadonlyArray<{ name: string; nodeClass: string; hold: HoldMechanism }>;
  classes: ReadonlyMap<string, ClassTargets>;
  /** Nodes with no pod but DaemonSet and static pods when the plan read the cluster (pods are not watched after). */
  emptyNodes: ReadonlySet<string>;
}

export interface AmiPick {
  ami: string;
  /** `al2023 amd64 standard`. */
  label: string;
  nodePool: string;
  node: string;
  /** The NodePool's budget alone lets Karpenter take only a node that tests this AMI; false: hold the others. */
  exact: boolean;
}

interface Candidate {
  node: string;
  ami: string;
  label: string;
  empty: boolean;
  driftedSince?: string;
}

/** The picks of the stage made of `stagePools`, one per untested target AMI that has a node with pods to test it. */
export function amiPicks(
  stagePools: readonly string[],
  claims: Iterable<NodeClaimView>,
  nodes: ReadonlyMap<string, NodeView>,
  scope: AmiPickScope,
  counts: (claim: NodeClaimView) => boolean = () => true,
): AmiPick[] {
  const pools = new Map(scope.nodePools.map((p) => [p.name, p]));
  const inStage = new Set(stagePools);
  const tested = new Set<string>();
  const untouched = new Map<string, Candidate[]>(stagePools.map((p) => [p, []]));
  for (const claim of claims) {
    const pool = claim.nodePool !== undefined ? pools.get(claim.nodePool) : undefined;
    const cls = pool !== undefined ? scope.classes.get(pool.nodeClass) : undefined;
    if (pool === undefined || cls === undefined || claim.imageId === undefined) continue;
    if (cls.targets.some((t) => t.id === claim.imageId)) {
      if (!claim.deleting && counts(claim)) tested.add(claim.imageId);
      continue;
    }
    const target = targetOf(claim, cls.family, cls.targets);
    if (target === undefined) continue;
    const node = claim.nodeName !== undefined ? nodes.get(claim.nodeName) : undefined;
    if (isDisrupting(claim, node) || node?.deleting === true) {
      tested.add(target.id);
      continue;
    }
    // Karpenter disrupts only a NodeClaim with a Node, and never one a person holds with do-not-disrupt.
    if (!inStage.has(pool.name) || node === undefined || (node.doNotDisrupt && node.heldBy === undefined)) continue;
    const drifted = claim.conditions.Drifted;
    untouched.get(pool.name)!.push({
      node: node.name,
      ami: target.id,
      label: `${cls.family ?? 'unknown family'} ${target.arch} ${target.variant}`,
      empty: scope.emptyNodes.has(node.name),
      ...(drifted?.status === 'True' && drifted.lastTransitionTime !== undefined ? { driftedSince: drifted.lastTransitionTime } : {}),
    });
  }
  const amis = [...new Set([...untouched.values()].flatMap((cs) => cs.filter((c) => !c.empty).map((c) => c.ami)))]
    .filter((a) => !tested.has(a))
    .sort();
  const picks: AmiPick[] = [];
  for (const ami of amis) {
    const options = [...untouched]
      .map(([name, cs]) => ({ name, cs, hold: pools.get(name)!.hold, withIt: cs.filter((c) => c.ami === ami && !c.empty) }))
      .filter((o) => o.withIt.length > 0)
      .map((o) => ({ ...o, exact: o.hold === 'node' || o.cs.every((c) => c.ami === ami && !c.empty) }))
      // Exact first (no node writes), then the NodePool with the fewest old nodes (the fewest writes, the smallest blast
      // radius), then by name so that two turns pick alike.
      .sort((a, b) => Number(b.exact) - Number(a.exact) || a.cs.length - b.cs.length || inOrder(a.name, b.name));
    const chosen = options[0]!;
    // Karpenter's own order among the nodes that test it: the oldest `Drifted` first.
    const node = [...chosen.withIt].sort(
      (a, b) => inOrder(a.driftedSince ?? '\uffff', b.driftedSince ?? '\uffff') || inOrder(a.node, b.node),
    )[0]!;
    picks.push({ ami, label: node.label, nodePool: chosen.name, node: node.node, exact: chosen.exact });
  }
  return picks;
}

/**
 * The scope of the picks, from the plan (each class's family and targets, each NodePool's class) and the inventory
 * it read (the pods, for which nodes are empty), with how each NodePool is held.
 */
export function amiPickScope(
  plan: Pick<Plan, 'nodeClasses' | 'nodePools'>,
  inventory: Pick<Inventory, 'pods'>,
  holds: ReadonlyMap<string, HoldMechanism>,
  nodeNames: Iterable<string>,
): AmiPickScope {
  const busy = nodesWithReschedulablePods(inventory.pods);
  return {
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass, hold: holds.get(p.name) ?? 'budget' })),
    classes: new Map(plan.nodeClasses.map((c) => [c.name, { family: c.family, targets: c.targets }])),
    emptyNodes: new Set([...nodeNames].filter((n) => !busy.has(n))),
  };
}
