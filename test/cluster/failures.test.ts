// clusterFailure: every failure names what was being done, the server and context, and what to do next.
import { describe, expect, it } from 'vitest';
import type { CredentialSource } from '../../src/cluster/credential-source.js';
import { clusterFailure, failureText } from '../../src/cluster/failures.js';
import { NoAnswer } from '../../src/cluster/api-errors.js';
import { ApiError, CredentialsError } from '../../src/cluster/request.js';
import { GaveUp } from '../../src/cluster/retry.js';
import { InterruptedError, RuntimeFailure } from '../../src/errors.js';

const where = { context: 'prod', server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com' };
const call = { doing: 'listing NodeClaims', verb: 'list', resource: 'nodeclaims.karpenter.sh' };
const at = 'the Kubernetes API at https://ABC.gr7.us-west-2.eks.amazonaws.com (context "prod")';
const errno = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('clusterFailure', () => {
  it.each([
    [errno('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443'), `cannot reach ${at}: connect ECONNREFUSED 10.0.0.1:443`, /--context/],
    [errno('ENOTFOUND', 'getaddrinfo ENOTFOUND abc'), `cannot reach ${at}: getaddrinfo ENOTFOUND abc`, /update-kubeconfig/],
    [errno('CERT_HAS_EXPIRED', 'certificate has expired'), `the TLS certificate of ${at} was not accepted: certificate has expired (CERT_HAS_EXPIRED)`, /certificate-authority-data/],
    [new ApiError(401, { reason: 'Unauthorized' }, undefined), `${at} refused the credentials (401 Unauthorized) while listing NodeClaims`, /access entry/],
    [
      new ApiError(403, { reason: 'Forbidden', message: 'nodeclaims.karpenter.sh is forbidden: User "dev" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope' }, undefined),
      `listing NodeClaims: forbidden (403) by ${at}: nodeclaims.karpenter.sh is forbidden: User "dev" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope`,
      /^grant the identity "list" on nodeclaims.karpenter.sh/,
    ],
    [new ApiError(404, { reason: 'NotFound', message: 'the server could not find the requested resource' }, undefined), `listing NodeClaims: ${at} does not serve nodeclaims.karpenter.sh (404 NotFound): the server could not find the requested resource`, /Karpenter and its CRDs/],
    [new GaveUp(new ApiError(503, { reason: 'ServiceUnavailable', message: 'etcd leader changed' }, undefined), 61_000), `listing NodeClaims at ${at} failed: HTTP 503 ServiceUnavailable: etcd leader changed (kept failing for 61 s)`, /retry in a few minutes/],
    [new CredentialsError('exec: executable aws failed with exit code 255'), `listing NodeClaims: getting credentials for ${at} failed: exec: executable aws failed with exit code 255`, /aws sso login/],
  ])('%s', (err, message, hint) => {
    const failure = clusterFailure(err, call, where);
    expect(failure).toBeInstanceOf(RuntimeFailure);
    expect(failure.message).toBe(message);
    expect(failure.hint).toMatch(hint);
    expect(failure.cause).toBe(err);
  });
});

// The runtime's aborts say nothing of what happened ("The operation was aborted", "… due to timeout"): issue 35 item 7
// found one printed as a warning after a frozen API server. karp-drift's own deadlines carry their words (NoAnswer);
// any other abort is an interrupt.
describe('a call cut short', () => {
  const aborted = new DOMException('This operation was aborted', 'AbortError');
  const timedOut = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  const runtimeAbort = Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
  const deadline = new NoAnswer("no answer from the API server within 20 s (the staged rollout's last hold writes)");

  it.each([
    [aborted, 'the run was interrupted'],
    [runtimeAbort, 'the run was interrupted'],
    [timedOut, 'no answer from the API server in time'],
    [deadline, "no answer from the API server within 20 s (the staged rollout's last hold writes)"],
    [new GaveUp(deadline, 20_000), "kept failing for 20 s: no answer from the API server within 20 s (the staged rollout's last hold writes)"],
  ])('failureText(%s)', (err, text) => {
    expect(failureText(err)).toBe(text);
  });

  it.each([
    [runtimeAbort, InterruptedError, 'interrupted while listing NodeClaims'],
    [timedOut, RuntimeFailure, `listing NodeClaims: no answer from ${at} in time`],
    [deadline, RuntimeFailure, `cannot reach ${at}: no answer from the API server within 20 s (the staged rollout's last hold writes)`],
  ])('clusterFailure(%s)', (err, type, message) => {
    const failure = clusterFailure(err, call, where);
    expect(failure).toBeInstanceOf(type);
    expect(failure.message).toBe(message);
    expect(failure.message).not.toMatch(/operation was aborted/);
  });
});

describe('clusterFailure: a 401 names the credentials that were rejected and what to do', () => {
  const unauthorized = new ApiError(401, { reason: 'Unauthorized', message: 'Unauthorized' }, undefined);
  it.each<[string, CredentialSource, string, RegExp]>([
    [
      'an exec plugin (run again before this)',
      { kind: 'exec', label: 'exec plugin "aws" of kubeconfig user "prod"' },
      `${at} rejected the token from exec plugin "aws" of kubeconfig user "prod" (401 Unauthorized) while listing NodeClaims, and again after the plugin was run for a new one`,
      /^aws sts get-caller-identity .*aws sso login.*EKS access entry.*aws eks update-kubeconfig --name <cluster>$/,
    ],
    [
      'a static token',
      { kind: 'token', label: 'the static token of kubeconfig user "prod"' },
      `${at} rejected the static token of kubeconfig user "prod" (401 Unauthorized) while listing NodeClaims; a static token cannot be refreshed`,
      /^replace the token, or run aws eks update-kubeconfig --name <cluster> to use the exec plugin/,
    ],
    [
      'a client certificate',
      { kind: 'client-certificate', label: 'the client certificate of kubeconfig user "prod"' },
      `${at} rejected the client certificate of kubeconfig user "prod" (401 Unauthorized) while listing NodeClaims`,
      /aws eks update-kubeconfig --name <cluster>.*aws sts get-caller-identity/,
    ],
  ])('%s', (_name, source, message, hint) => {
    const failure = clusterFailure(unauthorized, call, { ...where, credentials: { source } });
    expect(failure).toBeInstanceOf(RuntimeFailure);
    expect(failure.message).toBe(message);
    expect(failure.hint).toMatch(hint);
    expect(failure.cause).toBe(unauthorized);
  });
});
