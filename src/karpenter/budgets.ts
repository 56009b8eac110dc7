// NodePool disruption-budget arithmetic, as Karpenter v1 does it (DOMAIN.md §1.3, §2.6):
// kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go (`GetAllowedDisruptionsByReason`, `MustGetAllowedDisruptions`,
// `Budget.GetAllowedDisruptions`, `Budget.IsActive`) and pkg/controllers/disruption/helpers.go
// (`BuildDisruptionBudgetMapping`). Pure: `now` is always an argument.
//
// "Unlimited" is `Infinity` everywhere in this module (Karpenter uses math.MaxInt32, and the metric
// karpenter_nodepools_allowed_disruptions then reads 2147483647). JSON.stringify turns Infinity into null, so
// JSON reports must map it explicitly.
import { budgetSchedule, type BudgetSchedule } from './cron.js';

export type DisruptionReason = 'Drifted' | 'Underutilized' | 'Empty';

/** One entry of NodePool `spec.disruption.budgets`. */
export interface Budget {
  nodes: string;
  reasons?: DisruptionReason[];
  schedule?: string;
  duration?: string;
}

export interface BudgetEvaluation {
  budget: Budget;
  index: number;
  /** The budget counts for the requested reason: `reasons` absent, or listing it. */
  applies: boolean;
  active: boolean;
  /** Computed on numNodes; Infinity when inactive; 0 when the budget is invalid. */
  allowed: number;
  /**
   * Active scheduled budget: the schedule hit that keeps it active, the first within [now − duration, now] (robfig's
   * `Next` after IsActive's checkpoint): when its current window opened.
   */
  windowStart?: Date;
  /** Active scheduled budget: when its current window (overlapping windows merged) closes. */
  windowEnd?: Date;
  /** Inactive scheduled budget: when its next window opens. */
  nextWindowStart?: Date;
  /** Invalid cron, duration or nodes: Karpenter fails closed. */
  error?: string;
}

export interface AllowedDisruptions {
  reason: DisruptionReason;
  /** max(limit - disrupting, 0): what Karpenter may start now. */
  allowed: number;
  /** Minimum over active budgets that apply to `reason`, before subtracting disrupting; Infinity if none. */
  limit: number;
  /** The budget that sets the limit: the first minimal one, or the first invalid one. */
  blocking?: BudgetEvaluation;
  evaluations: BudgetEvaluation[];
}

/** The CRD default when `spec.disruption.budgets` is absent (nodepool.go `+kubebuilder:default:={{nodes: "10%"}}`). */
export const DEFAULT_BUDGETS: readonly Budget[] = [{ nodes: '10%' }];

// The NodePool CRD patterns for `nodes` and `duration` (vendor/karpenter/crds/v1/karpenter.sh_nodepools.yaml).
const NODES = /^(?:(100|[0-9]{1,2})%|([0-9]+))$/;
const DURATION = /^(?:([0-9]+)(h|m)|([0-9]+)h([0-9]+)m)(?:0s)?$/;

// An always-active schedule (`* * * * *` for `1h`) has windows that overlap forever; stop merging after this many.
const MAX_MERGED_WINDOWS = 100;

/**
 * Allowed disruptions for one NodePool and reason, as `BuildDisruptionBudgetMapping` computes them.
 *
 * The caller counts, over the NodePool's nodes:
 * - `numNodes`: managed and Initialized nodes, excluding NodeClaims with `InstanceTerminating=True`
 *   (uninitialized replacements do not count, so a percentage does not grow while they come up);
 * - `disrupting`: those of them whose Node `Ready` is not True, or that are marked for deletion, for any reason.
 *
 * `budgets` undefined means the field is absent and the CRD default applies; an explicit `[]` means no budget
 * at all, which is unlimited.
 */
export function allowedDisruptions(
  budgets: Budget[] | undefined,
  counts: { numNodes: number; disrupting: number },
  reason: DisruptionReason,
  now: Date,
): AllowedDisruptions {
  const evaluations = (budgets ?? DEFAULT_BUDGETS).map((budget, index) =>
    evaluateBudget(budget, index, counts.numNodes, reason, now),
  );
  // `MustGetAllowedDisruptions` returns 0 when any budget of the pool errs, whatever reasons that budget lists.
  let blocking = evaluations.find((e) => e.error !== undefined);
  if (blocking === undefined) {
    for (const e of evaluations) {
      if (e.applies && e.allowed !== Infinity && (blocking === undefined || e.allowed < blocking.allowed)) blocking = e;
    }
  }
  const limit = blocking?.allowed ?? Infinity;
  return { reason, allowed: Math.max(limit - counts.disrupting, 0), limit, blocking, evaluations };
}

// `Budget.GetAllowedDisruptions`: an inactive budget is unlimited (and its `nodes` is never read); an invalid one
// allows 0. `GetAllowedDisruptionsByReason` checks `Reasons == nil`: an explicit empty list applies to no reason.
function evaluateBudget(
  budget: Budget,
  index: number,
  numNodes: number,
  reason: DisruptionReason,
  now: Date,
): BudgetEvaluation {
  const applies = budget.reasons === undefined || budget.reasons.includes(reason);
  const window = isBudgetActive(budget, now);
  if (window.error !== undefined) return { budget, index, applies, ...window, allowed: 0 };
  if (!window.active) return { budget, index, applies, ...window, allowed: Infinity };
  const nodes = NODES.exec(budget.nodes);
  if (nodes == null) {
    const error = `invalid nodes "${budget.nodes}": not a count or a percentage (CRD pattern ^((100|[0-9]{1,2})%|[0-9]+)$)`;
    return { budget, index, applies, ...window, allowed: 0, error };
  }
  // intstr.GetScaledValueFromIntOrPercent(..., roundUp=true): ceil(pct * numNodes / 100), so 10% of 5 nodes is 1.
  const allowed = nodes[1] !== undefined ? Math.ceil((Number(nodes[1]) * numNodes) / 100) : Number(nodes[2]);
  return { budget, index, applies, ...window, allowed };
}

/**
 * `Budget.IsActive`, in UTC: with checkPoint = now - duration, the budget is active iff the schedule's next hit
 * after checkPoint is not after now. So a window is [hit, hit + duration): active at the hit itself, inactive at
 * exactly hit + duration unless another hit falls in between.
 */
export function isBudgetActive(
  budget: Budget,
  now: Date,
): { active: boolean; windowStart?: Date; windowEnd?: Date; nextWindowStart?: Date; error?: string } {
  if (budget.schedule === undefined && budget.duration === undefined) return { active: true };
  // The CRD rejects one without the other (CEL rule on spec.disruption.budgets), so Karpenter never sees it.
  if (budget.schedule === undefined || budget.duration === undefined) {
    return { active: false, error: "'schedule' must be set with 'duration'" };
  }
  const schedule = budgetSchedule(budget.schedule);
  if ('error' in schedule) return { active: false, error: `invalid cron "${budget.schedule}": ${schedule.error}` };
  const duration = durationMs(budget.duration);
  if (duration === undefined) {
    return {
      active: false,
      error: `invalid duration "${budget.duration}": only hours and minutes, e.g. 8h, 30m, 10h5m`,
    };
  }
  const hit = schedule.next(new Date(now.getTime() - duration));
  // robfig returns the zero time when nothing hits within five years (e.g. "0 0 30 2 *"), and the zero time is
  // not after now: Karpenter then treats the budget as always active.
  if (hit === undefined) return { active: true };
  if (hit.getTime() > now.getTime()) return { active: false, nextWindowStart: hit };
  const windowEnd = mergedWindowEnd(schedule, hit, duration);
  return windowEnd === undefined ? { active: true, windowStart: hit } : { active: true, windowStart: hit, windowEnd };
}

// Windows that overlap or touch form one: at hit + duration the budget stays active if a later hit is <= that time.
function mergedWindowEnd(schedule: BudgetSchedule, firstHit: Date, duration: number): Date | undefined {
  let hit = firstHit;
  for (let i = 0; i < MAX_MERGED_WINDOWS; i++) {
    const end = new Date(hit.getTime() + duration);
    const latest = schedule.latestAtOrBefore(end);
    if (latest === undefined || latest.getTime() <= hit.getTime()) return end;
    hit = latest;
  }
  return undefined;
}

// metav1.Duration (Go time.ParseDuration), limited by the CRD pattern to hours and minutes.
function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (m == null) return undefined;
  if (m[1] !== undefined) return Number(m[1]) * (m[2] === 'h' ? 3_600_000 : 60_000);
  return Number(m[3]) * 3_600_000 + Number(m[4]) * 60_000;
}

/**
 * Roughly how many waves replacing `toDrift` nodes takes if the allowance stays at `allowedNow` (pass `limit`
 * for a rollout that has not started); at most min(toDrift, allowedNow) nodes are disrupted concurrently.
 * 0 allowed means the drift cannot start at all: Infinity waves. Karpenter starts one drift command per pass and
 * waits for each replacement to initialize, so a wave is a rate, not a guarantee.
 */
export function driftWaves(toDrift: number, allowedNow: number): number {
  if (toDrift <= 0) return 0;
  if (allowedNow <= 0) return Infinity;
  return Math.ceil(toDrift / Math.min(allowedNow, toDrift));
}
