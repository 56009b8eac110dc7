// Upgrade windows in words (`--window`, `--exclude`): the plan's lines and JSON, the NDJSON `window` event, and the
// "paused by the window" a run ends with. Pure: the times come in as arguments, the time zone with the plan.
import type { Budget } from '../karpenter/budgets.js';
import type { WindowEta, WindowPlan } from '../stages/window-plan.js';
import type { OpenWindow, WindowState } from '../windows/calendar.js';
import { etaDuration, utcTime } from '../text/words.js';

/** `Mon 02:00 UTC`, or in another zone `Mon 03:00 Europe/Berlin`; the date too when it is not within the week. */
export function windowTime(t: Date, timeZone = 'UTC', now?: Date): string {
  return `${clock(t, timeZone, now)} ${timeZone}`;
}

/** `Mon 2026-11-30 02:00 UTC`: with its date, for a page read later than it was written (the summary file). */
export function datedWindowTime(t: Date): string {
  return `${clock(t, 'UTC', 'dated')} UTC`;
}

/** `Mon 02:00` in the zone; `Sun 2026-12-27 00:00` when a week or more from `now`, or always `dated`. */
function clock(t: Date, timeZone: string, now: Date | 'dated' | undefined): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(t);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const farAway = now === 'dated' || (now !== undefined && Math.abs(t.getTime() - now.getTime()) >= 6 * 86_400_000);
  const date = farAway ? ` ${part('year')}-${part('month')}-${part('day')}` : '';
  return `${part('weekday')}${date} ${part('hour')}:${part('minute')}`;
}

/**
 * `Mon 02:00 – Mon 05:00 UTC (Mon 03:00 – Mon 06:00 Europe/Berlin)`: the local zone only when it is not UTC; a
 * window open at `now` starts `now`.
 */
export function windowSpan(w: OpenWindow, timeZone: string, now: Date): string {
  const span = (zone: string) => {
    const from = w.opensAt.getTime() <= now.getTime() ? 'now' : clock(w.opensAt, zone, now);
    return w.closesAt === undefined ? `${from} ${zone} on, never closing` : `${from} – ${clock(w.closesAt, zone, now)} ${zone}`;
  };
  return timeZone === 'UTC' || timeZone === 'Etc/UTC' ? span('UTC') : `${span('UTC')} (${span(timeZone)})`;
}

/** "next window opens Mon 02:00 UTC (in 3h12m)", or that none opens within two years. */
export function nextWindowText(state: WindowState, now: Date): string {
  if (state.open) return state.closesAt === undefined ? 'the window is open' : `the window is open until ${windowTime(state.closesAt, 'UTC', now)} (${etaDuration(state.closesAt.getTime() - now.getTime())} left)`;
  if (state.opensAt === undefined) return 'no window opens within two years';
  return `next window opens ${windowTime(state.opensAt, 'UTC', now)} (in ${etaDuration(state.opensAt.getTime() - now.getTime())})`;
}

/**
 * Where a rollout paused by its windows stands, as `status` and `wait` say it: "waiting for the window that opens in
 * 3h12m (Mon 02:00 UTC)", or that one is open now, which only a run inside it uses.
 */
export function windowWaitText(state: WindowState | undefined, now: Date): string {
  if (state === undefined) return 'waiting for the next upgrade window';
  if (state.open) return `${nextWindowText(state, now)}, and no karp-drift run paces the rollout in it`;
  if (state.opensAt === undefined) return nextWindowText(state, now);
  return `waiting for the window that opens in ${etaDuration(state.opensAt.getTime() - now.getTime())} (${windowTime(state.opensAt, 'UTC', now)})`;
}

export function budgetText(b: Budget): string {
  return `{nodes: "${b.nodes}", reasons: [${(b.reasons ?? []).join(', ')}], schedule: "${b.schedule}", duration: ${b.duration}}`;
}

/**
 * The ETA counted in windows, within 80 columns: `3 windows: done by Wed 03:00 UTC (Tue 22:00 America/New_York)`, the
 * local time on a line of its own when the two do not fit on one.
 */
export function windowEtaLines(eta: WindowEta, w: Pick<WindowPlan, 'timeZone' | 'at'>): string[] {
  if ('unknown' in eta) {
    return eta.unknown === 'estimate'
      ? ['    ETA: unknown, as the estimate (a NodePool allows no Drifted disruption)']
      : ['    ETA: none: the windows close for good before the rollout could finish'];
  }
  if (eta.windows === 0) return ['    ETA: nothing to wait for, no replacement needs a window'];
  const utc = `    ETA: ${eta.windows === 1 ? '1 window' : `${eta.windows} windows`}: done by ${windowTime(eta.doneBy, 'UTC', w.at)}`;
  if (w.timeZone === 'UTC' || w.timeZone === 'Etc/UTC') return [utc];
  return within80(`${utc} (${windowTime(eta.doneBy, w.timeZone, w.at)})`);
}

// A line with the local zone's ` (…)` after the UTC times, with that part on a line of its own when it is too long
// for 80 columns (dates a week away and a long zone name: `Sun 2026-12-13 18:05 America/Los_Angeles`).
function within80(line: string): string[] {
  const local = line.lastIndexOf(' (');
  if (line.length <= 80 || local < 0) return [line];
  const indent = /^ */.exec(line)![0];
  return [line.slice(0, local), `${indent}  ${line.slice(local + 1)}`];
}

/** `plan -o json`'s `windows.eta`: `doneBy` RFC 3339 UTC; both null with a `reason` when there is no ETA. */
export function windowEtaJson(eta: WindowEta): Record<string, unknown> {
  if ('unknown' in eta) return { windows: null, doneBy: null, reason: eta.unknown };
  return { windows: eta.windows, doneBy: utcTime(eta.doneBy) };
}

export function windowPlanLines(w: WindowPlan, eta?: WindowEta): string[] {
  const { request, at, timeZone } = w;
  const lines = [`  Windows (UTC, as Karpenter reads budget schedules): drift only inside them`];
  for (const x of request.windows) lines.push(`    --window '${x.text}'`);
  const minute = (t: Date) => t.toISOString().slice(0, 16).replace('T', ' ');
  for (const e of request.exclusions) lines.push(`    --exclude ${e.text} (UTC ${minute(e.from)} – ${minute(e.to)})`);
  lines.push(`    now: ${nextWindowText(w.state, at)}`);
  if (w.next.length > 0) lines.push(`    next ${w.next.length === 1 ? 'window' : `${w.next.length} windows`}:`);
  for (const n of w.next) lines.push(...within80(`      ${windowSpan(n, timeZone, at)}`));
  if (eta !== undefined) lines.push(...windowEtaLines(eta, w));
  lines.push(
    `  Budgets added to each NodePool while held: Drifted at 0 while the windows are`,
    `  closed, which Karpenter keeps with no run alive; the NodePool's own budgets`,
    `  come back exactly at the end:`,
  );
  for (const b of w.budgets) lines.push(`    ${budgetText(b)}`);
  for (const p of w.nodePools) {
    lines.push(`    nodepool/${p.name}: ${p.total} of 50 budgets (${p.own} own, ${w.budgets.length} for the windows, switch, hold)`);
  }
  return lines;
}

export function windowPlanJson(w: WindowPlan, eta?: WindowEta): Record<string, unknown> {
  return {
    windows: w.request.windows.map((x) => x.text),
    exclusions: w.request.exclusions.map((e) => ({ from: utcTime(e.from), to: utcTime(e.to) })),
    open: w.state.open,
    next: w.next.map((n) => ({ opensAt: utcTime(n.opensAt), closesAt: n.closesAt ? utcTime(n.closesAt) : null })),
    timeZone: w.timeZone,
    ...(eta !== undefined ? { eta: windowEtaJson(eta) } : {}),
    budgets: w.budgets,
    nodePools: w.nodePools.map((p) => ({ name: p.name, ownBudgets: p.own, budgets: p.total })),
  };
}

export type WindowEventKind = 'opened' | 'closed' | 'waiting';

/** NDJSON `window`: `opened` (a run inside a window), `waiting` (outside one), `closed` (it closed while running). */
export function windowEventJson(kind: WindowEventKind, state: WindowState, now: Date): Record<string, unknown> {
  return {
    type: 'window',
    time: utcTime(now),
    event: kind,
    open: state.open,
    ...windowTimesJson(state),
  };
}

/** When the open window closes (`closesAt`), or when the next one opens (`opensAt`); null: never / none in two years. */
export function windowTimesJson(state: WindowState): { closesAt: string | null } | { opensAt: string | null } {
  return state.open
    ? { closesAt: state.closesAt ? utcTime(state.closesAt) : null }
    : { opensAt: state.opensAt ? utcTime(state.opensAt) : null };
}
