// Failures of the API calls karp-drift makes through the generated client (the RBAC preflight's
// SelfSubjectAccessReviews, server-side apply) are said in the CLI's own `error:`/`next:` words with the documented exit
// code (docs/reference/exit-codes.md), with and without -v: never the client's dump (`HTTP-Code: 403 / Message: Unknown API
// Status Code! / Body: … / Headers: …`), never a stack (issue 25 item 2).
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { userKubeconfig } from '../sandbox/kube-api-sandbox.js';
import { httpWrites, karpDrift, scenario, type CliRun } from './cli-sandbox.js';

const RBAC = 'rbac.authorization.k8s.io';
const upgrade = ['upgrade', '--to', '1.30', '--yes', '--no-wait'];

/** The output is the CLI's own: an `error:` line, a `next:` line, no client dump, no stack frame, no "internal error". */
function inOurWords(run: CliRun): void {
  const out = `${run.stdout}${run.stderr}`;
  expect(out).not.toMatch(/HTTP-Code:|Unknown API Status Code|Headers:|Body: "|internal error/);
  expect(out).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(run.stderr).toMatch(/^error: /m);
  expect(run.stderr).toMatch(/^ {2}next: /m);
}

/** A user of the sandbox bound to `role` (or to nothing), with the kubeconfig that authenticates as it. */
async function asUser(sandbox: Sandbox, role?: string): Promise<Record<string, string>> {
  const user = { name: 'karp-drift-test', groups: [] };
  if (role) {
    sandbox.kube.store.create(`clusterroles.${RBAC}`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }],
    });
    sandbox.kube.store.create(`clusterrolebindings.${RBAC}`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: user.name }],
    });
  }
  const path = sandbox.env.KUBECONFIG!.replace(/[^/]+$/, 'tester-kubeconfig');
  return { KUBECONFIG: (await userKubeconfig(sandbox.kube, user, path)).kubeconfigPath };
}

describe('a SelfSubjectAccessReview that cannot be had', () => {
  it.each([[[]], [['-v']]])('forbidden by RBAC (no system:basic-user binding) → exit 3 in our words, nothing changed %s', async (verbose) => {
    const sandbox = await scenario('default');
    const env = await asUser(sandbox, 'reader');
    sandbox.kube.store.delete(`clusterrolebindings.${RBAC}`, 'system:basic-user');
    const run = await karpDrift(sandbox, [...upgrade, ...verbose], 60_000, env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('error: the identity in karp-drift-sandbox may not ask https://127.0.0.1:');
    expect(run.stderr).toContain(
      '(creating a SelfSubjectAccessReview is forbidden, 403: selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "karp-drift-test" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope); karp-drift checks every permission a run needs before its first write, so nothing was changed',
    );
    expect(run.stderr).toContain('next: bind the ClusterRole karp-drift-upgrade from deploy/rbac.yaml');
    inOurWords(run);
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('forbidden to the admin (faults.forbid) → exit 3 in our words', async () => {
    const sandbox = await scenario('default');
    sandbox.kube.faults.forbid({ resources: ['selfsubjectaccessreviews'] });
    const run = await karpDrift(sandbox, upgrade);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('may not ask');
    inOurWords(run);
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('a read that fails while the AMIs are resolved ends at once with its own error: the AWS calls are stopped', async () => {
    // The pods' list, late and then forbidden, fails once the classes are in and SSM is being asked, which takes 30 s
    // here: the run must not wait for SSM to say the cluster's error (planning.ts stops the AWS calls under way).
    const sandbox = await scenario('default');
    sandbox.kube.faults.delay(1_000, { verbs: ['list'], resources: ['pods'] });
    sandbox.kube.faults.forbid({ verbs: ['list'], resources: ['pods'] });
    sandbox.aws.faults.slow({ service: 'ssm', delayMs: 30_000 });
    const started = Date.now();
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^error: listing Pods: forbidden \(403\)/m);
    expect(run.stderr).not.toMatch(/SSM|ssm/);
    inOurWords(run);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('answered 429, then 500: asked again (a review stores nothing), and the run goes on', async () => {
    const sandbox = await scenario('default');
    sandbox.kube.faults.fail({ code: 429, next: 1, retryAfterSeconds: 1, resources: ['selfsubjectaccessreviews'] });
    sandbox.kube.faults.fail({ code: 500, next: 1, resources: ['selfsubjectaccessreviews'] });
    const run = await karpDrift(sandbox, upgrade);
    expect(run.code, run.stderr).toBe(0);
    const reviews = sandbox.kube.requests.filter((r) => r.resource === 'selfsubjectaccessreviews').map((r) => r.code);
    expect(reviews.filter((c) => c !== 201).sort()).toEqual([429, 500]);
  });

  it('the API server gone when asked → exit 1 "cannot reach", nothing changed', async () => {
    const sandbox = await scenario('default');
    sandbox.kube.faults.beforeNext({ resources: ['selfsubjectaccessreviews'] }, () => void sandbox.kube.outage('refuse'));
    const run = await karpDrift(sandbox, [...upgrade, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/error: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\)/);
    inOurWords(run);
    expect(httpWrites(sandbox)).toBe(0);
  });
});

describe('a server-side apply that fails', () => {
  it('forbidden after the review said yes (-v) → exit 1, the cause a Status, not a dump', async () => {
    const sandbox = await scenario('default');
    const target = { verbs: ['patch'], resources: ['ec2nodeclasses'] };
    sandbox.kube.faults.beforeNext(target, () => sandbox.kube.faults.forbid(target));
    const run = await karpDrift(sandbox, [...upgrade, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/error: the API server rejected the apply of ec2nodeclass\/\w+ \(HTTP 403, Forbidden\)/);
    expect(run.stderr).toMatch(/ {2}cause: HTTP 403 Forbidden: ec2nodeclasses\.karpenter\.k8s\.aws "\w+" is forbidden/);
    inOurWords(run);
  });

  it('the API server gone at the apply → exit 1 "cannot reach"', async () => {
    const sandbox = await scenario('default');
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['ec2nodeclasses'] }, () => void sandbox.kube.outage('refuse'));
    const run = await karpDrift(sandbox, [...upgrade, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('error: cannot reach the Kubernetes API at');
    inOurWords(run);
  });
});

// The API server goes away just as one request of a writing command is sent: the lock, the holds, their Events, the
// applies. Each ends exit 1 saying it cannot reach the API server, with what to do next (it said "internal error" and
// printed the transport's stack for the lock's and the holds' requests). The one-shot commands say so at once; a
// staged upgrade first rides the outage out for as long as its cluster lock holds (30 s from its last renewal:
// docs/staged-rollouts.md, "When the API server stops answering…"): those cases wait that long, so they are wall-clock proofs
// (error-output-staged.clock.test.ts, `npm run test:long`).
describe('the API server gone at each write of a writing command', () => {
  const upgraded = [[...upgrade]];
  const paused = [['pause', '--nodepool', 'general'], ['pause', '--nodepool', 'arm', '--hold-with', 'node']];
  it.each<{ name: string; at: string; before: string[][]; args: string[] }>([
    { name: 'pause', at: 'get:leases', before: [], args: ['pause', '--nodepool', 'general'] },
    { name: 'pause', at: 'create:leases', before: [], args: ['pause', '--nodepool', 'general'] },
    { name: 'pause', at: 'get:nodepools', before: [], args: ['pause', '--nodepool', 'general'] },
    { name: 'pause', at: 'patch:nodepools', before: [], args: ['pause', '--nodepool', 'general'] },
    { name: 'pause --hold-with node', at: 'get:nodes', before: [], args: ['pause', '--nodepool', 'arm', '--hold-with', 'node'] },
    { name: 'pause --hold-with node', at: 'patch:nodes', before: [], args: ['pause', '--nodepool', 'arm', '--hold-with', 'node'] },
    { name: 'resume', at: 'update:leases', before: paused, args: ['resume'] },
    { name: 'resume', at: 'patch:nodes', before: paused, args: ['resume'] },
    { name: 'resume', at: 'create:events', before: paused, args: ['resume'] },
    { name: 'resume', at: 'patch:nodepools', before: paused, args: ['resume'] },
    { name: 'rollback', at: 'update:leases', before: upgraded, args: ['rollback', '--yes', '--no-wait'] },
    { name: 'rollback', at: 'patch:ec2nodeclasses', before: upgraded, args: ['rollback', '--yes', '--no-wait'] },
  ])('$name, at $at', async ({ before, args, at }) => {
    const sandbox = await scenario('default');
    for (const b of before) expect((await karpDrift(sandbox, b)).code).toBe(0);
    const [verb = '', resource = ''] = at.split(':');
    sandbox.kube.faults.beforeNext({ verbs: [verb], resources: [resource] }, () => void sandbox.kube.outage('refuse'));
    const run = await karpDrift(sandbox, [...args, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^error: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\)/m);
    inOurWords(run);
  });
});

describe('an identity bound to no role', () => {
  it('plan → exit 1 naming the verb, the resource and docs/rbac-and-iam.md', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30'], 60_000, await asUser(sandbox));
    expect(run.code, run.stderr).toBe(1);
    // The inventory lists in parallel: whichever 403 comes first is the one said.
    expect(run.stderr).toMatch(/^error: listing \w+: forbidden \(403\) by the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox"\): /m);
    expect(run.stderr).toMatch(/User "karp-drift-test" cannot list resource "\w+" in API group "[\w.]*" at the cluster scope/);
    expect(run.stderr).toMatch(/next: grant the identity "list" on [\w.]+ \(docs\/rbac-and-iam\.md lists what karp-drift needs\)/);
    inOurWords(run);
  });
});
