// The week of windows: which minutes of a UTC week are open. Windows are weekly by construction (flags.ts), so one
// week of minutes, read cyclically, is the whole calendar apart from the exclusions. Minute 0 is Sunday 00:00 UTC:
// robfig/cron's day of week 0 is Sunday, as is Date.getUTCDay().
import type { CronFields } from '../karpenter/cron.js';
import type { UpgradeWindow } from './flags.js';

export const WEEK_MINUTES = 7 * 24 * 60;
const MINUTE_MS = 60_000;

export function minuteOfWeek(t: Date): number {
  return t.getUTCDay() * 1440 + t.getUTCHours() * 60 + t.getUTCMinutes();
}

/**
 * The minutes of the week at which a weekly schedule fires. robfig `dayMatches`: the day of month matches every day
 * here (all 31 listed), so the day is the day of week's when either day field has the star bit, and any day otherwise
 * (`0 2 1-31 * mon` fires daily: robfig ORs two restricted day fields).
 */
export function weekHits(fields: CronFields): number[] {
  const hits: number[] = [];
  for (let day = 0; day < 7; day++) {
    const dowMatch = fields.dow.values.includes(day);
    if ((fields.dom.star || fields.dow.star) && !dowMatch) continue;
    for (const h of fields.hour.values) for (const m of fields.minute.values) hits.push(day * 1440 + h * 60 + m);
  }
  return hits.sort((a, b) => a - b);
}

/**
 * 1 where some window is open. `Budget.IsActive` makes a window [hit, hit + duration): open at its hit, closed at
 * exactly hit + duration unless another hit falls in between; one longer than a week covers the week.
 */
export function openWeek(windows: readonly UpgradeWindow[]): Uint8Array {
  // Each hit opens [hit, hit + length) on the circle: +1 where a window starts, −1 where it ends, then a running sum
  // (a cron hitting every minute for a week would otherwise mark 10,080 × 10,080 minutes).
  const delta = new Int32Array(WEEK_MINUTES + 1);
  const add = (at: number, v: number) => (delta[at] = delta[at]! + v);
  let everywhere = false;
  for (const w of windows) {
    const length = w.durationMs / MINUTE_MS;
    for (const hit of weekHits(w.fields)) {
      if (length >= WEEK_MINUTES) everywhere = true;
      else if (hit + length <= WEEK_MINUTES) {
        add(hit, 1);
        add(hit + length, -1);
      } else {
        // Past Saturday 23:59 it goes on from Sunday 00:00.
        add(hit, 1);
        add(0, 1);
        add(hit + length - WEEK_MINUTES, -1);
      }
    }
  }
  const open = new Uint8Array(WEEK_MINUTES);
  let depth = 0;
  for (let i = 0; i < WEEK_MINUTES; i++) {
    depth += delta[i]!;
    open[i] = everywhere || depth > 0 ? 1 : 0;
  }
  return open;
}

/** A run of equal minutes, cyclic: it may start on Saturday and end on Monday. */
export interface WeekRun {
  start: number;
  minutes: number;
}

/** The maximal runs of closed minutes (the week read as a circle); none when the week is all open or all closed. */
export function closedRuns(open: Uint8Array): WeekRun[] {
  const first = open.indexOf(1);
  const firstClosed = open.indexOf(0);
  if (first < 0 || firstClosed < 0) return [];
  const runs: WeekRun[] = [];
  // Start from an open minute, so no closed run is cut in two by the week's end.
  for (let i = 1; i <= WEEK_MINUTES; i++) {
    const at = (first + i) % WEEK_MINUTES;
    if (open[at] === 1) continue;
    const last = runs[runs.length - 1];
    if (last !== undefined && (last.start + last.minutes) % WEEK_MINUTES === at) last.minutes++;
    else runs.push({ start: at, minutes: 1 });
  }
  return runs;
}

/** For each minute of the week, how many minutes until the week's open/closed state changes; 0 where it never does. */
export function minutesToChange(open: Uint8Array): Int32Array {
  const next = new Int32Array(WEEK_MINUTES);
  const change = open.findIndex((v, i) => v !== open[(i + 1) % WEEK_MINUTES]);
  if (change < 0) return next;
  // Walk backwards around the circle from the last minute before a change.
  let distance = 0;
  for (let k = 0; k < WEEK_MINUTES; k++) {
    const at = (change - k + WEEK_MINUTES) % WEEK_MINUTES;
    distance = open[at] === open[(at + 1) % WEEK_MINUTES] ? distance + 1 : 1;
    next[at] = distance;
  }
  return next;
}
