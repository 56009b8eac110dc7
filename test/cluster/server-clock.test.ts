// The API server's clock from the `Date` of its answers (cluster/server-clock.ts): each answer bounds server − local,
// the bounds narrow as answers come, and a run warns once when this machine is known to be more than a minute off.
import { describe, expect, it } from 'vitest';
import {
  newServerClock,
  observeServerDate,
  serverOffsetMs,
  serverTime,
  skewWarning,
  SKEW_WARNING_MS,
} from '../../src/cluster/server-clock.js';

const T = Date.parse('2026-12-07T10:00:00Z');
const date = (ms: number) => new Date(ms).toUTCString(); // what Go's net/http writes: whole seconds
const SLACK = 50;

describe('observeServerDate: the offset server − local, bounded by each answer', () => {
  it.each<[string, Array<[number, number, number]>, { low: number; high: number } | undefined]>([
    // [the server's Date (ms, floored to the second by the header), sent, received (this machine's ms)]
    ['no answer yet: nothing known', [], undefined],
    ['one answer, clocks alike: within a second and the round trip', [[T + 400, T + 300, T + 500]], { low: -500 - SLACK, high: 700 + SLACK }],
    [
      'a second answer narrows it',
      [
        [T + 400, T + 300, T + 500],
        [T + 1_020, T + 1_010, T + 1_030],
      ],
      { low: -30 - SLACK, high: 700 + SLACK },
    ],
    ['the server 3 minutes ahead', [[T + 180_000, T, T + 20]], { low: 179_980 - SLACK, high: 181_000 + SLACK }],
    [
      'an answer that contradicts the others (this clock was stepped): starts over from it',
      [
        [T, T, T + 10],
        [T + 60_000, T + 20, T + 30],
      ],
      { low: 59_970 - SLACK, high: 60_980 + SLACK },
    ],
  ])('%s', (_name, answers, expected) => {
    const clock = newServerClock(() => T);
    for (const [server, sent, received] of answers) observeServerDate(clock, date(server), sent, received);
    expect(clock.offset).toEqual(expected);
  });

  it('ignores an answer without a Date, or with one that is not a time', () => {
    const clock = newServerClock(() => T);
    observeServerDate(clock, undefined, T, T + 10);
    observeServerDate(clock, 'yesterday', T, T + 10);
    expect(clock.offset).toBeUndefined();
    expect(serverTime({ serverClock: clock }, new Date(T))).toEqual(new Date(T));
  });

  it("serverTime: this machine's time moved by the middle of the bounds", () => {
    const clock = newServerClock(() => T);
    observeServerDate(clock, date(T + 180_000), T, T + 20);
    expect(serverOffsetMs(clock)).toBe(180_490);
    expect(serverTime({ serverClock: clock }, new Date(T + 5_000))).toEqual(new Date(T + 185_490));
  });
});

describe('skewWarning', () => {
  const cluster = (server: number, sent = T, received = T + 20) => {
    const c = { serverClock: newServerClock(() => T), server: 'https://api.example:443' };
    observeServerDate(c.serverClock, date(server), sent, received);
    return c;
  };

  it('says how far, which way and what it means, once', () => {
    const c = cluster(T - 183_000);
    expect(skewWarning(c)).toBe(
      "this machine's clock is 3m3s ahead of the API server's (https://api.example:443, by the Date of its answers): karp-drift times its dead man's switch and the upgrade windows by the API server's clock, as Karpenter reads them, so they keep to the minute; the health gates' deadlines (--init-deadline, --pod-ready-deadline), counted on this machine's clock from times the cluster wrote, are off by as much. Set this machine's clock right (NTP)",
    );
    expect(skewWarning(c)).toBeUndefined();
    expect(skewWarning(cluster(T + 180_000))).toMatch(/^this machine's clock is 3m behind the API server's \(/);
  });

  it.each<[string, number, number]>([
    ['a minute off at most: said nothing', T + SKEW_WARNING_MS - 1_500, T + 20],
    ['not known to be past a minute (a slow answer): said nothing', T + SKEW_WARNING_MS, T + 5_000],
  ])('%s', (_name, server, received) => {
    expect(skewWarning(cluster(server, T, received))).toBeUndefined();
  });
});
