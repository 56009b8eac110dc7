// The RBAC preflight's questions (what each need names) and its failures (a review that could not be had), in the
// CLI's words: never the generated client's `HTTP-Code: … Headers: …` dump, each with what to do next and the
// documented exit code (docs/reference/exit-codes.md: 3 when the identity may not ask, 1 when the API call failed).
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { apiErrorFrom } from '../../src/cluster/api-client.js';
import { accessTable, distinctNeeds, holdNeeds, lockNeeds, reviewFailure, type AccessNeed } from '../../src/cluster/access.js';
import { ApiError } from '../../src/cluster/request.js';
import { GaveUp } from '../../src/cluster/retry.js';
import { KarpDriftError, RuntimeFailure } from '../../src/errors.js';

const where = { context: 'prod', server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com' };
const need: AccessNeed = { verb: 'patch', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: 'default', why: 'server-side apply' };
const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
const DUMP = /HTTP-Code:|Unknown API Status Code|Headers:|Body:/;

describe('the needs name the object wherever deploy/rbac.yaml restricts a rule by resourceNames', () => {
  it("asks for the Lease karp-drift and the run record's slot by name in the lock namespace, and their creates without one", () => {
    expect(lockNeeds('kube-system').map(({ verb, resource, namespace, name }) => [verb, resource, namespace, name])).toEqual([
      ['get', 'leases', 'kube-system', 'karp-drift'],
      ['create', 'leases', 'kube-system', undefined],
      ['update', 'leases', 'kube-system', 'karp-drift'],
      ['get', 'configmaps', 'kube-system', 'karp-drift-run-00'],
      ['create', 'configmaps', 'kube-system', undefined],
      ['update', 'configmaps', 'kube-system', 'karp-drift-run-00'],
    ]);
  });

  it('asks for each held NodePool by name, nodes without one, and Events in default', () => {
    const needs = holdNeeds('ops', { nodePools: ['general'], nodes: true }).filter((n) => n.resource !== 'leases' && n.resource !== 'configmaps');
    expect(needs.map(({ verb, resource, namespace, name }) => `${verb} ${resource} ${namespace ?? ''}/${name ?? '*'}`)).toEqual([
      'get nodepools /general',
      'patch nodepools /general',
      'list nodes /*',
      'get nodes /*',
      'patch nodes /*',
      'create events default/*',
    ]);
  });

  it('asks each question once and shows namespace/name in the table', () => {
    const twice = [...lockNeeds('kube-system'), ...lockNeeds('kube-system')];
    expect(distinctNeeds(twice)).toHaveLength(6);
    const table = accessTable(lockNeeds('kube-system').map((n, i) => ({ ...n, allowed: i === 0 })));
    expect(table.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['VERB', 'RESOURCE', 'NAME', 'ALLOWED', 'WHY'],
      ['get', 'leases.coordination.k8s.io', 'kube-system/karp-drift', 'yes', 'the cluster lock in kube-system'],
      ['create', 'leases.coordination.k8s.io', 'kube-system/*', 'no', 'the cluster lock in kube-system'],
      ['update', 'leases.coordination.k8s.io', 'kube-system/karp-drift', 'no', 'the cluster lock in kube-system'],
      ['get', 'configmaps', 'kube-system/karp-drift-run-00', 'no', "the run's record in kube-system (karp-drift history)"],
      ['create', 'configmaps', 'kube-system/*', 'no', "the run's record in kube-system (karp-drift history)"],
      ['update', 'configmaps', 'kube-system/karp-drift-run-00', 'no', "the run's record in kube-system (karp-drift history)"],
    ]);
  });
});

describe('reviewFailure: a SelfSubjectAccessReview that could not be had', () => {
  const forbidden = new ApiException<unknown>(
    403,
    'Unknown API Status Code!',
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "dev" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    }),
    { 'content-type': 'application/json', 'audit-id': 'a1b2' },
  );

  it.each<[string, unknown, number, RegExp, RegExp]>([
    [
      'forbidden to ask (403): refused, exit 3, nothing changed',
      apiErrorFrom(forbidden),
      3,
      /^the identity in prod may not ask https:\/\/ABC\.gr7\.us-west-2\.eks\.amazonaws\.com what it may do \(creating a SelfSubjectAccessReview is forbidden, 403: selfsubjectaccessreviews\.authorization\.k8s\.io is forbidden: User "dev" cannot create .*\); karp-drift checks every permission a run needs before its first write, so nothing was changed$/,
      /karp-drift-upgrade .*system:basic-user/,
    ],
    [
      'retries ran out on 503: exit 1',
      new GaveUp(new ApiError(503, { reason: 'ServiceUnavailable', message: 'etcd leader changed' }, undefined), 61_000),
      1,
      /^asking whether it may patch ec2nodeclasses\.karpenter\.k8s\.aws default \(SelfSubjectAccessReview\) at the Kubernetes API at .* failed: HTTP 503 ServiceUnavailable: etcd leader changed \(kept failing for 61 s\)$/,
      /retry in a few minutes/,
    ],
    ['not served (404): exit 1', new ApiError(404, { reason: 'NotFound' }, undefined), 1, /does not serve authorization\.k8s\.io\/v1 selfsubjectaccessreviews \(404\)$/, /proxy/],
    ['a connection cut: exit 1', errno('ECONNRESET', 'socket hang up'), 1, /^cannot reach the Kubernetes API at .*: socket hang up$/, /--context/],
    ['401: unauthorized, exit 1', new ApiError(401, { reason: 'Unauthorized' }, undefined), 1, /refused the credentials \(401 Unauthorized\) while asking whether it may patch/, /access entry/],
  ])('%s', (_name, err, code, message, hint) => {
    const failure = reviewFailure(err, need, where);
    expect(failure.exitCode).toBe(code);
    expect(failure.message).toMatch(message);
    expect(failure.hint).toMatch(hint);
    expect(`${failure.message}\n${failure.hint ?? ''}\n${(failure.cause as Error | undefined)?.message ?? ''}`).not.toMatch(DUMP);
  });

  it('passes a failure already in the CLI\'s words through', () => {
    const said = new RuntimeFailure('cannot reach the Kubernetes API at …');
    expect(reviewFailure(said, need, where)).toBe(said);
  });

  it("turns the client's ApiException into a Status-shaped ApiError, its dump left behind", () => {
    const e = apiErrorFrom(new ApiException<unknown>(429, 'Unknown API Status Code!', '{"reason":"TooManyRequests","message":"slow down"}', { 'retry-after': '3' }));
    expect(e).toBeInstanceOf(ApiError);
    expect([e.code, e.status.reason, e.retryAfterMs, e.message]).toEqual([429, 'TooManyRequests', 3000, 'HTTP 429 TooManyRequests: slow down']);
    // A body that is not a Status (a proxy's page) is kept as the message, cut short.
    expect(apiErrorFrom(new ApiException<unknown>(502, 'Unknown API Status Code!', 'upstream connect error', {})).status).toEqual({ message: 'upstream connect error' });
    expect(reviewFailure(new Error('x'), need, where)).toBeInstanceOf(KarpDriftError);
  });
});
