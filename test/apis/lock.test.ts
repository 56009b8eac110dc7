import { describe, expect, it } from 'vitest';
import { leaseBody, lockVerdict, microTime, takeVerdict, type LeaseView, type LeaseWatch, type LockHolder } from '../../src/apis/lock.js';

const me: LockHolder = {
  runId: 'r2',
  user: 'bob',
  host: 'ci-7',
  command: 'upgrade --to 1.31',
};
const now = new Date(Date.UTC(2026, 10, 25, 12, 0, 30));
const lease = (o: Partial<LeaseView> = {}): LeaseView => ({
  resourceVersion: '7',
  holderIdentity: 'alice@laptop (run r1)',
  leaseDurationSeconds: 30,
  acquireTime: '2026-11-25T11:50:00.000000Z',
  renewTime: '2026-11-25T12:00:10.000000Z',
  leaseTransitions: 2,
  annotations: { 'karp-drift.io/command': 'upgrade --to 1.31 --canary canary' },
  ...o,
});

describe('lockVerdict', () => {
  it.each<[string, LeaseView | undefined, unknown]>([
    ['no lease yet', undefined, { action: 'create' }],
    ['released (no holder)', lease({ holderIdentity: '' }), { action: 'take', transitions: 3 }],
    ['ours: renew', lease({ holderIdentity: 'bob@ci-7 (run r2)' }), { action: 'renew' }],
    [
      'expired 1 s ago (renewed 31 s ago)',
      lease({ renewTime: '2026-11-25T11:59:59.000000Z' }),
      { action: 'take', transitions: 3 },
    ],
    ['expires exactly now', lease({ renewTime: '2026-11-25T12:00:00.000000Z' }), { action: 'take', transitions: 3 }],
    ['no time on it', lease({ renewTime: undefined, acquireTime: undefined }), { action: 'take', transitions: 3 }],
    [
      'held by a live run',
      lease(),
      {
        action: 'refuse',
        holder: 'alice@laptop (run r1)',
        command: 'upgrade --to 1.31 --canary canary',
        since: '2026-11-25T11:50:00.000000Z',
        expiresAt: new Date(Date.UTC(2026, 10, 25, 12, 0, 40)),
      },
    ],
    [
      'a longer duration set by another holder is honoured',
      lease({
        renewTime: '2026-11-25T11:59:00.000000Z',
        leaseDurationSeconds: 120,
      }),
      expect.objectContaining({ action: 'refuse' }),
    ],
  ])('%s', (_name, l, expected) => {
    expect(lockVerdict(l, me, now)).toEqual(expected);
  });
});

describe('takeVerdict: another run holds the lease until this run has watched it unrenewed', () => {
  const who = { holder: 'alice@laptop (run r1)', command: 'upgrade --to 1.31 --canary canary', since: '2026-11-25T11:50:00.000000Z' };
  const first: LeaseWatch = { silentForMs: 0, renewedWhileWatched: false };
  it.each<[string, LeaseView | undefined, LeaseWatch, unknown]>([
    ['no lease yet', undefined, first, { action: 'create' }],
    ['released (no holder)', lease({ holderIdentity: '' }), first, { action: 'take', transitions: 3 }],
    ['ours: renew', lease({ holderIdentity: 'bob@ci-7 (run r2)' }), first, { action: 'renew' }],
    ['never renewed (no time on it)', lease({ renewTime: undefined, acquireTime: undefined }), first, { action: 'take', transitions: 3 }],
    // Its renewTime a day ago by this clock proves nothing: that machine's clock may be a day behind.
    ['first sight of a lease renewed "a day ago"', lease({ renewTime: '2026-11-24T12:00:10.000000Z' }), first, { action: 'watch', ...who, decidedWithinMs: 30_000 }],
    ['watched 20 s unrenewed', lease(), { silentForMs: 20_000, renewedWhileWatched: false }, { action: 'watch', ...who, decidedWithinMs: 10_000 }],
    ['watched 30 s unrenewed: the holder is gone', lease(), { silentForMs: 30_000, renewedWhileWatched: false }, { action: 'take', transitions: 3 }],
    // Its renewTime "in the future" by this clock proves nothing either; a renewal seen does.
    ['renewed while watched: alive', lease({ renewTime: '2026-11-25T13:00:10.000000Z' }), { silentForMs: 1_000, renewedWhileWatched: true }, { action: 'refuse', ...who }],
    ['a longer duration set by another holder is honoured', lease({ leaseDurationSeconds: 120 }), { silentForMs: 30_000, renewedWhileWatched: false }, { action: 'watch', ...who, decidedWithinMs: 90_000 }],
  ])('%s', (_name, l, watch, expected) => {
    expect(takeVerdict(l, me, watch)).toEqual(expected);
  });
});

it('writes a Lease kube-apiserver accepts: MicroTime with microseconds', () => {
  expect(microTime(now)).toBe('2026-11-25T12:00:30.000000Z');
  expect(leaseBody(me, now, now, 3, 'kube-system', '7')).toEqual({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'karp-drift',
      namespace: 'kube-system',
      resourceVersion: '7',
      annotations: {
        'karp-drift.io/command': 'upgrade --to 1.31',
        'karp-drift.io/run-id': 'r2',
      },
    },
    spec: {
      holderIdentity: 'bob@ci-7 (run r2)',
      leaseDurationSeconds: 30,
      acquireTime: '2026-11-25T12:00:30.000000Z',
      renewTime: '2026-11-25T12:00:30.000000Z',
      leaseTransitions: 3,
    },
  });
});
