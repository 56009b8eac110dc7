// Every request karp-drift sends is allowed by the ClusterRoles it ships (deploy/rbac.yaml): the sandbox records
// each request with its verb, resource and name, and this test evaluates them against the rules as RBAC would.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
const roles = new Map(
  (
    loadAll(readFileSync(new URL('../../deploy/rbac.yaml', import.meta.url), 'utf8')) as Array<{
      metadata: { name: string };
      rules: Rule[];
    }>
  ).map((r) => [r.metadata.name, r.rules]),
);

function groupOf(path: string): string {
  return path.startsWith('/api/') ? '' : (path.split('/')[2] ?? '');
}

/** The requests (those from `from` to `to` in the log) that `role` would refuse. */
function uncovered(sandbox: Sandbox, role: string, from = 0, to = Infinity): string[] {
  const rules = roles.get(role)!;
  return (
    sandbox.kube.requests
      .slice(from, to)
      .filter((r) => r.path.startsWith('/api/') || r.path.startsWith('/apis/'))
      .filter((r) => r.resource !== undefined && r.path.split('/').length > 3)
      // Kubernetes lets every authenticated user review its own access (ClusterRole system:basic-user).
      .filter((r) => r.resource !== 'selfsubjectaccessreviews')
      .filter(
        (r) =>
          !rules.some(
            (rule) =>
              rule.apiGroups.includes(groupOf(r.path)) &&
              rule.resources.includes(r.resource!) &&
              rule.verbs.includes(r.verb) &&
              (rule.resourceNames === undefined || (r.name !== undefined && rule.resourceNames.includes(r.name))),
          ),
      )
      .map((r) => `${r.verb} ${groupOf(r.path) || 'core'}/${r.resource}${r.name ? `/${r.name}` : ''}`)
  );
}

describe('deploy/rbac.yaml covers what karp-drift does', () => {
  it('plan and status need only karp-drift-readonly', async () => {
    const sandbox = await scenario('default');
    expect((await karpDrift(sandbox, ['plan', '--to', '1.30'])).code).toBe(0);
    expect((await karpDrift(sandbox, ['status'])).code).toBe(0);
    expect(sandbox.kube.requests.length).toBeGreaterThan(10);
    expect(uncovered(sandbox, 'karp-drift-readonly')).toEqual([]);
  });

  it('wait needs only karp-drift-readonly (the lock read, never written), following a rollout and finding one paused', async () => {
    const sandbox = await scenario('default');
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait'])).code).toBe(0);
    const from = sandbox.kube.requests.length;
    const waited = await karpDrift(sandbox, ['wait']);
    expect(waited.code, waited.stderr).toBe(0);
    const to = sandbox.kube.requests.length;
    expect((await karpDrift(sandbox, ['pause', '--nodepool', 'general'])).code).toBe(0);
    const pausedFrom = sandbox.kube.requests.length;
    expect((await karpDrift(sandbox, ['wait'])).code).toBe(6);
    expect(sandbox.kube.requests.slice(from).some((r) => r.resource === 'leases' && r.verb === 'get')).toBe(true);
    expect(uncovered(sandbox, 'karp-drift-readonly', from, to)).toEqual([]);
    expect(uncovered(sandbox, 'karp-drift-readonly', pausedFrom)).toEqual([]);
  }, 120_000);

  it('upgrade, upgrade --templates and rollback (deleting the NodePool the templates created) need only karp-drift-upgrade; the read-only role would refuse them', async () => {
    const sandbox = await scenario('default');
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes'])).code).toBe(0);
    expect((await karpDrift(sandbox, ['rollback', '--yes', '--no-wait'])).code).toBe(0);
    expect(
      (
        await karpDrift(sandbox, [
          'upgrade',
          '--to',
          '1.30',
          '--yes',
          '--no-wait',
          '--cluster-name',
          'sandbox',
          '--role',
          'KarpenterNodeRole-sandbox',
          '--allow-create',
        ])
      ).code,
    ).toBe(0);
    expect((await karpDrift(sandbox, ['rollback', '--yes', '--no-wait'])).code).toBe(0);
    expect(uncovered(sandbox, 'karp-drift-upgrade')).toEqual([]);
    expect(
      new Set(uncovered(sandbox, 'karp-drift-readonly').filter((r) => !r.includes('coordination.k8s.io/leases'))),
    ).toEqual(
      new Set([
        'patch karpenter.k8s.aws/ec2nodeclasses/default',
        'patch karpenter.k8s.aws/ec2nodeclasses/bottlerocket',
        'patch karpenter.sh/nodepools/default',
        'delete karpenter.sh/nodepools/default',
      ]),
    );
    // The cluster lock around the writes.
    expect(
      new Set(
        uncovered(sandbox, 'karp-drift-readonly')
          .filter((r) => r.includes('leases'))
          .map((r) => r.split('/').slice(0, 2).join('/')),
      ),
    ).toEqual(new Set(['create coordination.k8s.io/leases', 'update coordination.k8s.io/leases']));
  });

  it('a staged upgrade (budget and node holds, Events, the lock held throughout) needs only karp-drift-upgrade', async () => {
    const sandbox = await scenario('staged', 120);
    const run = await karpDrift(
      sandbox,
      ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,100%', '--yes'],
      120_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(uncovered(sandbox, 'karp-drift-upgrade')).toEqual([]);
    expect(new Set(uncovered(sandbox, 'karp-drift-readonly').map((r) => r.split('/').slice(0, 2).join('/')))).toEqual(
      new Set([
        'create coordination.k8s.io/leases',
        'update coordination.k8s.io/leases',
        'patch karpenter.k8s.aws/ec2nodeclasses',
        'patch karpenter.sh/nodepools',
        'patch core/nodes',
        'create core/events',
      ]),
    );
  }, 150_000);

  it('pause and resume need only karp-drift-upgrade (lock, budget and node holds, Events)', async () => {
    const sandbox = await scenario('default');
    expect((await karpDrift(sandbox, ['pause', '--nodepool', 'general'])).code).toBe(0);
    expect((await karpDrift(sandbox, ['pause', '--nodepool', 'arm', '--hold-with', 'node'])).code).toBe(0);
    expect((await karpDrift(sandbox, ['resume'])).code).toBe(0);
    expect(uncovered(sandbox, 'karp-drift-upgrade')).toEqual([]);
    expect(new Set(uncovered(sandbox, 'karp-drift-readonly').map((r) => r.split('/').slice(0, 2).join('/')))).toEqual(
      new Set([
        'create coordination.k8s.io/leases',
        'update coordination.k8s.io/leases',
        'patch karpenter.sh/nodepools',
        'patch core/nodes',
        'create core/events',
      ]),
    );
  });

  it('never prints the kubeconfig token, even with -v', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-v', '--no-wait']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('debug:');
    expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.kube.token);
    expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.env.AWS_SECRET_ACCESS_KEY);
  });
});
