// Windows and exclusions → the NodePool budgets that make Karpenter itself keep drift closed outside them.
//
// An inactive scheduled budget imposes no limit (DOMAIN.md §2.6: `GetAllowedDisruptions` returns MaxInt32), so a
// budget that *allows* drift inside a window allows it without limit outside. The budgets here do the opposite: each
// holds `Drifted` at "0" while it is active, and together their active periods are exactly the closed time: every
// closed run of the week (one cron hit at its first minute, lasting the run) and every exclusion (one yearly hit at
// its start, lasting it). Inside a window none is active, so the staged rollout's own budget (the wave) decides.
// test/windows/budgets.test.ts checks every minute against Karpenter's `IsActive`.
import { MAX_BUDGETS } from '../apis/budget-hold.js';
import type { Budget } from '../karpenter/budgets.js';
import type { Exclusion, FlagRefusal, UpgradeWindow } from './flags.js';
import { closedRuns, minuteOfWeek, minutesToChange, openWeek } from './week.js';

export interface WindowBudgets {
  /** The closed runs of the week, then the exclusions still to come: all `nodes: "0"`, `reasons: [Drifted]`. */
  budgets: Budget[];
  /** Exclusions that ended before now: nothing to write. */
  ended: Exclusion[];
  /** Exclusions that cover no open minute (Black Friday when the windows are Monday to Thursday): nothing to write. */
  closedAnyway: Exclusion[];
}

/**
 * `kept`: how many budgets stay on the NodePool beside these (its own, and the staged rollout's wave budget), so
 * that the total stays within Karpenter's 50.
 */
export function windowBudgets(
  windows: readonly UpgradeWindow[],
  exclusions: readonly Exclusion[],
  { now, kept }: { now: Date; kept: number },
): WindowBudgets | FlagRefusal {
  const open = openWeek(windows);
  if (!open.includes(1)) {
    return {
      error: `the windows (${windows.map((w) => w.text).join(', ')}) never open`,
      hint: "give at least one --window whose cron fires, e.g. --window '0 2 * * mon-thu/3h'",
    };
  }
  const closed = groupedCrons(closedRuns(open));
  const ended = exclusions.filter((e) => e.to.getTime() <= now.getTime());
  const toChange = minutesToChange(open);
  const closedAnyway = exclusions.filter((e) => !ended.includes(e) && !opensDuring(open, toChange, e));
  const coming = exclusions.filter((e) => !ended.includes(e) && !closedAnyway.includes(e));
  for (const e of coming) {
    const refusal = yearlyRepeatRefusal(e, now);
    if (refusal !== undefined) return refusal;
  }
  const budgets = [...closed.map(([schedule, minutes]) => hold(schedule, minutes)), ...coming.map(exclusionBudget)];
  if (budgets.length + kept > MAX_BUDGETS) {
    return {
      error:
        `the windows and exclusions need ${budgets.length} budgets and the NodePool keeps ${kept}: ` +
        `Karpenter allows at most ${MAX_BUDGETS} (spec.disruption.budgets)`,
      hint:
        'use fewer or wider windows (one cron with a day list, e.g. 0 2 * * mon-thu, is one budget per gap between ' +
        'windows of the same length), merge exclusions, or remove budgets the NodePool no longer needs',
    };
  }
  return { budgets, ended, closedAnyway };
}

const hold = (schedule: string, minutes: number): Budget => ({
  nodes: '0',
  reasons: ['Drifted'],
  schedule,
  duration: karpenterDuration(minutes),
});

/** The NodePool CRD's duration form: `21h`, `30m`, `93h30m`. */
export function karpenterDuration(minutes: number): string {
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

/**
 * Closed runs as few crons as is simple: runs of the same length share a budget when their starts form a cross
 * product minute × hour × day of week. Each run lands in exactly one cron, so no budget fires where no run starts.
 */
function groupedCrons(runs: readonly { start: number; minutes: number }[]): Array<[string, number]> {
  const byLength = new Map<number, number[]>();
  for (const r of runs) pushTo(byLength, r.minutes, r.start);
  const out: Array<{ schedule: string; minutes: number; first: number }> = [];
  for (const [minutes, starts] of byLength) {
    // Minute of the day → its days; minutes of the day with the same days → by minute of the hour, their hours;
    // minutes of the hour with the same hours: one cron. Each start lands in exactly one product.
    const days = new Map<number, number[]>();
    for (const s of [...starts].sort((a, b) => a - b)) pushTo(days, s % 1440, Math.floor(s / 1440));
    const byDays = new Map<string, number[]>();
    for (const [minuteOfDay, ds] of days) pushTo(byDays, ds.join(','), minuteOfDay);
    for (const [dayList, minutesOfDay] of byDays) {
      const hoursByMinute = new Map<number, number[]>();
      for (const md of [...minutesOfDay].sort((a, b) => a - b)) pushTo(hoursByMinute, md % 60, Math.floor(md / 60));
      const byHours = new Map<string, number[]>();
      for (const [m, hs] of hoursByMinute) pushTo(byHours, hs.join(','), m);
      for (const [hourList, ms] of byHours) {
        const [d, h] = [dayList.split(',').map(Number), hourList.split(',').map(Number)];
        ms.sort((x, y) => x - y);
        const schedule = `${cronList(ms, 0, 59)} ${cronList(h, 0, 23)} * * ${cronList(d, 0, 6)}`;
        out.push({ schedule, minutes, first: d[0]! * 1440 + h[0]! * 60 + ms[0]! });
      }
    }
  }
  return out.sort((a, b) => a.first - b.first).map((c) => [c.schedule, c.minutes]);
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Sorted values as a person writes them: `*` for all, `1-3` for a run of three or more, else a list. */
function cronList(values: readonly number[], min: number, max: number): string {
  if (values.length === max - min + 1) return '*';
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${values[i]}-${values[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(values[k]));
    i = j + 1;
  }
  return parts.join(',');
}

// Some window minute in [from, to): jump from change to change of the week, as calendar.ts does.
function opensDuring(open: Uint8Array, toChange: Int32Array, e: Exclusion): boolean {
  for (let at = e.from.getTime(); at < e.to.getTime(); ) {
    const mow = minuteOfWeek(new Date(at));
    if (open[mow] === 1) return true;
    if (toChange[mow] === 0) return false;
    at += toChange[mow]! * 60_000;
  }
  return false;
}

// A cron has no year: the exclusion's budget also fires on the same date every year. Its next repeat is a year away,
// after the rollout and after karp-drift has rewritten (dropped) the ended exclusion; its previous one must be over.
function exclusionBudget(e: Exclusion): Budget {
  const f = e.from;
  const schedule = `${f.getUTCMinutes()} ${f.getUTCHours()} ${f.getUTCDate()} ${f.getUTCMonth() + 1} *`;
  return hold(schedule, (e.to.getTime() - e.from.getTime()) / 60_000);
}

function yearlyRepeatRefusal(e: Exclusion, now: Date): FlagRefusal | undefined {
  const f = e.from;
  // The previous year that has this date (February 29 only in leap years).
  for (let y = f.getUTCFullYear() - 1; y >= f.getUTCFullYear() - 8; y--) {
    const hit = new Date(Date.UTC(y, f.getUTCMonth(), f.getUTCDate(), f.getUTCHours(), f.getUTCMinutes()));
    if (hit.getUTCDate() !== f.getUTCDate()) continue;
    const repeatEnd = hit.getTime() + (e.to.getTime() - f.getTime());
    if (repeatEnd <= now.getTime()) return undefined;
    return {
      error:
        `--exclude ${JSON.stringify(e.text)} ends more than a year from now: a budget's cron has no year, so its ` +
        `repeat from ${hit.toISOString().slice(0, 16)}Z would still hold drift now`,
      hint: 'exclude dates within the next year; add later ones when they come closer',
    };
  }
  return undefined;
}
