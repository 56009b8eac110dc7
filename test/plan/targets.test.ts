import { describe, expect, it } from 'vitest';
import type { Inventory, NodeClassView, NodePoolView, Requirement } from '../../src/karpenter/views.js';
import { allowedArches, allowsVariant } from '../../src/plan/requirements.js';
import { amiNeeds, neededAmiQueries, nodeClassFamily } from '../../src/plan/targets.js';
import { idStatusAmis, inventory, nodeClaim, nodeClass, nodePool, OLD } from './factories.js';

const req = (key: string, operator: string, ...values: string[]): Requirement => ({
  key,
  operator,
  ...(values.length > 0 ? { values } : {}),
});
const ARCH = 'kubernetes.io/arch';
const CATEGORY = 'karpenter.k8s.aws/instance-category';
const GPU = 'karpenter.k8s.aws/instance-gpu-count';
const ACCEL = 'karpenter.k8s.aws/instance-accelerator-count';

const pairs = (inv: Inventory, name = 'default') => amiNeeds(inv, name).pairs.map((p) => `${p.arch}/${p.variant}`);

describe('NodePool requirements', () => {
  it.each<[string, Requirement[], string[] | undefined]>([
    ['no arch requirement', [], undefined],
    ['In amd64', [req(ARCH, 'In', 'amd64')], ['amd64']],
    ['In both', [req(ARCH, 'In', 'arm64', 'amd64')], ['amd64', 'arm64']],
    ['NotIn arm64', [req(ARCH, 'NotIn', 'arm64')], ['amd64']],
    ['Exists', [req(ARCH, 'Exists')], ['amd64', 'arm64']],
  ])('arches: %s', (_name, requirements, expected) => {
    expect(allowedArches(requirements)).toEqual(expected);
  });

  it.each<[string, Requirement[], [standard: boolean, nvidia: boolean, neuron: boolean]]>([
    ['unrestricted: anything', [], [true, true, true]],
    ['categories c, m, r', [req(CATEGORY, 'In', 'c', 'm', 'r')], [true, false, false]],
    ['categories g, p', [req(CATEGORY, 'In', 'g', 'p')], [false, true, false]],
    ['categories NotIn g, p', [req(CATEGORY, 'NotIn', 'g', 'p')], [true, false, true]],
    ['gpu-count Exists', [req(GPU, 'Exists')], [false, true, false]],
    ['gpu-count Gt 0', [req(GPU, 'Gt', '0')], [false, true, false]],
    ['gpu-count DoesNotExist', [req(GPU, 'DoesNotExist')], [true, false, true]],
    ['accelerator-count DoesNotExist', [req(ACCEL, 'DoesNotExist')], [true, true, false]],
    // Gt/Lt need the label: instances without GPUs have no gpu-count at all.
    ['gpu-count Lt 1', [req(GPU, 'Lt', '1')], [false, false, false]],
    ['accelerator-count Exists', [req(ACCEL, 'Exists')], [false, false, true]],
    ['instance families g5, g6', [req('karpenter.k8s.aws/instance-family', 'In', 'g5', 'g6')], [false, true, false]],
    [
      'instance types m7i.large, inf2.xlarge',
      [req('node.kubernetes.io/instance-type', 'In', 'm7i.large', 'inf2.xlarge')],
      [true, false, true],
    ],
  ])('variants: %s', (_name, requirements, [standard, nvidia, neuron]) => {
    expect([
      allowsVariant(requirements, 'standard'),
      allowsVariant(requirements, 'nvidia'),
      allowsVariant(requirements, 'neuron'),
    ]).toEqual([standard, nvidia, neuron]);
  });
});

describe('nodeClassFamily', () => {
  it.each<[string, Parameters<typeof nodeClass>[0], string | undefined, string | undefined]>([
    ['from the alias', { amiSelectorTerms: [{ alias: 'al2023@v20240917' }] }, 'al2023', undefined],
    [
      'the alias wins over Custom',
      { amiFamily: 'Custom', amiSelectorTerms: [{ alias: 'bottlerocket@v1.26.1' }] },
      'bottlerocket',
      undefined,
    ],
    [
      'from amiFamily',
      { amiFamily: 'Bottlerocket', amiSelectorTerms: [{ id: 'ami-0abc' }] },
      'bottlerocket',
      undefined,
    ],
    ['Windows2022', { amiFamily: 'Windows2022', amiSelectorTerms: [{ id: 'ami-0abc' }] }, 'windows2022', undefined],
    [
      'Custom with ids',
      { amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0abc' }] },
      undefined,
      'spec.amiFamily is Custom: the class brings its own AMIs and user data, so karp-drift cannot tell which EKS-optimized family it runs',
    ],
    [
      'an unknown alias',
      { amiSelectorTerms: [{ alias: 'ubuntu@latest' }] },
      undefined,
      'alias ubuntu@latest names no AMI family Karpenter knows',
    ],
  ])('%s', (_name, overrides, family, problem) => {
    expect(nodeClassFamily(nodeClass(overrides))).toEqual({
      ...(family ? { family } : {}),
      ...(problem ? { problem } : {}),
    });
  });
});

describe('amiNeeds', () => {
  const unrestricted = nodePool({ requirements: [] });
  const bothArches = nodePool({
    requirements: [req(ARCH, 'In', 'amd64', 'arm64'), req(CATEGORY, 'In', 'c', 'm', 'r')],
  });

  it.each<[string, Partial<Inventory>, string[]]>([
    ['the getting-started pool: amd64 standard', {}, ['amd64/standard']],
    ['a pool allowing both arches', { nodePools: [bothArches] }, ['amd64/standard', 'arm64/standard']],
    [
      // An alias offers every variant for both arches; with no requirements Karpenter may launch any of them.
      'an unrestricted pool on an alias: every variant the alias offers',
      { nodePools: [unrestricted] },
      ['amd64/standard', 'amd64/nvidia', 'amd64/neuron', 'arm64/standard', 'arm64/nvidia'],
    ],
    [
      'no arch requirement, an id-pinned class with only amd64 AMIs: what status.amis shows',
      {
        nodeClasses: [
          nodeClass({
            amiFamily: 'AL2023',
            amiSelectorTerms: [{ id: OLD['amd64/standard'] }],
            statusAmis: idStatusAmis(['amd64/standard']),
          }),
        ],
        nodePools: [unrestricted],
      },
      ['amd64/standard'],
    ],
    [
      'no arch requirement and nothing observed: amd64',
      {
        nodeClasses: [
          nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: OLD['amd64/standard'] }], statusAmis: [] }),
        ],
        nodePools: [unrestricted],
        nodeClaims: [],
      },
      ['amd64/standard'],
    ],
    [
      'a GPU pool (gpu-count Exists): nvidia only',
      {
        nodePools: [nodePool({ requirements: [req(ARCH, 'In', 'amd64'), req(GPU, 'Exists')] })],
        nodeClaims: [nodeClaim({ gpu: true, instanceType: 'g5.xlarge', imageId: OLD['amd64/nvidia'] })],
      },
      ['amd64/nvidia'],
    ],
    [
      'a running GPU NodeClaim adds nvidia, whatever the pool says now',
      { nodeClaims: [nodeClaim(), nodeClaim({ name: 'general-g', gpu: true, instanceType: 'g5.xlarge' })] },
      ['amd64/standard', 'amd64/nvidia'],
    ],
    [
      'a running arm64 NodeClaim adds arm64',
      { nodeClaims: [nodeClaim({ arch: 'arm64', imageId: OLD['arm64/standard'] })] },
      ['amd64/standard', 'arm64/standard'],
    ],
    [
      // Karpenter launches every amd64 instance of an id-pinned class from its one amd64 AMI: keep its variant.
      'an id-pinned nvidia class keeps nvidia, even for a pool that allows standard instances',
      {
        nodeClasses: [
          nodeClass({
            amiFamily: 'AL2023',
            amiSelectorTerms: [{ id: OLD['amd64/nvidia'] }],
            statusAmis: idStatusAmis(['amd64/nvidia']),
          }),
        ],
      },
      ['amd64/nvidia'],
    ],
    [
      'Windows: one image for GPU instances too',
      {
        nodeClasses: [
          nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [{ alias: 'windows2022@latest' }], statusAmis: [] }),
        ],
        nodePools: [unrestricted],
        nodeClaims: [nodeClaim({ gpu: true, instanceType: 'g4dn.xlarge' })],
      },
      ['amd64/standard'],
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(pairs(inventory(overrides))).toEqual(expected);
  });

  it('says why each pair is needed', () => {
    const inv = inventory({ nodePools: [bothArches], nodeClaims: [nodeClaim(), nodeClaim({ name: 'general-b' })] });
    expect(amiNeeds(inv, 'default')).toEqual({
      nodeClass: 'default',
      family: 'al2023',
      selector: 'alias',
      pairs: [
        { arch: 'amd64', variant: 'standard', from: ['nodepool/general', '2 NodeClaims'] },
        { arch: 'arm64', variant: 'standard', from: ['nodepool/general'] },
      ],
    });
  });
});

describe('amiNeeds of manifests read from files (pin): nothing observed', () => {
  const unobserved = (origin: Inventory['origin'], terms: NodeClassView['amiSelectorTerms'], pools: NodePoolView[] = []) =>
    pairs(inventory({ nodeClasses: [nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: terms, statusAmis: [] })], nodePools: pools, nodeClaims: [], ...(origin !== undefined ? { origin } : {}) }));
  it.each<[string, Inventory['origin'], NodeClassView['amiSelectorTerms'], NodePoolView[], string[]]>([
    ['an alias with no NodePool: every arch the family has', 'files', [{ alias: 'al2023@v20240807' }], [], ['amd64/standard', 'arm64/standard']],
    ['an alias with a NodePool without an arch requirement: the same', 'files', [{ alias: 'al2023@v20240807' }], [nodePool({ requirements: [req(CATEGORY, 'In', 'c')] })], ['amd64/standard', 'arm64/standard']],
    ['an alias whose NodePool names amd64: amd64', 'files', [{ alias: 'al2023@v20240807' }], [nodePool({ requirements: [req(ARCH, 'In', 'amd64'), req(CATEGORY, 'In', 'c')] })], ['amd64/standard']],
    ['an id EC2 could not describe: amd64, as on a cluster', 'files', [{ id: 'ami-0gone' }], [], ['amd64/standard']],
    ['on a cluster, a class not resolved yet: amd64', undefined, [{ alias: 'al2023@v20240807' }], [], ['amd64/standard']],
  ])('%s', (_name, origin, terms, pools, expected) => {
    expect(unobserved(origin, terms, pools)).toEqual(expected);
  });
});

describe('neededAmiQueries', () => {
  it('asks once per (family, arch, variant) over the classes in scope, for --to and --release', () => {
    const inv = inventory({
      nodeClasses: [
        nodeClass(),
        nodeClass({
          name: 'arm',
          amiFamily: 'AL2023',
          amiSelectorTerms: [{ id: OLD['arm64/standard'] }],
          statusAmis: idStatusAmis(['arm64/standard']),
        }),
      ],
      nodePools: [
        nodePool(),
        nodePool({ name: 'second', nodeClass: 'default' }),
        nodePool({ name: 'arm', nodeClass: 'arm', requirements: [req(ARCH, 'In', 'arm64')] }),
      ],
    });
    expect(neededAmiQueries(inv, { to: '1.31', release: 'latest' })).toEqual([
      { family: 'al2023', kubernetesVersion: '1.31', arch: 'arm64', variant: 'standard', release: 'latest' },
      { family: 'al2023', kubernetesVersion: '1.31', arch: 'amd64', variant: 'standard', release: 'latest' },
    ]);
    expect(neededAmiQueries(inv, { to: '1.31', release: 'v20241109', nodeClasses: ['default'] })).toEqual([
      { family: 'al2023', kubernetesVersion: '1.31', arch: 'amd64', variant: 'standard', release: 'v20241109' },
    ]);
  });

  it.each<[string, Parameters<typeof nodeClass>[0], string, string]>([
    ['AL2 has no AMIs for 1.33', { amiSelectorTerms: [{ alias: 'al2@v20240917' }], statusAmis: [] }, '1.33', 'latest'],
    ['a Custom class', { amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0abc' }] }, '1.31', 'latest'],
    [
      'a dated release for Bottlerocket',
      { amiSelectorTerms: [{ alias: 'bottlerocket@v1.26.1' }], statusAmis: [] },
      '1.31',
      'v20241109',
    ],
  ])('leaves out what plan refuses: %s', (_name, overrides, to, release) => {
    expect(neededAmiQueries(inventory({ nodeClasses: [nodeClass(overrides)] }), { to, release })).toEqual([]);
  });
});
