// The sandbox API server enforces RBAC over HTTP as kube-apiserver does: the admin token is in system:masters, any
// other user gets what the stored roles and bindings grant (test/sandbox/kube-api/rbac.test.ts has the rule tables),
// for requests and for SelfSubjectAccessReviews alike, with the bootstrap policy's discovery and self-review rights.
// Where kubectl is installed, `kubectl auth can-i` (a client nobody here wrote) asks the same questions.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { rawRequest, startTestCluster, userKubeconfig, type TestCluster } from './kube-api-sandbox.js';

const RBAC = 'rbac.authorization.k8s.io';
const TESTER = { name: 'karp-drift-test', groups: ['karp-drift-testers'] };
const shipped = loadAll(readFileSync(new URL('../../deploy/rbac.yaml', import.meta.url), 'utf8')) as KubeObject[];

let cluster: TestCluster;
let token: string;
let kubeconfig: string;

const as = (method: string, path: string, body?: unknown) =>
  rawRequest(cluster.server, method, path, {
    token,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });

async function review(attributes: Record<string, string>, kind: 'resourceAttributes' | 'nonResourceAttributes' = 'resourceAttributes') {
  const res = await as('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { [kind]: attributes },
  });
  expect(res.status, res.body).toBe(201);
  return (JSON.parse(res.body) as { status: { allowed: boolean; reason?: string } }).status;
}

function bind(role: string, name = `${role}-tester`): void {
  cluster.server.store.create(`clusterrolebindings.${RBAC}`, {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: RBAC, kind: 'User', name: TESTER.name }],
  });
}

function unbind(name: string): void {
  cluster.server.store.delete(`clusterrolebindings.${RBAC}`, name);
}

beforeAll(async () => {
  cluster = await startTestCluster();
  ({ token, kubeconfigPath: kubeconfig } = await userKubeconfig(cluster.server, TESTER, join(cluster.dir, 'tester')));
  // The admin applies the shipped roles over HTTP, as `kubectl apply -f deploy/rbac.yaml` would.
  for (const object of shipped) {
    const res = await rawRequest(cluster.server, 'POST', `/apis/${RBAC}/v1/clusterroles`, {
      body: JSON.stringify(object),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status, res.body).toBe(201);
  }
});
afterAll(() => cluster?.close());

describe('the sandbox authorizes every request with RBAC', () => {
  it('stores the bootstrap policy and lets the admin (system:masters) do anything', async () => {
    const roles = cluster.server.store.list(`clusterroles.${RBAC}`).map((r) => r.metadata.name);
    expect(roles).toEqual(expect.arrayContaining(['cluster-admin', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'karp-drift-readonly', 'karp-drift-upgrade']));
    const res = await rawRequest(cluster.server, 'GET', '/api/v1/nodes');
    expect(res.status).toBe(200);
  });

  it('gives a user bound to nothing discovery and self-review, and refuses the rest with kube-apiserver\'s 403', async () => {
    expect((await as('GET', '/apis')).status).toBe(200);
    expect((await as('GET', '/version')).status).toBe(200);
    expect((await rawRequest(cluster.server, 'GET', '/version', { token: null })).status).toBe(200);
    expect((await rawRequest(cluster.server, 'GET', '/apis', { token: null })).status).toBe(401);
    const nodes = await as('GET', '/api/v1/nodes');
    expect(nodes.status).toBe(403);
    expect(JSON.parse(nodes.body)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'nodes is forbidden: User "karp-drift-test" cannot list resource "nodes" in API group "" at the cluster scope',
      details: { kind: 'nodes' },
    });
    const lease = await as('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karp-drift', {});
    expect(JSON.parse(lease.body)).toMatchObject({
      message: 'leases.coordination.k8s.io "karp-drift" is forbidden: User "karp-drift-test" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"',
      details: { name: 'karp-drift', group: 'coordination.k8s.io', kind: 'leases' },
    });
    expect(await review({ verb: 'list', resource: 'nodes' })).toEqual({ allowed: false });
    expect(await review({ verb: 'get', path: '/apis' }, 'nonResourceAttributes')).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
  });

  it("lets the read-only role read the run records by name and no other ConfigMap of the namespace (aws-auth stays unread)", async () => {
    bind('karp-drift-readonly');
    try {
      const cm = { verb: 'get', group: '', resource: 'configmaps', namespace: 'kube-system' };
      expect((await review({ ...cm, name: 'karp-drift-run-07' })).allowed).toBe(true);
      expect((await review({ ...cm, name: 'aws-auth' })).allowed).toBe(false);
      expect((await review({ ...cm, verb: 'list' })).allowed).toBe(false);
      expect((await review({ ...cm, verb: 'update', name: 'karp-drift-run-07' })).allowed).toBe(false);
      expect((await as('GET', '/api/v1/namespaces/kube-system/configmaps/karp-drift-run-19')).status).toBe(404);
      expect((await as('GET', '/api/v1/namespaces/kube-system/configmaps/aws-auth')).status).toBe(403);
    } finally {
      unbind('karp-drift-readonly-tester');
    }
  });

  it('answers a review of the Lease by name as the rule with resourceNames says, and the request alike', async () => {
    bind('karp-drift-upgrade');
    try {
      const lease = { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' };
      expect(await review(lease)).toEqual({ allowed: false });
      expect(await review({ ...lease, name: 'karp-drift' })).toEqual({
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "karp-drift-upgrade-tester" of ClusterRole "karp-drift-upgrade" to User "karp-drift-test"',
      });
      expect((await review({ ...lease, name: 'someone-else' })).allowed).toBe(false);
      expect((await review({ ...lease, verb: 'create' })).allowed).toBe(true);
      expect((await review({ verb: 'patch', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: 'default' })).allowed).toBe(true);
      // delete on classes: rollback deletes what upgrade --templates created; never on nodes.
      expect((await review({ verb: 'delete', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: 'default' })).allowed).toBe(true);
      expect((await review({ verb: 'delete', group: '', resource: 'nodes', name: 'ip-10-0-0-1' })).allowed).toBe(false);
      const created = await as('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'karp-drift', namespace: 'kube-system' },
        spec: {},
      });
      expect(created.status, created.body).toBe(201);
      const read = await as('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karp-drift');
      expect(read.status).toBe(200);
      expect((await as('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karp-drift', JSON.parse(read.body))).status).toBe(200);
      // The role lists no Leases, by name or otherwise; it may not delete the one it may update.
      expect((await as('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')).status).toBe(403);
      expect((await as('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?fieldSelector=metadata.name%3Dkarp-drift')).status).toBe(403);
      expect((await review({ ...lease, verb: 'get', name: 'karp-drift' })).allowed).toBe(true);
      expect((await as('DELETE', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karp-drift')).status).toBe(403);
    } finally {
      unbind('karp-drift-upgrade-tester');
    }
  });

  it('reads a list or watch pinned by fieldSelector metadata.name as naming that object (RequestInfoFactory)', async () => {
    cluster.server.store.create(`clusterroles.${RBAC}`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'one-lease' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['karp-drift'], verbs: ['list', 'watch'] }],
    });
    bind('one-lease');
    try {
      const path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
      expect((await as('GET', `${path}?fieldSelector=metadata.name%3Dkarp-drift`)).status).toBe(200);
      expect((await as('GET', `${path}?fieldSelector=metadata.name%3Dother`)).status).toBe(403);
      expect((await as('GET', path)).status).toBe(403);
    } finally {
      unbind('one-lease-tester');
    }
  });

  it('aggregates ClusterRoles by label, as the clusterrole-aggregation controller writes them, and authorizes with the result', async () => {
    const store = cluster.server.store;
    store.create(`clusterroles.${RBAC}`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'platform-readers' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'platform.example.com/aggregate-to-readers': 'true' } }] },
    });
    bind('platform-readers');
    try {
      expect((await as('GET', '/api/v1/nodes')).status).toBe(403);
      store.create(`clusterroles.${RBAC}`, {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'nodes-reader', labels: { 'platform.example.com/aggregate-to-readers': 'true' } },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }],
      });
      expect(store.get(`clusterroles.${RBAC}`, 'platform-readers')?.rules).toEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
      expect((await as('GET', '/api/v1/nodes')).status).toBe(200);
      store.delete(`clusterroles.${RBAC}`, 'nodes-reader');
      expect(store.get(`clusterroles.${RBAC}`, 'platform-readers')?.rules).toEqual([]);
      expect((await as('GET', '/api/v1/nodes')).status).toBe(403);
    } finally {
      unbind('platform-readers-tester');
    }
  });

  it('answers 422 to a review with neither (or both) kinds of attributes', async () => {
    const res = await as('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: {} });
    expect(res.status).toBe(422);
    expect(res.body).toContain('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  });

  it('answers kubectl auth can-i as a cluster would (the Lease by name yes, without a name no)', async () => {
    bind('karp-drift-upgrade');
    try {
      const canI = async (...args: string[]) => {
        const run = await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfig, 'auth', 'can-i', ...args]).then(
          ({ stdout }) => stdout,
          (err: { stdout?: string; code?: unknown }) => {
            if (err.code === 'ENOENT') return 'skipped';
            return err.stdout ?? '';
          },
        );
        return run.trim();
      };
      const answers = [
        await canI('update', 'leases.coordination.k8s.io/karp-drift', '-n', 'kube-system'),
        await canI('update', 'leases.coordination.k8s.io', '-n', 'kube-system'),
        await canI('patch', 'ec2nodeclasses.karpenter.k8s.aws'),
        await canI('delete', 'nodes'),
      ];
      if (answers[0] === 'skipped') return console.warn('SKIPPED: kubectl auth can-i needs kubectl on PATH');
      expect(answers).toEqual(['yes', 'no', 'yes', 'no']);
    } finally {
      unbind('karp-drift-upgrade-tester');
    }
  });
});
