// `wait` tells holds that pace a live staged upgrade from holds left behind (a halt, an interrupt, `pause`).
import { describe, expect, it } from 'vitest';
import { HOLD_ANNOTATION, switchBudget } from '../../src/apis/budget-hold.js';
import type { LeaseView } from '../../src/apis/lock.js';
import { rolloutHold } from '../../src/stages/paused.js';
import { node, nodePool } from '../rollout/factories.js';

const now = new Date('2026-11-26T10:00:00Z');
const record = (runId: string, since: string) =>
  JSON.stringify({ runId, since, budgets: [{ nodes: '10%' }], target: '1.30' });
const budgetHeld = (name: string, runId = 'run-a', since = '2026-11-26T09:40:00Z') =>
  nodePool({ name, annotations: { [HOLD_ANNOTATION]: record(runId, since) } });
const WINDOW_FLAGS = ["--window '0 2 * * mon-thu/3h'"];
const windowHeld = (name: string) =>
  nodePool({
    name,
    budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }],
    annotations: {
      [HOLD_ANNOTATION]: JSON.stringify({ runId: 'run-a', since: '2026-11-26T09:40:00Z', budgets: [{ nodes: '10%' }], target: '1.30', windowFlags: WINDOW_FLAGS, pausedBy: 'window' }),
    },
  });
const lease = (renewedSecondsAgo: number, holder = 'alice@laptop (run run-a)'): LeaseView => ({
  resourceVersion: '7',
  holderIdentity: holder,
  leaseDurationSeconds: 30,
  renewTime: new Date(now.getTime() - renewedSecondsAgo * 1000).toISOString(),
  annotations: { 'karp-drift.io/command': 'upgrade --to 1.30 --canary canary' },
});

describe('rolloutHold', () => {
  it.each<[string, Parameters<typeof rolloutHold>, ReturnType<typeof rolloutHold>]>([
    ['nothing held', [[nodePool({ name: 'general' })], [], undefined, now], undefined],
    [
      'held, no lease at all: paused',
      [[budgetHeld('general'), budgetHeld('canary', 'run-a', '2026-11-26T09:30:00Z')], [], undefined, now],
      { state: 'paused', pools: ['canary', 'general'], runIds: ['run-a'], since: '2026-11-26T09:30:00Z' },
    ],
    [
      'held while a live run holds the lock: paced',
      [[budgetHeld('general')], [], lease(5), now],
      {
        state: 'paced',
        pools: ['general'],
        holder: 'alice@laptop (run run-a)',
        command: 'upgrade --to 1.30 --canary canary',
        renewedAt: '2026-11-26T09:59:55.000Z',
      },
    ],
    [
      "a dead run's hold that still lets Karpenter start replacements: draining, not paused",
      [[nodePool({ name: 'general', budgets: [{ nodes: '10%' }, switchBudget(new Date('2026-11-26T10:02:00Z')), { nodes: '2', reasons: ['Drifted'] }], annotations: { [HOLD_ANNOTATION]: record('run-a', '2026-11-26T09:40:00Z') } })], [], lease(31), now],
      {
        state: 'draining',
        pools: ['general'],
        runIds: ['run-a'],
        since: '2026-11-26T09:40:00Z',
        holds: [{ nodePool: 'general', hold: { state: 'draining', allowance: 2, until: '2026-11-26T10:02:00.000Z' } }],
      },
    ],
    [
      "a dead run's switch fired: paused, and since when the switch holds it",
      [[nodePool({ name: 'general', budgets: [{ nodes: '10%' }, switchBudget(new Date('2026-11-26T09:57:00Z')), { nodes: '2', reasons: ['Drifted'] }], annotations: { [HOLD_ANNOTATION]: record('run-a', '2026-11-26T09:40:00Z') } })], [], lease(300), now],
      { state: 'paused', pools: ['general'], runIds: ['run-a'], since: '2026-11-26T09:40:00Z', switchedSince: '2026-11-26T09:57:00.000Z' },
    ],
    [
      'held, the lease expired (the run was killed): paused',
      [[budgetHeld('general')], [], lease(31), now],
      { state: 'paused', pools: ['general'], runIds: ['run-a'], since: '2026-11-26T09:40:00Z' },
    ],
    [
      'held, the lease released (holder cleared): paused',
      [[budgetHeld('general')], [], { ...lease(5), holderIdentity: '' }, now],
      { state: 'paused', pools: ['general'], runIds: ['run-a'], since: '2026-11-26T09:40:00Z' },
    ],
    [
      'node holds only (a GitOps-owned NodePool): paused, by the run on the nodes',
      [
        [nodePool({ name: 'batch' }), nodePool({ name: 'general' })],
        [node({ name: 'n1', nodePool: 'batch', heldBy: 'run-b' }), node({ name: 'n2', nodePool: 'general' })],
        undefined,
        now,
      ],
      { state: 'paused', pools: ['batch'], runIds: ['run-b'] },
    ],
    [
      'a held node of a NodePool out of scope says nothing',
      [[nodePool({ name: 'general' })], [node({ name: 'n1', nodePool: 'batch', heldBy: 'run-b' })], undefined, now],
      undefined,
    ],
    [
      'a lock that cannot be read cannot rule out a live run: paced',
      [[budgetHeld('general')], [], 'unreadable', now],
      { state: 'paced', pools: ['general'], holder: 'unknown (the lock could not be read)' },
    ],
    [
      'every hold paused by its windows: paused, with the windows that ask for it',
      [[windowHeld('general'), windowHeld('canary')], [], lease(31), now],
      { state: 'paused', pools: ['canary', 'general'], runIds: ['run-a'], since: '2026-11-26T09:40:00Z', windowFlags: WINDOW_FLAGS },
    ],
    [
      'one held by the window, one by a gate: paused, to look into (no windows said)',
      [[windowHeld('general'), budgetHeld('canary')], [], lease(31), now],
      { state: 'paused', pools: ['canary', 'general'], runIds: ['run-a'], since: '2026-11-26T09:40:00Z' },
    ],
    [
      'paused by its windows while the next window’s run holds the lock: paced',
      [[windowHeld('general')], [], lease(5), now],
      {
        state: 'paced',
        pools: ['general'],
        holder: 'alice@laptop (run run-a)',
        command: 'upgrade --to 1.30 --canary canary',
        renewedAt: '2026-11-26T09:59:55.000Z',
      },
    ],
    [
      'a hand-edited hold record still counts as held',
      [[nodePool({ name: 'general', annotations: { [HOLD_ANNOTATION]: 'not json' } })], [], undefined, now],
      { state: 'paused', pools: ['general'], runIds: [] },
    ],
  ])('%s', (_name, args, expected) => {
    expect(rolloutHold(...args)).toEqual(expected);
  });
});
