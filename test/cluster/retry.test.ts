// The backoff arithmetic: exponential, capped, jittered, never shorter than Retry-After, bounded in total; which
// failures each kind of call retries; and how a wait cut short by karp-drift's own deadline ends.
import { describe, expect, it } from 'vitest';
import { callDeadline, isOwnAbort, NoAnswer, wasInterrupted } from '../../src/cluster/api-errors.js';
import { ApiError } from '../../src/cluster/request.js';
import {
  backoffMs,
  FailureStreak,
  FOLLOW_RETRY,
  GaveUp,
  isRetryable,
  LOCKED_RETRY,
  READ_RETRY,
  retrying,
  retryOn,
} from '../../src/cluster/retry.js';
import { LockLost } from '../../src/cluster/lock.js';

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
    // A staged run under its lock retries what the follow does (refused, reset, timed out, 429, 5xx).
    expect(isRetryable(err, LOCKED_RETRY)).toBe(follow);
  });
});

describe('retryOn', () => {
  it("is the call's own policy, but under a staged run's lock, the lock's: one bound for every call of the run", () => {
    expect(retryOn({}, READ_RETRY)).toBe(READ_RETRY);
    expect(retryOn({ lease: { retry: LOCKED_RETRY } }, READ_RETRY)).toBe(LOCKED_RETRY);
    // No longer than the lock holds: past it the run must stop.
    expect(LOCKED_RETRY.budgetMs).toBe(30_000);
  });
});

describe('retrying, cut short', () => {
  const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));

  it("by karp-drift's own deadline: retries that ran out, with the last failure, in karp-drift's words", async () => {
    const err = await retrying(refused, LOCKED_RETRY, callDeadline(600, 'a test')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GaveUp);
    expect((err as GaveUp).message).toMatch(/^kept failing for \d+ s: connect ECONNREFUSED 127\.0\.0\.1:6443$/);
  });

  it('by a lost cluster lock: the same', async () => {
    const lost = new AbortController();
    setTimeout(() => lost.abort(new LockLost('could not renew the cluster lock (lease kube-system/karp-drift) for 30 s')), 300);
    const err = await retrying(refused, LOCKED_RETRY, lost.signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GaveUp);
  });

  it("by an interrupt: the runtime's AbortError, which the caller says as an interrupt", async () => {
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(new Error('received SIGINT')), 300);
    const err = await retrying(refused, LOCKED_RETRY, interrupt.signal).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
  });
});

describe('aborts of our own', () => {
  it.each([
    [new NoAnswer('no answer'), true],
    [new LockLost('lost the cluster lock'), true],
    [new Error('received SIGTERM'), false],
    [new DOMException('The operation was aborted due to timeout', 'TimeoutError'), false],
    [undefined, false],
  ])('%s: %s', (reason, own) => {
    expect(isOwnAbort(reason)).toBe(own);
    const c = new AbortController();
    c.abort(reason);
    expect(wasInterrupted(c.signal)).toBe(!own);
  });

  it('callDeadline aborts with a NoAnswer naming what waited', async () => {
    const signal = callDeadline(50, "the staged rollout's last hold writes");
    await new Promise((r) => setTimeout(r, 100));
    expect(signal.reason).toBeInstanceOf(NoAnswer);
    expect((signal.reason as NoAnswer).message).toBe("no answer from the API server within 0.05 s (the staged rollout's last hold writes)");
    expect((signal.reason as NoAnswer).code).toBe('ETIMEDOUT');
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
