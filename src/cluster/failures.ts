// Pure: turns a failed Kubernetes API call into an error that says what failed, where (context and server) and
// what to do next, as ami/aws-failures.ts does for AWS. Messages carry the server's Status text and never a header,
// so no token can end up in them.
import { InterruptedError, RuntimeFailure, type KarpDriftError } from '../errors.js';
import type { CredentialSource } from './credential-source.js';
import { ApiError, CredentialsError } from './request.js';
import { ProxyError, proxyHint } from '../proxy/proxy-error.js';
import { GaveUp } from './retry.js';
import type { Resource } from '../karpenter/resources.js';

/** The call that failed, in kube's words: `list` `nodeclaims.karpenter.sh`. */
export interface ApiCall {
  /** "listing NodeClaims", "reading /version" */
  doing: string;
  verb: string;
  resource: string;
}

/** The call a list or watch of `r` makes, for its failure message and the RBAC it needs. */
export const listCall = (r: Resource<unknown>): ApiCall => ({ doing: `listing ${r.plural}`, verb: 'list', resource: r.resource });
export const watchCall = (r: Resource<unknown>): ApiCall => ({ doing: `watching ${r.plural}`, verb: 'watch', resource: r.resource });

export interface Where {
  context: string;
  server: string;
  /** What the kubeconfig user authenticates with: a 401 names it (and never its value). */
  credentials?: { source: CredentialSource };
}

const UPDATE_KUBECONFIG = 'aws eks update-kubeconfig --name <cluster>';

const TLS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE']);

/** A failure of the API call itself (an answer, a transport error, retries run out), as opposed to a bug. */
export function isApiFailure(err: unknown): boolean {
  return (
    err instanceof ApiError ||
    err instanceof GaveUp ||
    err instanceof CredentialsError ||
    (err instanceof Error && typeof (err as Error & { code?: unknown }).code === 'string' && err.name !== 'AbortError')
  );
}

/** The runtime's own aborts: an AbortSignal's DOMException, a request or timer it cut short. */
const isAbort = (err: unknown): err is Error => err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');

/**
 * A failed call in a clause of karp-drift's (a warning, a note inside another error): its message, but for the
 * runtime's aborts, whose text ("The operation was aborted", "… due to timeout") says nothing of what happened.
 * karp-drift's own deadlines abort with their own words (api-errors.ts NoAnswer); any other abort is an interrupt.
 */
export function failureText(err: unknown): string {
  if (isAbort(err)) return err.name === 'TimeoutError' ? 'no answer from the API server in time' : 'the run was interrupted';
  return err instanceof Error ? err.message : String(err);
}

export function clusterFailure(err: unknown, call: ApiCall, where: Where): KarpDriftError {
  const retried = err instanceof GaveUp ? ` (kept failing for ${Math.round(err.elapsedMs / 1000)} s)` : '';
  const cause = err instanceof GaveUp ? err.cause : err;
  const at = `the Kubernetes API at ${where.server} (context "${where.context}")`;
  // Abandoned, not failed: an interrupt (Ctrl-C, SIGTERM) cut the call short, or a runtime timeout did.
  if (isAbort(cause) && cause.name === 'AbortError') return new InterruptedError(`interrupted while ${call.doing}`, { cause: err });
  if (isAbort(cause)) return new RuntimeFailure(`${call.doing}: no answer from ${at} in time`, { cause: err });
  if (cause instanceof CredentialsError) {
    return new RuntimeFailure(`${call.doing}: getting credentials for ${at} failed: ${cause.message}`, {
      cause: err,
      hint: `check the kubeconfig user's exec plugin and the AWS identity it uses (aws sts get-caller-identity; aws sso login), or run ${UPDATE_KUBECONFIG}`,
    });
  }
  if (cause instanceof ApiError && cause.code === 401 && where.credentials) return rejected(where.credentials.source, call, at, err);
  if (cause instanceof ApiError) return apiFailure(cause, call, at, retried, err);
  if (cause instanceof ProxyError) {
    return new RuntimeFailure(`${call.doing}: cannot reach ${at}: ${cause.message}${retried}`, {
      cause: err,
      hint: proxyHint(cause, new URL(where.server).hostname),
    });
  }
  const code = (cause as { code?: unknown } | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (typeof code === 'string' && TLS.has(code)) {
    return new RuntimeFailure(`the TLS certificate of ${at} was not accepted: ${message} (${code})`, {
      cause: err,
      hint: `the kubeconfig's certificate-authority-data must be the cluster's CA: run ${UPDATE_KUBECONFIG}`,
    });
  }
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    return new RuntimeFailure(`cannot reach ${at}: ${message}${retried}`, {
      cause: err,
      hint: `check the kubeconfig context (--context) and the network path to the endpoint (VPN, private endpoint), or run ${UPDATE_KUBECONFIG}`,
    });
  }
  return new RuntimeFailure(`${call.doing} at ${at} failed: ${message}${retried}`, { cause: err });
}

function apiFailure(e: ApiError, call: ApiCall, at: string, retried: string, err: unknown): KarpDriftError {
  const said = e.status.message ? `: ${e.status.message}` : '';
  if (e.code === 401) {
    return new RuntimeFailure(`${at} refused the credentials (401 Unauthorized) while ${call.doing}`, {
      cause: err,
      hint: `refresh them with ${UPDATE_KUBECONFIG}, and check that the AWS identity (aws sts get-caller-identity) has an EKS access entry`,
    });
  }
  if (e.code === 403) {
    return new RuntimeFailure(`${call.doing}: forbidden (403) by ${at}${said}`, {
      cause: err,
      hint: `grant the identity "${call.verb}" on ${call.resource} (docs/rbac-and-iam.md lists what karp-drift needs)`,
    });
  }
  if (e.code === 404) {
    return new RuntimeFailure(`${call.doing}: ${at} does not serve ${call.resource} (404 NotFound)${said}`, {
      cause: err,
      hint: 'check that this is the right context and that Karpenter and its CRDs are installed',
    });
  }
  if (e.code === 429 || e.code >= 500) {
    return new RuntimeFailure(`${call.doing} at ${at} failed: ${httpStatus(e)}${said}${retried}`, {
      cause: err,
      hint: 'the API server is overloaded or unavailable; retry in a few minutes',
    });
  }
  return new RuntimeFailure(`${call.doing} at ${at} failed: ${httpStatus(e)}${said}`, { cause: err });
}

// A 401 that reached the caller. With an exec plugin it is the second one: request.ts and api-client.ts have already
// run the plugin again and sent the request once more with its new token (credentials.ts).
function rejected(source: CredentialSource, call: ApiCall, at: string, err: unknown): KarpDriftError {
  const identity = 'aws sts get-caller-identity shows the AWS identity in use (aws sso login if its session expired); it needs an EKS access entry on this cluster';
  if (source.kind === 'exec') {
    return new RuntimeFailure(`${at} rejected the token from ${source.label} (401 Unauthorized) while ${call.doing}, and again after the plugin was run for a new one`, {
      cause: err,
      hint: `${identity}; if the kubeconfig is out of date, run ${UPDATE_KUBECONFIG}`,
    });
  }
  if (source.kind === 'token') {
    return new RuntimeFailure(`${at} rejected ${source.label} (401 Unauthorized) while ${call.doing}; a static token cannot be refreshed`, {
      cause: err,
      hint: `replace the token, or run ${UPDATE_KUBECONFIG} to use the exec plugin (aws eks get-token); ${identity}`,
    });
  }
  return new RuntimeFailure(`${at} rejected ${source.label} (401 Unauthorized) while ${call.doing}`, {
    cause: err,
    hint: `run ${UPDATE_KUBECONFIG} for a kubeconfig with current credentials; ${identity}`,
  });
}

/** `HTTP 502 BadGateway`, or `HTTP 502` when the body names no reason (no dangling space before what follows). */
function httpStatus(e: { code: number; status: { reason?: string } }): string {
  return e.status.reason ? `HTTP ${e.code} ${e.status.reason}` : `HTTP ${e.code}`;
}
