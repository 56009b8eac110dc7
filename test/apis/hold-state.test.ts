// runLock: whether a run holds the cluster lock, as a display says it. From one read it can only trust the holder's
// renewTime against this machine's clock; a reader that reads the Lease again and again (status --watch) trusts what
// it saw instead, so neither a stale read nor a skewed clock makes a healthy run look expired.
import { describe, expect, it } from 'vitest';
import { leaseRenewedText, runLock, type RunLock } from '../../src/apis/hold-state.js';
import type { LeaseView, LeaseWatch } from '../../src/apis/lock.js';

const now = new Date(Date.UTC(2026, 10, 25, 12, 0, 30));
const lease = (o: Partial<LeaseView> = {}): LeaseView => ({
  resourceVersion: '7',
  holderIdentity: 'alice@laptop (run r1)',
  leaseDurationSeconds: 30,
  acquireTime: '2026-11-25T11:50:00.000000Z',
  renewTime: '2026-11-25T12:00:26.000000Z', // 4 s before `now`
  annotations: { 'karp-drift.io/command': 'upgrade --to 1.30 --canary canary' },
  ...o,
});
const who = { holder: 'alice@laptop (run r1)', command: 'upgrade --to 1.30 --canary canary', durationSeconds: 30 };
const watched = (silentForMs: number, renewedWhileWatched: boolean): LeaseWatch => ({ silentForMs, renewedWhileWatched });
/** renewTime 45 s behind this clock: the holder's clock is behind, or the run died 45 s ago. */
const lapsedByClock = lease({ renewTime: '2026-11-25T11:59:45.000000Z' });

describe('runLock', () => {
  it.each<[string, LeaseView | undefined | 'unreadable', LeaseWatch | undefined, RunLock]>([
    ['no Lease', undefined, undefined, { state: 'none' }],
    ['released (no holder)', lease({ holderIdentity: '' }), watched(60_000, true), { state: 'none' }],
    ['a Lease that cannot be read', 'unreadable', undefined, { state: 'unreadable' }],
    ['one read, renewed 4 s ago by the clocks: live', lease(), undefined, { state: 'live', ...who, renewedAt: '2026-11-25T12:00:26.000000Z' }],
    ['one read, lapsed by the clocks: none (a display guesses)', lapsedByClock, undefined, { state: 'none' }],
    [
      'watched, seen renewed 3 s ago: live, its age by what was seen, whatever the renewTime says',
      lapsedByClock,
      watched(3_000, true),
      { state: 'live', ...who, renewedAt: '2026-11-25T12:00:27.000Z' },
    ],
    [
      'watched, a stale read 28 s old but renewed while watched: still live, never shown 28 s old by the clocks',
      lease({ renewTime: '2026-11-25T12:00:02.000000Z' }),
      watched(1_000, true),
      { state: 'live', ...who, renewedAt: '2026-11-25T12:00:29.000Z' },
    ],
    ['watched silent for its whole duration: gone, whatever the clocks say', lease({ renewTime: '2026-11-25T12:00:29.000000Z' }), watched(30_000, true), { state: 'none' }],
    [
      'watched briefly, fresh by the clocks: live by the clocks until a renewal is seen',
      lease(),
      watched(2_000, false),
      { state: 'live', ...who, renewedAt: '2026-11-25T12:00:26.000000Z' },
    ],
    [
      'watched briefly, lapsed by the clocks: not known yet (skew or a dead run), decided within the rest of the duration',
      lapsedByClock,
      watched(2_000, false),
      { state: 'unconfirmed', ...who, decidedWithinMs: 28_000 },
    ],
    ['a Lease with no time on it: none', lease({ renewTime: undefined, acquireTime: undefined }), watched(0, false), { state: 'none' }],
    [
      'a longer duration set by its holder is honoured by the watch',
      lease({ leaseDurationSeconds: 120 }),
      watched(60_000, true),
      { state: 'live', ...who, durationSeconds: 120, renewedAt: '2026-11-25T11:59:30.000Z' },
    ],
  ])('%s', (_name, l, watch, expected) => {
    expect(runLock(l, now, watch)).toEqual(expected);
  });
});

describe('leaseRenewedText', () => {
  it.each<[string, string | undefined, string]>([
    ['4 s ago, beside the duration that gives the age its meaning', '2026-11-25T12:00:26.000Z', ', lease renewed 4s ago (30s lease)'],
    ["a holder's clock ahead of this one: never a negative age", '2026-11-25T12:00:40.000Z', ', lease renewed 0s ago (30s lease)'],
    ['no time on the Lease: nothing said', undefined, ''],
  ])('%s', (_name, renewedAt, expected) => {
    expect(leaseRenewedText({ durationSeconds: 30, ...(renewedAt !== undefined ? { renewedAt } : {}) }, now)).toBe(expected);
  });
});
