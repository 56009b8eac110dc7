// The window → budgets translation against Karpenter's `IsActive`, every minute: the budgets written must allow
// Drifted exactly when a window is open (a window read as Karpenter reads a budget schedule) and no exclusion holds,
// and the pacer's own budget must decide inside the windows. The oracle (karpenter-oracle.ts) is written from
// Karpenter's and robfig's source, apart from src/windows/; one week per case also runs through the project's
// `allowedDisruptions` (croner's date arithmetic), so two readings of Karpenter agree with the translation.
import { describe, expect, it } from 'vitest';
import { allowedDisruptions, type Budget } from '../../src/karpenter/budgets.js';
import type { Exclusion, UpgradeWindow } from '../../src/windows/flags.js';
import { windowBudgets, type WindowBudgets } from '../../src/windows/budgets.js';
import { isWindowOpen, windowCalendar } from '../../src/windows/calendar.js';
import { exclusion, expectedOpen, window } from './helpers.js';
import { driftLimits } from './karpenter-oracle.js';

const MINUTE_MS = 60_000;
const WEEK = 7 * 24 * 60;

function translated(windows: UpgradeWindow[], exclusions: Exclusion[], now: Date, kept = 0): WindowBudgets {
  const result = windowBudgets(windows, exclusions, { now, kept });
  if ('error' in result) throw new Error(result.error);
  return result;
}

// The staged pacer's wave budget, a user's budget for every reason, and one for consolidation only: all stay.
const PACER: Budget = { nodes: '3', reasons: ['Drifted'] };
const KEPT: Budget[] = [{ nodes: '5' }, PACER, { nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * 1-5', duration: '8h' }];

// Sunday 2026-11-22 00:00 UTC: the week starts on robfig's day 0.
const SUNDAY = new Date('2026-11-22T00:00:00Z');

describe('every minute: the budgets allow Drifted exactly inside the windows', () => {
  it.each<[string, string[], string[], Date, number, number]>([
    // name, --window, --exclude, start, minutes checked, budgets written
    ['the issue: Monday to Thursday 02:00-05:00', ['0 2 * * mon-thu/3h'], [], SUNDAY, 2 * WEEK, 2],
    ['across midnight every night', ['0 22 * * */4h'], [], SUNDAY, 2 * WEEK, 1],
    ['across the week end: Saturday 22:00 to Monday 04:00', ['0 22 * * sat/30h'], [], SUNDAY, 2 * WEEK, 1],
    ['a window that starts on Sunday 23:00, late on day 0', ['0 23 * * sun/2h'], [], SUNDAY, 2 * WEEK, 1],
    ['overlapping windows merge: 01:00-04:00 and 02:00-05:00', ['0 1 * * */3h', '0 2 * * */3h'], [], SUNDAY, 2 * WEEK, 1],
    ['adjacent windows merge: 01:00-02:00 and 02:00-03:00', ['0 1 * * */1h', '0 2 * * */1h'], [], SUNDAY, 2 * WEEK, 1],
    ['overlapping hits of one window: Monday and Wednesday for 60h', ['0 0 * * mon,wed/60h'], [], SUNDAY, 2 * WEEK, 1],
    ['weekends and weeknights of different lengths', ['0 0 * * sat,sun/24h', '30 20 * * mon-fri/2h30m'], [], SUNDAY, 2 * WEEK, 3],
    ['a step in the cron, a minute-long close', ['*/15 * * * */14m'], [], SUNDAY, WEEK, 1],
    ['robfig ORs two restricted day fields: 1-31 and mon is every day', ['0 2 1-31 * mon/1h'], [], SUNDAY, WEEK, 1],
    ['descriptors: @daily for 2h', ['@daily/2h'], [], SUNDAY, WEEK, 1],
    ['open all week: nothing to write', ['0 0 * * */24h'], [], SUNDAY, WEEK, 0],
    ['one hit a week, open for a week or more', ['0 0 * * mon/168h', '30 1 * * fri/200h'], [], SUNDAY, 2 * WEEK, 0],
    ['every minute of the week, for a week', ['* * * * */168h'], [], SUNDAY, WEEK, 0],
    ['every minute for a minute, but not on Sunday', ['* * * * mon-sat/1m'], [], SUNDAY, 2 * WEEK, 1],
    [
      'exclusions across a month end and a year end',
      ['0 2 * * */3h', '0 12 * * sat/6h'],
      ['2026-11-27/2026-11-30', '2026-12-31T22:00Z/2027-01-01T06:00Z', '2026-12-24T02:30Z/2026-12-24T03:00Z'],
      new Date('2026-11-20T00:00:00Z'),
      8 * WEEK,
      6,
    ],
    [
      'an exclusion on closed days writes nothing; one across a window does',
      ['0 2 * * mon-thu/3h'],
      ['2026-12-04/2026-12-06', '2026-12-07T02:59Z/2026-12-07T03:00Z'],
      new Date('2026-11-29T00:00:00Z'),
      3 * WEEK,
      3,
    ],
    [
      'an exclusion already running at the start, and one that ended (dropped)',
      ['0 2 * * mon-thu/3h'],
      ['2026-11-01/2026-11-10', '2026-11-20T04:00Z/2026-11-24T04:30Z'],
      new Date('2026-11-23T02:15:00Z'),
      3 * WEEK,
      3,
    ],
  ])('%s', (_name, windowFlags, excludeFlags, start, minutes, written) => {
    const windows = windowFlags.map(window);
    const exclusions = excludeFlags.map(exclusion);
    const { budgets } = translated(windows, exclusions, start, KEPT.length);
    expect(budgets).toHaveLength(written);
    for (const b of budgets) expect(b).toMatchObject({ nodes: '0', reasons: ['Drifted'] });

    const open = expectedOpen(windows, exclusions, start, minutes);
    const withWindows = driftLimits([...KEPT, ...budgets], start, minutes);
    const keptOnly = driftLimits(KEPT, start, minutes);
    const cal = windowCalendar(windows, exclusions);
    const wrong: string[] = [];
    for (let t = 0; t < minutes; t++) {
      const at = new Date(start.getTime() + t * MINUTE_MS);
      const want = open[t] === 1 ? keptOnly[t] : 0;
      if (withWindows[t] !== want) wrong.push(`${at.toISOString()}: Karpenter allows ${withWindows[t]}, want ${want}`);
      // Half a minute in, the calendar still says what Karpenter does (its clock has seconds; hits are on minutes).
      if (isWindowOpen(cal, new Date(at.getTime() + 30_000)) !== (open[t] === 1)) wrong.push(`${at.toISOString()}: calendar`);
      if (wrong.length > 5) break;
    }
    expect(wrong).toEqual([]);
    expect(open.includes(1) && open.includes(0)).toBe(written > 0);
  });
});

// croner's date arithmetic costs about 60 µs per scheduled budget and minute: a week of one case takes 1-2.5 s alone,
// more on a shared machine, hence the longer timeout.
describe("this project's allowedDisruptions agrees", { timeout: 30_000 }, () => {
  it.each<[string, string[], string[], Date]>([
    ['the issue: Monday to Thursday 02:00-05:00', ['0 2 * * mon-thu/3h'], [], SUNDAY],
    ['across the week end', ['0 22 * * sat/30h'], [], SUNDAY],
    ['weekends and weeknights', ['0 0 * * sat,sun/24h', '30 20 * * mon-fri/2h30m'], [], SUNDAY],
    ['exclusions', ['0 2 * * */3h'], ['2026-11-27/2026-11-30'], new Date('2026-11-23T00:00:00Z')],
  ])('%s: every minute of a week', (_n, wf, ef, start) => {
    const windows = wf.map(window);
    const exclusions = ef.map(exclusion);
    const { budgets } = translated(windows, exclusions, start, KEPT.length);
    const open = expectedOpen(windows, exclusions, start, WEEK);
    const counts = { numNodes: 20, disrupting: 1 };
    const wrong: string[] = [];
    for (let t = 0; t < WEEK; t++) {
      const at = new Date(start.getTime() + t * MINUTE_MS + 59_000);
      const drift = allowedDisruptions([...KEPT, ...budgets], counts, 'Drifted', at);
      // Inside a window the pacer's 3 is the smallest; outside, the window budget's 0.
      if (drift.limit !== (open[t] === 1 ? 3 : 0)) wrong.push(`${at.toISOString()}: Drifted limit ${drift.limit}`);
      // Consolidation never sees the window budgets (every 7th minute: each of these calls costs as much as above).
      if (t % 7 !== 0) continue;
      const consolidation = allowedDisruptions([...KEPT, ...budgets], counts, 'Underutilized', at);
      if (consolidation.limit !== allowedDisruptions(KEPT, counts, 'Underutilized', at).limit) wrong.push(`${at.toISOString()}: Underutilized`);
      if (wrong.length > 5) break;
    }
    expect(wrong).toEqual([]);
  });
});

describe('the budgets written', () => {
  it('the issue: one cron for the three weeknight gaps, one for the long weekend', () => {
    const { budgets } = translated([window('0 2 * * mon-thu/3h')], [], SUNDAY);
    expect(budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 1-3', duration: '21h' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 4', duration: '93h' },
    ]);
  });

  it('a window across the week end closes from Monday 04:00 to Saturday 22:00', () => {
    expect(translated([window('0 22 * * sat/30h')], [], SUNDAY).budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'], schedule: '0 4 * * 1', duration: '138h' },
    ]);
  });

  it('an exclusion is one yearly cron at its start, for its length; an ended one is dropped', () => {
    const black = exclusion('2026-11-27/2026-11-30');
    const ended = exclusion('2026-11-01T00:00Z/2026-11-02T00:00Z');
    const result = translated([window('0 2 * * */3h')], [black, ended], new Date('2026-11-20T00:00:00Z'));
    expect(result.budgets[1]).toEqual({ nodes: '0', reasons: ['Drifted'], schedule: '0 0 27 11 *', duration: '96h' });
    expect(result.ended).toEqual([ended]);
  });

  it('many gaps of the same length share a cron: minute x hour x day', () => {
    expect(translated([window('*/15 * * * */14m')], [], SUNDAY).budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'], schedule: '14,29,44,59 * * * *', duration: '1m' },
    ]);
  });
});
