// Disruption-budget schedules, parsed exactly as Karpenter parses them and evaluated with croner.
//
// Karpenter (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go `Budget.IsActive`) calls
// `cron.ParseStandard("TZ=UTC " + schedule)` from robfig/cron v3 (parser.go, spec.go). croner accepts more than
// that parser: a seconds or year field, `L`, `W`, `#`, `+`, `7` for Sunday, wrap-around ranges. A schedule that
// Karpenter rejects fails closed (the budget allows 0), so accepting it here would report a budget that allows
// disruptions where Karpenter blocks them. We therefore parse robfig's grammar ourselves, with its error messages,
// into plain value sets, and hand croner only a normalized five-field pattern for the date arithmetic.
import { Cron } from 'croner';

interface FieldBounds {
  min: number;
  max: number;
  names?: ReadonlyMap<string, number>;
}

// robfig/cron v3 spec.go `bounds`: no 7 for Sunday, names only for month and day of week, case-insensitive.
const MINUTE: FieldBounds = { min: 0, max: 59 };
const HOUR: FieldBounds = { min: 0, max: 23 };
const DOM: FieldBounds = { min: 1, max: 31 };
const MONTH: FieldBounds = {
  min: 1,
  max: 12,
  names: new Map(
    ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((n, i) => [n, i + 1]),
  ),
};
const DOW: FieldBounds = {
  min: 0,
  max: 6,
  names: new Map(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((n, i) => [n, i])),
};

// robfig parser.go `parseDescriptor`. `@every <duration>` is also accepted by ParseStandard, but the NodePool CRD's
// schedule pattern admits only these names, so an `@every` budget never reaches Karpenter.
const DESCRIPTORS: ReadonlyMap<string, string> = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

export interface CronField {
  values: number[];
  /** robfig's starBit: the field contained `*` or `?` without a step above 1. */
  star: boolean;
}

/** A schedule as robfig's SpecSchedule holds it: the values of each field, and the day fields' star bits. */
export interface CronFields {
  minute: CronField;
  hour: CronField;
  dom: CronField;
  month: CronField;
  dow: CronField;
}

export interface BudgetSchedule {
  /** The first hit strictly after `after`, or undefined where robfig's `Next` returns the zero time. */
  next(after: Date): Date | undefined;
  /** The last hit at or before `at`. */
  latestAtOrBefore(at: Date): Date | undefined;
}

const cache = new Map<string, BudgetSchedule | { error: string }>();

/** Parses a budget `schedule` as robfig/cron v3 ParseStandard does; the error text is robfig's. */
export function budgetSchedule(schedule: string): BudgetSchedule | { error: string } {
  let parsed = cache.get(schedule);
  if (parsed === undefined) {
    const fields = cronFields(schedule);
    parsed = 'error' in fields ? fields : cronerSchedule(fields);
    cache.set(schedule, parsed);
  }
  return parsed;
}

/** A schedule's fields as robfig/cron v3 ParseStandard reads them (descriptors expanded); the error text is robfig's. */
export function cronFields(schedule: string): CronFields | { error: string } {
  // Karpenter prefixes "TZ=UTC "; robfig strips the prefix up to the first space and trims the rest.
  const spec = schedule.trim();
  if (spec.startsWith('@')) {
    const expanded = DESCRIPTORS.get(spec);
    if (expanded !== undefined) return cronFields(expanded);
    if (spec.startsWith('@every ')) {
      return {
        error: `${spec}: the NodePool CRD allows only @annually, @yearly, @monthly, @weekly, @daily, @midnight and @hourly`,
      };
    }
    return { error: `unrecognized descriptor: ${spec}` };
  }
  const parts = spec.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) return { error: `expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]` };
  const [minute, hour, dom, month, dow] = parts as [string, string, string, string, string];
  const fields: CronField[] = [];
  for (const [text, bounds] of [
    [minute, MINUTE],
    [hour, HOUR],
    [dom, DOM],
    [month, MONTH],
    [dow, DOW],
  ] as const) {
    const field = parseField(text, bounds);
    if (typeof field === 'string') return { error: field };
    fields.push(field);
  }
  const [m, h, d, mo, w] = fields as [CronField, CronField, CronField, CronField, CronField];
  return { minute: m, hour: h, dom: d, month: mo, dow: w };
}

// robfig parser.go `getField`/`getRange`: a comma list (empty items dropped, as strings.FieldsFunc does) of
// `*`, `?`, `N`, `N-M`, each with an optional `/step`; `N/step` means `N-max/step`.
function parseField(text: string, bounds: FieldBounds): CronField | string {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',').filter((e) => e !== '')) {
    const rangeAndStep = expr.split('/');
    const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
    let start: number;
    let end: number;
    let exprStar = false;
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      [start, end, exprStar] = [bounds.min, bounds.max, true];
    } else {
      if (lowAndHigh.length > 2) return `too many hyphens: ${expr}`;
      const low = parseIntOrName(lowAndHigh[0] ?? '', bounds);
      if (typeof low === 'string') return low;
      const high = lowAndHigh.length === 2 ? parseIntOrName(lowAndHigh[1] ?? '', bounds) : low;
      if (typeof high === 'string') return high;
      [start, end] = [low, high];
    }
    let step = 1;
    if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
    if (rangeAndStep.length === 2) {
      const parsedStep = parseUint(rangeAndStep[1] ?? '');
      if (typeof parsedStep === 'string') return parsedStep;
      step = parsedStep;
      if (lowAndHigh.length === 1) end = bounds.max;
      if (step > 1) exprStar = false;
    }
    if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
    if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${expr}`;
    if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
    if (step === 0) return `step of range should be a positive number: ${expr}`;
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= exprStar;
  }
  return { values: [...values].sort((a, b) => a - b), star };
}

function parseIntOrName(text: string, bounds: FieldBounds): number | string {
  const named = bounds.names?.get(text.toLowerCase());
  return named ?? parseUint(text);
}

// Go strconv.Atoi accepts an optional sign; robfig then rejects negatives.
function parseUint(text: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(text)) {
    return `failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`;
  }
  const n = Number(text);
  return n < 0 ? `negative number (${n}) not allowed: ${text}` : n;
}

function cronerSchedule({ minute, hour, dom, month, dow }: CronFields): BudgetSchedule {
  // robfig spec.go `dayMatches`: when either day field has the star bit the day must match both (the starred
  // one matches every day); otherwise either may match, as in Vixie cron. croner ORs two restricted day fields
  // by default (domAndDow: false) and treats a literal `*` as "every day", so emitting `*` for starred fields
  // and explicit lists otherwise gives the same days. An empty list (robfig accepts "," as a field) cannot be
  // written for croner: under OR it contributes nothing, so the other field decides alone.
  const and = dom.star || dow.star;
  const days = and ? dom.values.length > 0 && dow.values.length > 0 : dom.values.length > 0 || dow.values.length > 0;
  const never = !days || [minute, hour, month].some((f) => f.values.length === 0);
  const list = (f: CronField): string => (f.star || f.values.length === 0 ? '*' : f.values.join(','));
  const cron = never
    ? undefined
    : new Cron([minute, hour, dom, month, dow].map(list).join(' '), { utcOffset: 0, mode: '5-part' });
  return {
    next(after) {
      const hit = cron?.nextRun(after) ?? null;
      // robfig spec.go `Next` gives up (zero time) when no hit lies within five years of the start.
      const startYear = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000).getUTCFullYear();
      return hit == null || hit.getUTCFullYear() > startYear + 5 ? undefined : hit;
    },
    latestAtOrBefore(at) {
      // croner's previousRuns is strictly before its reference; hits fall on whole minutes.
      return cron?.previousRuns(1, new Date(at.getTime() + 1))[0];
    },
  };
}
