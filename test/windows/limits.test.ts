// What the translation refuses: more budgets than Karpenter's 50, an exclusion whose yearly repeat would still be
// holding drift now, windows that never open.
import { describe, expect, it } from 'vitest';
import { MAX_BUDGETS } from '../../src/apis/budget-hold.js';
import { windowBudgets } from '../../src/windows/budgets.js';
import { exclusion, window } from './helpers.js';

const NOW = new Date('2026-11-28T08:00:00Z');
const LIMIT_HINT =
  'use fewer or wider windows (one cron with a day list, e.g. 0 2 * * mon-thu, is one budget per gap between ' +
  'windows of the same length), merge exclusions, or remove budgets the NodePool no longer needs';

describe("Karpenter's 50 budgets (spec.disruption.budgets MaxItems), counting those the NodePool keeps", () => {
  const issue = [window('0 2 * * mon-thu/3h')]; // two budgets

  it.each<[number, boolean]>([
    [0, true],
    [48, true],
    [49, false],
  ])('two window budgets beside %d kept: written %s', (kept, ok) => {
    const result = windowBudgets(issue, [], { now: NOW, kept });
    if (ok) expect('budgets' in result && result.budgets.length + kept).toBeLessThanOrEqual(MAX_BUDGETS);
    else {
      expect(result).toEqual({
        error: `the windows and exclusions need 2 budgets and the NodePool keeps ${kept}: Karpenter allows at most 50 (spec.disruption.budgets)`,
        hint: LIMIT_HINT,
      });
    }
  });

  it('56 gaps of different lengths are 56 budgets: refused, even on an empty NodePool', () => {
    // Eight windows a day, each a different length, so no two gaps share a cron.
    const windows = [];
    for (let day = 0; day < 7; day++) {
      for (let k = 0; k < 8; k++) windows.push(window(`0 ${k * 3} * * ${day}/${day * 8 + k + 1}m`));
    }
    expect(windowBudgets(windows, [], { now: NOW, kept: 0 })).toEqual({
      error: 'the windows and exclusions need 56 budgets and the NodePool keeps 0: Karpenter allows at most 50 (spec.disruption.budgets)',
      hint: LIMIT_HINT,
    });
  });

  it('exclusions count too: beside one window budget, 49 fit and 50 do not', () => {
    const daily = [window('0 2 * * */3h')];
    const days = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const d = new Date(Date.UTC(2026, 11, 1 + i)).toISOString().slice(0, 10);
        return exclusion(`${d}/${d}`);
      });
    expect('budgets' in windowBudgets(daily, days(49), { now: NOW, kept: 0 })).toBe(true);
    expect(windowBudgets(daily, days(50), { now: NOW, kept: 0 })).toMatchObject({
      error: expect.stringContaining('need 51 budgets and the NodePool keeps 0') as unknown,
    });
  });
});

describe('exclusions that need no budget', () => {
  it('one that ended, and one on days the windows never open, are set aside', () => {
    const ended = exclusion('2026-11-01/2026-11-02');
    // Friday to Sunday, and the windows are Monday to Thursday.
    const weekend = exclusion('2026-12-04/2026-12-06');
    const monday = exclusion('2026-12-07T02:59Z/2026-12-07T03:00Z');
    const result = windowBudgets([window('0 2 * * mon-thu/3h')], [ended, weekend, monday], { now: NOW, kept: 0 });
    expect(result).toEqual({
      budgets: [
        { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 1-3', duration: '21h' },
        { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 4', duration: '93h' },
        { nodes: '0', reasons: ['Drifted'], schedule: '59 2 7 12 *', duration: '1m' },
      ],
      ended: [ended],
      closedAnyway: [weekend],
    });
  });
});

describe("an exclusion's cron has no year", () => {
  it.each<[string, string | undefined]>([
    // Its repeat last year ended on 2026-11-01, before now: nothing holds drift now that should not.
    ['2027-06-01/2027-10-31', undefined],
    // Its repeat from 2026-06-01 would run to 2026-12-01: it would hold drift now.
    [
      '2027-06-01/2027-11-30',
      '--exclude "2027-06-01/2027-11-30" ends more than a year from now: a budget\'s cron has no year, so its repeat from 2026-06-01T00:00Z would still hold drift now',
    ],
    // February 29 repeats only in leap years: the one before 2028 is 2024.
    ['2028-02-29/2028-03-02', undefined],
  ])('%j: %s', (text, error) => {
    const result = windowBudgets([window('0 2 * * */3h')], [exclusion(text)], { now: NOW, kept: 0 });
    if (error === undefined) expect('budgets' in result).toBe(true);
    else expect(result).toEqual({ error, hint: 'exclude dates within the next year; add later ones when they come closer' });
  });
});

it('windows that never open are refused (robfig accepts "," as a field that lists nothing)', () => {
  expect(windowBudgets([window('0 2 * * ,/3h')], [], { now: NOW, kept: 0 })).toEqual({
    error: 'the windows (0 2 * * ,/3h) never open',
    hint: "give at least one --window whose cron fires, e.g. --window '0 2 * * mon-thu/3h'",
  });
});
