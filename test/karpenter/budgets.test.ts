import { describe, expect, it } from 'vitest';
import {
  allowedDisruptions,
  driftWaves,
  isBudgetActive,
  type Budget,
  type DisruptionReason,
} from '../../src/karpenter/budgets.js';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date =>
  new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
const budget = (nodes: string, overrides: Partial<Budget> = {}): Budget => ({ nodes, ...overrides });
const anyTime = utc(2024, 1, 10, 12); // a Wednesday; irrelevant for unscheduled budgets

describe('allowedDisruptions: nodes arithmetic', () => {
  it.each<[string, Budget[] | undefined, number, number]>([
    // The CRD default `10%` rounds up (intstr.GetScaledValueFromIntOrPercent(..., true)).
    ['default 10% of 5', undefined, 5, 1],
    ['default 10% of 10', undefined, 10, 1],
    ['default 10% of 19', undefined, 19, 2],
    ['default 10% of 100', undefined, 100, 10],
    ['default 10% of 1', undefined, 1, 1],
    ['default 10% of 0', undefined, 0, 0],
    ['nodes "0"', [budget('0')], 12, 0],
    ['nodes "100%"', [budget('100%')], 7, 7],
    ['a count is not capped by the pool size', [budget('5')], 3, 5],
    // karpenter.sh docs, NodePool Disruption Budgets: "19 nodes … rounding up from 19 * .2 = 3.8".
    ['20% of 19', [budget('20%')], 19, 4],
    ['33% of 10', [budget('33%')], 10, 4],
    ['leading zeros', [budget('05%'), budget('007')], 100, 5],
    ['several budgets: the minimum wins', [budget('50%'), budget('3'), budget('100%')], 10, 3],
    ['explicit empty list: no budget, unlimited', [], 10, Infinity],
  ])('%s', (_name, budgets, numNodes, limit) => {
    const result = allowedDisruptions(budgets, { numNodes, disrupting: 0 }, 'Drifted', anyTime);
    expect(result.limit).toBe(limit);
    expect(result.allowed).toBe(limit);
  });

  it.each<[number, number, number]>([
    [10, 0, 10],
    [10, 3, 7],
    [10, 10, 0],
    [10, 12, 0], // NotReady nodes can exhaust a budget (aws/karpenter-provider-aws#6472); floored at 0
  ])('default budget on 100 nodes: limit %d, %d disrupting → %d allowed', (limit, disrupting, allowed) => {
    const result = allowedDisruptions(undefined, { numNodes: 100, disrupting }, 'Drifted', anyTime);
    expect([result.limit, result.allowed]).toEqual([limit, allowed]);
  });

  it('keeps unlimited unlimited whatever is disrupting', () => {
    const result = allowedDisruptions([], { numNodes: 4, disrupting: 3 }, 'Drifted', anyTime);
    expect([result.limit, result.allowed, result.blocking]).toEqual([Infinity, Infinity, undefined]);
  });

  it('names the first minimal budget as blocking', () => {
    const result = allowedDisruptions(
      [budget('4'), budget('10%'), budget('2')],
      { numNodes: 20, disrupting: 0 },
      'Drifted',
      anyTime,
    );
    expect(result.blocking?.index).toBe(1);
    expect(result.evaluations.map((e) => e.allowed)).toEqual([4, 2, 2]);
  });
});

describe('allowedDisruptions: reasons', () => {
  const pool = [
    budget('10'),
    budget('0', { reasons: ['Underutilized'] }),
    budget('3', { reasons: ['Empty', 'Drifted'] }),
  ];

  it.each<[DisruptionReason, number, number]>([
    ['Drifted', 3, 2], // a `reasons: [Underutilized]` budget does not limit Drifted
    ['Underutilized', 0, 1],
    ['Empty', 3, 2],
  ])('%s → %d (budget %d)', (reason, limit, index) => {
    const result = allowedDisruptions(pool, { numNodes: 50, disrupting: 0 }, reason, anyTime);
    expect(result.limit).toBe(limit);
    expect(result.blocking?.index).toBe(index);
    expect(result.evaluations.map((e) => e.applies)).toEqual([
      true,
      reason === 'Underutilized',
      reason !== 'Underutilized',
    ]);
  });

  it('treats an explicit empty reasons list as applying to no reason (Go checks `Reasons == nil`)', () => {
    const result = allowedDisruptions(
      [budget('0', { reasons: [] })],
      { numNodes: 10, disrupting: 0 },
      'Drifted',
      anyTime,
    );
    expect(result.limit).toBe(Infinity);
    expect(result.evaluations[0]?.applies).toBe(false);
  });

  // karpenter.sh docs, NodePool Disruption Budgets: 20% for Empty/Drifted, a ceiling of 5, and 0 for
  // Underutilized during the first 10 minutes of each day.
  const documented: Budget[] = [
    budget('20%', { reasons: ['Empty', 'Drifted'] }),
    budget('5'),
    budget('0', { schedule: '@daily', duration: '10m', reasons: ['Underutilized'] }),
  ];
  it.each<[DisruptionReason, number, Date, number]>([
    ['Drifted', 19, utc(2024, 1, 10, 0, 5), 4],
    ['Drifted', 30, utc(2024, 1, 10, 0, 5), 5],
    ['Empty', 19, utc(2024, 1, 10, 12), 4],
    ['Underutilized', 19, utc(2024, 1, 10, 0, 5), 0],
    ['Underutilized', 19, utc(2024, 1, 10, 0, 10), 5],
  ])('documented example: %s on %d nodes at %o → %d', (reason, numNodes, now, limit) => {
    expect(allowedDisruptions(documented, { numNodes, disrupting: 0 }, reason, now).limit).toBe(limit);
  });
});

// kubernetes-sigs/karpenter pkg/apis/v1/nodepool_budgets_test.go, on its fake clock and 100 nodes.
describe("Karpenter's nodepool_budgets_test.go", () => {
  const clock = utc(2000, 6, 15, 12, 30, 30); // a Thursday
  const hourly = { schedule: '* * * * *', duration: '1h' };
  const budgets = (): Budget[] => [
    budget('10', hourly),
    budget('100', hourly),
    budget('100%', hourly),
    budget('15', { ...hourly, reasons: ['Drifted', 'Underutilized'] }),
    budget('5', { ...hourly, reasons: ['Drifted'] }),
    budget('0', { schedule: '@weekly', duration: '1h', reasons: ['Underutilized', 'Drifted', 'Empty'] }),
  ];
  const reasons: DisruptionReason[] = ['Empty', 'Underutilized', 'Drifted'];
  const limits = (b: Budget[]) =>
    reasons.map((r) => allowedDisruptions(b, { numNodes: 100, disrupting: 0 }, r, clock).limit);

  it('returns 0 for all reasons if a budget is active for all reasons', () => {
    const b = budgets();
    b[5] = { ...b[5]!, ...hourly };
    expect(limits(b)).toEqual([0, 0, 0]);
  });

  it('returns unlimited for all reasons when no budget is active', () => {
    expect(limits(budgets().map((x) => ({ ...x, schedule: '@yearly', duration: '1h' })))).toEqual([
      Infinity,
      Infinity,
      Infinity,
    ]);
  });

  it('ignores reason-defined budgets when inactive', () => {
    const b = budgets();
    b[3] = { ...b[3]!, schedule: '@yearly' };
    b[4] = { ...b[4]!, schedule: '@yearly' };
    expect(limits(b)).toEqual([10, 10, 10]);
  });

  it('returns the budget for all reasons when reasons are undefined', () => {
    expect(limits(budgets().slice(0, 1))).toEqual([10, 10, 10]);
  });

  it('gets the minimum budget for each reason', () => {
    expect(limits([...budgets(), budget('4', { ...hourly, reasons: ['Empty'] })])).toEqual([4, 10, 5]);
  });

  it.each<[string, Budget, number]>([
    ['an invalid schedule allows 0', budget('10', { schedule: '@wrongly', duration: '1h' }), 0],
    ['an invalid nodes value allows 0', budget('1000a%', hourly), 0],
    ['an inactive budget is unlimited', budget('10', { schedule: '@yearly', duration: '1h' }), Infinity],
    ['an active count', budget('10', hourly), 10],
    ['an active percentage', budget('100%', hourly), 100],
  ])('AllowedDisruptions: %s', (_name, b, allowed) => {
    const [evaluation] = allowedDisruptions([b], { numNodes: 100, disrupting: 0 }, 'Drifted', clock).evaluations;
    expect(evaluation?.allowed).toBe(allowed);
    expect(evaluation?.error !== undefined).toBe(allowed === 0);
  });

  it.each<[string, Budget, Date, boolean]>([
    // time.Date(2000, June, 0, …, FixedZone(+1h)) is midnight local but 23:00 UTC: @daily for 30m is not active.
    ['schedules are always UTC', budget('10', { schedule: '@daily', duration: '30m' }), utc(2000, 5, 30, 23), false],
    ['no schedule or duration', budget('10'), clock, true],
    ['active', budget('10', hourly), clock, true],
    ['inactive', budget('10', { schedule: '@yearly', duration: '1h' }), clock, false],
    [
      'hit in the middle of the duration',
      budget('10', { schedule: '@yearly', duration: '24h' }),
      utc(1000, 1, 1, 12),
      true,
    ],
    [
      'duration longer than the recurrence',
      budget('10', { schedule: '@daily', duration: '48h' }),
      utc(2024, 1, 7),
      true,
    ],
    ['hit after the duration', budget('10', { schedule: '30 6 * * SUN', duration: '6h' }), utc(2024, 1, 7), false],
  ])('IsActive: %s', (_name, b, now, active) => {
    expect(isBudgetActive(b, now).active).toBe(active);
  });
});

describe('isBudgetActive: windows', () => {
  const weekdays: Budget = budget('0', { schedule: '0 9 * * 1-5', duration: '8h' }); // Mon 2024-01-08 … Fri 01-12

  it.each<[string, Date, ReturnType<typeof isBudgetActive>]>([
    ['just before the hit', utc(2024, 1, 8, 8, 59, 59, 999), { active: false, nextWindowStart: utc(2024, 1, 8, 9) }],
    ['at the hit', utc(2024, 1, 8, 9), { active: true, windowStart: utc(2024, 1, 8, 9), windowEnd: utc(2024, 1, 8, 17) }],
    ['just before hit + duration', utc(2024, 1, 8, 16, 59, 59, 999), { active: true, windowStart: utc(2024, 1, 8, 9), windowEnd: utc(2024, 1, 8, 17) }],
    ['at hit + duration', utc(2024, 1, 8, 17), { active: false, nextWindowStart: utc(2024, 1, 9, 9) }],
    ['Friday evening → Monday', utc(2024, 1, 12, 17), { active: false, nextWindowStart: utc(2024, 1, 15, 9) }],
    ['Saturday at 10:00', utc(2024, 1, 13, 10), { active: false, nextWindowStart: utc(2024, 1, 15, 9) }],
  ])('0 9 * * 1-5 for 8h, %s', (_name, now, expected) => {
    expect(isBudgetActive(weekdays, now)).toEqual(expected);
  });

  it.each<[string, string, Date, ReturnType<typeof isBudgetActive>]>([
    ['@daily', '1h', utc(2024, 1, 10, 0, 30), { active: true, windowStart: utc(2024, 1, 10), windowEnd: utc(2024, 1, 10, 1) }],
    ['@midnight', '1h', utc(2024, 1, 10, 1), { active: false, nextWindowStart: utc(2024, 1, 11) }],
    ['@hourly', '10m', utc(2024, 1, 10, 5, 9), { active: true, windowStart: utc(2024, 1, 10, 5), windowEnd: utc(2024, 1, 10, 5, 10) }],
    ['@weekly', '24h', utc(2024, 1, 7, 23), { active: true, windowStart: utc(2024, 1, 7), windowEnd: utc(2024, 1, 8) }], // Sunday
    ['@monthly', '1h', utc(2024, 1, 10), { active: false, nextWindowStart: utc(2024, 2, 1) }],
    ['@annually', '1h', utc(2024, 1, 10), { active: false, nextWindowStart: utc(2025, 1, 1) }],
    ['  @daily  ', '1h', utc(2024, 1, 10, 0, 30), { active: true, windowStart: utc(2024, 1, 10), windowEnd: utc(2024, 1, 10, 1) }],
    // Touching or overlapping windows merge: at 11:00 the 11:00 hit keeps the budget active.
    ['0 9,11 * * *', '2h', utc(2024, 1, 10, 9, 30), { active: true, windowStart: utc(2024, 1, 10, 9), windowEnd: utc(2024, 1, 10, 13) }],
    ['0 9,10 * * *', '2h', utc(2024, 1, 10, 10, 30), { active: true, windowStart: utc(2024, 1, 10, 9), windowEnd: utc(2024, 1, 10, 12) }],
    // Windows overlap forever: active, with no end in sight.
    ['0 */2 * * *', '3h', utc(2024, 1, 10, 0, 30), { active: true, windowStart: utc(2024, 1, 9, 22) }],
    ['* * * * *', '1h', utc(2024, 1, 10), { active: true, windowStart: utc(2024, 1, 9, 23, 1) }],
    ['0 9 * jan MON-fri', '1h', utc(2024, 2, 5, 9), { active: false, nextWindowStart: utc(2025, 1, 1, 9) }],
    ['30 6 * * 0', '6h0m0s', utc(2024, 1, 7, 12, 29), { active: true, windowStart: utc(2024, 1, 7, 6, 30), windowEnd: utc(2024, 1, 7, 12, 30) }],
    ['0 0 * * *', '1h30m', utc(2024, 1, 10, 1, 29), { active: true, windowStart: utc(2024, 1, 10), windowEnd: utc(2024, 1, 10, 1, 30) }],
    ['0 8 * * *', '0m', utc(2024, 1, 10, 8), { active: false, nextWindowStart: utc(2024, 1, 11, 8) }],
    // robfig's Next gives the zero time when nothing hits within five years, and Karpenter reads that as active.
    ['0 0 30 2 *', '1h', utc(2024, 1, 10), { active: true }],
    ['0 0 29 2 *', '1h', utc(2024, 3, 1), { active: false, nextWindowStart: utc(2028, 2, 29) }],
    ['0 0 29 2 *', '1h', utc(2097, 3, 1), { active: true }], // 2100 is no leap year: the next hit is in 2104
  ])('%s for %s', (schedule, duration, now, expected) => {
    expect(isBudgetActive(budget('0', { schedule, duration }), now)).toEqual(expected);
  });

  // Day of month and day of week are ORed when both are restricted, ANDed when either carries `*` (robfig
  // spec.go `dayMatches`). 2024-01-05 and 01-12 are Fridays, 01-13 a Saturday, 01-10 a Wednesday.
  it.each<[string, Date, boolean]>([
    ['0 0 13 * 5', utc(2024, 1, 5, 0, 30), true],
    ['0 0 13 * 5', utc(2024, 1, 13, 0, 30), true],
    ['0 0 13 * 5', utc(2024, 1, 10, 0, 30), false],
    ['0 0 * * 5', utc(2024, 1, 13, 0, 30), false],
    ['0 0 */1 * 5', utc(2024, 1, 13, 0, 30), false], // `*/1` keeps the star
    ['0 0 13 * ?', utc(2024, 1, 5, 0, 30), false],
    ['0 0 1-31 * 5', utc(2024, 1, 10, 0, 30), true], // a range is not a star: every day
    ['0 0 */2 * 5', utc(2024, 1, 10, 0, 30), false], // a step above 1 clears the star: odd days or Fridays
    ['0 0 */2 * 5', utc(2024, 1, 11, 0, 30), true],
  ])('%s at %o → active %s', (schedule, now, active) => {
    expect(isBudgetActive(budget('0', { schedule, duration: '1h' }), now).active).toBe(active);
  });

  it('gives the next window start for an OR schedule', () => {
    expect(isBudgetActive(budget('0', { schedule: '0 0 13 * 5', duration: '1h' }), utc(2024, 1, 10))).toEqual({
      active: false,
      nextWindowStart: utc(2024, 1, 12),
    });
  });
});

describe('invalid budgets fail closed', () => {
  it.each<[string, Partial<Budget>, string]>([
    [
      'hour 25',
      { schedule: '0 25 * * *', duration: '1h' },
      'invalid cron "0 25 * * *": end of range (25) above maximum (23): 25',
    ],
    [
      'a seconds field',
      { schedule: '0 0 9 * * 1-5', duration: '1h' },
      'invalid cron "0 0 9 * * 1-5": expected exactly 5 fields, found 6: [0 0 9 * * 1-5]',
    ],
    [
      '7 for Sunday',
      { schedule: '0 9 * * 7', duration: '1h' },
      'invalid cron "0 9 * * 7": end of range (7) above maximum (6): 7',
    ],
    [
      'a wrap-around range',
      { schedule: '0 9 * * FRI-MON', duration: '1h' },
      'invalid cron "0 9 * * FRI-MON": beginning of range (5) beyond end of range (1): FRI-MON',
    ],
    [
      'a step of 0',
      { schedule: '*/0 * * * *', duration: '1h' },
      'invalid cron "*/0 * * * *": step of range should be a positive number: */0',
    ],
    [
      'Quartz L',
      { schedule: '0 0 L * *', duration: '1h' },
      'invalid cron "0 0 L * *": failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax',
    ],
    [
      'a time zone',
      { schedule: 'TZ=Europe/Paris 0 9 * * *', duration: '1h' },
      'invalid cron "TZ=Europe/Paris 0 9 * * *": expected exactly 5 fields, found 6: [TZ=Europe/Paris 0 9 * * *]',
    ],
    [
      'an unknown macro',
      { schedule: '@wrongly', duration: '1h' },
      'invalid cron "@wrongly": unrecognized descriptor: @wrongly',
    ],
    [
      'an upper-case macro',
      { schedule: '@DAILY', duration: '1h' },
      'invalid cron "@DAILY": unrecognized descriptor: @DAILY',
    ],
    [
      '@every',
      { schedule: '@every 1h', duration: '1h' },
      'invalid cron "@every 1h": @every 1h: the NodePool CRD allows only @annually, @yearly, @monthly, @weekly, @daily, @midnight and @hourly',
    ],
    [
      'a duration in days',
      { schedule: '@daily', duration: '1d' },
      'invalid duration "1d": only hours and minutes, e.g. 8h, 30m, 10h5m',
    ],
    [
      'a duration in seconds',
      { schedule: '@daily', duration: '90s' },
      'invalid duration "90s": only hours and minutes, e.g. 8h, 30m, 10h5m',
    ],
    ['a schedule without a duration', { schedule: '@daily' }, "'schedule' must be set with 'duration'"],
    ['a duration without a schedule', { duration: '1h' }, "'schedule' must be set with 'duration'"],
  ])('%s', (_name, overrides, error) => {
    const result = allowedDisruptions([budget('100%', overrides)], { numNodes: 10, disrupting: 0 }, 'Drifted', anyTime);
    expect(result).toMatchObject({ limit: 0, allowed: 0, blocking: { index: 0, active: false, allowed: 0, error } });
  });

  it('blocks every reason, even when the invalid budget lists other reasons (MustGetAllowedDisruptions)', () => {
    const budgets = [
      budget('50%'),
      budget('3', { schedule: '0 25 * * *', duration: '1h', reasons: ['Underutilized'] }),
    ];
    const result = allowedDisruptions(budgets, { numNodes: 10, disrupting: 0 }, 'Drifted', anyTime);
    expect([result.limit, result.blocking?.index]).toEqual([0, 1]);
  });

  it('does not read nodes while the budget is inactive', () => {
    const inactive = budget('bogus', { schedule: '@yearly', duration: '1h' });
    expect(allowedDisruptions([inactive], { numNodes: 10, disrupting: 0 }, 'Drifted', anyTime).limit).toBe(Infinity);
  });
});

describe('scheduled-only budgets are unlimited outside their window', () => {
  // DOMAIN.md §2.6 (aws/karpenter-provider-aws#7842): 20% for drift from 07:00 for 7h, nothing else.
  const budgets = [budget('20%', { schedule: '0 7 * * *', duration: '7h', reasons: ['Drifted'] })];

  it('limits inside the window', () => {
    const result = allowedDisruptions(budgets, { numNodes: 10, disrupting: 0 }, 'Drifted', utc(2024, 1, 10, 8));
    expect(result).toMatchObject({ limit: 2, allowed: 2, blocking: { windowEnd: utc(2024, 1, 10, 14) } });
  });

  it('imposes no limit outside it', () => {
    const result = allowedDisruptions(budgets, { numNodes: 10, disrupting: 1 }, 'Drifted', utc(2024, 1, 10, 14));
    expect([result.limit, result.allowed, result.blocking]).toEqual([Infinity, Infinity, undefined]);
    expect(result.evaluations[0]).toMatchObject({
      active: false,
      allowed: Infinity,
      nextWindowStart: utc(2024, 1, 11, 7),
    });
  });
});

describe('driftWaves', () => {
  it.each<[number, number, number]>([
    [0, 0, 0],
    [0, 3, 0],
    [10, 0, Infinity], // blocked: the drift never starts
    [10, 2, 5],
    [9, 2, 5],
    [3, 10, 1],
    [5, Infinity, 1],
  ])('%d nodes at %d allowed → %d waves', (toDrift, allowedNow, waves) => {
    expect(driftWaves(toDrift, allowedNow)).toBe(waves);
  });
});
