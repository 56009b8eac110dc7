// manifestDiff: the rendered objects against the live ones as a whole-object server-side apply would change them, and
// what each change makes Karpenter do. Baseline: a live AL2023 class pinned by id and a NodePool, both as render
// would produce them; each row changes one thing.
import { describe, expect, it } from 'vitest';
import {
  fieldPath,
  flowValue,
  listDelta,
  manifestDiff,
  objectDiff,
  ownedPaths,
  sameValue,
  type RenderedObject,
} from '../../src/manifests/diff.js';
import type { LiveObject, ManagedFieldsEntry } from '../../src/karpenter/views.js';
import { classify, resolvedAmiFamily } from '../../src/manifests/hash-fields.js';

const FM = 'karp-drift';

const nodeClassSpec = () => ({
  role: 'KarpenterNodeRole-prod',
  subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
  securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
  amiFamily: 'AL2023',
  amiSelectorTerms: [{ id: 'ami-new1' }, { id: 'ami-new2' }],
});
const nodePoolSpec = () => ({
  template: {
    spec: {
      requirements: [
        {
          key: 'kubernetes.io/arch',
          operator: 'In',
          values: ['amd64', 'arm64'],
        },
        {
          key: 'karpenter.sh/capacity-type',
          operator: 'In',
          values: ['on-demand'],
        },
      ],
      nodeClassRef: {
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
        name: 'default',
      },
    },
  },
});

function rendered(spec: Record<string, unknown>, annotations?: Record<string, string>): RenderedObject {
  return {
    metadata: { name: 'default', ...(annotations ? { annotations } : {}) },
    spec,
  };
}
function live(spec: Record<string, unknown>, extra: Partial<LiveObject> = {}): LiveObject {
  return { resourceVersion: '1', labels: {}, annotations: {}, spec, managedFields: [], ...extra };
}
const liveClass = (overrides: Record<string, unknown> = {}) =>
  live({
    ...nodeClassSpec(),
    amiSelectorTerms: [{ id: 'ami-old1' }, { id: 'ami-old2' }],
    ...overrides,
  });

type Row = { path: string; op: string; class: string; reason?: string };
const rows = (d: ReturnType<typeof objectDiff>): Row[] =>
  d.changes.map((c) => ({
    path: c.path,
    op: c.op,
    class: c.class,
    ...(c.reason ? { reason: c.reason } : {}),
  }));

describe('objectDiff: EC2NodeClass', () => {
  const AMI: Row = {
    path: 'spec.amiSelectorTerms',
    op: 'change',
    class: 'ami-selection',
  };
  it.each<[string, Record<string, unknown>, LiveObject, Row[]]>([
    ['only the AMI pin changes', nodeClassSpec(), liveClass(), [AMI]],
    [
      'the same terms in another order: no change (lists are sets)',
      {
        ...nodeClassSpec(),
        amiSelectorTerms: [{ id: 'ami-new2' }, { id: 'ami-new1' }],
      },
      liveClass({ amiSelectorTerms: [{ id: 'ami-new1' }, { id: 'ami-new2' }] }),
      [],
    ],
    [
      'role',
      { ...nodeClassSpec(), role: 'KarpenterNodeRole-other' },
      liveClass(),
      [
        {
          path: 'spec.role',
          op: 'change',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
        AMI,
      ],
    ],
    [
      'a new tag',
      { ...nodeClassSpec(), tags: { team: 'ml' } },
      liveClass(),
      [
        AMI,
        {
          path: 'spec.tags',
          op: 'add',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
      ],
    ],
    [
      'a changed tag, key by key',
      { ...nodeClassSpec(), tags: { team: 'ml', env: 'prod' } },
      liveClass({ tags: { team: 'web', env: 'prod' } }),
      [
        AMI,
        {
          path: 'spec.tags.team',
          op: 'change',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
      ],
    ],
    ['a tag live has and the template does not set: kept by the apply', nodeClassSpec(), liveClass({ tags: { team: 'web' } }), [AMI]],
    [
      'block devices',
      {
        ...nodeClassSpec(),
        blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '100Gi' } }],
      },
      liveClass({
        blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi' } }],
      }),
      [
        AMI,
        {
          path: 'spec.blockDeviceMappings',
          op: 'change',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
      ],
    ],
    [
      'metadataOptions: only the keys the template sets (the rest are CRD defaults)',
      { ...nodeClassSpec(), metadataOptions: { httpTokens: 'required' } },
      liveClass({
        metadataOptions: {
          httpEndpoint: 'enabled',
          httpTokens: 'required',
          httpPutResponseHopLimit: 1,
        },
      }),
      [AMI],
    ],
    [
      'a field karp-drift does not know: hashed, the safe guess',
      { ...nodeClassSpec(), cpuOptions: { coreCount: 2 } },
      liveClass(),
      [
        AMI,
        {
          path: 'spec.cpuOptions',
          op: 'add',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
      ],
    ],
    [
      'detailedMonitoring: false where nothing was: a zero value, no hash change',
      { ...nodeClassSpec(), detailedMonitoring: false },
      liveClass(),
      [AMI, { path: 'spec.detailedMonitoring', op: 'add', class: 'behavioural' }],
    ],
    [
      'subnet selector: not hashed, may cause SubnetDrift',
      {
        ...nodeClassSpec(),
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'staging' } }],
      },
      liveClass(),
      [
        {
          path: 'spec.subnetSelectorTerms',
          op: 'change',
          class: 'selectors',
          reason: 'SubnetDrift',
        },
        AMI,
      ],
    ],
    [
      'security group selector',
      { ...nodeClassSpec(), securityGroupSelectorTerms: [{ id: 'sg-1' }] },
      liveClass(),
      [
        {
          path: 'spec.securityGroupSelectorTerms',
          op: 'change',
          class: 'selectors',
          reason: 'SecurityGroupDrift',
        },
        AMI,
      ],
    ],
    [
      'ipPrefixCount: hash:"ignore"',
      { ...nodeClassSpec(), ipPrefixCount: 2 },
      liveClass(),
      [AMI, { path: 'spec.ipPrefixCount', op: 'add', class: 'behavioural' }],
    ],
    [
      'alias → id terms plus the same family: AMI selection only',
      nodeClassSpec(),
      live({
        ...nodeClassSpec(),
        amiFamily: undefined,
        amiSelectorTerms: [{ alias: 'al2023@v20240807' }],
      }),
      [{ path: 'spec.amiFamily', op: 'add', class: 'ami-selection' }, AMI],
    ],
    [
      'a family other than the alias resolved to: hashed',
      { ...nodeClassSpec(), amiFamily: 'Custom' },
      live({
        ...nodeClassSpec(),
        amiFamily: undefined,
        amiSelectorTerms: [{ alias: 'al2023@v20240807' }],
      }),
      [
        {
          path: 'spec.amiFamily',
          op: 'add',
          class: 'hashed',
          reason: 'NodeClassDrift',
        },
        AMI,
      ],
    ],
  ])('%s', (_name, spec, l, expected) => {
    expect(rows(objectDiff('EC2NodeClass', rendered(spec), l, FM))).toEqual(expected);
  });

  it('an absent object is created: no changes to judge', () => {
    expect(objectDiff('EC2NodeClass', rendered(nodeClassSpec()), undefined, FM)).toEqual({
      kind: 'EC2NodeClass',
      name: 'default',
      created: true,
      changes: [],
    });
  });

  it('carries the values, and annotations are metadata that drift nothing', () => {
    const d = objectDiff('EC2NodeClass', rendered({ ...nodeClassSpec(), role: 'B' }, { note: 'x' }), liveClass({ role: 'A' }), FM);
    expect(d.changes.find((c) => c.path === 'spec.role')).toMatchObject({
      before: 'A',
      after: 'B',
    });
    expect(d.changes.find((c) => c.path === 'metadata.annotations.note')).toMatchObject({ op: 'add', after: 'x', class: 'behavioural' });
  });
});

// fieldsV1 as the API server writes it for karp-drift's earlier apply and for someone's kubectl edit.
const applied = (fieldsV1: unknown, manager = FM, operation = 'Apply'): ManagedFieldsEntry => ({ manager, operation, fieldsV1 });

describe('objectDiff: fields karp-drift applied before and the template drops', () => {
  const earlier = applied({
    'f:metadata': {
      'f:annotations': { '.': {}, 'f:karp-drift.io/target': {} },
    },
    'f:spec': {
      'f:amiFamily': {},
      'f:amiSelectorTerms': {},
      'f:role': {},
      'f:tags': { '.': {}, 'f:team': {} },
      'f:userData': {},
    },
  });
  const before = liveClass({ tags: { team: 'web' }, userData: 'echo hi' });
  const withEarlier = {
    ...before,
    annotations: { 'karp-drift.io/target': '1.29' },
    managedFields: [earlier],
  };

  it('are removed by the apply: shown as removals, classified like any change', () => {
    expect(rows(objectDiff('EC2NodeClass', rendered(nodeClassSpec()), withEarlier, FM))).toEqual([
      { path: 'spec.amiSelectorTerms', op: 'change', class: 'ami-selection' },
      {
        path: 'metadata.annotations["karp-drift.io/target"]',
        op: 'remove',
        class: 'behavioural',
      },
      {
        path: 'spec.tags.team',
        op: 'remove',
        class: 'hashed',
        reason: 'NodeClassDrift',
      },
      {
        path: 'spec.userData',
        op: 'remove',
        class: 'hashed',
        reason: 'NodeClassDrift',
      },
    ]);
  });

  it('stay when another manager owns them too', () => {
    const kubectl = applied({ 'f:spec': { 'f:userData': {} } }, 'kubectl-edit', 'Update');
    const paths = objectDiff('EC2NodeClass', rendered(nodeClassSpec()), { ...withEarlier, managedFields: [earlier, kubectl] }, FM).changes.map((c) => c.path);
    expect(paths).not.toContain('spec.userData');
    expect(paths).toContain('spec.tags.team');
  });

  it("someone else's fields are never removals", () => {
    const other = {
      ...before,
      managedFields: [applied({ 'f:spec': { 'f:userData': {} } }, 'argocd-controller')],
    };
    expect(rows(objectDiff('EC2NodeClass', rendered(nodeClassSpec()), other, FM))).toEqual([
      { path: 'spec.amiSelectorTerms', op: 'change', class: 'ami-selection' },
    ]);
  });

  it('dropping amiFamily karp-drift set, for an alias of the same family: AMI selection', () => {
    const pinnedById = {
      ...live(nodeClassSpec()),
      managedFields: [applied({ 'f:spec': { 'f:amiFamily': {}, 'f:amiSelectorTerms': {} } })],
    };
    const aliasPin = {
      ...nodeClassSpec(),
      amiFamily: undefined,
      amiSelectorTerms: [{ alias: 'al2023@v20241109' }],
    };
    delete aliasPin.amiFamily;
    expect(rows(objectDiff('EC2NodeClass', rendered(aliasPin), pinnedById, FM))).toEqual([
      { path: 'spec.amiSelectorTerms', op: 'change', class: 'ami-selection' },
      { path: 'spec.amiFamily', op: 'remove', class: 'ami-selection' },
    ]);
  });
});

describe('objectDiff: NodePool', () => {
  const pool = (spec: Record<string, unknown>) => ({
    ...nodePoolSpec(),
    ...spec,
  });
  const template = (spec: Record<string, unknown>, metadata?: Record<string, unknown>) => ({
    template: {
      ...(metadata ? { metadata } : {}),
      spec: { ...nodePoolSpec().template.spec, ...spec },
    },
  });
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Row[]]>([
    ['identical', nodePoolSpec(), nodePoolSpec(), []],
    [
      'capacity type: RequirementsDrifted',
      template({
        requirements: [
          nodePoolSpec().template.spec.requirements[0],
          {
            key: 'karpenter.sh/capacity-type',
            operator: 'In',
            values: ['spot'],
          },
        ],
      }),
      nodePoolSpec(),
      [
        {
          path: 'spec.template.spec.requirements',
          op: 'change',
          class: 'requirements',
          reason: 'RequirementsDrifted',
        },
      ],
    ],
    [
      'requirements in another order: no change',
      template({
        requirements: [...nodePoolSpec().template.spec.requirements].reverse(),
      }),
      nodePoolSpec(),
      [],
    ],
    [
      'nodeClassRef.name: NodePoolDrifted',
      template({
        nodeClassRef: {
          group: 'karpenter.k8s.aws',
          kind: 'EC2NodeClass',
          name: 'other',
        },
      }),
      nodePoolSpec(),
      [
        {
          path: 'spec.template.spec.nodeClassRef.name',
          op: 'change',
          class: 'hashed',
          reason: 'NodePoolDrifted',
        },
      ],
    ],
    [
      'a template label',
      template({}, { labels: { team: 'ml' } }),
      nodePoolSpec(),
      [
        {
          path: 'spec.template.metadata',
          op: 'add',
          class: 'hashed',
          reason: 'NodePoolDrifted',
        },
      ],
    ],
    [
      'taints',
      template({ taints: [{ key: 'gpu', effect: 'NoSchedule' }] }),
      nodePoolSpec(),
      [
        {
          path: 'spec.template.spec.taints',
          op: 'add',
          class: 'hashed',
          reason: 'NodePoolDrifted',
        },
      ],
    ],
    [
      'expireAfter',
      template({ expireAfter: '168h' }),
      template({ expireAfter: '720h' }),
      [
        {
          path: 'spec.template.spec.expireAfter',
          op: 'change',
          class: 'hashed',
          reason: 'NodePoolDrifted',
        },
      ],
    ],
    [
      'budgets: not hashed',
      pool({ disruption: { budgets: [{ nodes: '50%' }] } }),
      pool({
        disruption: { consolidateAfter: '0s', budgets: [{ nodes: '10%' }] },
      }),
      [{ path: 'spec.disruption.budgets', op: 'change', class: 'behavioural' }],
    ],
    [
      'limits and weight: not hashed',
      pool({ limits: { cpu: '100' }, weight: 10 }),
      nodePoolSpec(),
      [
        { path: 'spec.limits', op: 'add', class: 'behavioural' },
        { path: 'spec.weight', op: 'add', class: 'behavioural' },
      ],
    ],
  ])('%s', (_name, spec, liveSpec, expected) => {
    expect(rows(objectDiff('NodePool', rendered(spec), live(liveSpec), FM))).toEqual(expected);
  });
});

describe('helpers', () => {
  it.each<[string, string[], ReturnType<typeof classify>]>([
    ['EC2NodeClass', ['spec', 'amiSelectorTerms'], { class: 'ami-selection' }],
    ['EC2NodeClass', ['spec', 'userData'], { class: 'hashed', reason: 'NodeClassDrift' }],
    ['EC2NodeClass', ['spec', 'kubelet', 'maxPods'], { class: 'hashed', reason: 'NodeClassDrift' }],
    ['EC2NodeClass', ['spec', 'capacityReservationSelectorTerms'], { class: 'selectors', reason: 'CapacityReservationDrift' }],
    ['EC2NodeClass', ['metadata', 'labels', 'team'], { class: 'behavioural' }],
    ['NodePool', ['spec', 'template', 'spec', 'requirements'], { class: 'requirements', reason: 'RequirementsDrifted' }],
    ['NodePool', ['spec', 'template', 'spec', 'startupTaints'], { class: 'hashed', reason: 'NodePoolDrifted' }],
    ['NodePool', ['spec', 'template', 'metadata', 'annotations', 'a'], { class: 'hashed', reason: 'NodePoolDrifted' }],
    ['NodePool', ['spec', 'disruption', 'consolidateAfter'], { class: 'behavioural' }],
  ] as const)('classify %s %j', (kind, segments, expected) => {
    expect(classify(kind as 'EC2NodeClass' | 'NodePool', segments, { after: 'x' })).toEqual(expected);
  });

  it.each([
    [{ amiFamily: 'Bottlerocket', amiSelectorTerms: [{ id: 'ami-1' }] }, 'Bottlerocket'],
    [{ amiSelectorTerms: [{ alias: 'al2023@v20241109' }] }, 'AL2023'],
    [{ amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] }, 'Bottlerocket'],
    [{ amiSelectorTerms: [{ tags: { a: 'b' } }] }, 'Custom'],
  ])('resolvedAmiFamily(%j) = %s', (spec, family) => {
    expect(resolvedAmiFamily(spec)).toBe(family);
  });

  it('ownedPaths walks f: keys and stops at list items', () => {
    expect(
      ownedPaths({
        'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } },
        'f:spec': {
          '.': {},
          'f:role': {},
          'f:requirements': { 'k:{"key":"x"}': { '.': {}, 'f:key': {} } },
          'f:tags': {},
        },
      }),
    ).toEqual([
      ['metadata', 'annotations', 'a'],
      ['spec', 'role'],
      ['spec', 'requirements'],
      ['spec', 'tags'],
    ]);
  });

  it('sameValue treats lists as sets and ignores key order', () => {
    expect(sameValue([{ a: 1, b: 2 }, 'x'], ['x', { b: 2, a: 1 }])).toBe(true);
    expect(sameValue(['x'], ['x', 'x', 'y'])).toBe(false);
    expect(sameValue('2', 2)).toBe(false);
  });

  it('listDelta gives the items gone and new', () => {
    expect(listDelta([{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'c' }])).toEqual({ removed: [{ id: 'a' }], added: [{ id: 'c' }] });
  });

  it.each([
    [['spec', 'role'], 'spec.role'],
    [['spec', 'tags', 'karpenter.sh/discovery'], 'spec.tags["karpenter.sh/discovery"]'],
    [['metadata', 'annotations', 'kubernetes.io/description'], 'metadata.annotations["kubernetes.io/description"]'],
  ])('fieldPath(%j) = %s', (segments, path) => {
    expect(fieldPath(segments)).toBe(path);
  });

  it.each([
    ['KarpenterNodeRole-prod', 'KarpenterNodeRole-prod'],
    [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, '{key: kubernetes.io/arch, operator: In, values: [amd64]}'],
    [['2', 'true', 'a b'], '["2", "true", "a b"]'],
    [false, 'false'],
    ['x'.repeat(200), `${'x'.repeat(119)}… (200 chars)`],
  ])('flowValue(%j)', (value, text) => {
    expect(flowValue(value)).toBe(text);
  });

  it('manifestDiff diffs both objects', () => {
    const d = manifestDiff(
      {
        nodeClass: rendered(nodeClassSpec()),
        nodePool: rendered(nodePoolSpec()),
      },
      { nodeClass: liveClass() },
      FM,
    );
    expect(d.nodeClass.changes).toHaveLength(1);
    expect(d.nodePool.created).toBe(true);
  });
});
