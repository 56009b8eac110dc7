// Per NodePool: which NodeClaims the new AMIs make drift, and how fast Karpenter may replace them now. "Will drift"
// means `status.imageID` is not among the class's target AMIs, the same test Karpenter's AMIDrift makes against
// `status.amis` (STYLE.md "Domain words"); the pace is the Drifted disruption budget (DOMAIN.md §2.6).
import { isOnTarget, type Inventory, type NodeClaimView, type NodePoolView, type NodeView } from '../karpenter/views.js';
import { allowedDisruptions, driftWaves, type Budget, type DisruptionReason } from '../karpenter/budgets.js';
import { budgetMapping } from '../karpenter/budget-mapping.js';
import { karpDriftHold } from '../apis/budget-hold.js';
import { inOrder } from '../text/order.js';

export interface DriftingNodeClaim {
  nodeClaim: string;
  node?: string;
  imageId: string;
  /** spec.terminationGracePeriod: Karpenter drifts the node despite PDBs and do-not-disrupt pods, then forces it. */
  terminationGracePeriod?: string;
}

export interface DisruptingNodeClaim {
  nodeClaim: string;
  /** `disrupted`: Karpenter has picked it (DisruptionReason) and is replacing it. */
  why: 'NotReady' | 'deleting' | 'disrupted';
}

/** The budget that sets the Drifted limit now (`spec.disruption.budgets[index]`), or the CRD default. */
export interface BlockingBudget {
  index: number;
  nodes: string;
  reasons?: DisruptionReason[];
  schedule?: string;
  duration?: string;
  /** Absent `spec.disruption.budgets`: the CRD default `{nodes: "10%"}` applies. */
  default?: true;
  /** ISO 8601, UTC: when the active window of a scheduled budget closes. */
  windowEnd?: string;
  /** Invalid budget: Karpenter fails closed (0). */
  error?: string;
}

export interface NodePoolPlan {
  name: string;
  nodeClass: string;
  /** NodeClaims of the pool, not counting those already being deleted. */
  nodes: number;
  toDrift: number;
  onTarget: number;
  /** NodeClaims without an image yet (still launching). */
  launching: number;
  drifting: DriftingNodeClaim[];
  /** Drifted disruptions Karpenter may start now: max(limit − disrupting, 0); Infinity = unlimited. */
  allowedDisruptions: number;
  /** The Drifted limit of the active budgets before subtracting disrupting nodes; Infinity = no active limit. */
  limit: number;
  /** Initialized nodes that are NotReady, deleting or already being disrupted: they use up budget. */
  disrupting: DisruptingNodeClaim[];
  blockingBudget?: BlockingBudget;
  /** karp-drift holds its drift with a budget (pause, or a staged rollout that ended early). */
  heldByKarpDrift?: { runId: string; since: string; allowance: number; everyReason?: boolean };
  /** driftWaves(toDrift, limit): rounds of replacements at the current limit; Infinity = cannot start. */
  waves: number;
  /**
   * Karpenter v0.32–v0.33: no disruption budgets at all (the v1beta1 NodePool has no `budgets` field, so none is
   * stored), and the disruption controller starts no command while one is in flight anywhere in the cluster: one
   * drift replacement at a time, for every NodePool together (DOMAIN.md §2.9).
   */
  budgetless?: true;
}

export function nodePoolPlan(
  pool: NodePoolView,
  inventory: Inventory,
  targetIds: ReadonlySet<string>,
  now: Date,
): NodePoolPlan {
  return paced(budgetedPlan(pool, inventory, targetIds, now), pool, inventory);
}

function budgetedPlan(
  pool: NodePoolView,
  inventory: Inventory,
  targetIds: ReadonlySet<string>,
  now: Date,
): NodePoolPlan {
  const claims = inventory.nodeClaims
    .filter((c) => c.nodePool === pool.name)
    .sort((a, b) => inOrder(a.name, b.name));
  const live = claims.filter((c) => !c.deleting);
  const drifting = live
    .filter((c) => c.imageId !== undefined && !targetIds.has(c.imageId))
    .map((c) => ({
      nodeClaim: c.name,
      ...(c.nodeName !== undefined ? { node: c.nodeName } : {}),
      imageId: c.imageId!,
      ...(c.terminationGracePeriod !== undefined ? { terminationGracePeriod: c.terminationGracePeriod } : {}),
    }));

  const { counted, disrupting } = budgetCounts(claims, inventory);
  // The pace is the NodePool's own budgets: a hold karp-drift put on (pause, a paused staged rollout) is reported
  // as such (DRIFT-HELD), and a staged upgrade takes it over.
  const held = karpDriftHold(pool);
  const budgets = held ? held.budgets : pool.budgets;
  const budget = allowedDisruptions(
    budgets,
    { numNodes: counted.length, disrupting: disrupting.length },
    'Drifted',
    now,
  );
  const b = budget.blocking;
  return {
    name: pool.name,
    nodeClass: pool.nodeClass,
    nodes: live.length,
    toDrift: drifting.length,
    onTarget: live.filter((c) => isOnTarget(c, targetIds)).length,
    launching: live.filter((c) => c.imageId === undefined).length,
    drifting,
    allowedDisruptions: budget.allowed,
    limit: budget.limit,
    disrupting,
    ...(b !== undefined
      ? { blockingBudget: blockingBudget(b.budget, b.index, budgets === undefined, b.windowEnd, b.error) }
      : {}),
    ...(held
      ? {
          heldByKarpDrift: {
            runId: held.record.runId,
            since: held.record.since,
            allowance: held.allowance,
            ...(held.everyReason ? { everyReason: true } : {}),
          },
        }
      : {}),
    waves: driftWaves(drifting.length, budget.limit),
  };
}

/** nodePoolPlan, with a v0.32–v0.33 NodePool (no budgets) paced as its Karpenter paces it: one at a time. */
function paced(plan: NodePoolPlan, pool: NodePoolView, inventory: Inventory): NodePoolPlan {
  if (inventory.karpenterApi !== 'v1beta1' || pool.budgets !== undefined) return plan;
  const busy = inventory.nodeClaims.some((c) => c.conditions.DisruptionReason?.status === 'True');
  const out: NodePoolPlan = { ...plan, budgetless: true, limit: 1, allowedDisruptions: busy ? 0 : 1, waves: plan.toDrift };
  delete out.blockingBudget; // the CRD default's 10% that this release does not have
  return out;
}

function blockingBudget(
  budget: Budget,
  index: number,
  isDefault: boolean,
  windowEnd?: Date,
  error?: string,
): BlockingBudget {
  return {
    index,
    nodes: budget.nodes,
    ...(budget.reasons !== undefined ? { reasons: budget.reasons } : {}),
    ...(budget.schedule !== undefined ? { schedule: budget.schedule } : {}),
    ...(budget.duration !== undefined ? { duration: budget.duration } : {}),
    ...(isDefault ? { default: true as const } : {}),
    ...(windowEnd !== undefined ? { windowEnd: windowEnd.toISOString() } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

// Once per list of nodes, not once per NodePool (5,000 nodes on `large`).
const byName = new WeakMap<readonly NodeView[], ReadonlyMap<string, NodeView>>();
function nodesByName(nodes: readonly NodeView[]): ReadonlyMap<string, NodeView> {
  let map = byName.get(nodes);
  if (map === undefined) byName.set(nodes, (map = new Map(nodes.map((n) => [n.name, n]))));
  return map;
}

// BuildDisruptionBudgetMapping: numNodes counts initialized nodes, leaving out NodeClaims whose instance is already
// terminating; disrupting counts those whose Node is not Ready or that are marked for deletion, for any reason (a
// DisruptionReason condition means the queue has already marked the node; a Node deleted alone is not: budget-mapping.ts).
function budgetCounts(
  claims: readonly NodeClaimView[],
  inventory: Inventory,
): { counted: NodeClaimView[]; disrupting: DisruptingNodeClaim[] } {
  const nodes = nodesByName(inventory.nodes);
  const members = claims.map((claim) => {
    const node = claim.nodeName !== undefined ? nodes.get(claim.nodeName) : undefined;
    const disrupted = claim.conditions.DisruptionReason?.status === 'True';
    // A Node deleted while its NodeClaim is not counts only if NotReady (budget-mapping.ts `nodeDeleting`).
    const why: DisruptingNodeClaim['why'] = disrupted ? 'disrupted' : claim.deleting ? 'deleting' : 'NotReady';
    return {
      claim,
      why,
      initialized: node?.initialized === true,
      instanceTerminating: claim.conditions.InstanceTerminating?.status === 'True',
      ready: node?.ready === true,
      marked: disrupted,
      nodeClaimDeleting: claim.deleting,
      nodeDeleting: node?.deleting === true,
    };
  });
  const { counted, disrupting } = budgetMapping(members);
  return {
    counted: counted.map((m) => m.claim),
    disrupting: disrupting.map((m) => ({ nodeClaim: m.claim.name, why: m.why })),
  };
}
