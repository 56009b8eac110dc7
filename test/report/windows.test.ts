// Upgrade windows in words: the times in UTC and the user's zone, "paused by the window, next window opens …", the
// NDJSON `window` event.
import { describe, expect, it } from 'vitest';
import { nextWindowText, windowEventJson, windowTime } from '../../src/report/windows.js';

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
