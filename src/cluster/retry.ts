// Retrying what the API server asks to be retried: 429 (API Priority and Fairness, with Retry-After) and 5xx, with
// capped exponential backoff and jitter, for a bounded time of continuous failure. client-node does not retry
// (STYLE.md "client-node facts"); client-go's reflector backs off 800 ms → 30 s on a failing list or watch.
//
// How long depends on what the run has at stake (docs/staged-rollouts.md, "When the API server stops answering"):
// - a one-shot command (plan, status, pause, resume, an upgrade before it takes its cluster lock) has changed nothing
//   a blip could leave half done: a refused connection fails it at once (the wrong context, the VPN down: say so now),
//   429, 5xx and a cut connection are retried for READ_RETRY's minute (hold writes: holds.ts, 15 s);
// - a staged run, while it holds the cluster lock, rides out refused, reset and timed-out connections as well, for
//   exactly as long as its lock holds (LOCKED_RETRY, and the lock's signal that cuts every wait when it lapses):
//   past that another run could take the lock, so it must stop, and a wait longer than the lock would only hide that;
// - the follow's watches of an unpaced rollout (`wait`, `status --watch`), which write nothing, wait two minutes.
import { setTimeout as sleep } from 'node:timers/promises';
import { LEASE_SECONDS } from '../apis/lock.js';
import { ApiError, isOwnAbort } from './api-errors.js';

export interface RetryPolicy {
  /** The first delay. */
  baseMs: number;
  /** No delay is longer than this (except a longer Retry-After). */
  capMs: number;
  /** Give up after failing continuously for this long. */
  budgetMs: number;
  /** Also retry failures to connect (the API server restarting under a long follow); one-shot reads fail fast. */
  connectErrors: boolean;
}

export const READ_RETRY: RetryPolicy = { baseMs: 250, capMs: 10_000, budgetMs: 60_000, connectErrors: false };
export const FOLLOW_RETRY: RetryPolicy = { baseMs: 250, capMs: 30_000, budgetMs: 120_000, connectErrors: true };
/**
 * Every call of a staged run under its cluster lock (`Cluster.retry`): a short cap, so a call goes through within
 * about 2 s of the API server's return; the budget is the lock's validity, a backstop for a call no signal reaches
 * (the lock's lapse aborts the run's signal, which ends every other wait at that moment).
 */
export const LOCKED_RETRY: RetryPolicy = { baseMs: 250, capMs: 2_000, budgetMs: LEASE_SECONDS * 1000, connectErrors: true };

/** How a call on `cluster` retries: LOCKED_RETRY under a staged run's lock (client.ts `lease`), else the call's own. */
export function retryOn(cluster: { lease?: { retry: RetryPolicy } }, own: RetryPolicy): RetryPolicy {
  return cluster.lease?.retry ?? own;
}

// A connection the server or a load balancer cut while the request was out: always worth another try.
const CUT = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export function isRetryable(err: unknown, policy: RetryPolicy): boolean {
  if (err instanceof ApiError) return err.code === 429 || (err.code >= 500 && err.code !== 501);
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return false;
  return CUT.has(code) || (policy.connectErrors && UNREACHABLE.has(code));
}

/**
 * The delay before retry number `attempt` (0-based): base·2^attempt capped, with "equal jitter" (half fixed, half
 * random) so clients that failed together do not retry together; never shorter than the server's Retry-After.
 */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: number): number {
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const jittered = exponential / 2 + (exponential / 2) * random;
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/** A run of failures: how long to wait after each, and when the run has gone on too long. */
export class FailureStreak {
  private since: number | undefined;
  private attempts = 0;
  /** The last failure of the streak, for the message when it gives up. */
  last: unknown;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  reset(): void {
    this.since = undefined;
    this.attempts = 0;
    this.last = undefined;
  }

  /** The delay before the next try, or undefined once the streak has lasted longer than the budget. */
  next(err: unknown): number | undefined {
    const now = this.now();
    this.since ??= now;
    this.last = err;
    if (now - this.since >= this.policy.budgetMs) return undefined;
    const delay = backoffMs(this.attempts++, this.policy, err instanceof ApiError ? err.retryAfterMs : undefined, this.random());
    return Math.min(delay, Math.max(0, this.since + this.policy.budgetMs - now) + 1);
  }

  /** How long the streak has lasted, for messages. */
  elapsedMs(): number {
    return this.since === undefined ? 0 : this.now() - this.since;
  }
}

/**
 * Runs `attempt` until it succeeds, fails in a way not worth retrying, or has failed for the policy's budget. A
 * `signal` aborted by a deadline of karp-drift's own (api-errors.ts `callDeadline`, a lost cluster lock) while it waits
 * ends the streak as retries that ran out, with the last failure: never the runtime's "The operation was aborted".
 */
export async function retrying<T>(attempt: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  const streak = new FailureStreak(policy);
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (signal?.aborted || !isRetryable(err, policy)) throw err;
      const delay = streak.next(err);
      if (delay === undefined) throw new GaveUp(err, streak.elapsedMs());
      try {
        await sleep(delay, undefined, signal ? { signal } : {});
      } catch (aborted) {
        if (signal !== undefined && isOwnAbort(signal.reason)) throw new GaveUp(err, streak.elapsedMs());
        throw aborted; // an interrupt: the caller's to say
      }
    }
  }
}

/** Retries ran out: `cause` is the last failure. */
export class GaveUp extends Error {
  constructor(
    override readonly cause: unknown,
    readonly elapsedMs: number,
  ) {
    super(`kept failing for ${Math.round(elapsedMs / 1000)} s: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'GaveUp';
  }
}
