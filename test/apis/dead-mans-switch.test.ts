// The dead man's switch a staged run leaves on each NodePool it holds with a budget (apis/budget-hold.ts
// `switchBudget`), read as Karpenter reads it: `Budget.IsActive` (kubernetes-sigs/karpenter v1.14.1
// pkg/apis/v1/nodepool.go: active iff robfig's `Next` after now − duration is not after now), as karpenter/budgets.ts
// implements it against upstream's own cases (test/karpenter/upstream-schedules.test.ts). A switch that fired must
// hold until a person acts, and every reader — the hold state, status, the stall diagnosis, the plan, `wait`'s
// holds-left — must say what Karpenter does, at 29, 31, 180 and 364 days and over a year (issue 35).
import { describe, expect, it } from 'vitest';
import { allowedDisruptions, isBudgetActive, type Budget } from '../../src/karpenter/budgets.js';
import { HOLD_ANNOTATION, switchBudget, switchDuration, switchState, SWITCH_MARGIN_MS } from '../../src/apis/budget-hold.js';
import { holdState } from '../../src/apis/hold-state.js';
import { driftHolds, driftHoldsText } from '../../src/report/status-holds.js';
import { holdsLeft } from '../../src/report/holds-left.js';
import { diagnose } from '../../src/rollout/stalls.js';
import { plan } from '../../src/plan/plan.js';
import { members, nodeClaim, nodePool as rolloutPool, scope, snapshotOf } from '../rollout/factories.js';
import { inventory, nodePool as planPool, targetAmis } from '../plan/factories.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const utc = (s: string) => new Date(s);
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

/** What a dead run left: its own budgets, its switch armed for `armAt`, and a hold that still allows 5. */
const left = (sw: Budget): Budget[] => [{ nodes: '10%' }, sw, { nodes: '5', reasons: ['Drifted'] }];
const record = JSON.stringify({ runId: 'run-9', since: '2026-01-01T00:00:00Z', budgets: [{ nodes: '10%' }] });
const annotations = { [HOLD_ANNOTATION]: record };

describe('switchDuration: a year, counted from the previous hit, less the margin', () => {
  it.each<[string, string, string]>([
    ['a minute of an ordinary year: 365 days back', '2026-11-28T03:45:00Z', '8759h'],
    ['the last minute of a year', '2027-12-31T23:59:00Z', '8759h'],
    ['the first minute of a year (armed the evening before)', '2028-01-01T00:01:00Z', '8759h'],
    ['28 February of a leap year: 2027-02-28 is 365 days back', '2028-02-28T23:59:00Z', '8759h'],
    ['1 March of a leap year: 2027-03-01 is 366 days back', '2028-03-01T00:00:00Z', '8783h'],
    ['29 February: only leap years have it, four years back', '2028-02-29T12:00:00Z', '35063h'],
    ['1 March after a leap year: 365 days back again', '2029-03-01T00:00:00Z', '8759h'],
  ])('%s (%s → %s)', (_name, armAt, duration) => {
    expect(switchDuration(utc(armAt))).toBe(duration);
    expect(switchBudget(utc(armAt)).duration).toBe(duration);
  });

  it('a switch written more than its margin ahead would hold at once: the lead (3 minutes) must stay well inside it', () => {
    const armAt = utc('2026-11-28T03:45:00Z');
    const sw = switchBudget(armAt);
    expect(isBudgetActive(sw, plus(armAt, -3 * MIN)).active).toBe(false);
    expect(isBudgetActive(sw, plus(armAt, -SWITCH_MARGIN_MS + MIN)).active).toBe(false);
    // Last year's hit is within `duration` of any time more than the margin before the minute.
    expect(isBudgetActive(sw, plus(armAt, -SWITCH_MARGIN_MS - MIN)).active).toBe(true);
  });
});

/** Every reader of the switch on one NodePool at `now`, with no live run (the run that wrote it is gone). */
function readers(budgets: Budget[], now: Date) {
  const none = { state: 'none' } as const;
  const karpenter = allowedDisruptions(budgets, { numNodes: 20, disrupting: 0 }, 'Drifted', now).allowed;
  const sw = switchState(budgets, now, JSON.parse(record) as Parameters<typeof switchState>[2]);
  const hold = holdState({ budgets, annotations }, 0, none, now);
  const status = driftHoldsText(driftHolds([rolloutPool({ budgets, annotations })], [], now, none), now).split('\n')[2];
  const claims = [nodeClaim({ name: 'general-old1', drifted: true }), nodeClaim({ name: 'general-old2', drifted: true })];
  const stall = diagnose(
    snapshotOf({ nodeClaims: claims, nodes: members(...claims).nodes, events: [] }),
    { scope: scope(), nodePools: [rolloutPool({ budgets, annotations })], pdbs: [], pods: [], karpenterApi: 'v1', lock: none },
    now,
  ).find((b) => b.code === 'STALL-HELD');
  const planned = plan(
    inventory({ nodePools: [planPool({ budgets, annotations })] }),
    targetAmis(),
    { to: '1.31', pin: 'id', release: 'latest', fieldManager: 'karp-drift', lock: none },
    now,
  ).checks.find((c) => c.code === 'DRIFT-HELD');
  const leftover = holdsLeft([rolloutPool({ budgets, annotations })], [], now)[0]?.budget;
  return { karpenter, sw, hold: hold?.state, status, stall: stall?.message, plan: planned?.level, switchedAt: leftover?.switchedAt };
}

describe('a switch that fired, read by everyone as Karpenter reads it', () => {
  const armAt = utc('2026-03-10T04:07:00Z'); // 2027-03-10 is 365 days on: duration 8759h
  const budgets = left(switchBudget(armAt));
  const nextYear = utc('2027-03-10T04:07:00Z');
  const held = {
    karpenter: 0,
    hold: 'switched',
    stall: "karp-drift holds Drifted disruption on NodePool general (paused: its run is gone and its dead man's switch holds drift at 0)",
    plan: 'info',
  };
  const draining = { karpenter: 2, hold: 'draining', stall: undefined, plan: 'warning', switchedAt: undefined };

  it.each<[string, Date, Date, typeof held | typeof draining]>([
    ['written three minutes before its minute: not fired, the hold drains', plus(armAt, -3 * MIN), armAt, draining],
    ['a second before its minute', plus(armAt, -1000), armAt, draining],
    ['at its minute: fired', armAt, armAt, held],
    ['29 days on', plus(armAt, 29 * DAY), armAt, held],
    ['31 days on (a 720h switch has let go by now)', plus(armAt, 31 * DAY), armAt, held],
    ['180 days on', plus(armAt, 180 * DAY), armAt, held],
    ['364 days on', plus(armAt, 364 * DAY), armAt, held],
    ['a minute before its duration ends', plus(armAt, 8759 * HOUR - MIN), armAt, held],
    ['its duration over, an hour before next year’s hit: the lapse', plus(armAt, 8759 * HOUR), nextYear, draining],
    ['next year’s hit: holding again', nextYear, nextYear, held],
  ])('%s', (_name, now, at, expected) => {
    const r = readers(budgets, now);
    const active = expected.hold === 'switched';
    expect(r.sw).toEqual({ active, at });
    expect(r).toMatchObject(active ? { ...held, switchedAt: at.toISOString() } : draining);
    expect(r.status).toMatch(active ? /^general +budget 0 since .* \(run gone\)/ : /^general +budget \(Drifted: up to 5; 0 at .*\)/);
  });

  it('one karp-drift wrote for 720h (before issue 35) lets go after 30 days: every reader says it drains, as Karpenter lets it', () => {
    const old = left({ ...switchBudget(armAt), duration: '720h' });
    expect(readers(old, plus(armAt, 29 * DAY))).toMatchObject(held);
    expect(readers(old, plus(armAt, 31 * DAY))).toMatchObject(draining);
    expect(readers(old, plus(armAt, 180 * DAY))).toMatchObject(draining);
  });
});

describe("the switch's state over a year of simulated time", () => {
  // An ordinary minute; the last minute of a year; days around 29 February; 29 February itself.
  it.each<[string, number]>([
    ['2026-03-10T04:07:00Z', 1],
    ['2027-12-31T23:59:00Z', 25], // 2028 holds 29 February: the next hit is 366 days on
    ['2028-02-28T23:59:00Z', 25], // 365 days back, but 366 on (across 29 February): a day more
    ['2028-03-01T00:00:00Z', 0], // 366 days back, 365 on: its windows overlap, it never lapses
    ['2028-02-29T12:00:00Z', 1],
  ])('armed for %s: inactive until then, holding for its duration, lapsing %s h at most', (armed, lapseHours) => {
    const armAt = utc(armed);
    const sw = switchBudget(armAt);
    const budgets = left(sw);
    const duration = Number(sw.duration!.slice(0, -1)) * HOUR;
    // From the write to its minute, to the second: no limit from it.
    for (let t = -3 * MIN; t < 0; t += 1000) expect(isBudgetActive(sw, plus(armAt, t)).active).toBe(false);
    // Then a year (and its whole duration, when that is longer) read by Karpenter's arithmetic on the whole list and
    // by karp-drift's readers alike: every 6 hours through the first 400 days, then every day; every hour around the end
    // of its duration, to measure the lapse.
    const agree = (now: Date): boolean => {
      const active = isBudgetActive(sw, now).active;
      expect(switchState(budgets, now)?.active).toBe(active);
      expect(allowedDisruptions(budgets, { numNodes: 20, disrupting: 0 }, 'Drifted', now).allowed).toBe(active ? 0 : 2);
      expect(holdState({ budgets, annotations }, 0, { state: 'none' }, now)?.state).toBe(active ? 'switched' : 'draining');
      return active;
    };
    for (let t = 0; t < duration; t += t < 400 * DAY ? 6 * HOUR : DAY) expect(agree(plus(armAt, t))).toBe(true);
    expect(agree(plus(armAt, duration - MIN))).toBe(true);
    let lapse = 0;
    let longest = 0;
    for (let t = duration - 2 * HOUR; t <= duration + 30 * HOUR; t += HOUR) {
      lapse = agree(plus(armAt, t)) ? 0 : lapse + 1;
      longest = Math.max(longest, lapse);
    }
    expect(longest).toBe(lapseHours);
  });
});
