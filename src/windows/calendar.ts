// When the windows are open: now, and the next ones. The same reading as the budgets (budgets.ts) give Karpenter, so
// "paused by the window, next window opens <time>" and the ETA in windows say what Karpenter will do.
import type { Exclusion, UpgradeWindow } from './flags.js';
import { minuteOfWeek, minutesToChange, openWeek } from './week.js';

const MINUTE_MS = 60_000;
// Exclusions end within a year (budgets.ts refuses later ones), so past two years nothing changes any more.
const HORIZON_MS = 2 * 366 * 86_400_000;

export interface WindowCalendar {
  windows: readonly UpgradeWindow[];
  exclusions: readonly Exclusion[];
  open: Uint8Array;
  toChange: Int32Array;
}

export type WindowState =
  | { open: true; /** undefined: it never closes */ closesAt?: Date }
  | { open: false; /** undefined: no window opens within two years */ opensAt?: Date };

export interface OpenWindow {
  opensAt: Date;
  /** undefined: it never closes. */
  closesAt?: Date;
}

export function windowCalendar(windows: readonly UpgradeWindow[], exclusions: readonly Exclusion[]): WindowCalendar {
  const open = openWeek(windows);
  return { windows, exclusions, open, toChange: minutesToChange(open) };
}

/** Open at `t`: inside a window (a hit in (t − duration, t]) and in no exclusion [from, to). */
export function isWindowOpen(cal: WindowCalendar, t: Date): boolean {
  return cal.open[minuteOfWeek(t)] === 1 && excludedUntil(cal, t) === undefined;
}

export function windowState(cal: WindowCalendar, t: Date): WindowState {
  if (isWindowOpen(cal, t)) {
    const closesAt = nextClose(cal, floorMinute(t));
    return closesAt === undefined ? { open: true } : { open: true, closesAt };
  }
  const opensAt = nextOpen(cal, t);
  return opensAt === undefined ? { open: false } : { open: false, opensAt };
}

/**
 * When `openMs` of open time from `t` on has passed, and in how many windows (the one open at `t` counts): the ETA of
 * work that moves only inside the windows, e.g. 7h of replacements from Saturday in `0 2 * * mon-thu/3h` end on
 * Wednesday 03:00, in 3 windows. Undefined when the windows close for good first.
 */
export function openTimeEnd(cal: WindowCalendar, t: Date, openMs: number): { end: Date; windows: number } | undefined {
  if (openMs <= 0) return { end: t, windows: 0 };
  let left = openMs;
  let windows = 0;
  let at: Date | undefined = isWindowOpen(cal, t) ? t : nextOpen(cal, t);
  while (at !== undefined) {
    windows++;
    const closesAt = nextClose(cal, floorMinute(at));
    const span = closesAt === undefined ? Infinity : closesAt.getTime() - at.getTime();
    if (left <= span) return { end: new Date(at.getTime() + left), windows };
    left -= span;
    at = nextOpen(cal, closesAt!);
  }
  return undefined;
}

/**
 * How many windows open before `end`, the one open at `t` counted: the ETA's "3 windows" for work that ends at `end`.
 * A window a soak spans whole counts too: "3 windows" is "done in the third window from now".
 */
export function windowsBefore(cal: WindowCalendar, t: Date, end: Date): number {
  let count = 0;
  let at: Date | undefined = isWindowOpen(cal, t) ? t : nextOpen(cal, t);
  while (at !== undefined && at.getTime() < end.getTime()) {
    count++;
    const closesAt = nextClose(cal, floorMinute(at));
    at = closesAt === undefined ? undefined : nextOpen(cal, closesAt);
  }
  return count;
}

/** The window open at `t` (if any; it counts from `t`) and those after it: at most `count`. */
export function nextWindows(cal: WindowCalendar, t: Date, count: number): OpenWindow[] {
  const out: OpenWindow[] = [];
  let at: Date | undefined = isWindowOpen(cal, t) ? t : nextOpen(cal, t);
  while (at !== undefined && out.length < count) {
    const closesAt = nextClose(cal, floorMinute(at));
    out.push(closesAt === undefined ? { opensAt: at } : { opensAt: at, closesAt });
    at = closesAt === undefined ? undefined : nextOpen(cal, closesAt);
  }
  return out;
}

// The first open minute at or after t, jumping over closed runs of the week and over exclusions.
function nextOpen(cal: WindowCalendar, t: Date): Date | undefined {
  const start = t.getTime();
  let at = floorMinute(t);
  if (at.getTime() < start) at = new Date(at.getTime() + MINUTE_MS);
  while (at.getTime() - start <= HORIZON_MS) {
    const excludedTo = excludedUntil(cal, at);
    if (excludedTo !== undefined) {
      at = excludedTo;
      continue;
    }
    const mow = minuteOfWeek(at);
    if (cal.open[mow] === 1) return at;
    const jump = cal.toChange[mow]!;
    if (jump === 0) return undefined; // never open (budgets.ts refuses such windows)
    at = new Date(at.getTime() + jump * MINUTE_MS);
  }
  return undefined;
}

// The first closed minute after an open minute `at`: the week's next closed run or the next exclusion.
function nextClose(cal: WindowCalendar, at: Date): Date | undefined {
  const jump = cal.toChange[minuteOfWeek(at)]!;
  const weekly = jump === 0 ? undefined : at.getTime() + jump * MINUTE_MS;
  let close = weekly;
  for (const e of cal.exclusions) {
    const from = e.from.getTime();
    if (from > at.getTime() && (close === undefined || from < close)) close = from;
  }
  return close === undefined ? undefined : new Date(close);
}

// The end of the exclusions covering t, chained: one that ends inside another ends with it.
function excludedUntil(cal: WindowCalendar, t: Date): Date | undefined {
  let until: number | undefined;
  let moved = true;
  while (moved) {
    moved = false;
    for (const e of cal.exclusions) {
      const probe = until ?? t.getTime();
      if (e.from.getTime() <= probe && probe < e.to.getTime() && (until === undefined || e.to.getTime() > until)) {
        until = e.to.getTime();
        moved = true;
      }
    }
  }
  return until === undefined ? undefined : new Date(until);
}

const floorMinute = (t: Date): Date => new Date(Math.floor(t.getTime() / MINUTE_MS) * MINUTE_MS);

