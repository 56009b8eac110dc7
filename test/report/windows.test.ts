// Upgrade windows in words: the times in UTC and the user's zone, "paused by the window, next window opens …", the
// NDJSON `window` event.
import { describe, expect, it } from 'vitest';
import { nextWindowText, windowEventJson, windowPlanLines, windowSpan, windowTime, windowWaitText } from '../../src/report/windows.js';
import { planWindows } from '../../src/stages/window-plan.js';
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../../src/windows/flags.js';

const now = new Date('2026-11-28T22:48:00Z'); // Saturday

describe('windowTime', () => {
  it.each<[string, string, string | undefined, string]>([
    ['UTC, within the week: the day and the minute', '2026-11-30T02:00:00Z', 'UTC', 'Mon 02:00 UTC'],
    ['another zone: its own day and minute', '2026-11-30T02:00:00Z', 'Europe/Berlin', 'Mon 03:00 Europe/Berlin'],
    ['a zone behind UTC can be the day before', '2026-11-30T02:00:00Z', 'America/Los_Angeles', 'Sun 18:00 America/Los_Angeles'],
    ['a week or more away: the date too', '2026-12-27T00:00:00Z', 'UTC', 'Sun 2026-12-27 00:00 UTC'],
  ])('%s', (_name, at, zone, text) => {
    expect(windowTime(new Date(at), zone, now)).toBe(text);
  });
});

describe('windowSpan', () => {
  const w = { opensAt: new Date('2026-11-30T02:00:00Z'), closesAt: new Date('2026-11-30T05:00:00Z') };
  it.each<[string, string, Parameters<typeof windowSpan>[0], string]>([
    ['in UTC alone when the user is in UTC', 'UTC', w, 'Mon 02:00 – Mon 05:00 UTC'],
    ['and in the user’s zone', 'Europe/Berlin', w, 'Mon 02:00 – Mon 05:00 UTC (Mon 03:00 – Mon 06:00 Europe/Berlin)'],
    ['open now', 'UTC', { ...w, opensAt: now }, 'now – Mon 05:00 UTC'],
    ['never closes', 'UTC', { opensAt: w.opensAt }, 'Mon 02:00 UTC on, never closing'],
  ])('%s', (_name, zone, span, text) => {
    expect(windowSpan(span, zone, now)).toBe(text);
  });
});

describe('windowWaitText (status and wait, a rollout paused by its windows)', () => {
  it.each<[string, Parameters<typeof windowWaitText>[0], string]>([
    ['closed: in how long, then when', { open: false, opensAt: new Date('2026-11-30T02:00:00Z') }, 'waiting for the window that opens in 27h12m (Mon 02:00 UTC)'],
    ['open, and nobody runs in it', { open: true, closesAt: new Date('2026-11-28T23:00:00Z') }, 'the window is open until Sat 23:00 UTC (12m left), and no karp-drift run paces the rollout in it'],
    ['none within two years', { open: false }, 'no window opens within two years'],
    ['the windows cannot be read back', undefined, 'waiting for the next upgrade window'],
  ])('%s', (_name, state, text) => {
    expect(windowWaitText(state, now)).toBe(text);
  });
});

describe('nextWindowText', () => {
  it.each<[string, Parameters<typeof nextWindowText>[0], string]>([
    ['closed: when the next opens, and in how long', { open: false, opensAt: new Date('2026-11-29T02:00:00Z') }, 'next window opens Sun 02:00 UTC (in 3h12m)'],
    ['open: until when', { open: true, closesAt: new Date('2026-11-28T23:00:00Z') }, 'the window is open until Sat 23:00 UTC (12m left)'],
    ['none within two years', { open: false }, 'no window opens within two years'],
  ])('%s', (_name, state, text) => {
    expect(nextWindowText(state, now)).toBe(text);
  });
});

describe('windowEventJson', () => {
  it('waiting: when it opens; closed and opened: their times', () => {
    expect(windowEventJson('waiting', { open: false, opensAt: new Date('2026-11-29T02:00:00Z') }, now)).toEqual({
      type: 'window',
      time: '2026-11-28T22:48:00Z',
      event: 'waiting',
      open: false,
      opensAt: '2026-11-29T02:00:00Z',
    });
    expect(windowEventJson('opened', { open: true, closesAt: new Date('2026-11-28T23:00:00Z') }, now)).toMatchObject({
      event: 'opened',
      open: true,
      closesAt: '2026-11-28T23:00:00Z',
    });
    expect(windowEventJson('closed', { open: false }, now)).toMatchObject({ event: 'closed', opensAt: null });
  });
});

describe('windowPlanLines', () => {
  it('the windows, the next three in UTC and the user’s zone, the budgets, and each NodePool’s count, within 80 columns', () => {
    const r = planWindows(
      {
        windows: [parseWindow('0 2 * * mon-thu/3h') as UpgradeWindow],
        exclusions: [parseExclusion('2026-12-24/2026-12-26') as Exclusion],
      },
      [{ pool: { name: 'general', budgets: [{ nodes: '10%' }] }, hold: { nodePool: 'general', mechanism: 'budget', why: '' } }],
      'v1',
      now,
      'America/New_York',
    );
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    const lines = windowPlanLines(r.plan);
    expect(lines).toEqual([
      '  Windows (UTC, as Karpenter reads budget schedules): drift only inside them',
      "    --window '0 2 * * mon-thu/3h'",
      '    --exclude 2026-12-24/2026-12-26 (UTC 2026-12-24 00:00 – 2026-12-27 00:00)',
      '    now: next window opens Mon 02:00 UTC (in 27h12m)',
      '    next 3 windows:',
      '      Mon 02:00 – Mon 05:00 UTC (Sun 21:00 – Mon 00:00 America/New_York)',
      '      Tue 02:00 – Tue 05:00 UTC (Mon 21:00 – Tue 00:00 America/New_York)',
      '      Wed 02:00 – Wed 05:00 UTC (Tue 21:00 – Wed 00:00 America/New_York)',
      '  Budgets added to each NodePool while held: Drifted at 0 while the windows are',
      "  closed, which Karpenter keeps with no run alive; the NodePool's own budgets",
      '  come back exactly at the end:',
      '    {nodes: "0", reasons: [Drifted], schedule: "0 5 * * 1-3", duration: 21h}',
      '    {nodes: "0", reasons: [Drifted], schedule: "0 5 * * 4", duration: 93h}',
      '    {nodes: "0", reasons: [Drifted], schedule: "0 0 24 12 *", duration: 72h}',
      '    nodepool/general: 6 of 50 budgets (1 own, 3 for the windows, switch, hold)',
    ]);
    expect(lines.every((l) => l.length <= 80)).toBe(true);
  });
});

describe('windowPlanLines: windows a week away, dated, in a long zone name', () => {
  it('put the local times on a line of their own, within 80 columns', () => {
    const r = planWindows(
      { windows: [parseWindow('0 2 * * mon/5m') as UpgradeWindow], exclusions: [] },
      [{ pool: { name: 'general' }, hold: { nodePool: 'general', mechanism: 'budget', why: '' } }],
      'v1',
      now,
      'America/Los_Angeles',
    );
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    const lines = windowPlanLines(r.plan);
    expect(lines.slice(3, 9)).toEqual([
      '    next 3 windows:',
      '      Mon 02:00 – Mon 02:05 UTC (Sun 18:00 – Sun 18:05 America/Los_Angeles)',
      '      Mon 2026-12-07 02:00 – Mon 2026-12-07 02:05 UTC',
      '        (Sun 2026-12-06 18:00 – Sun 2026-12-06 18:05 America/Los_Angeles)',
      '      Mon 2026-12-14 02:00 – Mon 2026-12-14 02:05 UTC',
      '        (Sun 2026-12-13 18:00 – Sun 2026-12-13 18:05 America/Los_Angeles)',
    ]);
    expect(lines.every((l) => l.length <= 80)).toBe(true);
  });
});
