import { describe, expect, it } from 'vitest';
import { applyJsonPatch, jsonMergePatch, strategicMergePatch } from '../../../src/sandbox/kube-api/patch.js';
import { ApiStatusError, type KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { karpenterCrd, nodes, podDisruptionBudgets, pods } from './resources.js';

function statusError(fn: () => unknown): ApiStatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiStatusError) return err;
    throw err;
  }
  throw new Error('expected an ApiStatusError');
}

const node: KubeObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'ip-10-0-47-183',
    labels: { 'karpenter.sh/nodepool': 'general-purpose', 'kubernetes.io/arch': 'amd64' },
  },
  spec: {
    providerID: 'aws:///us-west-2a/i-0a9c3f7e51d2b8046',
    taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
  },
};

describe('jsonMergePatch', () => {
  it.each([
    {
      name: 'null deletes a key, nested',
      target: { a: { b: 1, c: 2 } },
      patch: { a: { b: null } },
      result: { a: { c: 2 } },
    },
    {
      name: 'objects merge',
      target: { a: { b: 1 } },
      patch: { a: { d: 3 }, e: 'x' },
      result: { a: { b: 1, d: 3 }, e: 'x' },
    },
    { name: 'a list replaces a list', target: { l: [1, 2, 3] }, patch: { l: [4] }, result: { l: [4] } },
    {
      name: 'an object replaces a scalar',
      target: { a: 'x' },
      patch: { a: { b: null, c: 1 } },
      result: { a: { c: 1 } },
    },
    { name: 'a non-object patch replaces the document', target: { a: 1 }, patch: ['x'], result: ['x'] },
    { name: 'deleting a missing key changes nothing', target: { a: 1 }, patch: { z: null }, result: { a: 1 } },
  ])('$name (RFC 7396)', ({ target, patch, result }) => {
    expect(jsonMergePatch(target, patch)).toEqual(result);
  });
});

describe('applyJsonPatch', () => {
  it('adds, replaces and removes, unescaping ~1 in paths, without touching the target', () => {
    const patched = applyJsonPatch(node, [
      { op: 'add', path: '/metadata/labels/karpenter.sh~1disrupted', value: 'true' },
      { op: 'replace', path: '/metadata/labels/kubernetes.io~1arch', value: 'arm64' },
      { op: 'remove', path: '/spec/taints/0' },
      { op: 'test', path: '/spec/providerID', value: 'aws:///us-west-2a/i-0a9c3f7e51d2b8046' },
    ]);
    expect(patched.metadata.labels).toEqual({
      'karpenter.sh/nodepool': 'general-purpose',
      'kubernetes.io/arch': 'arm64',
      'karpenter.sh/disrupted': 'true',
    });
    expect(patched.spec).toEqual({ providerID: 'aws:///us-west-2a/i-0a9c3f7e51d2b8046', taints: [] });
    expect(node.metadata.labels).toEqual({ 'karpenter.sh/nodepool': 'general-purpose', 'kubernetes.io/arch': 'amd64' });
  });

  it.each([
    {
      op: { op: 'test', path: '/spec/providerID', value: 'aws:///other' },
      cause: 'testing value /spec/providerID failed: test failed',
    },
    {
      op: { op: 'remove', path: '/metadata/labels/missing' },
      cause:
        "error in remove for path: '/metadata/labels/missing': unable to remove nonexistent key: missing: missing value",
    },
    {
      op: { op: 'replace', path: '/spec/unschedulable', value: true },
      cause: 'replace operation does not apply: doc is missing key: /spec/unschedulable: missing value',
    },
    {
      op: { op: 'add', path: '/status/conditions/0', value: {} },
      cause: 'add operation does not apply: doc is missing path: "/status/conditions/0": missing value',
    },
  ])('answers 422 Invalid when $op.op does not apply', ({ op, cause }) => {
    const err = statusError(() => applyJsonPatch(node, [op]));
    expect(err).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
    expect(err.details?.causes).toEqual([{ reason: '', message: cause, field: '' }]);
  });

  it('answers 400 when the body is not a list of operations', () => {
    expect(statusError(() => applyJsonPatch(node, { op: 'add' }))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    });
  });
});

describe('strategicMergePatch', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'shop',
      finalizers: ['example.com/a'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1' }],
    },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
        { name: 'proxy', image: 'envoy:1' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };

  it.each([
    {
      // strategicpatch `mergeSortedSlice` puts the patch's new items before the server-only ones.
      name: 'merges containers by name and their env by name, new items first',
      patch: { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }] }] } },
      path: (o: KubeObject) => o.spec,
      expected: {
        containers: [
          {
            name: 'app',
            image: 'app:2',
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '1' },
            ],
          },
          { name: 'proxy', image: 'envoy:1' },
        ],
        tolerations: [{ key: 'a', operator: 'Exists' }],
        volumes: [{ name: 'data', emptyDir: {} }],
      },
    },
    {
      name: 'deletes a container with $patch: delete',
      patch: { spec: { containers: [{ name: 'proxy', $patch: 'delete' }] } },
      path: (o: KubeObject) => (o.spec as { containers: unknown }).containers,
      expected: [{ name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] }],
    },
    {
      name: 'replaces the list with $patch: replace',
      patch: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'only:1' }] } },
      path: (o: KubeObject) => (o.spec as { containers: unknown }).containers,
      expected: [{ name: 'only', image: 'only:1' }],
    },
    {
      name: 'orders the merged list by $setElementOrder',
      patch: {
        spec: {
          '$setElementOrder/containers': [{ name: 'proxy' }, { name: 'app' }],
          containers: [{ name: 'app', image: 'app:3' }],
        },
      },
      path: (o: KubeObject) =>
        (o.spec as { containers: Array<{ name: string; image: string }> }).containers.map(
          (c) => `${c.name}=${c.image}`,
        ),
      expected: ['proxy=envoy:1', 'app=app:3'],
    },
    {
      name: 'replaces tolerations whole: the list has no patch strategy',
      patch: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
      path: (o: KubeObject) => (o.spec as { tolerations: unknown }).tolerations,
      expected: [{ key: 'b', operator: 'Exists' }],
    },
    {
      name: 'unions metadata.finalizers and removes with $deleteFromPrimitiveList',
      patch: { metadata: { finalizers: ['example.com/b'], '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } },
      path: (o: KubeObject) => o.metadata.finalizers,
      expected: ['example.com/b'],
    },
    {
      name: 'merges ownerReferences by uid, new ones first',
      patch: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' }] } },
      path: (o: KubeObject) => o.metadata.ownerReferences?.map((r) => r.uid),
      expected: ['u2', 'u1'],
    },
    {
      name: 'keeps only $retainKeys in a volume, so a source can be switched',
      patch: { spec: { volumes: [{ name: 'data', hostPath: { path: '/data' }, $retainKeys: ['hostPath', 'name'] }] } },
      path: (o: KubeObject) => (o.spec as { volumes: unknown }).volumes,
      expected: [{ name: 'data', hostPath: { path: '/data' } }],
    },
    {
      name: 'empties a map with $patch: delete and deletes a key with null',
      patch: {
        metadata: { namespace: null },
        spec: { containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] },
      },
      path: (o: KubeObject) => [
        o.metadata.namespace,
        (o.spec as { containers: Array<{ env?: unknown }> }).containers[0]?.env,
      ],
      expected: [undefined, []],
    },
  ])('$name', ({ patch, path, expected }) => {
    expect(path(strategicMergePatch(pod, patch, pods))).toEqual(expected);
  });

  it('replaces node taints whole (no patchStrategy in core/v1 NodeSpec) and merges labels', () => {
    const patched = strategicMergePatch(
      node,
      { metadata: { labels: { 'karpenter.sh/initialized': 'true' } }, spec: { taints: [] } },
      nodes,
    );
    expect(patched.spec).toEqual({ providerID: 'aws:///us-west-2a/i-0a9c3f7e51d2b8046', taints: [] });
    expect(Object.keys(patched.metadata.labels ?? {})).toEqual([
      'karpenter.sh/nodepool',
      'kubernetes.io/arch',
      'karpenter.sh/initialized',
    ]);
  });

  it('replaces a PodDisruptionBudget selector whole (patchStrategy:"replace")', () => {
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } } },
    };
    const patched = strategicMergePatch(
      pdb,
      { spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } } },
      podDisruptionBudgets,
    );
    expect(patched.spec).toEqual({ selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } });
  });

  it.each([
    {
      name: 'an item without its merge key',
      patch: { spec: { containers: [{ image: 'x' }] } },
      code: 500,
      message: 'map: map[image:x] does not contain declared merge key: name',
    },
    {
      name: 'a malformed $retainKeys',
      patch: { spec: { $retainKeys: 'hostPath' } },
      code: 400,
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a malformed $deleteFromPrimitiveList',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } },
      code: 400,
      message: 'invalid patch format of primitive list',
    },
  ])('refuses $name', ({ patch, code, message }) => {
    expect(statusError(() => strategicMergePatch(pod, patch, pods))).toMatchObject({ code, message });
  });

  it('answers 415 for a custom resource, naming the patch types it accepts', () => {
    const { resource } = karpenterCrd('karpenter.sh_nodeclaims.yaml');
    const nodeClaim = { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'general-purpose-8zq4v' } };
    expect(
      statusError(() => strategicMergePatch(nodeClaim, { metadata: { labels: { a: 'b' } } }, resource)),
    ).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });
});
