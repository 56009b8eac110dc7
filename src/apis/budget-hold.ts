// The budget a staged rollout writes to hold or pace a NodePool's drift (`--hold-with budget`). Pure.
//
// Karpenter's own lever (DOMAIN.md §2.6): the allowance for `Drifted` is the minimum over the active budgets that
// name it or name no reason, so appending one budget `{nodes: "<n>", reasons: [Drifted]}` can only make drift
// stricter; it never loosens a budget the user has, and never touches consolidation (other reasons). Budgets are not
// hashed, so the write causes no drift. `spec.disruption.budgets` is an atomic list: the edge writes the whole list
// with the read resourceVersion as precondition, and the list as it was is recorded in an annotation so that the
// release puts it back exactly (same order, same values; an absent field stays absent). The record also names the
// managers that owned the list, to whom the release gives it back (budget-owners.ts).
import { DEFAULT_BUDGETS, isBudgetActive, type Budget } from '../karpenter/budgets.js';
import { budgetSchedule } from '../karpenter/cron.js';

/** Annotation on the NodePool: the budgets as they were before karp-drift's hold, and which run holds it. */
export const HOLD_ANNOTATION = 'karp-drift.io/drift-hold';

/** Karpenter's NodePool CRD: `budgets` has `maxItems: 50`. */
export const MAX_BUDGETS = 50;

export interface HoldRecord {
  /** The run that holds the NodePool (a re-run of the same rollout takes it over; see apis/lock.ts). */
  runId: string;
  /** When the hold was first put on (ISO 8601 UTC). */
  since: string;
  /** `spec.disruption.budgets` before the hold; `null` when the field was absent (the CRD default applied). */
  budgets: Budget[] | null;
  /** A staged rollout's target and its stage's size when the stage began, so a re-run counts waves alike. */
  target?: string;
  stageSize?: number;
  /** This NodePool's own old nodes when its stage began: its share of each wave (stages/waves.ts `waveShares`). */
  poolSize?: number;
  /** A soak under way when the run ended early (ISO 8601): a re-run soaks out the rest before the next wave. */
  soakUntil?: string;
  /**
   * The managedFields entries that owned the budgets before the hold took them (budget-owners.ts): the release gives
   * them back. Empty: nobody did (an absent field, or one nobody tracks); absent: a record from before karp-drift
   * kept them.
   */
  owners?: BudgetOwner[];
  /**
   * The upgrade windows' budgets karp-drift wrote (`--window`/`--exclude`, windows/budgets.ts), in the list between
   * the NodePool's own budgets and the switch and hold: each `{nodes: "0", reasons: [Drifted]}` while the windows are
   * closed, so Karpenter keeps drift shut outside them even with no run alive. Absent: none written.
   */
  windows?: Budget[];
  /** The `--window`/`--exclude` flags that asked for them, for `status` and the command that goes on. */
  windowFlags?: string[];
  /**
   * `window`: the run that wrote this hold stopped because its upgrade windows were closed (it started outside them,
   * or they closed mid-rollout), so nothing moves until the same upgrade runs inside the next one: `status` and `wait`
   * say when that opens. Written by that pause only; any later write (a run inside the window, `pause`) drops it.
   */
  pausedBy?: 'window';
}

/** A managedFields entry that owned the budgets: enough to find it again, or to write it anew. */
export interface BudgetOwner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** The entry's time when recorded: an entry written anew (its owner was left with nothing) gets it back. */
  time?: string;
}

export function encodeHoldRecord(record: HoldRecord): string {
  return JSON.stringify(record);
}

/** The record on a NodePool, or an error naming what is wrong with it (a hand-edited annotation is never guessed at). */
export function decodeHoldRecord(text: string | undefined): HoldRecord | { error: string } | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: `annotation ${HOLD_ANNOTATION} is not JSON` };
  }
  if (typeof value !== 'object' || value == null) return { error: `annotation ${HOLD_ANNOTATION} is not an object` };
  const v = value as Record<string, unknown>;
  if (typeof v.runId !== 'string' || typeof v.since !== 'string') {
    return { error: `annotation ${HOLD_ANNOTATION} has no runId or since` };
  }
  if (v.budgets != null && !(Array.isArray(v.budgets) && v.budgets.every(isBudget))) {
    return { error: `annotation ${HOLD_ANNOTATION} has no budgets list` };
  }
  if (v.owners !== undefined && !(Array.isArray(v.owners) && v.owners.every(isBudgetOwner))) {
    return { error: `annotation ${HOLD_ANNOTATION} has a malformed owners list` };
  }
  if (v.windows !== undefined && !(Array.isArray(v.windows) && v.windows.every(isBudget))) {
    return { error: `annotation ${HOLD_ANNOTATION} has a malformed windows list` };
  }
  const windowFlags =
    Array.isArray(v.windowFlags) && v.windowFlags.every((f) => typeof f === 'string') ? v.windowFlags : undefined;
  return {
    runId: v.runId,
    since: v.since,
    budgets: v.budgets ?? null,
    ...(typeof v.target === 'string' ? { target: v.target } : {}),
    ...(typeof v.stageSize === 'number' ? { stageSize: v.stageSize } : {}),
    ...(typeof v.poolSize === 'number' ? { poolSize: v.poolSize } : {}),
    ...(typeof v.soakUntil === 'string' ? { soakUntil: v.soakUntil } : {}),
    ...(v.owners !== undefined ? { owners: v.owners } : {}),
    ...(v.windows !== undefined ? { windows: v.windows } : {}),
    ...(windowFlags !== undefined ? { windowFlags } : {}),
    ...(v.pausedBy === 'window' ? { pausedBy: 'window' as const } : {}),
  };
}

function isBudget(value: unknown): value is Budget {
  return typeof value === 'object' && value != null && typeof (value as Budget).nodes === 'string';
}

function isBudgetOwner(value: unknown): value is BudgetOwner {
  const o = value as BudgetOwner;
  return (
    typeof value === 'object' &&
    value != null &&
    typeof o.manager === 'string' &&
    (o.operation === 'Apply' || o.operation === 'Update') &&
    typeof o.apiVersion === 'string' &&
    (o.time === undefined || typeof o.time === 'string')
  );
}

/** The one budget karp-drift adds: at most `allowance` more drift replacements may start (0 holds). */
export function holdBudget(allowance: number): Budget {
  return {
    nodes: String(Math.max(0, Math.floor(allowance))),
    reasons: ['Drifted'],
  };
}

/**
 * How far the switch's `duration` stays below the time since its schedule's previous hit (`switchDuration`): it must
 * cover the lead (a live run writes the switch at most 3 minutes before its minute, commands/pacer-holds.ts) and
 * Karpenter's clock running behind the API server's, by which karp-drift times the switch (cluster/server-clock.ts).
 */
export const SWITCH_MARGIN_MS = 3_600_000;

/**
 * The dead man's switch of a live staged run (DOMAIN.md §2.6): `{nodes: "0", reasons: [Drifted]}` scheduled for one
 * minute of the year, `armAt` (UTC, by the API server's clock), for `switchDuration(armAt)`. Karpenter's
 * `Budget.IsActive` makes a budget active while a schedule hit lies in [now − duration, now]: the previous hit of that
 * schedule lies just over `duration` before the write, so the budget is inactive (no limit at all) until `armAt`, and
 * from then on holds drift at 0 for `duration`, about a year. A live run moves `armAt` ahead before it comes; a run
 * that died (kill -9, OOM, a vanished CI runner, a lost network) cannot, and Karpenter itself stops starting
 * replacements at `armAt`, whatever the hold beside it still allows, until a person acts.
 */
export function switchBudget(armAt: Date): Budget {
  return {
    nodes: '0',
    reasons: ['Drifted'],
    schedule: switchSchedule(armAt),
    duration: switchDuration(armAt),
  };
}

const switchSchedule = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;

/**
 * The longest `duration` a switch armed for `armAt` can have and still be inactive from its write until `armAt`: the
 * time since its schedule's previous hit (the same minute a year before: 365 or 366 days; four years before for 29
 * February, a date only leap years have) less SWITCH_MARGIN_MS, in whole hours. `8759h` for most minutes. Past it,
 * the switch lapses until its next hit: for SWITCH_MARGIN_MS, or a day more when the year after `armAt` holds a 29
 * February that the year before did not.
 */
export function switchDuration(armAt: Date): string {
  const previous = previousHit(armAt);
  return `${Math.floor((armAt.getTime() - previous.getTime() - SWITCH_MARGIN_MS) / 3_600_000)}h`;
}

// Read with the cron Karpenter's budgets are read with (karpenter/cron.ts), so the duration and IsActive agree.
function previousHit(armAt: Date): Date {
  const schedule = budgetSchedule(switchSchedule(armAt));
  if ('error' in schedule) throw new Error(`switch schedule for ${armAt.toISOString()}: ${schedule.error}`);
  return schedule.latestAtOrBefore(new Date(armAt.getTime() - 60_000))!;
}

/** The days between a switch's hit and its previous one: a year of either length, or four years for 29 February. */
const SWITCH_YEARS_DAYS = [365, 366, 4 * 365 + 1];
/** `duration`s karp-drift writes on its switches; 720h is what it wrote before they lasted a year (DOMAIN.md §2.6). */
const SWITCH_DURATIONS = new Set([
  ...SWITCH_YEARS_DAYS.map((days) => `${(days * 86_400_000 - SWITCH_MARGIN_MS) / 3_600_000}h`),
  '720h',
]);

const SWITCH_SCHEDULE = /^(\d{1,2}) (\d{1,2}) (\d{1,2}) (\d{1,2}) \*$/;

/** `pruned`: as a server without budget `reasons` keeps it (below, `ourEntries`). */
function isOurSwitch(budget: Budget | undefined, pruned = false): boolean {
  return (
    budget !== undefined &&
    budget.nodes === '0' &&
    SWITCH_DURATIONS.has(budget.duration ?? '') &&
    SWITCH_SCHEDULE.test(budget.schedule ?? '') &&
    onlyDrifted(budget, pruned)
  );
}

const onlyDrifted = (budget: Budget, pruned: boolean): boolean =>
  pruned ? budget.reasons === undefined : budget.reasons?.length === 1 && budget.reasons[0] === 'Drifted';

/** A staged run's dead man's switch as Karpenter reads it now. */
export interface SwitchState {
  /** Karpenter's `Budget.IsActive`: it holds drift at 0 now (the run that moved it ahead stopped). */
  active: boolean;
  /** Active: the minute it fired. Not active: the minute it fires next (armed by a live run, or a year on). */
  at?: Date;
}

/**
 * The switch in a live list, read with Karpenter's own `IsActive` (karpenter/budgets.ts) at `now`, which should be the
 * API server's time: never "has its nearest minute passed", which says "fired" for half a year after the switch has
 * lapsed, and "not yet" for one that fired last year and still holds. Undefined when the list carries no switch of
 * karp-drift's (a pause, or a hold written before the switch existed). With the NodePool's record, a switch whose
 * `reasons` the server pruned is found too.
 */
export function switchState(live: readonly Budget[] | undefined, now: Date, record?: HoldRecord): SwitchState | undefined {
  if (live === undefined) return undefined;
  const ours = record !== undefined ? holdEntries(live, record) : isOurHold(live.at(-1)) && isOurSwitch(live.at(-2)) ? 2 : 0;
  if (ours !== 2) return undefined;
  const read = isBudgetActive(live.at(-2)!, now);
  // A budget Karpenter cannot read allows nothing (it fails closed): as good as fired, though karp-drift never writes one.
  if (read.error !== undefined) return { active: true };
  const at = read.active ? read.windowStart : read.nextWindowStart;
  return { active: read.active, ...(at !== undefined ? { at } : {}) };
}

function isOurHold(budget: Budget | undefined, pruned = false): boolean {
  return (
    budget !== undefined &&
    /^[0-9]+$/.test(budget.nodes) &&
    budget.schedule === undefined &&
    budget.duration === undefined &&
    onlyDrifted(budget, pruned)
  );
}

/**
 * How many entries at the end of a held NodePool's list are karp-drift's: 1 (the hold), 2 (a staged run's switch and
 * the hold), or 0 (gone: somebody put a list back); plus, before them, the window budgets the record names, when they
 * stand there exactly. Written with `reasons: [Drifted]`, they are known by it. A server
 * without budget `reasons` prunes them (Karpenter v1beta1: no v0.34–v0.37 schema has the field, and the releases that
 * also serve v1 drop it in their conversion; DOMAIN.md §2.9), and the entries come back as a plain `{nodes: "<n>"}`
 * (and `{nodes: "0", schedule, duration}`), which now hold every disruption method and which a person could have
 * written too: they are karp-drift's when what stands before them is exactly the list the record kept (or the CRD
 * default that stood for an absent field). So whatever the server kept of a hold is found again, and released.
 * (Windows are never written on v1beta1: stages/window-plan.ts refuses them there.)
 */
function ourEntries(live: readonly Budget[], record: HoldRecord): number {
  const held = holdEntries(live, record);
  if (held === 0) return 0;
  const windows = record.windows ?? [];
  if (windows.length === 0) return held;
  const before = live.slice(0, live.length - held);
  return sameBudgets(before.slice(-windows.length), windows) ? held + windows.length : held;
}

function holdEntries(live: readonly Budget[], record: HoldRecord): 0 | 1 | 2 {
  if (isOurHold(live.at(-1))) return isOurSwitch(live.at(-2)) ? 2 : 1;
  if (!isOurHold(live.at(-1), true)) return 0;
  const before = record.budgets ?? DEFAULT_BUDGETS;
  if (isOurSwitch(live.at(-2), true) && sameBudgets(live.slice(0, -2), before)) return 2;
  return sameBudgets(live.slice(0, -1), before) ? 1 : 0;
}

/**
 * The user's own budgets, as they stand now: the live list without karp-drift's hold (its last entry, while a record
 * says the pool is held). If the user (or their GitOps tool) changed the budgets while the pool was held, their new
 * list wins over the record: a release must never put back a list somebody has since replaced.
 */
export function userBudgets(live: Budget[] | undefined, record: HoldRecord | undefined): Budget[] | null {
  if (record === undefined) return live ?? null;
  if (live === undefined) return null;
  const ours = ourEntries(live, record);
  if (ours > 0) {
    const rest = live.slice(0, -ours);
    // The list karp-drift wrote for an absent field is the CRD default plus the hold.
    if (record.budgets == null && sameBudgets(rest, DEFAULT_BUDGETS)) return null;
    return rest;
  }
  return live;
}

export type HoldWrite = { budgets: Budget[] } | { error: string };

/**
 * The whole list to write so that at most `allowance` more drift replacements start: the user's budgets plus ours
 * (the window budgets, then a live run's dead man's switch armed for `armAt`, then the hold last).
 */
export function heldBudgets(user: Budget[] | null, allowance: number, armAt?: Date, windows: readonly Budget[] = []): HoldWrite {
  // Writing a list replaces the CRD default (10 %), so an absent field is written as that default made explicit.
  const base = user ?? [...DEFAULT_BUDGETS];
  const hold = armAt !== undefined ? [switchBudget(armAt), holdBudget(allowance)] : [holdBudget(allowance)];
  const ours = [...windows, ...hold];
  if (base.length + ours.length > MAX_BUDGETS) {
    const has =
      base.length >= MAX_BUDGETS
        ? `it already has ${base.length} disruption budgets, the most a NodePool may have (${MAX_BUDGETS})`
        : `it has ${base.length} disruption budgets, and a staged rollout's hold adds ${ours.length}${windows.length > 0 ? ` (${windows.length} for the windows)` : ''} (a NodePool may have ${MAX_BUDGETS})`;
    return { error: `${has}: ${windows.length > 0 ? 'use fewer windows and exclusions' : 'hold it with --hold-with node instead'}` };
  }
  return { budgets: [...base, ...ours] };
}

/** The allowance a live list currently grants through karp-drift's hold, if it carries one. */
export function heldAllowance(live: Budget[] | undefined, record: HoldRecord | undefined): number | undefined {
  const last = live?.at(-1);
  return record !== undefined && live !== undefined && ourEntries(live, record) > 0 ? Number(last!.nodes) : undefined;
}

/**
 * A hold whose `reasons` the server pruned (`ourEntries`): it holds every disruption method, consolidation and
 * expiration too, not only drift.
 */
export function holdWithoutReasons(live: readonly Budget[] | undefined, record: HoldRecord | undefined): boolean {
  if (record === undefined || live === undefined) return false;
  return ourEntries(live, record) > 0 && live.at(-1)!.reasons === undefined;
}

export function sameBudgets(a: readonly Budget[] | null | undefined, b: readonly Budget[] | null | undefined): boolean {
  // Field by field: the API server and a recorded annotation need not order an object's keys alike.
  const canonical = (list: readonly Budget[] | null | undefined) =>
    JSON.stringify(list?.map((x) => [x.nodes, x.reasons ?? null, x.schedule ?? null, x.duration ?? null]) ?? null);
  return canonical(a) === canonical(b);
}

/**
 * A NodePool karp-drift holds with a budget now (a pause, or a staged rollout that ended early): the record, the
 * allowance the hold grants, and the NodePool's own budgets without it (undefined: the field was absent). What
 * the plan and the diagnosis judge the pool's pace by: karp-drift's hold is not a budget the user set.
 */
export function karpDriftHold(pool: {
  budgets?: Budget[];
  annotations?: Record<string, string>;
}): { record: HoldRecord; allowance: number; budgets: Budget[] | undefined; everyReason: boolean } | undefined {
  const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
  if (record === undefined || 'error' in record) return undefined;
  const allowance = heldAllowance(pool.budgets, record);
  if (allowance === undefined) return undefined;
  const budgets = userBudgets(pool.budgets, record) ?? undefined;
  return { record, allowance, budgets, everyReason: holdWithoutReasons(pool.budgets, record) };
}

/** The hold's budget as the server keeps it, for the plan and the diagnosis. */
export function holdBudgetText(allowance: number, everyReason: boolean): string {
  return everyReason
    ? `budget {nodes: "${allowance}"} (kept without its reasons, so it holds consolidation too)`
    : `budget {nodes: "${allowance}", reasons: [Drifted]}`;
}
