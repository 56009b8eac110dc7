import { describe, expect, it } from 'vitest';
import { builtinListSemantics, crdListSemantics } from '../../../src/sandbox/kube-api/list-semantics.js';
import { recordUpdate } from '../../../src/sandbox/kube-api/managed-fields.js';
import { parseApplyPatch, serverSideApply } from '../../../src/sandbox/kube-api/server-side-apply.js';
import { ApiStatusError, type KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { karpenterCrd, pods } from './resources.js';

const { resource: ec2NodeClasses, schema } = karpenterCrd('karpenter.k8s.aws_ec2nodeclasses.yaml');
const listSemantics = crdListSemantics(schema);
const T1 = '2025-08-20T14:00:00Z';
const T2 = '2025-08-20T14:05:00Z';
const T3 = '2025-08-20T14:10:00.123Z';

function nodeClass(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default', ...metadata }, spec };
}

const baseSpec = { role: 'KarpenterNodeRole-prod', amiSelectorTerms: [{ alias: 'al2023@v20250715' }] };

function apply(
  live: KubeObject | undefined,
  applied: Record<string, unknown>,
  manager = 'karp-drift',
  force = false,
  now = T2,
): KubeObject {
  return serverSideApply({
    live,
    applied,
    manager,
    force,
    now,
    resource: ec2NodeClasses,
    name: 'default',
    listSemantics,
  });
}

/** The object as `kubectl apply` (client-side) leaves it: an Update by kubectl-client-side-apply. */
function createdByKubectl(spec: Record<string, unknown> = baseSpec): KubeObject {
  const created = nodeClass(spec) as KubeObject;
  created.metadata = { ...created.metadata, uid: 'uid-1', resourceVersion: '10', creationTimestamp: T1, generation: 1 };
  return recordUpdate({
    old: undefined,
    updated: created,
    manager: 'kubectl-client-side-apply',
    now: T1,
    resource: ec2NodeClasses,
    listSemantics,
  });
}

function conflictOf(fn: () => unknown): ApiStatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiStatusError) return err;
    throw err;
  }
  throw new Error('expected an ApiStatusError');
}

describe('serverSideApply', () => {
  it('creates the object when it does not exist and records one Apply entry without server-owned fields', () => {
    const applied = nodeClass(baseSpec, { labels: { team: 'platform' } });
    const created = apply(undefined, { ...applied, status: { amis: [] } });
    expect(created).toEqual({
      ...nodeClass(baseSpec, { labels: { team: 'platform' } }),
      metadata: {
        name: 'default',
        labels: { team: 'platform' },
        managedFields: [
          {
            manager: 'karp-drift',
            operation: 'Apply',
            apiVersion: 'karpenter.k8s.aws/v1',
            time: T2,
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:labels': { 'f:team': {} } },
              'f:spec': { 'f:amiSelectorTerms': {}, 'f:role': {} },
            },
          },
        ],
      },
    });
  });

  it('removes a field the same manager stops applying, and the map it leaves empty', () => {
    const first = apply(
      undefined,
      nodeClass({ ...baseSpec, tags: { team: 'platform' } }, { labels: { team: 'platform' } }),
      'karp-drift',
      false,
      T1,
    );
    const second = apply(first, nodeClass(baseSpec), 'karp-drift', false, T3);
    expect(second.metadata.labels).toBeUndefined();
    expect(second.spec).toEqual(baseSpec);
    expect(second.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'karp-drift',
        time: '2025-08-20T14:10:00Z',
        fieldsV1: { 'f:spec': { 'f:amiSelectorTerms': {}, 'f:role': {} } },
      }),
    ]);
  });

  it('keeps a field the applier stops applying when another manager owns it too', () => {
    const live = createdByKubectl({ ...baseSpec, tags: { team: 'platform' } });
    const first = apply(live, nodeClass({ ...baseSpec, tags: { team: 'platform' } }));
    const second = apply(first, nodeClass(baseSpec), 'karp-drift', false, T3);
    expect(second.spec).toEqual({ ...baseSpec, tags: { team: 'platform' } });
  });

  it.each([
    {
      name: 'one field',
      spec: { ...baseSpec, amiSelectorTerms: [{ id: 'ami-0c7d1e4a9f2b85e63' }] },
      message:
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using karpenter.k8s.aws/v1: .spec.amiSelectorTerms',
      fields: ['.spec.amiSelectorTerms'],
    },
    {
      name: 'two fields',
      spec: { role: 'KarpenterNodeRole-other', amiSelectorTerms: [{ id: 'ami-0c7d1e4a9f2b85e63' }] },
      message:
        'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using karpenter.k8s.aws/v1:\n- .spec.amiSelectorTerms\n- .spec.role',
      fields: ['.spec.amiSelectorTerms', '.spec.role'],
    },
  ])(
    'answers 409 naming the Update owner and the field when an apply changes $name it owns',
    ({ spec, message, fields }) => {
      const err = conflictOf(() => apply(createdByKubectl(), nodeClass(spec)));
      expect(err).toMatchObject({ code: 409, reason: 'Conflict', message });
      expect(err.details).toEqual({
        causes: fields.map((field) => ({
          reason: 'FieldManagerConflict',
          message: 'conflict with "kubectl-client-side-apply" using karpenter.k8s.aws/v1',
          field,
        })),
      });
    },
  );

  it('lets force take the field: the entry moves and the old manager keeps only the rest', () => {
    const forced = apply(
      createdByKubectl(),
      nodeClass({ ...baseSpec, amiSelectorTerms: [{ id: 'ami-0c7d1e4a9f2b85e63' }] }),
      'karp-drift',
      true,
    );
    expect(forced.spec).toEqual({
      role: 'KarpenterNodeRole-prod',
      amiSelectorTerms: [{ id: 'ami-0c7d1e4a9f2b85e63' }],
    });
    expect(forced.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'karp-drift',
        operation: 'Apply',
        fieldsV1: { 'f:spec': { 'f:amiSelectorTerms': {}, 'f:role': {} } },
      }),
      expect.objectContaining({
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        time: T1,
        fieldsV1: { 'f:spec': { '.': {}, 'f:role': {} } },
      }),
    ]);
  });

  it('shares a field applied with the value another manager set: no conflict, both own it', () => {
    const shared = apply(createdByKubectl(), nodeClass({ role: 'KarpenterNodeRole-prod' }));
    expect(shared.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'karp-drift', fieldsV1: { 'f:spec': { 'f:role': {} } } }),
      expect.objectContaining({
        manager: 'kubectl-client-side-apply',
        fieldsV1: { 'f:spec': { '.': {}, 'f:amiSelectorTerms': {}, 'f:role': {} } },
      }),
    ]);
  });

  it('replaces spec.amiSelectorTerms whole: the CRD declares no list type, so the list is atomic', () => {
    const first = apply(
      undefined,
      nodeClass({ ...baseSpec, amiSelectorTerms: [{ alias: 'al2023@latest' }, { id: 'ami-1' }] }),
    );
    const second = apply(first, nodeClass({ ...baseSpec, amiSelectorTerms: [{ id: 'ami-2' }] }));
    expect(second.spec).toEqual({ ...baseSpec, amiSelectorTerms: [{ id: 'ami-2' }] });
  });

  it('merges a keyed built-in list item by item: pod containers by name', () => {
    const pod = (containers: unknown[]) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { containers },
    });
    const lists = builtinListSemantics('pods');
    const args = { force: false, resource: pods, name: 'web', namespace: 'shop', listSemantics: lists };
    const first = serverSideApply({
      ...args,
      live: undefined,
      applied: pod([{ name: 'app', image: 'app:1' }]),
      manager: 'deployer',
      now: T1,
    });
    const second = serverSideApply({
      ...args,
      live: first,
      applied: pod([{ name: 'proxy', image: 'envoy:1' }]),
      manager: 'mesh',
      now: T2,
    });
    expect(second.spec).toEqual({
      containers: [
        { name: 'app', image: 'app:1' },
        { name: 'proxy', image: 'envoy:1' },
      ],
    });
    expect(second.metadata.managedFields?.map((m) => [m.manager, m.fieldsV1])).toEqual([
      ['deployer', { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
      ['mesh', { 'f:spec': { 'f:containers': { 'k:{"name":"proxy"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } }],
    ]);
  });

  it('gives the fields of an untracked object to "before-first-apply" before applying', () => {
    const untracked = {
      ...nodeClass(baseSpec),
      metadata: { name: 'default', uid: 'uid-1', resourceVersion: '7' },
    } as KubeObject;
    const err = conflictOf(() => apply(untracked, nodeClass({ role: 'KarpenterNodeRole-other' })));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using karpenter.k8s.aws/v1: .spec.role',
    );
  });

  it('applies status through the status subresource in an entry of its own, keeping server-owned metadata', () => {
    const live = apply(createdByKubectl(), nodeClass({ role: 'KarpenterNodeRole-prod' }));
    const status = {
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: T2 }],
    };
    const updated = serverSideApply({
      live,
      applied: { ...nodeClass({ role: 'ignored' }), status },
      manager: 'karpenter',
      force: false,
      now: T3,
      resource: ec2NodeClasses,
      name: 'default',
      subresource: 'status',
      listSemantics,
    });
    expect(updated.spec).toEqual(live.spec);
    expect(updated.status).toEqual(status);
    expect(updated.metadata).toMatchObject({
      uid: 'uid-1',
      resourceVersion: '10',
      creationTimestamp: T1,
      generation: 1,
    });
    expect(updated.metadata.managedFields?.find((m) => m.manager === 'karpenter')).toEqual({
      manager: 'karpenter',
      operation: 'Apply',
      apiVersion: 'karpenter.k8s.aws/v1',
      time: '2025-08-20T14:10:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:conditions': {} } },
      subresource: 'status',
    });
  });

  it.each([
    {
      name: 'managedFields in the body',
      applied: nodeClass(baseSpec, { managedFields: [] }),
      code: 400,
      message: 'metadata.managedFields must be nil',
    },
    {
      name: 'another version',
      applied: { ...nodeClass(baseSpec), apiVersion: 'karpenter.k8s.aws/v1beta1' },
      code: 400,
      message: 'invalid object type: karpenter.k8s.aws/v1beta1, Kind=EC2NodeClass',
    },
    {
      name: 'another kind',
      applied: { ...nodeClass(baseSpec), kind: 'NodePool' },
      code: 400,
      message: 'invalid object type: karpenter.k8s.aws/v1, Kind=NodePool',
    },
    {
      name: 'another name',
      applied: nodeClass(baseSpec, { name: 'gpu' }),
      code: 400,
      message: 'the name of the object (gpu) does not match the name on the URL (default)',
    },
    {
      name: 'a stale resourceVersion',
      applied: nodeClass(baseSpec, { resourceVersion: '9' }),
      code: 409,
      message:
        'Operation cannot be fulfilled on ec2nodeclasses.karpenter.k8s.aws "default": the object has been modified; please apply your changes to the latest version and try again',
    },
  ])('refuses $name', ({ applied, code, message }) => {
    expect(conflictOf(() => apply(createdByKubectl(), applied))).toMatchObject({ code, message });
  });
});

describe('parseApplyPatch', () => {
  it('reads YAML and JSON bodies alike', () => {
    const yaml =
      'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\n  creationTimestamp: 2025-08-20T14:00:00Z\n';
    const json =
      '{"apiVersion":"karpenter.k8s.aws/v1","kind":"EC2NodeClass","metadata":{"name":"default","creationTimestamp":"2025-08-20T14:00:00Z"}}';
    expect(parseApplyPatch(yaml)).toEqual(JSON.parse(json));
  });

  it.each([
    ['- a\n- b\n', 'error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['a: [', expect.stringMatching(/^error decoding YAML: /)],
  ])('answers 400 for %j', (body, message) => {
    expect(conflictOf(() => parseApplyPatch(body))).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });
});
