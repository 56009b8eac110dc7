// Matching a promoted file to the classes in scope, and the annotation a promoted class records.
import { describe, expect, it } from 'vitest';
import type { AmisFile, ClusterAmis, PromotedAmi } from '../../src/ami/amis-file.js';
import { UsageError } from '../../src/errors.js';
import { promotedAmis, promotedFrom, type PlanSource } from '../../src/plan/promotion.js';
import { al2023Name, inventory, nodeClass, nodePool, NEW } from './factories.js';

const ami = (arch: 'amd64' | 'arm64', variant: 'standard' | 'nvidia' = 'standard'): PromotedAmi => ({
  family: 'al2023',
  arch,
  variant,
  release: 'v20241109',
  id: NEW[`${arch}/${variant}`],
  name: al2023Name(`${arch}/${variant}`, '1.31', 'v20241109'),
});
const file = (overrides: Partial<AmisFile> = {}): AmisFile => ({
  kind: 'file',
  path: 'artifacts/amis.json',
  shape: 'amis',
  kubernetesVersion: '1.31',
  region: 'us-east-1',
  amis: [ami('amd64'), ami('arm64')],
  ...overrides,
});

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}

describe('promotedAmis', () => {
  it('takes from the file exactly the (family, arch, variant) the classes in scope need', () => {
    // The default class's `general` NodePool launches amd64 standard only.
    expect(promotedAmis(inventory(), file(), { to: '1.31' })).toEqual([ami('amd64')]);
  });

  it('another minor than --to: exit 2 naming both, and how to go on', () => {
    const err = usageError(() => promotedAmis(inventory(), file({ kubernetesVersion: '1.30' }), { to: '1.31' }));
    expect(err.message).toBe(
      '--amis-file artifacts/amis.json records AMIs for Kubernetes 1.30, but --to is 1.31; nothing was changed',
    );
    expect(err.hint).toBe(
      'pass --to 1.30 to promote them, or promote a file written for 1.31 (karp-drift amis --to 1.31 -o json where it was tested)',
    );
  });

  it('a class needing what the file lacks: exit 2 naming the class, what is missing and why, and what the file has', () => {
    const inv = inventory({
      nodeClasses: [nodeClass(), nodeClass({ name: 'gpu' })],
      nodePools: [
        nodePool(),
        nodePool({
          name: 'gpu',
          nodeClass: 'gpu',
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' },
          ],
        }),
      ],
    });
    const err = usageError(() => promotedAmis(inv, file(), { to: '1.31' }));
    expect(err.message).toBe(
      [
        '--amis-file artifacts/amis.json lacks AMIs the classes in scope need; nothing was changed:',
        '  ec2nodeclass/gpu needs al2023 amd64 nvidia (needed by nodepool/gpu)',
        '  the file has: al2023 amd64 standard, al2023 arm64 standard',
      ].join('\n'),
    );
    expect(err.hint).toMatch(/or plan only the classes the file covers with --nodeclass$/);
    // Narrowed to the class it covers, it promotes.
    expect(promotedAmis(inv, file(), { to: '1.31', nodeClasses: ['default'] })).toEqual([ami('amd64')]);
  });

  it('a source cluster whose nodes run no AMI a class needs: exit 2 naming the context, the class, and what its nodes run', () => {
    const staging: ClusterAmis = {
      kind: 'cluster',
      context: 'staging',
      server: 'https://staging.example',
      kubernetesVersion: '1.31',
      amis: [ami('amd64')],
    };
    const inv = inventory({
      nodePools: [
        nodePool({
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
            { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
          ],
        }),
      ],
    });
    const err = usageError(() => promotedAmis(inv, staging, { to: '1.31' }));
    expect(err.message).toBe(
      [
        'source context staging (https://staging.example) runs no node on AMIs the classes in scope need; nothing was changed:',
        '  ec2nodeclass/default needs al2023 arm64 standard (needed by nodepool/general)',
        '  its nodes run: al2023 amd64 standard',
      ].join('\n'),
    );
    expect(err.hint).toBe(
      'test them in staging first (a NodePool there that launches such nodes on the pinned AMIs), or plan only the classes staging covers with --nodeclass',
    );
    // Its minor was checked as it was read; another --to is not this function's to refuse again.
    expect(promotedAmis(inventory(), staging, { to: '1.31' })).toEqual([ami('amd64')]);
  });

  it('two images for one (family, arch, variant) block only where that AMI is needed (exit 2)', () => {
    const otherArm = { ...ami('arm64'), id: 'ami-0ffffffffffffffff' };
    const twoArm = file({ amis: [ami('amd64'), ami('arm64'), otherArm] });
    // The default class launches amd64 only: which arm64 image was tested does not matter here.
    expect(promotedAmis(inventory(), twoArm, { to: '1.31' })).toEqual([ami('amd64')]);
    const both = inventory({
      nodePools: [nodePool({ requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] })],
    });
    const err = usageError(() => promotedAmis(both, twoArm, { to: '1.31' }));
    expect(err.message).toBe(
      `--amis-file artifacts/amis.json records two different al2023 arm64 standard AMIs: ${NEW['arm64/standard']} (${ami('arm64').name}) and ami-0ffffffffffffffff (${ami('arm64').name}); nothing was changed`,
    );
    expect(err.hint).toBe('promote a file with one tested AMI per family, architecture and variant');
  });

  it("a source cluster lacking a needed AMI: what its other classes run is listed too, with their minor", () => {
    const staging: ClusterAmis = {
      kind: 'cluster',
      context: 'staging',
      server: 'https://staging.example',
      kubernetesVersion: '1.31',
      amis: [],
      others: [
        {
          name: 'default',
          family: 'al2023',
          amis: [{ ...ami('amd64'), name: al2023Name('amd64/standard', '1.30', 'v20241109'), kubernetesVersion: '1.30' }],
          settled: true,
        },
      ],
    };
    const err = usageError(() => promotedAmis(inventory(), staging, { to: '1.31' }));
    expect(err.message.split('\n').at(-1)).toBe('  its nodes run: al2023 amd64 standard (1.30)');
  });

  it('a class the plan refuses anyway (its family unknown) is left to its check', () => {
    const inv = inventory({
      nodeClasses: [
        nodeClass(),
        nodeClass({ name: 'custom', amiSelectorTerms: [{ id: 'ami-0custom' }], amiFamily: 'Custom', statusAmis: [] }),
      ],
    });
    expect(promotedAmis(inv, file(), { to: '1.31' })).toEqual([ami('amd64')]);
  });
});

describe('promotedFrom', () => {
  const source = (fileRegion: string | null): PlanSource => ({
    kind: 'file',
    path: '/builds/42/artifacts/amis.json',
    shape: 'amis',
    region: 'us-west-2',
    fileRegion,
    kubernetesVersion: '1.31',
    lookup: fileRegion === 'us-west-2' ? 'id' : 'name',
  });
  it.each<[string, PlanSource, string[], string | undefined]>([
    ['SSM: no annotation', { kind: 'ssm', region: 'us-west-2' }, ['v20241109'], undefined],
    [
      'the same region: the file and the release',
      source('us-west-2'),
      ['v20241109', 'v20241109'],
      'file:amis.json; release v20241109',
    ],
    [
      'another region: where the file was written',
      source('us-east-1'),
      ['v20241109'],
      'file:amis.json; release v20241109; from us-east-1',
    ],
    ['a plan without its region', source(null), ['1.26.1', '1.26.2'], 'file:amis.json; release 1.26.1, 1.26.2'],
    [
      'a source cluster whose region its kubeconfig does not tell',
      {
        kind: 'cluster',
        context: 'staging',
        server: 'https://x',
        region: 'us-west-2',
        sourceRegion: null,
        kubernetesVersion: '1.31',
        lookup: 'name',
        otherClasses: [],
      },
      ['v20241109'],
      'context:staging; release v20241109',
    ],
    [
      'a source cluster in another region',
      {
        kind: 'cluster',
        context: 'staging',
        server: 'https://x',
        region: 'us-west-2',
        sourceRegion: 'us-east-1',
        kubernetesVersion: '1.31',
        lookup: 'name',
        otherClasses: [],
      },
      ['v20261023'],
      'context:staging; release v20261023; from us-east-1',
    ],
  ])('%s', (_name, s, releases, expected) => {
    expect(promotedFrom(s, releases)).toBe(expected);
  });
});
