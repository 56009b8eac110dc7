// Budget schedules (isBudgetActive over budgetSchedule) against Karpenter's own tests: kubernetes-sigs/karpenter tag
// v1.14.1 (commit 6e7eab7a), the files
// - pkg/apis/v1/nodepool_budgets_test.go Context("IsActive"): when a schedule and duration make a budget active;
// - pkg/apis/v1/nodepool_validation_cel_test.go Context("Disruption"): which schedules and durations the CRD admits;
// - test/suites/regression/drift_test.go and termination_test.go: the e2e "fully blocking during a scheduled time".
// Each row names the `It(...)` it comes from.
import { describe, expect, it } from 'vitest';
import { allowedDisruptions, isBudgetActive, type Budget } from '../../src/karpenter/budgets.js';

// nodepool_budgets_test.go's fake clock: 2000-06-15 12:30:30 UTC, a Thursday.
const CLOCK = new Date('2000-06-15T12:30:30Z');
const budget = (schedule?: string, duration?: string): Budget => ({
  nodes: '10',
  ...(schedule !== undefined ? { schedule } : {}),
  ...(duration !== undefined ? { duration } : {}),
});

describe('nodepool_budgets_test.go Context("IsActive")', () => {
  it.each<[string, Budget, Date, boolean]>([
    // time.Date(2000, time.June, 0, 0, 0, 0, 0, FixedZone(+1h)) normalizes to May 31 00:00 +01:00, 23:00 UTC on the
    // 30th: local midnight, but @daily is UTC midnight, so a 30m window is not open.
    [
      'should always consider a schedule and time in UTC',
      budget('@daily', '30m'),
      new Date('2000-05-30T23:00:00Z'),
      false,
    ],
    ['should return that a schedule is active when schedule and duration are nil', budget(), CLOCK, true],
    ['should return that a schedule is active', budget('* * * * *', '1h'), CLOCK, true],
    ['should return that a schedule is inactive', budget('@yearly', '1h'), CLOCK, false],
    [
      // The hit (Jan 1 00:00) lies 12h back, inside the 24h window.
      'should return that a schedule is active when the schedule hit is in the middle of the duration',
      budget('@yearly', '24h'),
      new Date('1000-01-01T12:00:00Z'),
      true,
    ],
    [
      'should return that a schedule is active when the duration is longer than the recurrence',
      budget('@daily', '48h'),
      new Date('2024-01-07T00:00:00Z'),
      true,
    ],
    [
      // Sunday 00:00: the last hit (the previous Sunday 06:30) ended 6h later, the next is 06:30 today.
      'should return that a schedule is inactive when the schedule hit is after the duration',
      budget('30 6 * * SUN', '6h'),
      new Date('2024-01-07T00:00:00Z'),
      false,
    ],
  ])('%s', (_it, b, now, active) => {
    const result = isBudgetActive(b, now);
    expect(result.active).toBe(active);
    expect(result.error).toBeUndefined();
  });

  it('should return an error indicating why the cron fails to parse', () => {
    // robfig/cron has no wrap-around ranges: tue-mon is 2-1.
    const result = isBudgetActive(budget('0 0 * * tue-mon', '6h'), new Date('2024-01-07T00:00:00Z'));
    expect(result.error).toContain('beginning of range (2) beyond end of range (1)');
  });
});

// The CRD rejects these NodePools; the rows check that karp-drift's reading of the same budget fails closed (an error,
// allowing 0) exactly where the CRD says no, and reads cleanly where it says yes. The Go test builds a
// metav1.Duration, which goes to the API server as Duration.String(): 20m as "20m0s", -20m as "-20m0s".
describe('nodepool_validation_cel_test.go Context("Disruption"): schedules and durations', () => {
  it.each<[string, Budget[], boolean]>([
    ['should fail when creating a budget with an invalid cron', [budget('*', '20m0s')], false],
    ['should fail when creating a schedule with less than 5 entries', [budget('* * * * ', '20m0s')], false],
    ['should fail when creating a budget with a negative duration', [budget('* * * * *', '-20m0s')], false],
    // Cron has no seconds, so neither has the duration.
    ['should fail when creating a budget with a seconds duration', [budget('* * * * *', '30s')], false],
    ['should fail when creating a budget with a cron but no duration', [budget('* * * * *')], false],
    ['should fail when creating a budget with a duration but no cron', [budget(undefined, '20m0s')], false],
    ['should succeed when creating a budget with both duration and cron', [budget('* * * * *', '20m0s')], true],
    [
      'should succeed when creating a budget with hours and minutes in duration',
      [budget('* * * * *', '2h20m0s')],
      true,
    ],
    ['should succeed when creating a budget with neither duration nor cron', [budget()], true],
    ['should succeed when creating a budget with special cased crons', [budget('@annually', '20m0s')], true],
    [
      'should fail when creating two budgets where one has an invalid crontab',
      [budget('@annually', '20m0s'), budget('*', '20m0s')],
      false,
    ],
    [
      "should fail when creating multiple budgets where one doesn't have both schedule and duration",
      [budget(undefined, '20m0s'), budget('* * * * *', '20m0s'), budget()],
      false,
    ],
    [
      'should allow setting multiple reasons',
      [{ ...budget('* * * * *', '20m0s'), reasons: ['Drifted', 'Empty'] }],
      true,
    ],
  ])('%s', (_it, budgets, admitted) => {
    const result = allowedDisruptions(budgets, { numNodes: 100, disrupting: 0 }, 'Drifted', CLOCK);
    expect(result.evaluations.every((e) => e.error === undefined)).toBe(admitted);
    if (!admitted) expect(result.limit).toBe(0);
  });
});

// The e2e suites write `nodes: "0"` on schedule "<minute> <hour> * * *" (UTC) for 30m, starting 15 minutes before
// now, and expect no disruption for the next minute. Upstream takes now from the wall clock; these fix two of them,
// one where the window opened the day before.
describe('regression drift_test.go / termination_test.go: "... fully blocking during a scheduled time"', () => {
  it.each<[Date, string, Date]>([
    [new Date('2024-01-10T12:00:00Z'), '45 11 * * *', new Date('2024-01-10T12:15:00Z')],
    [new Date('2024-01-01T00:05:00Z'), '50 23 * * *', new Date('2024-01-01T00:20:00Z')],
  ])('at %o, %s for 30m holds drift at 0 until %o', (now, schedule, windowEnd) => {
    const budgets: Budget[] = [{ nodes: '0', schedule, duration: '30m0s' }];
    for (const at of [now, new Date(now.getTime() + 60_000)]) {
      const result = allowedDisruptions(budgets, { numNodes: 1, disrupting: 0 }, 'Drifted', at);
      expect([result.limit, result.allowed]).toEqual([0, 0]);
      expect(result.blocking?.windowEnd).toEqual(windowEnd);
    }
  });
});
