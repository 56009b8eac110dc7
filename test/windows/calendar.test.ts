// When the windows are open, when the next opens and when the open one closes: the reading behind "paused by the
// window, next window opens <time>" and the ETA counted in windows.
import { describe, expect, it } from 'vitest';
import { nextWindows, openTimeEnd, windowCalendar, windowsBefore, windowState, type WindowState } from '../../src/windows/calendar.js';
import { exclusion, expectedOpen, window } from './helpers.js';

const at = (iso: string) => new Date(iso);
const iso = (s: WindowState) =>
  s.open ? { open: true, closesAt: s.closesAt?.toISOString() } : { open: false, opensAt: s.opensAt?.toISOString() };

describe('windowState', () => {
  const issue = windowCalendar([window('0 2 * * mon-thu/3h')], []);
  it.each<[string, ReturnType<typeof windowCalendar>, string, ReturnType<typeof iso>]>([
    ['Saturday morning: Monday 02:00 opens next', issue, '2026-11-28T08:00:00Z', { open: false, opensAt: '2026-11-30T02:00:00.000Z' }],
    ['half a minute before it opens', issue, '2026-11-30T01:59:30Z', { open: false, opensAt: '2026-11-30T02:00:00.000Z' }],
    ['at the hit itself', issue, '2026-11-30T02:00:00Z', { open: true, closesAt: '2026-11-30T05:00:00.000Z' }],
    ['the last second', issue, '2026-11-30T04:59:59Z', { open: true, closesAt: '2026-11-30T05:00:00.000Z' }],
    // Karpenter: the window is [hit, hit + duration), closed at exactly hit + duration.
    ['at hit + duration', issue, '2026-11-30T05:00:00Z', { open: false, opensAt: '2026-12-01T02:00:00.000Z' }],
    ['Thursday night: the long weekend', issue, '2026-12-03T05:00:00Z', { open: false, opensAt: '2026-12-07T02:00:00.000Z' }],
    [
      'across the week end, on Sunday',
      windowCalendar([window('0 22 * * sat/30h')], []),
      '2026-11-29T12:00:00Z',
      { open: true, closesAt: '2026-11-30T04:00:00.000Z' },
    ],
    [
      'an excluded Monday: Tuesday opens next',
      windowCalendar([window('0 2 * * mon-thu/3h')], [exclusion('2026-11-30/2026-11-30')]),
      '2026-11-28T08:00:00Z',
      { open: false, opensAt: '2026-12-01T02:00:00.000Z' },
    ],
    [
      'an exclusion that starts inside the window closes it early',
      windowCalendar([window('0 2 * * */3h')], [exclusion('2026-12-01T03:00Z/2026-12-02T00:00Z')]),
      '2026-12-01T02:30:00Z',
      { open: true, closesAt: '2026-12-01T03:00:00.000Z' },
    ],
    [
      'an exclusion that ends inside a window opens it late; chained exclusions end with the last',
      windowCalendar(
        [window('0 2 * * */3h')],
        [exclusion('2026-11-29T00:00Z/2026-11-30T01:00Z'), exclusion('2026-11-30T00:30Z/2026-11-30T03:30Z')],
      ),
      '2026-11-29T01:00:00Z',
      { open: false, opensAt: '2026-11-30T03:30:00.000Z' },
    ],
    ['always open never closes', windowCalendar([window('0 0 * * */24h')], []), '2026-11-29T01:00:00Z', { open: true, closesAt: undefined }],
    [
      'always open, but for an exclusion',
      windowCalendar([window('0 0 * * */24h')], [exclusion('2026-12-24/2026-12-26')]),
      '2026-11-29T01:00:00Z',
      { open: true, closesAt: '2026-12-24T00:00:00.000Z' },
    ],
  ])('%s', (_name, cal, now, state) => {
    expect(iso(windowState(cal, at(now)))).toEqual(state);
  });
});

it('nextWindows counts the windows ahead: three from Saturday end on Wednesday 05:00', () => {
  const cal = windowCalendar([window('0 2 * * mon-thu/3h')], [exclusion('2026-12-01/2026-12-01')]);
  expect(
    nextWindows(cal, at('2026-11-28T08:00:00Z'), 3).map((w) => [w.opensAt.toISOString(), w.closesAt?.toISOString()]),
  ).toEqual([
    ['2026-11-30T02:00:00.000Z', '2026-11-30T05:00:00.000Z'],
    // Tuesday is excluded.
    ['2026-12-02T02:00:00.000Z', '2026-12-02T05:00:00.000Z'],
    ['2026-12-03T02:00:00.000Z', '2026-12-03T05:00:00.000Z'],
  ]);
});

describe('openTimeEnd: work that moves only inside the windows', () => {
  const issue = windowCalendar([window('0 2 * * mon-thu/3h')], []);
  const h = 3_600_000;
  it.each<[string, ReturnType<typeof windowCalendar>, string, number, [string, number] | undefined]>([
    ['7h from Saturday: Monday, Tuesday, one hour of Wednesday', issue, '2026-11-28T08:00:00Z', 7 * h, ['2026-12-02T03:00:00.000Z', 3]],
    ['exactly one window ends at its close', issue, '2026-11-28T08:00:00Z', 3 * h, ['2026-11-30T05:00:00.000Z', 1]],
    ['from inside a window, what is left of it counts first', issue, '2026-11-30T04:00:00Z', 2 * h, ['2026-12-01T03:00:00.000Z', 2]],
    ['none: now, in no window, even when they are closed', issue, '2026-11-28T08:00:00Z', 0, ['2026-11-28T08:00:00.000Z', 0]],
    ['13h: the long weekend between the fourth and fifth window', issue, '2026-11-28T08:00:00Z', 13 * h, ['2026-12-07T03:00:00.000Z', 5]],
    [
      'an exclusion takes its windows out',
      windowCalendar([window('0 2 * * mon-thu/3h')], [exclusion('2026-11-30/2026-12-01')]),
      '2026-11-28T08:00:00Z',
      7 * h,
      ['2026-12-07T03:00:00.000Z', 3],
    ],
    ['always open: the work takes its own length', windowCalendar([window('0 0 * * */24h')], []), '2026-11-28T08:00:00Z', 50 * h, ['2026-11-30T10:00:00.000Z', 1]],
  ])('%s', (_name, cal, from, ms, want) => {
    const got = openTimeEnd(cal, at(from), ms);
    expect(got === undefined ? undefined : [got.end.toISOString(), got.windows]).toEqual(want);
  });
});

describe('windowsBefore: the windows from now to the end of the work', () => {
  const issue = windowCalendar([window('0 2 * * mon-thu/3h')], []);
  it.each<[string, ReturnType<typeof windowCalendar>, string, string, number]>([
    ['Saturday to Wednesday 03:00: Monday, Tuesday, Wednesday', issue, '2026-11-28T08:00:00Z', '2026-12-02T03:00:00Z', 3],
    ['an end at a window’s close: the next one is not counted', issue, '2026-11-28T08:00:00Z', '2026-11-30T05:00:00Z', 1],
    ['an end at a window’s opening minute: not yet that window', issue, '2026-11-28T08:00:00Z', '2026-11-30T02:00:00Z', 0],
    ['the window open now counts', issue, '2026-11-30T04:00:00Z', '2026-11-30T04:30:00Z', 1],
    ['the long weekend, then Monday: five', issue, '2026-11-28T08:00:00Z', '2026-12-07T03:00:00Z', 5],
    [
      'an excluded window is no window',
      windowCalendar([window('0 2 * * mon-thu/3h')], [exclusion('2026-11-30/2026-12-01')]),
      '2026-11-28T08:00:00Z',
      '2026-12-07T03:00:00Z',
      3,
    ],
    ['always open: one', windowCalendar([window('0 0 * * */24h')], []), '2026-11-28T08:00:00Z', '2026-12-30T08:00:00Z', 1],
  ])('%s', (_name, cal, from, end, want) => {
    expect(windowsBefore(cal, at(from), at(end))).toBe(want);
  });
});

describe('every minute of three weeks: opensAt and closesAt are the next change of the open minutes', () => {
  it.each<[string, string[], string[]]>([
    ['the issue', ['0 2 * * mon-thu/3h'], []],
    ['weekends and weeknights, with exclusions', ['0 0 * * sat,sun/24h', '30 20 * * mon-fri/2h30m'], ['2026-12-05/2026-12-06', '2026-11-25T21:00Z/2026-11-26T00:00Z']],
  ])('%s', (_name, wf, ef) => {
    const windows = wf.map(window);
    const exclusions = ef.map(exclusion);
    const start = at('2026-11-22T00:00:00Z');
    const minutes = 3 * 7 * 1440;
    // One more week, so that every state in the three has its next change inside the array.
    const open = expectedOpen(windows, exclusions, start, minutes + 7 * 1440);
    const cal = windowCalendar(windows, exclusions);
    const wrong: string[] = [];
    for (let t = 0; t < minutes && wrong.length < 5; t++) {
      const now = new Date(start.getTime() + t * 60_000 + 20_000);
      let change = t + 1;
      while (open[change] === open[t]) change++;
      const changeAt = new Date(start.getTime() + change * 60_000).toISOString();
      const want = open[t] === 1 ? { open: true, closesAt: changeAt } : { open: false, opensAt: changeAt };
      const got = iso(windowState(cal, now));
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${now.toISOString()}: ${JSON.stringify(got)}`);
    }
    expect(wrong).toEqual([]);
  });
});
