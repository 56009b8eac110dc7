// What a NodePool's disruption budgets are measured against, as kubernetes-sigs/karpenter v1.14.1
// `pkg/controllers/disruption/helpers.go` `BuildDisruptionBudgetMapping` counts it (DOMAIN.md §2.6): the plan, the
// stall diagnosis and the sandbox's disruption controller all count here, so they cannot count differently.

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
   * statenode.go `MarkedForDeletion()`: picked by the disruption queue (seen from outside as the NodeClaim's
   * `DisruptionReason` or the Node's disrupted taint), or the NodeClaim or Node being deleted.
   */
  markedForDeletion: boolean;
}

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
    if (!m.ready || m.markedForDeletion) disrupting.push(m);
  }
  return { counted, disrupting };
}
