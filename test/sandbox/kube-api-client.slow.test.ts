// The sandbox API server driven by @kubernetes/client-node through the kubeconfig it writes: the client karp-drift
// itself uses, so what passes here is what karp-drift will meet (src/sandbox/README.md lists these behaviours).
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  PolicyV1Api,
  VersionApi,
  Watch,
  setHeaderOptions,
  type KubernetesObject,
  type V1Node,
} from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StatusBody } from '../../src/sandbox/kube-api/status.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { ec2NodeClass, node, nodeClaim, rawRequest, startTestCluster, type TestCluster } from './kube-api-sandbox.js';

let cluster: TestCluster;
let core: CoreV1Api;
let custom: CustomObjectsApi;
const nodeClaims = {
  group: 'karpenter.sh',
  version: 'v1',
  plural: 'nodeclaims',
};
const nodeClasses = {
  group: 'karpenter.k8s.aws',
  version: 'v1',
  plural: 'ec2nodeclasses',
};

beforeAll(async () => {
  cluster = await startTestCluster({ bookmarkIntervalMs: 200 });
  core = cluster.kc.makeApiClient(CoreV1Api);
  custom = cluster.kc.makeApiClient(CustomObjectsApi);
});
afterAll(() => cluster.close());
afterEach(() => cluster.server.faults.clear());

async function apiError(promise: Promise<unknown>): Promise<{
  code: number;
  status: Partial<StatusBody>;
  headers: Record<string, string>;
}> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const e = err as ApiException<string>;
    // The generated client keeps the body text for the codes its spec declares, and nothing for the others (401).
    const status = typeof e.body === 'string' ? (JSON.parse(e.body) as StatusBody) : {};
    return { code: e.code, status, headers: e.headers };
  }
  throw new Error('expected the call to fail');
}

const apply = (manager: string, body: object, force = false) =>
  custom.patchClusterCustomObject(
    {
      ...nodeClasses,
      name: (body as KubeObject).metadata.name ?? '',
      body,
      fieldManager: manager,
      force,
    },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  ) as Promise<KubeObject>;

describe('discovery and authentication', () => {
  it('reports the EKS control-plane version and serves the Karpenter kinds by discovery', async () => {
    const version = await cluster.kc.makeApiClient(VersionApi).getCode();
    expect(version).toMatchObject({
      major: '1',
      minor: '30+',
      gitVersion: 'v1.30.4-eks-a737599',
      platform: 'linux/amd64',
    });
    // KubernetesObjectApi finds the resource for a kind through /apis/<group>/<version>.
    const objects = KubernetesObjectApi.makeApiClient(cluster.kc);
    await objects.create(ec2NodeClass('discovered') as KubernetesObject);
    const read = await objects.read({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'discovered' },
    });
    expect(read.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 401 Unauthorized without a valid bearer token', async () => {
    const response = await rawRequest(cluster.server, 'GET', '/api/v1/nodes', {
      token: null,
    });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({
      kind: 'Status',
      reason: 'Unauthorized',
      code: 401,
    });
    const wrong = new KubeConfig();
    wrong.loadFromString(cluster.kc.exportConfig().replace(cluster.server.token, 'not-the-token'));
    expect((await apiError(wrong.makeApiClient(CoreV1Api).listNode())).code).toBe(401);
  });
});

describe('lists', () => {
  beforeAll(() => {
    for (let i = 0; i < 25; i++) {
      const pool = i % 2 === 0 ? 'default' : 'gpu';
      cluster.server.store.create(
        'nodes',
        node(`page-${String(i).padStart(2, '0')}`, {
          'karpenter.sh/nodepool': pool,
        }),
      );
    }
  });

  it('pages with limit and continue, in name order, and expires a continue token older than the history', async () => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await core.listNode({
        limit: 10,
        _continue: token,
        labelSelector: 'karpenter.sh/nodepool',
      });
      expect(page.items.length).toBeLessThanOrEqual(10);
      names.push(...page.items.map((n) => n.metadata?.name ?? ''));
      token = page.metadata?._continue;
    } while (token);
    expect(names).toEqual([...names].sort());
    expect(names).toHaveLength(25);

    const first = await core.listNode({ limit: 5 });
    cluster.server.store.create('nodes', node('page-late'));
    cluster.server.store.objects.compact();
    const expired = await apiError(core.listNode({ limit: 5, _continue: first.metadata?._continue }));
    expect(expired.code).toBe(410);
    expect(expired.status).toMatchObject({ reason: 'Expired', code: 410 });
    expect(expired.status.message).toMatch(/^The provided continue parameter is too old/);
  });

  it('filters by label selectors (=, !=, in, notin, exists, !key)', async () => {
    const names = async (labelSelector: string) =>
      (await core.listNode({ labelSelector })).items
        .map((n) => n.metadata?.name)
        .filter((n) => n?.startsWith('page-0'));
    expect(await names('karpenter.sh/nodepool=gpu')).toEqual(['page-01', 'page-03', 'page-05', 'page-07', 'page-09']);
    expect(await names('karpenter.sh/nodepool!=gpu')).toEqual(['page-00', 'page-02', 'page-04', 'page-06', 'page-08']);
    expect(await names('karpenter.sh/nodepool in (gpu, other)')).toHaveLength(5);
    expect(await names('karpenter.sh/nodepool notin (gpu)')).toHaveLength(5);
    expect(await names('karpenter.sh/nodepool')).toHaveLength(10);
    expect(await names('!karpenter.sh/nodepool')).toEqual([]);
  });

  it('filters pods by spec.nodeName and events by involvedObject, and refuses unsupported fields with 400', async () => {
    await core.createNamespace({ body: { metadata: { name: 'fields' } } });
    for (const [name, nodeName] of [
      ['a', 'page-00'],
      ['b', 'page-01'],
      ['c', 'page-00'],
    ]) {
      await core.createNamespacedPod({
        namespace: 'fields',
        body: {
          metadata: { name },
          spec: { nodeName, containers: [{ name: 'app', image: 'nginx' }] },
        },
      });
    }
    const onNode = await core.listNamespacedPod({
      namespace: 'fields',
      fieldSelector: 'spec.nodeName=page-00',
    });
    expect(onNode.items.map((p) => p.metadata?.name)).toEqual(['a', 'c']);
    const everywhere = await core.listPodForAllNamespaces({
      fieldSelector: 'spec.nodeName=page-01,metadata.namespace=fields',
    });
    expect(everywhere.items.map((p) => p.metadata?.name)).toEqual(['b']);

    await core.createNamespacedEvent({
      namespace: 'fields',
      body: {
        metadata: { name: 'disruption-blocked' },
        involvedObject: { kind: 'NodePool', name: 'default' },
        reason: 'DisruptionBlocked',
        type: 'Normal',
        message: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
      },
    });
    const events = await core.listNamespacedEvent({
      namespace: 'fields',
      fieldSelector: 'involvedObject.kind=NodePool,reason=DisruptionBlocked',
    });
    expect(events.items.map((e) => e.metadata?.name)).toEqual(['disruption-blocked']);

    const refused = await apiError(core.listNode({ fieldSelector: 'spec.nodeName=x' }));
    expect(refused.code).toBe(400);
    expect(refused.status).toMatchObject({
      reason: 'BadRequest',
      message: 'field label not supported: spec.nodeName',
    });
  });
});

describe('watch', () => {
  it('resumes from the last resourceVersion after the server drops the connection, and expires old ones with 410', async () => {
    await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('watched'),
    });
    const seen: Array<{ type: string; name?: string; rv?: string }> = [];
    let lastRv = '';
    const waitFor = (predicate: () => boolean) => expect.poll(predicate, { timeout: 10_000, interval: 20 }).toBe(true);
    const watch = new Watch(cluster.kc);
    let dropped = false;
    await watch.watch(
      '/apis/karpenter.sh/v1/nodeclaims',
      {},
      (type, object: KubeObject) => {
        seen.push({
          type,
          name: object.metadata.name,
          rv: object.metadata.resourceVersion,
        });
        lastRv = object.metadata.resourceVersion ?? lastRv;
      },
      () => (dropped = true),
    );
    await waitFor(() => seen.some((e) => e.type === 'ADDED' && e.name === 'watched'));

    cluster.server.faults.dropWatches();
    await waitFor(() => dropped);
    // A change made while no watch is open: the resumed watch must replay it.
    const patch = {
      metadata: {
        labels: { 'karpenter.sh/nodepool': 'default', moved: 'yes' },
      },
    };
    await custom.patchClusterCustomObject(
      { ...nodeClaims, name: 'watched', body: patch },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const resumed: Array<{ type: string; object: KubeObject }> = [];
    const controller = await watch.watch(
      '/apis/karpenter.sh/v1/nodeclaims',
      { resourceVersion: lastRv },
      (type, object: KubeObject) => resumed.push({ type, object }),
      () => undefined,
    );
    await waitFor(() => resumed.some((e) => e.type === 'MODIFIED' && e.object.metadata.labels?.moved === 'yes'));
    expect(resumed.filter((e) => e.type === 'ADDED')).toEqual([]);
    controller.abort();

    cluster.server.store.objects.compact();
    const errors: Array<{ type: string; object: Record<string, unknown> }> = [];
    let ended = false;
    await watch.watch(
      '/apis/karpenter.sh/v1/nodeclaims',
      { resourceVersion: lastRv },
      (type, object: Record<string, unknown>) => errors.push({ type, object }),
      () => (ended = true),
    );
    await waitFor(() => ended);
    expect(errors).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/) as unknown,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('sends BOOKMARK events when asked and applies label selectors to both sides of a change', async () => {
    const events: Array<{ type: string; object: KubeObject }> = [];
    const controller = await new Watch(cluster.kc).watch(
      '/apis/karpenter.sh/v1/nodeclaims',
      { allowWatchBookmarks: true, labelSelector: 'team=a' },
      (type, object: KubeObject) => events.push({ type, object }),
      () => undefined,
    );
    await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('selected'),
    });
    const label = (team: string) =>
      custom.patchClusterCustomObject(
        {
          ...nodeClaims,
          name: 'selected',
          body: { metadata: { labels: { team } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await label('a');
    await label('b');
    await expect
      .poll(() => events.map((e) => e.type).filter((t) => t !== 'BOOKMARK'), {
        timeout: 10_000,
      })
      .toEqual(['ADDED', 'DELETED']);
    await expect
      .poll(() => events.some((e) => e.type === 'BOOKMARK'), {
        timeout: 10_000,
      })
      .toBe(true);
    controller.abort();
  });
});

describe('writes', () => {
  it('refuses a conflicting server-side apply naming the manager and field, and takes the field with force', async () => {
    await apply('karp-drift', ec2NodeClass('applied', { role: 'KarpenterNodeRole-a' }));
    const conflict = await apiError(apply('someone-else', ec2NodeClass('applied', { role: 'KarpenterNodeRole-b' })));
    expect(conflict.code).toBe(409);
    expect(conflict.status).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "karp-drift": .spec.role',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "karp-drift"',
            field: '.spec.role',
          },
        ],
      },
    });
    const forced = await apply('someone-else', ec2NodeClass('applied', { role: 'KarpenterNodeRole-b' }), true);
    expect((forced.spec as { role: string }).role).toBe('KarpenterNodeRole-b');
    const owners = forced.metadata.managedFields
      ?.filter((m) => JSON.stringify(m.fieldsV1).includes('"f:role"'))
      .map((m) => m.manager);
    expect(owners).toEqual(['someone-else']);
  });

  it('rejects an EC2NodeClass with an id term and no amiFamily with the CRD rule message (422)', async () => {
    const invalid = await apiError(
      apply(
        'karp-drift',
        ec2NodeClass('pinned', {
          amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }],
        }),
      ),
    );
    expect(invalid.code).toBe(422);
    expect(invalid.status).toMatchObject({
      reason: 'Invalid',
      message:
        'EC2NodeClass.karpenter.k8s.aws "pinned" is invalid: spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
      details: {
        name: 'pinned',
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
      },
    });
  });

  it('keeps a deleted object with a finalizer until the finalizer is removed', async () => {
    await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('finalized', {
        finalizers: ['karpenter.sh/termination'],
      }),
    });
    await custom.deleteClusterCustomObject({
      ...nodeClaims,
      name: 'finalized',
    });
    const terminating = (await custom.getClusterCustomObject({
      ...nodeClaims,
      name: 'finalized',
    })) as KubeObject;
    expect(terminating.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(terminating.metadata.generation).toBe(2);
    const removeFinalizer = {
      metadata: {
        finalizers: null,
        resourceVersion: terminating.metadata.resourceVersion,
      },
    };
    await custom.patchClusterCustomObject(
      { ...nodeClaims, name: 'finalized', body: removeFinalizer },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect((await apiError(custom.getClusterCustomObject({ ...nodeClaims, name: 'finalized' }))).status).toMatchObject({
      reason: 'NotFound',
      message: 'nodeclaims.karpenter.sh "finalized" not found',
    });
  });

  it('gives managedFields back through a JSON patch guarded by a test of resourceVersion (issue 23 item 5)', async () => {
    // What karp-drift's hold does to an object another manager applied: an Update takes the field it changes and owns
    // the annotation it adds (and the annotations map it created); removing that annotation again leaves no empty
    // map behind (metav1.ObjectMeta is omitempty), so the writer keeps only the field it took.
    const original = await apply('kubectl', ec2NodeClass('borrowed'));
    const before = original.metadata.managedFields;
    const path = '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/borrowed?fieldManager=karp-drift';
    const patch = async (contentType: string, body: unknown) => {
      const res = await rawRequest(cluster.server, 'PATCH', path, {
        body: JSON.stringify(body),
        headers: { 'Content-Type': contentType },
      });
      return { status: res.status, object: JSON.parse(res.body) as KubeObject & Partial<StatusBody> };
    };
    const held = await patch('application/merge-patch+json', {
      metadata: { annotations: { 'karp-drift.io/drift-hold': '{}' } },
      spec: { amiSelectorTerms: [{ alias: 'al2023@v20240901' }] },
    });
    expect(held.object.metadata.managedFields?.find((m) => m.manager === 'karp-drift')?.fieldsV1).toEqual({
      'f:metadata': { 'f:annotations': { '.': {}, 'f:karp-drift.io/drift-hold': {} } },
      'f:spec': { 'f:amiSelectorTerms': {} },
    });
    const released = await patch('application/merge-patch+json', {
      metadata: { annotations: { 'karp-drift.io/drift-hold': null } },
      spec: { amiSelectorTerms: [{ alias: 'al2023@v20240807' }] },
    });
    expect(released.object.metadata.annotations).toBeUndefined();
    expect(released.object.metadata.managedFields?.find((m) => m.manager === 'karp-drift')?.fieldsV1).toEqual({
      'f:spec': { 'f:amiSelectorTerms': {} },
    });

    const giveBack = (resourceVersion: string | undefined) =>
      patch('application/json-patch+json', [
        { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
        { op: 'replace', path: '/metadata/managedFields', value: before },
      ]);
    // A stale test fails as evanphx/json-patch words it, answered 422 (patch.go NewGenericServerResponse).
    const stale = await giveBack(original.metadata.resourceVersion);
    expect(stale.status).toBe(422);
    expect(stale.object.details?.causes?.[0]?.message).toBe('testing value /metadata/resourceVersion failed: test failed');
    // The request's entries become the object's as sent, times included, and the writer, which changed nothing
    // else, gets no entry.
    const given = await giveBack(released.object.metadata.resourceVersion);
    expect(given.status).toBe(200);
    expect(given.object.metadata.managedFields).toEqual(before);
    // The owner applies a change again without force: nobody else owns the field, so there is nothing to conflict with.
    const changed = await apply('kubectl', ec2NodeClass('borrowed', { amiSelectorTerms: [{ alias: 'al2023@v20241001' }] }));
    expect(changed.spec).toMatchObject({ amiSelectorTerms: [{ alias: 'al2023@v20241001' }] });
  });

  it('answers a stale resourceVersion with 409 Conflict and bumps generation on spec changes only', async () => {
    const created = (await custom.createClusterCustomObject({
      ...nodeClasses,
      body: ec2NodeClass('versioned'),
    })) as KubeObject;
    const replace = (body: KubeObject) =>
      custom.replaceClusterCustomObject({
        ...nodeClasses,
        name: 'versioned',
        body,
      }) as Promise<KubeObject>;
    const relabeled = await replace({
      ...created,
      metadata: { ...created.metadata, labels: { extra: 'x' } },
    });
    expect(relabeled.metadata.generation).toBe(1);
    // No fieldManager: kube-apiserver names the manager after the User-Agent up to its first "/" (node-fetch's).
    expect(relabeled.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['node-fetch', 'Update']]);
    const respec = {
      ...relabeled,
      spec: { ...(relabeled.spec as object), role: 'KarpenterNodeRole-other' },
    };
    expect((await replace(respec)).metadata.generation).toBe(2);
    const stale = await apiError(replace(respec));
    expect(stale.code).toBe(409);
    expect(stale.status.message).toBe(
      'Operation cannot be fulfilled on ec2nodeclasses.karpenter.k8s.aws "versioned": the object has been modified; please apply your changes to the latest version and try again',
    );
    const latest = (await custom.getClusterCustomObject({
      ...nodeClasses,
      name: 'versioned',
    })) as KubeObject;
    const body = {
      ...latest,
      spec: { ...(latest.spec as object), role: 'ignored' },
      status: { amis: [{ id: 'ami-new', name: 'al2023', requirements: [] }] },
    };
    const withStatus = (await custom.replaceClusterCustomObjectStatus({
      ...nodeClasses,
      name: 'versioned',
      body,
    })) as KubeObject;
    expect(withStatus.status).toEqual({
      amis: [{ id: 'ami-new', name: 'al2023', requirements: [] }],
    });
    expect(withStatus.spec).toMatchObject({ role: 'KarpenterNodeRole-other' });
    expect(withStatus.metadata.generation).toBe(2);
  });

  it("enforces the CRDs' transition rules against the stored object (NodeClaim spec is immutable)", async () => {
    const created = (await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('immutable'),
    })) as KubeObject;
    const taints = [{ key: 'example.com/special', effect: 'NoSchedule' }];
    const changed = {
      ...created,
      spec: { ...(created.spec as object), taints },
    };
    const refused = await apiError(
      custom.replaceClusterCustomObject({
        ...nodeClaims,
        name: 'immutable',
        body: changed,
      }),
    );
    expect(refused.code).toBe(422);
    expect(refused.status.message).toBe(
      'NodeClaim.karpenter.sh "immutable" is invalid: spec: Invalid value: "object": spec is immutable',
    );
  });

  it('stores nothing for dryRun=All', async () => {
    const dry = (await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('dry'),
      dryRun: 'All',
    })) as KubeObject;
    expect(dry.metadata.uid).toBeDefined();
    expect((await apiError(custom.getClusterCustomObject({ ...nodeClaims, name: 'dry' }))).code).toBe(404);
    await custom.createClusterCustomObject({
      ...nodeClaims,
      body: nodeClaim('dry'),
    });
    await custom.deleteClusterCustomObject({
      ...nodeClaims,
      name: 'dry',
      dryRun: 'All',
    });
    expect(await custom.getClusterCustomObject({ ...nodeClaims, name: 'dry' })).toBeDefined();
  });

  it('garbage-collects dependents of a deleted owner in the background and keeps them with Orphan', async () => {
    const owner = await core.createNode({ body: node('owner-a') as V1Node });
    const ownerRef = {
      apiVersion: 'v1',
      kind: 'Node',
      name: 'owner-a',
      uid: owner.metadata?.uid ?? '',
    };
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'dependent-a', ownerReferences: [ownerRef] },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      },
    });
    await core.deleteNode({ name: 'owner-a' });
    expect((await apiError(core.readNamespacedPod({ name: 'dependent-a', namespace: 'default' }))).code).toBe(404);

    const kept = await core.createNode({ body: node('owner-b') as V1Node });
    const keptRef = {
      apiVersion: 'v1',
      kind: 'Node',
      name: 'owner-b',
      uid: kept.metadata?.uid ?? '',
    };
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'dependent-b', ownerReferences: [keptRef] },
        spec: { containers: [{ name: 'c', image: 'x' }] },
      },
    });
    await core.deleteNode({ name: 'owner-b', propagationPolicy: 'Orphan' });
    const orphan = await core.readNamespacedPod({
      name: 'dependent-b',
      namespace: 'default',
    });
    expect(orphan.metadata?.ownerReferences).toBeUndefined();
  });
});

describe('faults and controllers', () => {
  it('answers 429 with Retry-After while a throttling fault is set', async () => {
    cluster.server.faults.fail({
      code: 429,
      next: 1,
      retryAfterSeconds: 3,
      verbs: ['list'],
      resources: ['nodes'],
    });
    const throttled = await apiError(core.listNode());
    expect(throttled.code).toBe(429);
    expect(throttled.headers['retry-after']).toBe('3');
    expect(throttled.status).toMatchObject({
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 3 },
    });
    await expect(core.listNode()).resolves.toBeDefined();
    const recorded = cluster.server.requests
      .filter((r) => r.verb === 'list' && r.resource === 'nodes')
      .map((r) => r.code);
    expect(recorded.slice(-2)).toEqual([429, 200]);
  });

  it('keeps PodDisruptionBudget status computed from the ready pods it selects', async () => {
    await core.createNamespace({ body: { metadata: { name: 'budgets' } } });
    const ready = (status: 'True' | 'False') => ({
      status: { conditions: [{ type: 'Ready', status }] },
    });
    for (const name of ['web-1', 'web-2', 'web-3']) {
      await core.createNamespacedPod({
        namespace: 'budgets',
        body: {
          metadata: { name, labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'x' }] },
        },
      });
      await core.patchNamespacedPodStatus(
        { name, namespace: 'budgets', body: ready('True') },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
    const policy = cluster.kc.makeApiClient(PolicyV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: 'budgets',
      body: {
        metadata: { name: 'web' },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      },
    });
    const read = () =>
      policy.readNamespacedPodDisruptionBudget({
        name: 'web',
        namespace: 'budgets',
      });
    expect((await read()).status).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
    });
    await core.patchNamespacedPodStatus(
      { name: 'web-3', namespace: 'budgets', body: ready('False') },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect((await read()).status).toMatchObject({
      currentHealthy: 2,
      disruptionsAllowed: 0,
    });
  });
});
