// What a call to the API server can fail with, below everything that makes the calls (request.ts, the exec
// credentials of credentials.ts, the client-node adapter api-client.ts), so none of them imports another for it.
import { KarpDriftError } from '../errors.js';

/** A metav1.Status the server answered with, or what is known of one. */
export interface StatusBody {
  code?: number;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number };
}

/** The server answered, and not with 2xx. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: StatusBody,
    /** Retry-After (or details.retryAfterSeconds) in milliseconds. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`HTTP ${code} ${status.reason ?? ''}${status.message ? `: ${status.message}` : ''}`.trim());
    this.name = 'ApiError';
  }
}

/** Getting credentials failed (an exec plugin such as `aws eks get-token` exited non-zero, an expired SSO session). */
export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/**
 * A call karp-drift stopped waiting for at a deadline of its own (`callDeadline`): said as a timeout (its code is the
 * socket's ETIMEDOUT, so failures.ts says the API server cannot be reached), never as the runtime's "The operation was
 * aborted" that an AbortSignal.timeout leaves.
 */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  readonly code = 'ETIMEDOUT';
}

/** A signal that aborts after `ms` with a NoAnswer naming what waited: `the staged rollout's last hold writes`. */
export function callDeadline(ms: number, what: string): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new NoAnswer(`no answer from the API server within ${ms / 1000} s (${what})`)), ms).unref();
  return controller.signal;
}

/**
 * An abort karp-drift itself decided, in its own words: a deadline (NoAnswer), or one of the CLI's errors (a lost
 * cluster lock). An interrupt's reason (main.ts) and the runtime's DOMException are neither: the caller says those.
 */
export function isOwnAbort(reason: unknown): reason is Error {
  return reason instanceof NoAnswer || reason instanceof KarpDriftError;
}

/** The run's signal was aborted by an interrupt (Ctrl-C, SIGTERM), not by karp-drift itself (a lost cluster lock). */
export const wasInterrupted = (signal: AbortSignal): boolean => signal.aborted && !isOwnAbort(signal.reason);
