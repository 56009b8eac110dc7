// The API server's clock, as its answers tell it: every response carries a `Date` header (Go's net/http writes one on
// each), so the requests a run makes anyway (lists, watches, hold writes, the lock's renewals every 10 s) say how far
// this machine's clock is from the cluster's, with no request of its own. What Karpenter evaluates on its clock — the
// dead man's switch, the upgrade windows' budgets — is timed by it (docs/staged-rollouts.md); the Lease needs none
// (apis/lock.ts judges it by what a run sees, never by comparing clocks).
//
// A `Date` is whole seconds (RFC 7231 IMF-fixdate), written at some instant while the request was out: the server's
// time then was in [date, date + 1 s), and that instant was in [sent, received] on this machine's clock. So the offset
// (server − local) lies in [date − received, date + 1 s − sent]; each answer narrows it, as NTP's intersection does,
// and an answer that does not fit what came before (this machine's clock was stepped) starts over from itself.
import { etaDuration } from '../text/words.js';

export interface ServerClock {
  /** This machine's clock, in ms, as the run reads it (tests give a simulated one). */
  readonly local: () => number;
  /** What the answers so far say about server − local, in ms; undefined before the first answer with a `Date`. */
  offset?: { low: number; high: number };
  /** The skew warning was given (`skewWarning`): it is given once per run. */
  warned: boolean;
}

/**
 * A server that caches its `Date` for the second (Node's http does) can write it a few milliseconds late: this much
 * slack keeps such an answer from narrowing the offset past the truth.
 */
const DATE_SLACK_MS = 50;
/** Past this, a run says so: Karpenter and this machine disagree on what minute it is. */
export const SKEW_WARNING_MS = 60_000;

export function newServerClock(local: () => number = Date.now): ServerClock {
  return { local, warned: false };
}

/** Folds one answer in: its `Date` header, and when (this machine's ms) the request went out and the answer came. */
export function observeServerDate(clock: ServerClock, date: string | undefined, sentAt: number, receivedAt: number): void {
  const server = date === undefined ? NaN : Date.parse(date);
  if (!Number.isFinite(server)) return;
  const sample = { low: server - receivedAt - DATE_SLACK_MS, high: server + 1000 - sentAt + DATE_SLACK_MS };
  const o = clock.offset;
  const low = o === undefined ? sample.low : Math.max(o.low, sample.low);
  const high = o === undefined ? sample.high : Math.min(o.high, sample.high);
  clock.offset = low <= high ? { low, high } : sample;
}

/** server − local in ms, the middle of what the answers allow; 0 before any answer said. */
export function serverOffsetMs(clock: ServerClock): number {
  const o = clock.offset;
  return o === undefined ? 0 : Math.round((o.low + o.high) / 2);
}

/** The API server's time at this machine's time `at`: `at` itself until an answer said otherwise. */
export function serverTime(cluster: { serverClock: ServerClock }, at: Date): Date {
  return new Date(at.getTime() + serverOffsetMs(cluster.serverClock));
}

/** The API server's time now, by this machine's clock (`local`) and what the answers said. */
export function serverNow(cluster: { serverClock: ServerClock }): Date {
  return serverTime(cluster, new Date(cluster.serverClock.local()));
}

/**
 * What to warn about, once per run: this machine's clock is known to be more than a minute off the API server's.
 * Undefined while it is not (or not known to be), and after it was said.
 */
export function skewWarning(cluster: { serverClock: ServerClock; server: string }): string | undefined {
  const clock = cluster.serverClock;
  const o = clock.offset;
  if (clock.warned || o === undefined || (o.low <= SKEW_WARNING_MS && o.high >= -SKEW_WARNING_MS)) return undefined;
  clock.warned = true;
  const skew = serverOffsetMs(clock);
  return (
    `this machine's clock is ${etaDuration(Math.abs(skew))} ${skew > 0 ? 'behind' : 'ahead of'} the API server's (${cluster.server}, by the Date of its answers): ` +
    `karp-drift times its dead man's switch and the upgrade windows by the API server's clock, as Karpenter reads them, so they keep to the minute; ` +
    `the health gates' deadlines (--init-deadline, --pod-ready-deadline), counted on this machine's clock from times the cluster wrote, are off by as much. ` +
    `Set this machine's clock right (NTP)`
  );
}
