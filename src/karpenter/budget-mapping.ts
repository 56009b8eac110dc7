// What a NodePool's disruption budgets are measured against, as kubernetes-sigs/karpenter v1.14.1
// `pkg/controllers/disruption/helpers.go` `BuildDisruptionBudgetMapping` counts it (DOMAIN.md §2.6): the plan, the
// stall diagnosis, the staged rollout's pacer and the sandbox's disruption controller and cluster state all count here,
// so they cannot count differently. Callers give the facts as they see them; which of them mark a node for deletion
// is decided here.

/** One managed node of a NodePool, as the budget mapping sees it (a NodeClaim and its Node). */
export interface BudgetMember {
  /**
   * statenode.go `Initialized()`: the Node exists and carries `karpenter.sh/initialized: "true"`. A NodeClaim whose
   * Node is not there is not counted, whatever its own Initialized condition says.
   */
  initialized: boolean;
  /** The NodeClaim's `InstanceTerminating` is True: drained and its instance deleted, no longer counted. */
  instanceTerminating: boolean;
  /** The Node's `Ready` condition is True. */
  ready: boolean;
  /**
   * The state node's own `markedForDeletion` flag (`cluster.MarkForDeletion`, set as the disruption queue starts a
   * command on it): seen from outside as the NodeClaim's `DisruptionReason` or the Node's disrupted taint.
   */
  marked: boolean;
  /** The NodeClaim has a `deletionTimestamp`. */
  nodeClaimDeleting: boolean;
  /**
   * The Node has a `deletionTimestamp`. It does not count: statenode.go `Deleted()` counts a Node's deletion only for
   * a Node without a NodeClaim, and such a Node is no member (the mapping skips unmanaged nodes). A Node deleted
   * directly is marked once Karpenter's termination controller deletes its NodeClaim in turn.
   */
  nodeDeleting: boolean;
}

/**
 * statenode.go `MarkedForDeletion()` of a managed node: `markedForDeletion || Deleted()`, where `Deleted()` is the
 * NodeClaim's deletion or its `InstanceTerminating`, never the Node's alone.
 */
export const markedForDeletion = (m: Pick<BudgetMember, 'marked' | 'nodeClaimDeleting' | 'instanceTerminating'>): boolean =>
  m.marked || m.nodeClaimDeleting || m.instanceTerminating;

/**
 * `numNodes` counts the initialized members not InstanceTerminating; `disrupting` those of them NotReady or marked for
 * deletion, for any reason: every replacement in flight and every NotReady node already uses up budget.
 */
export function budgetMapping<M extends BudgetMember>(members: Iterable<M>): { counted: M[]; disrupting: M[] } {
  const counted: M[] = [];
  const disrupting: M[] = [];
  for (const m of members) {
    if (!m.initialized || m.instanceTerminating) continue;
    counted.push(m);
    if (!m.ready || markedForDeletion(m)) disrupting.push(m);
  }
  return { counted, disrupting };
}
