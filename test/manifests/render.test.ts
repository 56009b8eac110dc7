import { describe, expect, it } from 'vitest';
import type { AmiFamily } from '../../src/ami/families.js';
import { UsageError } from '../../src/errors.js';
import {
  manifestsList,
  manifestsYaml,
  pinnedArches,
  renderManifests,
  requirementsAllow,
  type PinnedAmi,
  type RenderInput,
} from '../../src/manifests/render.js';
import type { ManifestTemplates, NodeSelectorRequirement } from '../../src/manifests/schema.js';
import { readTemplates } from '../../src/manifests/templates.js';

const bundled = await readTemplates();
const userDir = new URL('../fixtures/templates/hashed-fields/', import.meta.url).pathname;
const user = await readTemplates(userDir);

const RELEASES: Record<AmiFamily, string> = {
  al2: 'v20241109',
  al2023: 'v20241109',
  bottlerocket: '1.26.1',
  windows2019: '2024.11.13',
  windows2022: '2024.11.13',
  windows2025: '2024.11.13',
};

function amis(family: AmiFamily, overrides: Partial<Record<'amd64' | 'arm64', Partial<PinnedAmi>>> = {}): PinnedAmi[] {
  return [
    { arch: 'amd64', id: 'ami-0a1b2c3d4e5f60001', release: RELEASES[family], ...overrides.amd64 },
    { arch: 'arm64', id: 'ami-0a1b2c3d4e5f60002', release: RELEASES[family], ...overrides.arm64 },
  ];
}

function input(overrides: Partial<RenderInput> = {}): RenderInput {
  const family = overrides.family ?? 'al2023';
  return { name: 'default', clusterName: 'prod-eu', role: 'KarpenterNodeRole-prod-eu', family, pin: 'id', amis: amis(family), ...overrides };
}

function withRequirements(templates: ManifestTemplates, requirements: NodeSelectorRequirement[]): ManifestTemplates {
  const t = structuredClone(templates);
  t.nodePool.spec.template.spec.requirements = requirements;
  return t;
}

function withNodeClassSpec(templates: ManifestTemplates, spec: Record<string, unknown>): ManifestTemplates {
  const t = structuredClone(templates);
  Object.assign(t.nodeClass.spec, spec);
  return t;
}

describe('renderManifests snapshots', () => {
  it('pins al2023 by id: one id term per architecture plus amiFamily', () => {
    expect(manifestsYaml(renderManifests(bundled, input()))).toMatchInlineSnapshot(`
      "apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata:
        name: default
        annotations:
          kubernetes.io/description: EC2NodeClass whose AMIs karp-drift pins
      spec:
        role: KarpenterNodeRole-prod-eu
        subnetSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
        securityGroupSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
        amiFamily: AL2023
        amiSelectorTerms:
          - id: ami-0a1b2c3d4e5f60001
          - id: ami-0a1b2c3d4e5f60002
      ---
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata:
        name: default
        annotations:
          kubernetes.io/description: NodePool for amd64 and arm64 workloads on the EC2NodeClass of the same name
      spec:
        template:
          spec:
            requirements:
              - key: kubernetes.io/arch
                operator: In
                values:
                  - amd64
                  - arm64
              - key: karpenter.sh/capacity-type
                operator: In
                values:
                  - on-demand
              - key: karpenter.k8s.aws/instance-category
                operator: In
                values:
                  - c
                  - m
                  - r
              - key: karpenter.k8s.aws/instance-generation
                operator: Gt
                values:
                  - '2'
            nodeClassRef:
              group: karpenter.k8s.aws
              kind: EC2NodeClass
              name: default
      "
    `);
  });

  it('pins bottlerocket by alias at a concrete release, with no amiFamily', () => {
    const out = renderManifests(bundled, input({ family: 'bottlerocket', pin: 'alias', name: 'bottlerocket' }));
    expect(manifestsYaml(out)).toMatchInlineSnapshot(`
      "apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata:
        name: bottlerocket
        annotations:
          kubernetes.io/description: EC2NodeClass whose AMIs karp-drift pins
      spec:
        role: KarpenterNodeRole-prod-eu
        subnetSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
        securityGroupSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
        amiSelectorTerms:
          - alias: bottlerocket@v1.26.1
      ---
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata:
        name: bottlerocket
        annotations:
          kubernetes.io/description: NodePool for amd64 and arm64 workloads on the EC2NodeClass of the same name
      spec:
        template:
          spec:
            requirements:
              - key: kubernetes.io/arch
                operator: In
                values:
                  - amd64
                  - arm64
              - key: karpenter.sh/capacity-type
                operator: In
                values:
                  - on-demand
              - key: karpenter.k8s.aws/instance-category
                operator: In
                values:
                  - c
                  - m
                  - r
              - key: karpenter.k8s.aws/instance-generation
                operator: Gt
                values:
                  - '2'
            nodeClassRef:
              group: karpenter.k8s.aws
              kind: EC2NodeClass
              name: bottlerocket
      "
    `);
  });

  it("keeps everything else a user's template carries", () => {
    const out = renderManifests(user, input({ name: 'team-a', clusterName: 'prod-eu' }));
    expect(manifestsYaml(out)).toMatchInlineSnapshot(`
      "apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata:
        name: team-a
        labels:
          team: a
      spec:
        role: KarpenterNodeRole-prod-eu
        amiFamily: AL2023
        amiSelectorTerms:
          - id: ami-0a1b2c3d4e5f60001
          - id: ami-0a1b2c3d4e5f60002
        subnetSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
              tier: private
          - id: subnet-0123456789abcdef0
        securityGroupSelectorTerms:
          - tags:
              karpenter.sh/discovery: prod-eu
          - name: extra-nodes
        tags:
          team: a
          KubernetesVersion: '1.30'
        userData: |
          MIME-Version: 1.0
          Content-Type: multipart/mixed; boundary="BOUNDARY"

          --BOUNDARY
          Content-Type: application/node.eks.aws

          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            kubelet:
              config:
                shutdownGracePeriod: 30s
          --BOUNDARY--
        kubelet:
          maxPods: 110
          systemReserved:
            cpu: 100m
            memory: 100Mi
        blockDeviceMappings:
          - deviceName: /dev/xvda
            ebs:
              volumeSize: 100Gi
              volumeType: gp3
              encrypted: true
        metadataOptions:
          httpEndpoint: enabled
          httpProtocolIPv6: disabled
          httpPutResponseHopLimit: 1
          httpTokens: required
        detailedMonitoring: true
      ---
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata:
        name: team-a
      spec:
        weight: 10
        limits:
          cpu: '1000'
        disruption:
          consolidationPolicy: WhenEmptyOrUnderutilized
          consolidateAfter: 1m
          budgets:
            - nodes: '1'
              reasons:
                - Drifted
        template:
          metadata:
            labels:
              team: a
            annotations:
              example.com/owner: team-a
          spec:
            expireAfter: 336h
            terminationGracePeriod: 24h
            taints:
              - key: team-a
                effect: NoSchedule
            startupTaints:
              - key: example.com/agent-not-ready
                effect: NoExecute
            requirements:
              - key: kubernetes.io/os
                operator: In
                values:
                  - linux
              - key: kubernetes.io/arch
                operator: In
                values:
                  - amd64
                  - arm64
              - key: karpenter.sh/capacity-type
                operator: In
                values:
                  - spot
                  - on-demand
            nodeClassRef:
              group: karpenter.k8s.aws
              kind: EC2NodeClass
              name: team-a
      "
    `);
  });

  it('writes a core/v1 List for -o json', () => {
    const list = JSON.parse(manifestsList(renderManifests(bundled, input())));
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((o: { kind: string }) => o.kind)).toEqual(['EC2NodeClass', 'NodePool']);
    expect(list.items[0].spec.amiSelectorTerms).toEqual([{ id: 'ami-0a1b2c3d4e5f60001' }, { id: 'ami-0a1b2c3d4e5f60002' }]);
  });
});

describe('renderManifests pins', () => {
  it.each([
    ['al2023', 'id', [{ id: 'ami-0a1b2c3d4e5f60001' }, { id: 'ami-0a1b2c3d4e5f60002' }], 'AL2023'],
    ['al2', 'id', [{ id: 'ami-0a1b2c3d4e5f60001' }, { id: 'ami-0a1b2c3d4e5f60002' }], 'AL2'],
    ['bottlerocket', 'id', [{ id: 'ami-0a1b2c3d4e5f60001' }, { id: 'ami-0a1b2c3d4e5f60002' }], 'Bottlerocket'],
    ['windows2022', 'id', [{ id: 'ami-0a1b2c3d4e5f60001' }], 'Windows2022'],
    ['al2023', 'alias', [{ alias: 'al2023@v20241109' }], undefined],
    ['al2', 'alias', [{ alias: 'al2@v20241109' }], undefined],
    ['bottlerocket', 'alias', [{ alias: 'bottlerocket@v1.26.1' }], undefined],
  ] as const)('%s --pin %s', (family, pin, terms, amiFamily) => {
    const { nodeClass } = renderManifests(bundled, input({ family, pin }));
    expect(nodeClass.spec.amiSelectorTerms).toEqual(terms);
    expect(nodeClass.spec.amiFamily).toBe(amiFamily);
  });

  it('accepts a Bottlerocket release that already carries the v', () => {
    const out = renderManifests(bundled, input({ family: 'bottlerocket', pin: 'alias', amis: amis('bottlerocket', { amd64: { release: 'v1.26.1' }, arm64: { release: 'v1.26.1' } }) }));
    expect(out.nodeClass.spec.amiSelectorTerms).toEqual([{ alias: 'bottlerocket@v1.26.1' }]);
  });

  it('pins only the architectures the NodePool allows', () => {
    const armOnly = withRequirements(bundled, [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }]);
    expect(renderManifests(armOnly, input()).nodeClass.spec.amiSelectorTerms).toEqual([{ id: 'ami-0a1b2c3d4e5f60002' }]);
  });

  it.each([
    ['id', 'Custom'],
    ['alias', 'Custom'],
    ['id', 'AL2023'],
    ['alias', 'AL2023'],
  ] as const)('keeps the template amiFamily %s with --pin %s (valid with either form)', (pin, amiFamily) => {
    const out = renderManifests(withNodeClassSpec(bundled, { amiFamily }), input({ pin }));
    expect(out.nodeClass.spec.amiFamily).toBe(amiFamily);
  });

  it('places an added amiFamily just before amiSelectorTerms', () => {
    expect(Object.keys(renderManifests(bundled, input()).nodeClass.spec)).toEqual([
      'role',
      'subnetSelectorTerms',
      'securityGroupSelectorTerms',
      'amiFamily',
      'amiSelectorTerms',
    ]);
  });

  it('does not modify the templates it was given', () => {
    const before = structuredClone(user);
    renderManifests(user, input({ pin: 'alias' }));
    expect(user).toEqual(before);
  });
});

// Every path where two JSON values differ: added, removed or changed leaves (`spec.tags.team`, `spec.terms[1]`).
function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v != null;
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b)) return Object.is(a, b) ? [] : [path];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => changedPaths(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
}

// The only paths render may change (src/manifests/render.ts header); everything else is hashed or user-owned.
const ALLOWED = [
  /^metadata\.name$/,
  /^spec\.role$/,
  /^spec\.amiFamily$/,
  /^spec\.amiSelectorTerms(\[\d+\](\..+)?)?$/,
  /^spec\.(subnet|securityGroup)SelectorTerms\[\d+\]\.tags\.karpenter\.sh\/discovery$/,
  /^spec\.template\.spec\.nodeClassRef\.name$/,
];
const disallowed = (paths: string[]) => paths.filter((p) => !ALLOWED.some((re) => re.test(p)));

describe('hashed fields stay as the template wrote them', () => {
  it.each([
    ['bundled', 'al2023', 'id'],
    ['bundled', 'bottlerocket', 'alias'],
    ['bundled', 'windows2022', 'id'],
    ['user', 'al2023', 'id'],
    ['user', 'al2023', 'alias'],
    ['user', 'bottlerocket', 'id'],
  ] as const)('%s templates, %s --pin %s: only the allowed paths change', (which, family, pin) => {
    const templates = which === 'user' ? user : bundled;
    const out = renderManifests(templates, input({ family, pin, name: 'renamed' }));
    const nodeClassChanges = changedPaths(templates.nodeClass, out.nodeClass);
    const nodePoolChanges = changedPaths(templates.nodePool, out.nodePool);
    expect(disallowed([...nodeClassChanges, ...nodePoolChanges])).toEqual([]);
    expect(nodeClassChanges).toEqual(expect.arrayContaining(['metadata.name', 'spec.role']));
    expect(nodePoolChanges).toEqual(['metadata.name', 'spec.template.spec.nodeClassRef.name']);
  });

  it("changes only the discovery tag of the user's selector terms and leaves the other terms alone", () => {
    const out = renderManifests(user, input());
    expect(out.nodeClass.spec.subnetSelectorTerms).toEqual([
      { tags: { 'karpenter.sh/discovery': 'prod-eu', tier: 'private' } },
      { id: 'subnet-0123456789abcdef0' },
    ]);
    expect(out.nodeClass.spec.securityGroupSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'prod-eu' } }, { name: 'extra-nodes' }]);
    expect(out.nodeClass.spec.tags).toEqual({ team: 'a', KubernetesVersion: '1.30' });
  });

  it('the diff check itself catches a change to a hashed field', () => {
    const out = renderManifests(user, input());
    const tampered = structuredClone(out.nodeClass);
    (tampered.spec.tags as Record<string, string>).KubernetesVersion = '1.31';
    (tampered.spec as Record<string, unknown>).userData = 'changed';
    expect(disallowed(changedPaths(user.nodeClass, tampered))).toEqual(['spec.tags.KubernetesVersion', 'spec.userData']);
  });
});

describe('requirementsAllow', () => {
  const arch = (operator: NodeSelectorRequirement['operator'], values?: string[]): NodeSelectorRequirement => ({
    key: 'kubernetes.io/arch',
    operator,
    ...(values ? { values } : {}),
  });
  it.each([
    [[], true],
    [[arch('In', ['amd64', 'arm64'])], true],
    [[arch('In', ['amd64'])], false],
    [[arch('NotIn', ['arm64'])], false],
    [[arch('NotIn', ['amd64'])], true],
    [[arch('Exists')], true],
    [[arch('DoesNotExist')], false],
    [[arch('In', ['amd64', 'arm64']), arch('NotIn', ['arm64'])], false],
  ])('%j allows arm64: %s', (requirements, allowed) => {
    expect(requirementsAllow(requirements, 'kubernetes.io/arch', 'arm64')).toBe(allowed);
  });
});

describe('pinnedArches', () => {
  it.each<[AmiFamily, NodeSelectorRequirement[], string[]]>([
    ['al2023', [], ['amd64', 'arm64']],
    ['al2023', [{ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['amd64'] }], ['arm64']],
    ['windows2022', [], ['amd64']],
    ['windows2022', [{ key: 'kubernetes.io/os', operator: 'In', values: ['windows'] }], ['amd64']],
  ])('%s with %j pins %j', (family, requirements, arches) => {
    expect(pinnedArches(withRequirements(bundled, requirements), family)).toEqual(arches);
  });
});

describe('renderManifests refuses', () => {
  const cases: Array<[string, () => unknown, string]> = [
    [
      'an alias pin for Windows',
      () => renderManifests(bundled, input({ family: 'windows2022', pin: 'alias' })),
      '--pin alias cannot pin windows2022: Karpenter accepts Windows aliases only as windows2022@latest, which floats',
    ],
    [
      'a template amiFamily of another family',
      () => renderManifests(withNodeClassSpec(bundled, { amiFamily: 'Bottlerocket' }), input()),
      `${bundled.files.nodeClass} sets spec.amiFamily: Bottlerocket, but --family al2023 pins AL2023 AMIs`,
    ],
    [
      'a template with instanceProfile',
      () => renderManifests(withNodeClassSpec(bundled, { instanceProfile: 'KarpenterNodeInstanceProfile' }), input()),
      `${bundled.files.nodeClass} sets spec.instanceProfile, but render sets spec.role from --role and the CRD allows only one of them`,
    ],
    [
      'a NodePool whose architectures the family has no AMIs for',
      () => renderManifests(withRequirements(bundled, [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }]), input({ family: 'windows2022' })),
      `${bundled.files.nodePool}: the NodePool allows kubernetes.io/arch arm64, but windows2022 AMIs exist only for amd64`,
    ],
    [
      "a NodePool that excludes the family's OS",
      () => renderManifests(user, input({ family: 'windows2019' })),
      `${user.files.nodePool}: the NodePool's kubernetes.io/os requirement excludes windows, which windows2019 AMIs run`,
    ],
    [
      'an alias pin whose releases differ by architecture',
      () => renderManifests(bundled, input({ pin: 'alias', amis: amis('al2023', { arm64: { release: 'v20241105' } }) })),
      'the newest al2023 releases differ by architecture (amd64 v20241109, arm64 v20241105); an alias pins one release for all',
    ],
  ];
  it.each(cases)('%s', (_name, run, message) => {
    expect(run).toThrow(UsageError);
    expect(run).toThrow(message);
  });

  it('treats a missing AMI for a pinned architecture as a bug, not a usage error', () => {
    const run = () => renderManifests(bundled, input({ amis: amis('al2023').slice(0, 1) }));
    expect(run).toThrow('renderManifests needs one concrete al2023 AMI for arm64; got []');
    expect(run).not.toThrow(UsageError);
  });
});
