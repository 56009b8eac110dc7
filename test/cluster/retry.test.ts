// The backoff arithmetic: exponential, capped, jittered, never shorter than Retry-After, bounded in total.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/cluster/request.js';
import { backoffMs, FailureStreak, FOLLOW_RETRY, isRetryable, READ_RETRY } from '../../src/cluster/retry.js';

const policy = { baseMs: 250, capMs: 30_000, budgetMs: 120_000, connectErrors: true };
const status = (code: number, retryAfterMs?: number) => new ApiError(code, { reason: 'X' }, retryAfterMs);
const errno = (code: string) => Object.assign(new Error(code), { code });

describe('backoffMs', () => {
  it.each([
    [0, 0, undefined, 125],
    [0, 1, undefined, 250],
    [3, 0.5, undefined, 1500],
    [20, 1, undefined, 30_000],
    [20, 0, undefined, 15_000],
    [0, 0, 5_000, 5_000],
    [20, 1, 60_000, 60_000],
  ])('attempt %i, random %f, Retry-After %s ms → %i ms', (attempt, random, retryAfter, expected) => {
    expect(backoffMs(attempt, policy, retryAfter, random)).toBe(expected);
  });
});

describe('isRetryable', () => {
  it.each([
    [status(429), true, true],
    [status(500), true, true],
    [status(503), true, true],
    [status(501), false, false],
    [status(403), false, false],
    [status(410), false, false],
    [errno('ECONNRESET'), true, true],
    [errno('ECONNREFUSED'), true, false],
    [errno('SELF_SIGNED_CERT_IN_CHAIN'), false, false],
    [new Error('bug'), false, false],
  ])('%s: follow %s, one-shot read %s', (err, follow, read) => {
    expect([isRetryable(err, FOLLOW_RETRY), isRetryable(err, READ_RETRY)]).toEqual([follow, read]);
  });
});

describe('FailureStreak', () => {
  it('waits longer each time, honours Retry-After, gives up after the budget, and starts over after a reset', () => {
    let now = 0;
    const streak = new FailureStreak(policy, () => now, () => 1);
    const delays: Array<number | undefined> = [];
    for (const err of [status(500), status(500), status(429, 10_000), status(500)]) {
      const delay = streak.next(err);
      delays.push(delay);
      now += delay ?? 0;
    }
    expect(delays).toEqual([250, 500, 10_000, 2000]);
    now += 120_000;
    expect(streak.next(status(500))).toBeUndefined();
    expect(streak.elapsedMs()).toBe(132_750);
    streak.reset();
    expect(streak.next(status(500))).toBe(250);
  });
});
