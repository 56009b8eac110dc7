// What a call to the API server can fail with, below everything that makes the calls (request.ts, the exec
// credentials of credentials.ts, the client-node adapter api-client.ts), so none of them imports another for it.

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
