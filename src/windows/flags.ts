// `--window <cron>/<duration>` and `--exclude <from>/<to>` as written on the command line: what each accepts, and the
// refusal in the CLI's words (what, which flag, what to write). Pure; cli/ throws the UsageError.
import { cronFields, type CronFields } from '../karpenter/cron.js';

/** One `--window`: a UTC cron read as Karpenter reads a budget schedule, open for `durationMs` from each hit. */
export interface UpgradeWindow {
  /** As given, for messages and for the command that asks for it again. */
  text: string;
  schedule: string;
  fields: CronFields;
  durationMs: number;
}

/** One `--exclude`: nothing may start in [from, to), whatever the windows say. */
export interface Exclusion {
  text: string;
  from: Date;
  to: Date;
}

export type FlagRefusal = { error: string; hint: string };

const WINDOW_HINT =
  "write <cron>/<duration> in UTC, e.g. --window '0 2 * * mon-thu/3h' (Monday to Thursday, 02:00-05:00)";
const DURATION_HINT = `${WINDOW_HINT}; durations as Karpenter writes them: 3h, 90m, 1h30m, 48h`;
const CRON_HINT =
  'a UTC cron as Karpenter reads it (robfig/cron): minute hour day-of-month month day-of-week, e.g. 0 2 * * mon-thu';
const EXCLUDE_HINT =
  'write <from>/<to> in UTC: whole days (the last one included), e.g. --exclude 2026-11-27/2026-11-30, ' +
  'or minutes, e.g. --exclude 2026-11-27T18:00Z/2026-11-28T06:00Z';

// Karpenter's own budget duration (the NodePool CRD pattern): hours and minutes, with the optional `0s` that Go's
// Duration.String() appends. A window's end is a cron minute, so seconds have no meaning here either.
const DURATION = /^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:0s)?$/;

/**
 * `'0 2 * * mon-thu/3h'`. A cron step also uses `/` (`*\/5`), and a duration never contains one, so the duration is
 * what follows the **last** `/`; a cron ending in a step without a duration (`0 2 * * *\/2`) is refused, because `2`
 * is not a duration (Go's own "missing unit").
 */
export function parseWindow(text: string): UpgradeWindow | FlagRefusal {
  const flag = `--window ${JSON.stringify(text)}`;
  const slash = text.lastIndexOf('/');
  const durationText = slash < 0 ? '' : text.slice(slash + 1).trim();
  const schedule = slash < 0 ? text.trim() : text.slice(0, slash).trim();
  const duration = DURATION.exec(durationText);
  if (slash < 0 || duration == null || !/[hm]/.test(durationText)) {
    // "2d", "3h30s", "1.5h" look like durations; "2" (from "*\/2") or "5 * * * *" do not.
    const what = /^[0-9.]+[a-zµμ][0-9a-zµμ.]*$/i.test(durationText)
      ? `has a duration "${durationText}" that is not whole hours and minutes`
      : 'has no duration after its last "/"';
    return { error: `${flag} ${what}`, hint: DURATION_HINT };
  }
  const durationMs = (Number(duration[1] ?? 0) * 60 + Number(duration[2] ?? 0)) * 60_000;
  if (durationMs === 0) return { error: `${flag} is open for 0m`, hint: WINDOW_HINT };
  if (schedule === '') return { error: `${flag} has no schedule before its duration`, hint: WINDOW_HINT };
  const fields = cronFields(schedule);
  if ('error' in fields) {
    // robfig has no wrap-around ranges and no 7 for Sunday; both are common elsewhere (croner, Vixie cron).
    const wraps = /beyond end of range/.test(fields.error)
      ? '; ranges do not wrap around: write fri-sat,sun-mon for days, 22-23,0-1 for hours'
      : '';
    const sunday = /above maximum \(6\)/.test(fields.error) ? '; Sunday is 0 (or sun), never 7' : '';
    return {
      error: `${flag}: Karpenter does not read "${schedule}" as a schedule: ${fields.error}`,
      hint: `${CRON_HINT}${wraps}${sunday}`,
    };
  }
  // Karpenter's cron has no year and robfig ORs two restricted day fields, so "the first Sunday" or "the 1st of each
  // month" has no exact complement within 50 budgets; a week always has one (README.md "Why weekly").
  if (fields.dom.values.length !== 31 || fields.month.values.length !== 12) {
    return {
      error: `${flag}: a window repeats every week, so its day of month and month must be * (here "${schedule}")`,
      hint: "name the days of the week instead, e.g. --window '0 2 * * sat,sun/4h', and keep dates out with --exclude",
    };
  }
  return { text, schedule, fields, durationMs };
}

/** `2026-11-27/2026-11-30` (whole days, the last included) or `2026-11-27T18:00Z/2026-11-28T06:00Z` (to excluded). */
export function parseExclusion(text: string): Exclusion | FlagRefusal {
  const flag = `--exclude ${JSON.stringify(text)}`;
  const parts = text.split('/');
  if (parts.length !== 2) return { error: `${flag} is not one <from>/<to>`, hint: EXCLUDE_HINT };
  const [fromText, toText] = parts.map((p) => p.trim()) as [string, string];
  const from = utcInstant(fromText, 'from');
  const to = utcInstant(toText, 'to');
  for (const [t, part] of [
    [from, fromText],
    [to, toText],
  ] as const) {
    if (typeof t === 'string') return { error: `${flag}: "${part}" ${t}`, hint: EXCLUDE_HINT };
  }
  const [f, u] = [from as Date, to as Date];
  if (u.getTime() <= f.getTime()) {
    return { error: `${flag}: its end (${iso(u)}) is not after its start (${iso(f)})`, hint: EXCLUDE_HINT };
  }
  return { text, from: f, to: u };
}

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const MINUTE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::(00))?(Z|[+-][0-9]{2}:?[0-9]{2})?$/;

// A date alone is a whole day: as `from` its 00:00, as `to` the 00:00 after it, so 2026-11-27/2026-11-30 keeps
// Black Friday to Cyber Monday closed, as a person reads it.
function utcInstant(text: string, end: 'from' | 'to'): Date | string {
  const date = DATE.exec(text);
  if (date != null) {
    const d = calendarDate(Number(date[1]), Number(date[2]), Number(date[3]), 0, 0);
    if (d === undefined) return 'is not a date in the calendar';
    return end === 'to' ? new Date(d.getTime() + 86_400_000) : d;
  }
  const minute = MINUTE.exec(text);
  if (minute == null) {
    return /T[0-9]{2}:[0-9]{2}:[0-9]{2}/.test(text)
      ? 'has seconds: exclusions start and end on whole minutes, as cron does'
      : 'is not a UTC date (YYYY-MM-DD) or minute (YYYY-MM-DDTHH:MMZ)';
  }
  const zone = minute[7];
  if (zone !== undefined && zone !== 'Z' && !/^[+-]00:?00$/.test(zone)) {
    return 'is not in UTC: windows and exclusions are UTC, as Karpenter reads budget schedules (write it with Z)';
  }
  const d = calendarDate(Number(minute[1]), Number(minute[2]), Number(minute[3]), Number(minute[4]), Number(minute[5]));
  return d ?? 'is not a time in the calendar';
}

function calendarDate(y: number, mo: number, d: number, h: number, mi: number): Date | undefined {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi));
  // Date.UTC rolls 2026-02-30 over into March: a date that does not come back unchanged is not in the calendar.
  const back = [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes()];
  return back.join() === [y, mo, d, h, mi].join() ? t : undefined;
}

const iso = (d: Date): string => d.toISOString().replace(/:00\.000Z$/, 'Z');
