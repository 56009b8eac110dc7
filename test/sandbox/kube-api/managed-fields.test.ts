import { describe, expect, it } from 'vitest';
import {
  fieldSetFromFieldsV1,
  fieldsV1FromFieldSet,
  pathString,
  setPaths,
} from '../../../src/sandbox/kube-api/field-set.js';
import { builtinListSemantics, crdListSemantics } from '../../../src/sandbox/kube-api/list-semantics.js';
import { recordUpdate } from '../../../src/sandbox/kube-api/managed-fields.js';
import { appliedFieldSet } from '../../../src/sandbox/kube-api/typed-fields.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/sandbox/kube-api/types.js';
import { karpenterCrd, pods } from './resources.js';

const T1 = '2025-08-20T14:00:00Z';
const T2 = '2025-08-20T14:05:00.500Z';
const podLists = builtinListSemantics('pods');

function pod(
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
  status?: Record<string, unknown>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop', ...metadata },
    spec,
    ...(status ? { status } : {}),
  };
}

const update = (old: KubeObject | undefined, updated: KubeObject, manager: string, now = T1, subresource?: 'status') =>
  recordUpdate({ old, updated, manager, now, resource: pods, subresource, listSemantics: podLists });

const fieldsOf = (obj: KubeObject) =>
  obj.metadata.managedFields?.map((m) => [m.manager, m.operation, m.subresource ?? '', m.time, m.fieldsV1]);

describe('FieldsV1', () => {
  it('round-trips, members marked with `.` and keys sorted as structured-merge-diff orders path elements', () => {
    const fields = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"app"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
        'f:nodeSelector': {},
      },
      'f:status': { 'f:podIPs': { 'k:{"ip":"10.0.0.7"}': {} } },
    };
    const shuffled = { 'f:status': fields['f:status'], 'f:spec': fields['f:spec'], 'f:metadata': fields['f:metadata'] };
    expect(JSON.stringify(fieldsV1FromFieldSet(fieldSetFromFieldsV1(shuffled)))).toBe(JSON.stringify(fields));
  });

  it('shares one frozen trie below the root between entries that record the same fields, and none between others', () => {
    const kubelet = (ready: string) => ({
      'f:status': {
        'f:conditions': { [`k:{"type":"${ready}"}`]: { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } },
        'f:phase': {},
      },
    });
    const built = (f: Record<string, unknown>) => fieldsV1FromFieldSet(fieldSetFromFieldsV1(f));
    const [a, b, other] = [built(kubelet('Ready')), built(kubelet('Ready')), built(kubelet('ContainersReady'))];
    expect(a).toEqual(kubelet('Ready'));
    expect(a).not.toBe(b); // the root is an entry's own: only what is below it is shared
    expect(a['f:status']).toBe(b['f:status']);
    expect(other['f:status']).not.toBe(a['f:status']);
    expect(other).toEqual(kubelet('ContainersReady'));
    expect(Object.isFrozen(a['f:status'])).toBe(true);
    // A stored trie cannot be changed through another object that shares it.
    expect(() => ((a['f:status'] as Record<string, unknown>)['f:phase'] = { 'f:x': {} })).toThrow(TypeError);
  });

  it.each([
    [['f:spec', 'f:amiSelectorTerms'], '.spec.amiSelectorTerms'],
    [['f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image'], '.spec.containers[name="app"].image'],
    [['f:spec', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.spec.ports[containerPort=80,protocol="TCP"]'],
    [
      ['f:metadata', 'f:finalizers', 'v:"karpenter.sh/termination"'],
      '.metadata.finalizers[="karpenter.sh/termination"]',
    ],
    [['f:spec', 'f:args', 'i:2'], '.spec.args[2]'],
  ])('prints %j as %s', (path, text) => {
    expect(pathString(path)).toBe(text);
  });
});

describe('appliedFieldSet', () => {
  it('owns leaves, keyed and set items, whole atomic lists and empty maps, but not the maps on the way', () => {
    const applied = pod(
      {
        containers: [{ name: 'app', image: 'app:1', args: ['--port', '80'] }],
        tolerations: [{ operator: 'Exists' }],
        nodeSelector: {},
      },
      { finalizers: ['example.com/keep'] },
    );
    expect(setPaths(appliedFieldSet(applied, podLists)).map(pathString)).toEqual([
      '.apiVersion',
      '.kind',
      '.metadata.name',
      '.metadata.namespace',
      '.metadata.finalizers[="example.com/keep"]',
      '.spec.nodeSelector',
      '.spec.tolerations',
      '.spec.containers[name="app"]',
      '.spec.containers[name="app"].args',
      '.spec.containers[name="app"].image',
      '.spec.containers[name="app"].name',
    ]);
  });
});

describe('recordUpdate', () => {
  const created = update(
    undefined,
    pod({ containers: [{ name: 'app', image: 'app:1' }] }, { labels: { app: 'web' } }),
    'kubectl-create',
  );

  it('records a create as an Update by its manager, without the server-owned fields', () => {
    expect(fieldsOf(created)).toEqual([
      [
        'kubectl-create',
        'Update',
        '',
        T1,
        {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      ],
    ]);
  });

  it('moves the fields a write changes to its manager and drops an owner left with nothing', () => {
    const relabelled = update(
      created,
      pod({ containers: [{ name: 'app', image: 'app:2' }] }, { labels: { app: 'shop' } }),
      'kubectl-edit',
      T2,
    );
    expect(fieldsOf(relabelled)).toEqual([
      [
        'kubectl-create',
        'Update',
        '',
        T1,
        {
          'f:metadata': { 'f:labels': {} },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {} } } },
        },
      ],
      [
        'kubectl-edit',
        'Update',
        '',
        '2025-08-20T14:05:00Z',
        {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } },
        },
      ],
    ]);
    const unlabelled = update(relabelled, pod({ containers: [{ name: 'app', image: 'app:2' }] }), 'kubectl-edit', T2);
    expect(unlabelled.metadata.managedFields?.map((m) => [m.manager, m.fieldsV1])).toEqual([
      ['kubectl-create', { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {} } } } }],
      ['kubectl-edit', { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } } }],
    ]);
  });

  it('leaves an existing object nobody tracks untracked', () => {
    const untracked = pod({ containers: [{ name: 'app', image: 'app:1' }] }, { uid: 'uid-1' });
    expect(
      update(untracked, pod({ containers: [{ name: 'app', image: 'app:2' }] }), 'kubectl-edit').metadata.managedFields,
    ).toBeUndefined();
  });

  it('adds nothing for a write that changes nothing', () => {
    expect(update(created, created, 'kubectl-edit', T2).metadata.managedFields).toEqual(created.metadata.managedFields);
  });

  it('keeps a status subresource write in an entry of its own, and ignores managedFields sent to a subresource', () => {
    const sent: ManagedFieldsEntry[] = [
      {
        manager: 'x',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': {} },
      },
    ];
    const running = pod(
      created.spec as Record<string, unknown>,
      { labels: { app: 'web' }, managedFields: sent },
      { phase: 'Running', podIPs: [{ ip: '10.0.0.7' }] },
    );
    expect(fieldsOf(update(created, running, 'kubelet', T2, 'status'))).toEqual([
      ...(fieldsOf(created) ?? []),
      [
        'kubelet',
        'Update',
        'status',
        '2025-08-20T14:05:00Z',
        {
          'f:status': {
            '.': {},
            'f:phase': {},
            'f:podIPs': { '.': {}, 'k:{"ip":"10.0.0.7"}': { '.': {}, 'f:ip': {} } },
          },
        },
      ],
    ]);
  });

  it('takes managedFields a client writes on the main resource, and `[{}]` resets them', () => {
    const rewritten: ManagedFieldsEntry[] = [
      {
        manager: 'gitops',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:containers': {} } },
      },
    ];
    const taken = update(
      created,
      { ...created, metadata: { ...created.metadata, managedFields: rewritten } },
      'kubectl-edit',
      T2,
    );
    expect(taken.metadata.managedFields).toEqual(rewritten);
    const reset = update(
      created,
      { ...created, metadata: { ...created.metadata, managedFields: [{} as ManagedFieldsEntry] } },
      'kubectl-edit',
      T2,
    );
    expect(reset.metadata.managedFields).toBeUndefined();
  });
});

describe('list semantics', () => {
  const nodeClass = crdListSemantics(karpenterCrd('karpenter.k8s.aws_ec2nodeclasses.yaml').schema);
  const nodeClaim = crdListSemantics(karpenterCrd('karpenter.sh_nodeclaims.yaml').schema);
  const nodePool = crdListSemantics(karpenterCrd('karpenter.sh_nodepools.yaml').schema);

  it.each([
    { kind: 'EC2NodeClass', lookup: nodeClass, path: 'spec.amiSelectorTerms', semantics: { type: 'atomic' } },
    { kind: 'EC2NodeClass', lookup: nodeClass, path: 'status.conditions', semantics: { type: 'atomic' } },
    { kind: 'EC2NodeClass', lookup: nodeClass, path: 'metadata.finalizers', semantics: { type: 'set' } },
    { kind: 'NodeClaim', lookup: nodeClaim, path: 'status.conditions', semantics: { type: 'map', keys: ['type'] } },
    { kind: 'NodeClaim', lookup: nodeClaim, path: 'spec.requirements', semantics: { type: 'atomic' } },
    { kind: 'NodePool', lookup: nodePool, path: 'spec.disruption.budgets.reasons', semantics: { type: 'set' } },
    { kind: 'NodePool', lookup: nodePool, path: 'metadata.ownerReferences', semantics: { type: 'map', keys: ['uid'] } },
    {
      kind: 'Pod',
      lookup: podLists,
      path: 'spec.containers.ports',
      semantics: { type: 'map', keys: ['containerPort', 'protocol'] },
    },
    { kind: 'Pod', lookup: podLists, path: 'spec.tolerations', semantics: { type: 'atomic' } },
    { kind: 'Node', lookup: builtinListSemantics('nodes'), path: 'spec.taints', semantics: { type: 'atomic' } },
  ])('$kind $path is $semantics.type', ({ lookup, path, semantics }) => {
    expect(lookup(path.split('.'))).toEqual(semantics);
  });
});
