// A staged rollout's upgrade windows (`--window`, `--exclude`): the budgets its hold writes on every NodePool, and
// whether they can work there. Pure: windows/ decides the budgets and the calendar; this checks them against the
// NodePools as the plan read them (v1 storage, a budget hold, room within Karpenter's 50) before anything is written.
import { decodeHoldRecord, HOLD_ANNOTATION, userBudgets } from '../apis/budget-hold.js';
import { DEFAULT_BUDGETS, type Budget } from '../karpenter/budgets.js';
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import { windowBudgets } from '../windows/budgets.js';
import {
  nextWindows,
  openTimeEnd,
  windowCalendar,
  windowsBefore,
  windowState,
  type OpenWindow,
  type WindowCalendar,
  type WindowState,
} from '../windows/calendar.js';
import type { WindowRequest } from './request.js';
import type { HoldChoice } from './hold-mechanism.js';

/** What `plan` shows and the pacer writes. */
export interface WindowPlan {
  request: WindowRequest;
  calendar: WindowCalendar;
  /** The budgets every NodePool of the rollout gets beside its own, its switch and its hold. */
  budgets: Budget[];
  /** Per NodePool: how many budgets it ends up with while held (its own + the windows' + switch and hold). */
  nodePools: Array<{ name: string; own: number; total: number }>;
  /** When it was planned, where the windows stood then, and the next ones (the first may be open then). */
  at: Date;
  state: WindowState;
  next: OpenWindow[];
  /** The IANA time zone the plan also shows the windows in (the user's; UTC when unknown). */
  timeZone: string;
}

/** The switch and the hold a live staged run keeps beside the windows (apis/budget-hold.ts `heldBudgets`). */
const HOLD_ENTRIES = 2;
/** How many windows the plan lists ahead. */
const NEXT_WINDOWS = 3;

export type WindowPlanResult = { plan: WindowPlan } | { usage: string; next: string } | { refused: string; next: string };

/** Windows are budgets with `reasons: [Drifted]`, which only a v1 NodePool keeps (DOMAIN.md §2.9). */
export function windowsRefusedOn(api: KarpenterApi): { refused: string; next: string } | undefined {
  if (api !== 'v1beta1') return undefined;
  return {
    refused:
      "upgrade windows need Karpenter's v1 NodePool: on v1beta1 storage (v0.32–v0.37) a budget's `reasons` is pruned, " +
      'so a budget that keeps drift shut outside the windows would stop consolidation and emptiness too (or is dropped)',
    next: 'upgrade Karpenter to v1 first, or run without --window/--exclude when you may disrupt (a staged rollout still paces the nodes)',
  };
}

export function planWindows(
  request: WindowRequest,
  pools: ReadonlyArray<{ pool: Pick<NodePoolView, 'name' | 'budgets' | 'annotations'>; hold: HoldChoice }>,
  api: KarpenterApi,
  now: Date,
  timeZone = 'UTC',
): WindowPlanResult {
  const v1beta1 = windowsRefusedOn(api);
  if (v1beta1 !== undefined) return v1beta1;
  const byNode = pools.filter((p) => p.hold.mechanism !== 'budget');
  if (byNode.length > 0) {
    return {
      refused:
        `upgrade windows are budgets on the NodePool, and ${byNode.map((p) => `nodepool/${p.pool.name}`).join(', ')} ` +
        `would be held with its nodes (${byNode[0]!.hold.why})`,
      next: "where GitOps/IaC owns the budgets, write the windows into the files it applies instead (karp-drift pin --window '<cron>/<duration>' <paths>: Karpenter then keeps them whatever runs); else use --hold-with budget (with --force-conflicts where GitOps/IaC owns the budgets), or drop --window/--exclude",
    };
  }
  const own = pools.map(({ pool }) => {
    const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
    const user = userBudgets(pool.budgets, record === undefined || 'error' in record ? undefined : record);
    return { name: pool.name, own: (user ?? DEFAULT_BUDGETS).length };
  });
  const kept = Math.max(0, ...own.map((p) => p.own)) + HOLD_ENTRIES;
  const budgets = windowBudgets(request.windows, request.exclusions, { now, kept });
  if ('error' in budgets) return { usage: budgets.error, next: budgets.hint };
  const calendar = windowCalendar(request.windows, request.exclusions);
  return {
    plan: {
      request,
      calendar,
      budgets: budgets.budgets,
      nodePools: own.map((p) => ({ ...p, total: p.own + budgets.budgets.length + HOLD_ENTRIES })),
      at: now,
      state: windowState(calendar, now),
      next: nextWindows(calendar, now, NEXT_WINDOWS),
      timeZone,
    },
  };
}

/** The plan's ETA counted in windows; none when the estimate is unknown or the windows end before the work does. */
export type WindowEta =
  | { windows: number; doneBy: Date }
  | { unknown: 'estimate' } // a wave never ends: a NodePool allows no Drifted disruption
  | { unknown: 'windows-end' }; // the windows close for good first (no window opens within two years)

/**
 * When the rollout is done if it moves only inside the windows, from the plan's time on: each wave's replacements
 * (its rounds at `replacementMs`, as the estimate counts them, stages/eta.ts) take open time, and the soak after
 * each wave but the last runs on the wall clock, across closed time too; the next wave's replacements wait for a
 * window (so do the gates at a soak's end, which take no time here).
 */
export function windowEta(w: Pick<WindowPlan, 'calendar' | 'at'>, rounds: readonly number[], replacementMs: number, soakMs: number): WindowEta {
  let t = w.at;
  for (const [i, r] of rounds.entries()) {
    if (!Number.isFinite(r)) return { unknown: 'estimate' };
    if (i > 0) t = new Date(t.getTime() + soakMs);
    const end = openTimeEnd(w.calendar, t, r * replacementMs);
    if (end === undefined) return { unknown: 'windows-end' };
    t = end.end;
  }
  return { windows: windowsBefore(w.calendar, w.at, t), doneBy: t };
}
