// What `--window` and `--exclude` accept, and each refusal in the CLI's words.
import { describe, expect, it } from 'vitest';
import { parseExclusion, parseWindow } from '../../src/windows/flags.js';

describe('--window <cron>/<duration>', () => {
  it.each<[string, string, number]>([
    ['0 2 * * mon-thu/3h', '0 2 * * mon-thu', 180],
    // The duration follows the last "/": the cron's own steps stay in the cron.
    ['*/15 * * * */14m', '*/15 * * * *', 14],
    ['0 */2 * * MON-FRI/1h30m', '0 */2 * * MON-FRI', 90],
    ['  0 22 * * sat / 30h ', '0 22 * * sat', 1800],
    ['@daily/2h', '@daily', 120],
    ['@weekly/48h', '@weekly', 2880],
    // As Go's Duration.String() writes it, which the NodePool CRD also admits.
    ['0 2 * * */3h0m0s', '0 2 * * *', 180],
    // robfig ORs two restricted day fields, and 1-31 restricts nothing: every day, hence weekly.
    ['0 2 1-31 * mon/1h', '0 2 1-31 * mon', 60],
  ])('%j → %j for %d minutes', (text, schedule, minutes) => {
    const w = parseWindow(text);
    if ('error' in w) throw new Error(w.error);
    expect([w.schedule, w.durationMs / 60_000, w.text]).toEqual([schedule, minutes, text]);
  });

  const CRON_HINT = 'a UTC cron as Karpenter reads it (robfig/cron): minute hour day-of-month month day-of-week, e.g. 0 2 * * mon-thu';
  const DURATION_HINT =
    "write <cron>/<duration> in UTC, e.g. --window '0 2 * * mon-thu/3h' (Monday to Thursday, 02:00-05:00); " +
    'durations as Karpenter writes them: 3h, 90m, 1h30m, 48h';
  const WEEKLY_HINT = "name the days of the week instead, e.g. --window '0 2 * * sat,sun/4h', and keep dates out with --exclude";
  it.each<[string, string, string]>([
    ['0 2 * * mon-thu', '--window "0 2 * * mon-thu" has no duration after its last "/"', DURATION_HINT],
    // A step without a duration: "2" is no duration.
    ['0 2 * * */2', '--window "0 2 * * */2" has no duration after its last "/"', DURATION_HINT],
    ['0 2 * * mon/2d', '--window "0 2 * * mon/2d" has a duration "2d" that is not whole hours and minutes', DURATION_HINT],
    ['0 2 * * mon/3h30s', '--window "0 2 * * mon/3h30s" has a duration "3h30s" that is not whole hours and minutes', DURATION_HINT],
    ['0 2 * * mon/1.5h', '--window "0 2 * * mon/1.5h" has a duration "1.5h" that is not whole hours and minutes', DURATION_HINT],
    ['0 2 * * mon/0m', '--window "0 2 * * mon/0m" is open for 0m', "write <cron>/<duration> in UTC, e.g. --window '0 2 * * mon-thu/3h' (Monday to Thursday, 02:00-05:00)"],
    ['/3h', '--window "/3h" has no schedule before its duration', "write <cron>/<duration> in UTC, e.g. --window '0 2 * * mon-thu/3h' (Monday to Thursday, 02:00-05:00)"],
    [
      '0 2 * * fri-mon/3h',
      '--window "0 2 * * fri-mon/3h": Karpenter does not read "0 2 * * fri-mon" as a schedule: beginning of range (5) beyond end of range (1): fri-mon',
      `${CRON_HINT}; ranges do not wrap around: write fri-sat,sun-mon for days, 22-23,0-1 for hours`,
    ],
    ['0 2 * mon/3h', '--window "0 2 * mon/3h": Karpenter does not read "0 2 * mon" as a schedule: expected exactly 5 fields, found 4: [0 2 * mon]', CRON_HINT],
    ['0 2 * * 7/3h', '--window "0 2 * * 7/3h": Karpenter does not read "0 2 * * 7" as a schedule: end of range (7) above maximum (6): 7', `${CRON_HINT}; Sunday is 0 (or sun), never 7`],
    ['0 25 * * */3h', '--window "0 25 * * */3h": Karpenter does not read "0 25 * * *" as a schedule: end of range (25) above maximum (23): 25', CRON_HINT],
    ['0 2 1 * */3h', '--window "0 2 1 * */3h": a window repeats every week, so its day of month and month must be * (here "0 2 1 * *")', WEEKLY_HINT],
    ['0 2 * 12 sat/3h', '--window "0 2 * 12 sat/3h": a window repeats every week, so its day of month and month must be * (here "0 2 * 12 sat")', WEEKLY_HINT],
    ['@monthly/3h', '--window "@monthly/3h": a window repeats every week, so its day of month and month must be * (here "@monthly")', WEEKLY_HINT],
  ])('%j is refused', (text, error, hint) => {
    expect(parseWindow(text)).toEqual({ error, hint });
  });
});

describe('--exclude <from>/<to>, in UTC', () => {
  it.each<[string, string, string]>([
    // Whole days: the last one included.
    ['2026-11-27/2026-11-30', '2026-11-27T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-24/2026-12-24', '2026-12-24T00:00:00.000Z', '2026-12-25T00:00:00.000Z'],
    // Minutes: the end excluded.
    ['2026-11-27T18:00Z/2026-11-28T06:00Z', '2026-11-27T18:00:00.000Z', '2026-11-28T06:00:00.000Z'],
    ['2026-11-27T18:00/2026-11-28T06:30:00Z', '2026-11-27T18:00:00.000Z', '2026-11-28T06:30:00.000Z'],
    ['2026-11-27T18:00+00:00/2026-11-28', '2026-11-27T18:00:00.000Z', '2026-11-29T00:00:00.000Z'],
    ['2028-02-29/2028-02-29', '2028-02-29T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ])('%j is [%s, %s)', (text, from, to) => {
    const e = parseExclusion(text);
    if ('error' in e) throw new Error(e.error);
    expect([e.from.toISOString(), e.to.toISOString()]).toEqual([from, to]);
  });

  const HINT =
    'write <from>/<to> in UTC: whole days (the last one included), e.g. --exclude 2026-11-27/2026-11-30, ' +
    'or minutes, e.g. --exclude 2026-11-27T18:00Z/2026-11-28T06:00Z';
  it.each<[string, string]>([
    ['2026-11-27', '--exclude "2026-11-27" is not one <from>/<to>'],
    ['2026-11-27/2026-11-28/2026-11-29', '--exclude "2026-11-27/2026-11-28/2026-11-29" is not one <from>/<to>'],
    ['2026-11-31/2026-12-02', '--exclude "2026-11-31/2026-12-02": "2026-11-31" is not a date in the calendar'],
    ['2027-02-29/2027-03-01', '--exclude "2027-02-29/2027-03-01": "2027-02-29" is not a date in the calendar'],
    ['2026-11-27T24:00Z/2026-11-28', '--exclude "2026-11-27T24:00Z/2026-11-28": "2026-11-27T24:00Z" is not a time in the calendar'],
    ['black friday/2026-11-28', '--exclude "black friday/2026-11-28": "black friday" is not a UTC date (YYYY-MM-DD) or minute (YYYY-MM-DDTHH:MMZ)'],
    ['2026-11-27T18:00:30Z/2026-11-28', '--exclude "2026-11-27T18:00:30Z/2026-11-28": "2026-11-27T18:00:30Z" has seconds: exclusions start and end on whole minutes, as cron does'],
    [
      '2026-11-27T18:00+01:00/2026-11-28',
      '--exclude "2026-11-27T18:00+01:00/2026-11-28": "2026-11-27T18:00+01:00" is not in UTC: windows and exclusions are UTC, as Karpenter reads budget schedules (write it with Z)',
    ],
    ['2026-11-30/2026-11-27', '--exclude "2026-11-30/2026-11-27": its end (2026-11-28T00:00Z) is not after its start (2026-11-30T00:00Z)'],
    ['2026-11-27T06:00Z/2026-11-27T06:00Z', '--exclude "2026-11-27T06:00Z/2026-11-27T06:00Z": its end (2026-11-27T06:00Z) is not after its start (2026-11-27T06:00Z)'],
  ])('%j is refused', (text, error) => {
    expect(parseExclusion(text)).toEqual({ error, hint: HINT });
  });
});
