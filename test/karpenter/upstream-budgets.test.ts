// allowedDisruptions against Karpenter's own tests, case for case: kubernetes-sigs/karpenter tag v1.14.1 (commit
// 6e7eab7a), the files
// - pkg/apis/v1/nodepool_budgets_test.go: Budget.GetAllowedDisruptions, NodePool.GetAllowedDisruptionsByReason;
// - pkg/apis/v1/nodepool_default_test.go: the CRD default budget;
// - pkg/apis/v1/nodepool_validation_cel_test.go: the `nodes` values the CRD admits;
// - pkg/controllers/disruption/suite_test.go: BuildDisruptionBudgetMapping, i.e. what counts and what uses up budget;
// - pkg/controllers/state/suite_test.go and statenode.go: which state nodes are MarkedForDeletion;
// - pkg/controllers/disruption/{drift,emptiness,consolidation,staticdrift}_test.go: one pool's budget per reason;
// - test/suites/regression/drift_test.go: the e2e budgets.
// Each row names the `It(...)` it comes from. Karpenter's MaxInt32 ("unlimited") is Infinity here.
//
// Karpenter's controllers count the nodes from cluster state; allowedDisruptions takes the counts from its caller. So
// the controller rows write out what that state counts: numNodes = managed, initialized nodes whose NodeClaim is not
// InstanceTerminating; disrupting = those of them NotReady or marked for deletion. The expected values are upstream's:
// `allowed` is what the mapping returns, or how many commands the test sees started; `limit` is the count before the
// disrupting nodes are subtracted, which upstream asserts as the karpenter_nodepools_allowed_disruptions metric where
// the test reads that metric.
import { describe, expect, it } from 'vitest';
import { budgetMapping, markedForDeletion, type BudgetMember } from '../../src/karpenter/budget-mapping.js';
import {
  allowedDisruptions,
  DEFAULT_BUDGETS,
  type Budget,
  type DisruptionReason,
} from '../../src/karpenter/budgets.js';

const REASONS: DisruptionReason[] = ['Empty', 'Underutilized', 'Drifted']; // upstream's allKnownDisruptionReasons

// nodepool_budgets_test.go: "the middle of the year of 2000", on its fake clock. A Thursday, so @weekly is not active.
const CLOCK = new Date('2000-06-15T12:30:30Z');
const ALWAYS = { schedule: '* * * * *', duration: '1h' };
const YEARLY = { schedule: '@yearly', duration: '1h' };

// The BeforeEach budgets of nodepool_budgets_test.go, in order.
const fixture = (): Budget[] => [
  { nodes: '10', ...ALWAYS },
  { nodes: '100', ...ALWAYS },
  { nodes: '100%', ...ALWAYS },
  { nodes: '15', ...ALWAYS, reasons: ['Drifted', 'Underutilized'] },
  { nodes: '5', ...ALWAYS, reasons: ['Drifted'] },
  { nodes: '0', schedule: '@weekly', duration: '1h', reasons: ['Underutilized', 'Drifted', 'Empty'] },
];

describe('nodepool_budgets_test.go Context("GetAllowedDisruptionsByReason"), 100 nodes', () => {
  it.each<[string, (b: Budget[]) => Budget[], Record<DisruptionReason, number>]>([
    [
      'should return 0 for all reasons if a budget is active for all reasons',
      (b) => b.map((x, i) => (i === 5 ? { ...x, ...ALWAYS } : x)),
      { Empty: 0, Underutilized: 0, Drifted: 0 },
    ],
    [
      'should return MaxInt32 for all reasons when there are no active budgets',
      (b) => b.map((x) => ({ ...x, ...YEARLY })),
      { Empty: Infinity, Underutilized: Infinity, Drifted: Infinity },
    ],
    [
      // Budgets 3 and 4 get @yearly but keep their 1h: outside their window they limit nothing, not even Drifted.
      'should ignore reason-defined budgets when inactive',
      (b) => b.map((x, i) => (i === 3 || i === 4 ? { ...x, schedule: '@yearly' } : x)),
      { Empty: 10, Underutilized: 10, Drifted: 10 },
    ],
    [
      'should return the budget for all disruption reasons when undefined',
      (b) => b.slice(0, 1),
      { Empty: 10, Underutilized: 10, Drifted: 10 },
    ],
    [
      // "The budget where reason == nil overrides the budget with a specified reason": Underutilized gets the
      // reason-less 10, not its own 15.
      'should get the minimum budget for each reason',
      (b) => [...b, { nodes: '4', ...ALWAYS, reasons: ['Empty'] }],
      { Empty: 4, Underutilized: 10, Drifted: 5 },
    ],
  ])('%s', (_it, change, expected) => {
    const budgets = change(fixture());
    const limits = REASONS.map((r) => allowedDisruptions(budgets, { numNodes: 100, disrupting: 0 }, r, CLOCK).limit);
    expect(limits).toEqual(REASONS.map((r) => expected[r]));
  });
});

describe('nodepool_budgets_test.go Context("AllowedDisruptions"): Budget.GetAllowedDisruptions on 100 nodes', () => {
  // A misconfigured budget fails closed: 0 and an error, never "unlimited".
  it.each<[string, Budget, number, boolean]>([
    [
      'should return zero values if a schedule is invalid',
      { nodes: '10', schedule: '@wrongly', duration: '1h' }, 0, true,
    ],
    ['should return zero values if a nodes value is invalid', { nodes: '1000a%', ...ALWAYS }, 0, true],
    ['should return MaxInt32 when a budget is inactive', { nodes: '10', ...YEARLY }, Infinity, false],
    ['should return the int value when a budget is active', { nodes: '10', ...ALWAYS }, 10, false],
    ['should return the string value when a budget is active', { nodes: '100%', ...ALWAYS }, 100, false],
  ])('%s', (_it, budget, allowed, failed) => {
    const [evaluation] = allowedDisruptions([budget], { numNodes: 100, disrupting: 0 }, 'Drifted', CLOCK).evaluations;
    expect(evaluation?.allowed).toBe(allowed);
    expect(evaluation?.error !== undefined).toBe(failed);
  });
});

describe('nodepool_default_test.go It("should default the disruption stanza when undefined")', () => {
  it('defaults budgets to [{nodes: "10%"}], which an absent budgets field means', () => {
    expect(DEFAULT_BUDGETS).toEqual([{ nodes: '10%' }]);
    expect(allowedDisruptions(undefined, { numNodes: 10, disrupting: 0 }, 'Drifted', CLOCK).limit).toBe(1);
  });
});

// The CRD pattern ^((100|[0-9]{1,2})%|[0-9]+)$ keeps these out of the cluster; should one reach allowedDisruptions
// it must fail closed as Karpenter's intstr parsing does, not read as a number.
describe('nodepool_validation_cel_test.go: nodes values', () => {
  it.each<[string, string, number]>([
    ['should fail when creating a budget with a negative value int', '-10', 0],
    ['should fail when creating a budget with a negative value percent', '-10%', 0],
    ['should fail when creating a budget with a value percent with more than 3 digits', '1000%', 0],
    ['should succeed when creating a budget with neither duration nor cron', '10', 10],
  ])('%s (%j)', (_it, nodes, limit) => {
    const result = allowedDisruptions([{ nodes }], { numNodes: 100, disrupting: 0 }, 'Drifted', CLOCK);
    expect(result.limit).toBe(limit);
    expect(result.blocking?.error !== undefined).toBe(limit === 0);
  });
});

// suite_test.go Describe("BuildDisruptionBudgetMapping"): 10 managed, initialized, Ready nodes in one pool, plus what
// each It adds, counted by karp-drift's own budgetMapping (the one the plan, the diagnosis and the sandbox share).
// Upstream checks every reason; so do we.
const member = (o: Partial<BudgetMember> = {}): BudgetMember => ({
  initialized: true,
  instanceTerminating: false,
  ready: true,
  marked: false,
  nodeClaimDeleting: false,
  nodeDeleting: false,
  ...o,
});
const ten = (): BudgetMember[] => Array.from({ length: 10 }, () => member());

describe('suite_test.go Describe("BuildDisruptionBudgetMapping")', () => {
  it.each<[string, Budget[], BudgetMember[], { numNodes: number; disrupting: number }, number]>([
    // An unmanaged Node (no NodeClaim) is never a member of the pool: the 10 alone.
    ['should not consider nodes that are not managed as part of disruption count', [{ nodes: '100%' }], ten(), { numNodes: 10, disrupting: 0 }, 10],
    // An 11th NodeClaim whose Node is not initialized (or not there): not counted, so 100% stays 10.
    [
      'should not consider nodes that are not initialized as part of disruption count',
      [{ nodes: '100%' }],
      [...ten(), member({ initialized: false, ready: false })],
      { numNodes: 10, disrupting: 0 },
      10,
    ],
    // An 11th NodeClaim with InstanceTerminating=True: neither counted nor disrupting.
    [
      'should not consider nodes that have the terminating status condition as part of disruption count',
      [{ nodes: '100%' }],
      [...ten(), member({ instanceTerminating: true })],
      { numNodes: 10, disrupting: 0 },
      10,
    ],
    // All 10 NodeClaims and Nodes deleted (finalizers keep them): still counted, all disrupting; 10% of 10 is 1, and
    // 1 − 10 floors at 0.
    [
      'should not return a negative disruption value',
      [{ nodes: '10%' }],
      ten().map(() => member({ nodeClaimDeleting: true, nodeDeleting: true })),
      { numNodes: 10, disrupting: 10 },
      0,
    ],
    // nodeClaims[0] and nodes[0] deleted, nodeClaims[1] marked for deletion by the cluster state.
    [
      'should consider nodes with a deletion timestamp set and MarkedForDeletion to the disruption count',
      [{ nodes: '100%' }],
      [...ten().slice(2), member({ nodeClaimDeleting: true, nodeDeleting: true }), member({ marked: true })],
      { numNodes: 10, disrupting: 2 },
      8,
    ],
    [
      'should consider not ready nodes to the disruption count',
      [{ nodes: '100%' }],
      [...ten().slice(2), member({ ready: false }), member({ ready: false })],
      { numNodes: 10, disrupting: 2 },
      8,
    ],
    // No It of its own: statenode.go Deleted() reads a Node's deletionTimestamp only for a Node without a NodeClaim,
    // which this mapping skips as unmanaged. So nodes[0] deleted while nodeClaims[0] is not (a `kubectl delete node`,
    // until Karpenter's termination controller deletes the NodeClaim in turn) uses up no budget while it is Ready.
    [
      'statenode.go Deleted(): a Node deleted while its NodeClaim is not is not marked for deletion',
      [{ nodes: '100%' }],
      [...ten().slice(1), member({ nodeDeleting: true })],
      { numNodes: 10, disrupting: 0 },
      10,
    ],
    [
      'statenode.go Deleted(): a Node deleted while its NodeClaim is not counts only as NotReady',
      [{ nodes: '100%' }],
      [...ten().slice(1), member({ nodeDeleting: true, ready: false })],
      { numNodes: 10, disrupting: 1 },
      9,
    ],
  ])('%s', (_it, budgets, members, counts, allowed) => {
    const { counted, disrupting } = budgetMapping(members);
    expect({ numNodes: counted.length, disrupting: disrupting.length }).toEqual(counts);
    for (const reason of REASONS) expect(allowedDisruptions(budgets, counts, reason, CLOCK).allowed).toBe(allowed);
  });
});

describe('the disruption controller tests: one pool, its budget and counts → limit (metric) and allowed', () => {
  it.each<[string, DisruptionReason, Budget[], { numNodes: number; disrupting: number }, number, number]>([
    // drift_test.go Context("Budgets"): 10 drifted nodes; the metrics say allowed 3, 0 consuming budget.
    [
      'drift_test.go should only consider 3 nodes allowed to be disrupted because of budgets',
      'Drifted', [{ nodes: '30%' }], { numNodes: 10, disrupting: 0 }, 3, 3,
    ],
    // Five reconciles start three commands: each started one marks its node for deletion, which then uses budget
    // while the pool's count stays 10 (the replacement is not initialized yet).
    [
      'drift_test.go should disrupt 3 nodes, taking into account commands in progress (1 started)',
      'Drifted', [{ nodes: '30%' }], { numNodes: 10, disrupting: 1 }, 3, 2,
    ],
    [
      'drift_test.go should disrupt 3 nodes, taking into account commands in progress (2 started)',
      'Drifted', [{ nodes: '30%' }], { numNodes: 10, disrupting: 2 }, 3, 1,
    ],
    [
      'drift_test.go should disrupt 3 nodes, taking into account commands in progress (3 started)',
      'Drifted', [{ nodes: '30%' }], { numNodes: 10, disrupting: 3 }, 3, 0,
    ],
    [
      'drift_test.go should respect budgets for multiple nodepools (each of 3 nodes)',
      'Drifted', [{ nodes: '1' }], { numNodes: 3, disrupting: 0 }, 1, 1,
    ],
    [
      'emptiness_test.go should allow no empty nodes to be disrupted',
      'Empty', [{ nodes: '0%' }], { numNodes: 10, disrupting: 0 }, 0, 0,
    ],
    [
      'emptiness_test.go should only allow 3 empty nodes to be disrupted',
      'Empty', [{ nodes: '30%' }], { numNodes: 10, disrupting: 0 }, 3, 3,
    ],
    // 50% of 3 is 1.5, rounded up: 20 of the 30 NodeClaims are left.
    [
      'emptiness_test.go should allow 2 nodes from each nodePool to be deleted',
      'Empty', [{ nodes: '50%' }], { numNodes: 3, disrupting: 0 }, 2, 2,
    ],
    [
      'consolidation_test.go should only allow 3 nodes to be deleted in single node consolidation delete',
      'Underutilized', [{ nodes: '30%' }], { numNodes: 10, disrupting: 0 }, 3, 3,
    ],
    [
      'staticdrift_test.go should respect disruption budgets (Nodes Count) for static drift',
      'Drifted', [{ nodes: '2', reasons: ['Drifted'] }], { numNodes: 5, disrupting: 0 }, 2, 2,
    ],
    // 20% of 5 is exactly 1: no rounding.
    [
      'staticdrift_test.go should respect disruption budgets (Nodes Percentage) for static drift',
      'Drifted', [{ nodes: '20%', reasons: ['Drifted'] }], { numNodes: 5, disrupting: 0 }, 1, 1,
    ],
    [
      'staticdrift_test.go should respect budgets for multiple static nodepools (static-nodepool-1)',
      'Drifted', [{ nodes: '1', reasons: ['Drifted'] }], { numNodes: 2, disrupting: 0 }, 1, 1,
    ],
    [
      'staticdrift_test.go should respect budgets for multiple static nodepools (static-nodepool-2)',
      'Drifted', [{ nodes: '2', reasons: ['Drifted'] }], { numNodes: 2, disrupting: 0 }, 2, 2,
    ],
    // "Unlimited budget": 100% of the pool's 2 nodes is 2, not MaxInt32.
    [
      'staticdrift_test.go should respect budgets for multiple static nodepools (static-nodepool-3)',
      'Drifted', [{ nodes: '100%', reasons: ['Drifted'] }], { numNodes: 2, disrupting: 0 }, 2, 2,
    ],
    // test/suites/regression/drift_test.go: ConsistentlyExpectDisruptionsUntilNoneLeft(nodes, most disrupting at once).
    [
      'regression drift_test.go should respect budgets for empty drift',
      'Drifted', [{ nodes: '50%' }], { numNodes: 3, disrupting: 0 }, 2, 2,
    ],
    [
      'regression drift_test.go should respect budgets for non-empty replace drift',
      'Drifted', [{ nodes: '3' }], { numNodes: 5, disrupting: 0 }, 3, 3,
    ],
    [
      'regression drift_test.go should not allow drift if the budget is fully blocking',
      'Drifted', [{ nodes: '0' }], { numNodes: 1, disrupting: 0 }, 0, 0,
    ],
  ])('%s', (_it, reason, budgets, counts, limit, allowed) => {
    const result = allowedDisruptions(budgets, counts, reason, CLOCK);
    expect([result.limit, result.allowed]).toEqual([limit, allowed]);
  });
});

// statenode.go MarkedForDeletion() = markedForDeletion || Deleted(), and Deleted() = (NodeClaim != nil && (its
// deletionTimestamp || InstanceTerminating)) || (Node != nil && NodeClaim == nil && the Node's deletionTimestamp).
// A budget member always has its NodeClaim, so only the first half applies to it.
describe('statenode.go MarkedForDeletion() of a managed node', () => {
  it.each<[string, Partial<BudgetMember>, boolean]>([
    ['state/suite_test.go should mark node for deletion when nodeclaim is deleted', { nodeClaimDeleting: true, nodeDeleting: false }, true],
    ['state/suite_test.go should update nodepool resources when node is marked/unmarked for deletion (MarkForDeletion)', { marked: true }, true],
    ['state/suite_test.go should update nodepool resources when node is marked/unmarked for deletion (UnmarkForDeletion)', { marked: false }, false],
    ['statenode.go Deleted(): the NodeClaim InstanceTerminating', { instanceTerminating: true }, true],
    // state/suite_test.go "should mark node for deletion when node is deleted" deletes a Node that has no NodeClaim; one
    // that has a NodeClaim is not Deleted() until the NodeClaim is.
    ['statenode.go Deleted(): the Node deleted, its NodeClaim not', { nodeDeleting: true }, false],
    ['statenode.go Deleted(): both deleted', { nodeDeleting: true, nodeClaimDeleting: true }, true],
    ['neither marked nor deleted', {}, false],
  ])('%s', (_it, facts, marked) => {
    expect(markedForDeletion(member(facts))).toBe(marked);
  });
});
