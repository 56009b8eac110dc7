// How a staged rollout holds each NodePool (`--hold-with auto|budget|node`). Pure.
//
// A budget is Karpenter's own lever and the simplest to see (`kubectl get nodepool -o yaml`), but when a GitOps or
// IaC tool owns `spec.disruption.budgets`, it puts its list back on its next sync (Argo CD self-heal: seconds), and
// the hold silently disappears. Then karp-drift holds the old Nodes instead, with `karpenter.sh/do-not-disrupt`,
// which no manager of the NodePool touches. Ownership is read from managedFields exactly as for the EC2NodeClass
// apply (plan/owners.ts).
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import { classifyFieldOwners } from '../plan/owners.js';
import type { HoldWith } from './request.js';

export type { HoldWith } from './request.js';
export type HoldMechanism = 'budget' | 'node';

export const BUDGETS_FIELD = 'spec.disruption.budgets';

export interface HoldChoice {
  nodePool: string;
  mechanism: HoldMechanism;
  /** For the plan: why this mechanism. */
  why: string;
  /** `--hold-with budget --force-conflicts` on a managed NodePool: the manager may undo the hold. */
  warning?: string;
}

export type HoldChoiceResult = HoldChoice | { nodePool: string; error: string; next: string };

/**
 * On Karpenter's v1beta1 API (v0.32–v0.37) a budget cannot hold drift alone: v0.34–v0.37 budgets have no `reasons`
 * (the server prunes it, so `{nodes: "0", reasons: [Drifted]}` is stored as `{nodes: "0"}` and stops consolidation
 * and emptiness too), and v0.32–v0.33 have no budgets at all (DOMAIN.md §2.9). Node holds work on every version.
 */
const V1BETA1_BUDGETS =
  "Karpenter's v1beta1 API (v0.32–v0.37) has budgets without `reasons` (or no budgets at all): a budget hold would be pruned to one that also stops consolidation, or dropped";

export function chooseHold(
  pool: Pick<NodePoolView, 'name' | 'budgetOwners' | 'labels' | 'annotations'>,
  requested: HoldWith,
  forceConflicts: boolean,
  api: KarpenterApi = 'v1',
): HoldChoiceResult {
  if (api === 'v1beta1') {
    if (requested === 'budget') {
      return {
        nodePool: pool.name,
        error: `--hold-with budget: ${V1BETA1_BUDGETS}`,
        next: 'use --hold-with node (or auto, which picks it here): karp-drift holds the old nodes with karpenter.sh/do-not-disrupt instead',
      };
    }
    return { nodePool: pool.name, mechanism: 'node', why: requested === 'node' ? '--hold-with node' : V1BETA1_BUDGETS };
  }
  const owners = (pool.budgetOwners ?? []).map((o) => ({ ...o, owns: true }));
  const { conflicts } = classifyFieldOwners(
    owners,
    { labels: pool.labels ?? {}, annotations: pool.annotations ?? {} },
    BUDGETS_FIELD,
  );
  const owner = conflicts[0];
  const who =
    owner === undefined
      ? ''
      : owner.tool !== undefined
        ? `${owner.tool} (field manager ${owner.manager})`
        : `field manager ${owner.manager}`;
  const name = pool.name;
  if (requested === 'node') {
    return {
      nodePool: name,
      mechanism: 'node',
      why: '--hold-with node',
    };
  }
  if (owner === undefined) {
    return {
      nodePool: name,
      mechanism: 'budget',
      why: requested === 'auto' ? 'no GitOps or IaC tool manages its budgets' : '--hold-with budget',
    };
  }
  if (requested === 'auto') {
    return {
      nodePool: name,
      mechanism: 'node',
      why: `its budgets are managed by ${who}, which would put them back`,
    };
  }
  if (forceConflicts) {
    return {
      nodePool: name,
      mechanism: 'budget',
      why: '--hold-with budget --force-conflicts',
      warning: `${BUDGETS_FIELD} of nodepool/${name} is owned by ${who}: it may put its own budgets back and lift the hold`,
    };
  }
  return {
    nodePool: name,
    error: `--hold-with budget: ${BUDGETS_FIELD} of nodepool/${name} is owned by ${who}, which would put its own budgets back and lift the hold`,
    next: 'use --hold-with node (or auto), which holds the old nodes instead; or pass --force-conflicts to write the budget anyway',
  };
}
