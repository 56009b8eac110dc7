import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ARCHES, FAMILIES, type AmiFamily, type Arch, type Variant } from '../../../src/ami/families.js';
import { ssmParameterPath } from '../../../src/ami/parameters.js';
import { amiCatalog } from '../../../src/sandbox/aws/catalog.js';
import { amiId } from '../../../src/sandbox/aws/images.js';
import { newestRelease, seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import type { AmiCatalog, CatalogImage, CatalogRelease } from '../../../src/sandbox/aws/types.js';
import type { AmiSelectorTerm } from '../../../src/karpenter/views.js';
import {
  resolveAmiSelectorTerms,
  type AmiResolution,
  type Requirement,
  type ResolveAmiArgs,
  type ResolvedAmi,
} from '../../../src/sandbox/karpenter/amis.js';

const catalog = amiCatalog();
const now = catalog.asOf;

function resolve(terms: AmiSelectorTerm[], overrides: Partial<ResolveAmiArgs> = {}): AmiResolution {
  return resolveAmiSelectorTerms({ terms, catalog, controlPlaneVersion: '1.30', now, ...overrides });
}

function series(family: AmiFamily, arch: Arch, variant: Variant, kubernetesVersion = '1.30'): CatalogRelease[] {
  const releases = seriesReleases(catalog, { family, kubernetesVersion, arch, variant });
  if (releases.length === 0) throw new Error(`no ${family} ${kubernetesVersion} ${arch} ${variant} releases`);
  return releases;
}

function newest(family: AmiFamily, arch: Arch, variant: Variant, kubernetesVersion = '1.30'): CatalogRelease {
  const release = newestRelease(catalog, { family, kubernetesVersion, arch, variant });
  if (!release) throw new Error(`no ${family} ${kubernetesVersion} ${arch} ${variant} release`);
  return release;
}

/** Every (arch, variant) release of one build of a family, in FAMILIES order. */
function build(family: AmiFamily, kubernetesVersion: string, index: number | 'newest'): CatalogRelease[] {
  return ARCHES.flatMap((arch) =>
    FAMILIES[family].variants[arch].map((variant) => {
      const releases = series(family, arch, variant, kubernetesVersion);
      return index === 'newest' ? releases.at(-1)! : releases[index]!;
    }),
  );
}

const GPU = 'karpenter.k8s.aws/instance-gpu-count';
const ACCELERATOR = 'karpenter.k8s.aws/instance-accelerator-count';
const ARCH = (arch: Arch): Requirement => ({ key: 'kubernetes.io/arch', operator: 'In', values: [arch] });
const VARIANT: Record<Variant, Requirement[]> = {
  standard: [
    { key: GPU, operator: 'DoesNotExist' },
    { key: ACCELERATOR, operator: 'DoesNotExist' },
  ],
  nvidia: [{ key: GPU, operator: 'Exists' }],
  neuron: [{ key: ACCELERATOR, operator: 'Exists' }],
};
const NOT_FOUND: AmiResolution = { amis: [], reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' };

function aliasAmi(r: CatalogRelease, deprecated = false): ResolvedAmi {
  const requirements = [ARCH(r.arch), ...VARIANT[r.variant]];
  return { id: r.imageId, name: r.imageName, requirements, ...(deprecated ? { deprecated } : {}) };
}

function windowsAmi(r: CatalogRelease, build: string): ResolvedAmi {
  const requirements = [
    { key: 'kubernetes.io/os', operator: 'In', values: ['windows'] },
    ARCH('amd64'),
    { key: 'node.kubernetes.io/windows-build', operator: 'In', values: [build] },
  ];
  return { id: r.imageId, name: r.imageName, requirements };
}

/** Without an alias Karpenter knows only the architecture. */
function archAmi(image: Pick<CatalogImage, 'imageId' | 'name' | 'architecture'>, deprecated = false): ResolvedAmi {
  const requirements = [ARCH(image.architecture === 'x86_64' ? 'amd64' : 'arm64')];
  return { id: image.imageId, name: image.name, requirements, ...(deprecated ? { deprecated } : {}) };
}
const releaseAmi = (r: CatalogRelease): ResolvedAmi =>
  archAmi({ imageId: r.imageId, name: r.imageName, architecture: r.arch === 'amd64' ? 'x86_64' : 'arm64' });

/** One build's AMIs share a CreationDate, so Karpenter lists them by image ID (a shared image keeps variant order). */
function byId(amis: ResolvedAmi[]): ResolvedAmi[] {
  return [...amis].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const bottlerocketPinned = series('bottlerocket', 'amd64', 'standard')[1]!.release;

describe('resolveAmiSelectorTerms: aliases', () => {
  it.each([
    {
      alias: 'al2023@latest',
      k: '1.30',
      count: 5,
      amis: byId(build('al2023', '1.30', 'newest').map((r) => aliasAmi(r))),
    },
    {
      alias: `al2023@${series('al2023', 'amd64', 'standard')[2]!.release}`,
      k: '1.30',
      count: 5,
      amis: byId(build('al2023', '1.30', 2).map((r) => aliasAmi(r))),
    },
    {
      alias: 'al2023@latest',
      k: '1.31',
      count: 5,
      amis: byId(build('al2023', '1.31', 'newest').map((r) => aliasAmi(r))),
    },
    // The GPU image serves nvidia and neuron, so it is listed twice.
    { alias: 'al2@latest', k: '1.30', count: 4, amis: byId(build('al2', '1.30', 'newest').map((r) => aliasAmi(r))) },
    // The standard x86_64 image serves neuron too.
    {
      alias: 'bottlerocket@latest',
      k: '1.30',
      count: 5,
      amis: byId(build('bottlerocket', '1.30', 'newest').map((r) => aliasAmi(r))),
    },
    {
      alias: `bottlerocket@v${bottlerocketPinned}`,
      k: '1.30',
      count: 5,
      amis: byId(build('bottlerocket', '1.30', 1).map((r) => aliasAmi(r))),
    },
    {
      alias: `bottlerocket@${bottlerocketPinned}`,
      k: '1.30',
      count: 5,
      amis: byId(build('bottlerocket', '1.30', 1).map((r) => aliasAmi(r))),
    },
    {
      alias: 'windows2022@latest',
      k: '1.30',
      count: 1,
      amis: [windowsAmi(newest('windows2022', 'amd64', 'standard'), '10.0.20348')],
    },
    {
      alias: 'windows2019@latest',
      k: '1.30',
      count: 1,
      amis: [windowsAmi(newest('windows2019', 'amd64', 'standard'), '10.0.17763')],
    },
    {
      alias: 'windows2025@latest',
      k: '1.35',
      count: 1,
      amis: [windowsAmi(newest('windows2025', 'amd64', 'standard', '1.35'), '10.0.26100')],
    },
    // Karpenter's version provider reports "<major>.<minor>"; a patch from elsewhere must not change the SSM path.
    {
      alias: 'al2023@latest',
      k: '1.30.4',
      count: 5,
      amis: byId(build('al2023', '1.30', 'newest').map((r) => aliasAmi(r))),
    },
  ])('$alias on Kubernetes $k resolves $count AMIs', ({ alias, k, count, amis }) => {
    const result = resolve([{ alias }], { controlPlaneVersion: k });
    expect(result).toEqual({ amis });
    expect(result.amis).toHaveLength(count);
  });

  it('writes each AL2023 variant with the requirements, in the order, of the fixture ec2nodeclass-amis-resolved.yaml', () => {
    const fixture = load(
      readFileSync(new URL('../../fixtures/ec2nodeclass-amis-resolved.yaml', import.meta.url), 'utf8'),
    ) as {
      status: { amis: ResolvedAmi[] };
    };
    const shape = (amis: ResolvedAmi[]) =>
      Object.fromEntries(amis.map((a) => [a.name.replace(/-1\.\d+-v\d{8}$/, ''), a.requirements]));
    const { amis } = resolve([{ alias: 'al2023@latest' }]);
    expect(shape(amis)).toEqual(shape(fixture.status.amis));
    // Both list one build by ascending image ID.
    for (const ids of [amis.map((a) => a.id), fixture.status.amis.map((a) => a.id)])
      expect(ids).toEqual([...ids].sort());
  });

  it('follows the control plane: the same alias on another minor names other images', () => {
    const on130 = resolve([{ alias: 'al2023@latest' }]).amis;
    const on131 = resolve([{ alias: 'al2023@latest' }], { controlPlaneVersion: '1.31' }).amis;
    expect(on131.filter((a) => on130.some((b) => b.id === a.id))).toEqual([]);
    expect(on131.map((a) => /-(1\.\d+)-v\d+$/.exec(a.name)?.[1])).toEqual(['1.31', '1.31', '1.31', '1.31', '1.31']);
  });

  it.each([
    {
      alias: 'al2@latest',
      k: '1.33',
      expected: {
        reason: 'UnsupportedAlias',
        message:
          'AL2 aliases are no longer supported on EKS 1.33+ (see https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html#kubernetes-1-33)',
      },
    },
    {
      alias: 'windows2025@latest',
      k: '1.34',
      expected: {
        reason: 'UnsupportedAlias',
        message: 'Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.34',
      },
    },
    // Karpenter's reconcile errors: no AMIsReady verdict at all (the controller leaves the condition and status.amis).
    { alias: 'al2023@v20990101', k: '1.30', expected: { error: 'failed to discover any AMIs for alias "al2023@v20990101"' } },
    { alias: 'bottlerocket@latest', k: '1.40', expected: { error: 'failed to discover any AMIs for alias "bottlerocket@latest"' } },
    { alias: 'windows2022@2026.07.01', k: '1.30', expected: { error: 'windows2022 aliases only accept "latest", not "2026.07.01"' } },
    { alias: 'ubuntu@latest', k: '1.30', expected: { error: '"ubuntu@latest" is not an alias of a supported family' } },
  ])('$alias on Kubernetes $k: $expected', ({ alias, k, expected }) => {
    expect(resolve([{ alias }], { controlPlaneVersion: k })).toEqual({ amis: [], ...expected });
  });

  it('skips a variant whose image is gone and keeps the rest of the build', () => {
    const gone = catalog.notable.deregistered!;
    const index = series('al2023', gone.arch, gone.variant, gone.kubernetesVersion).findIndex(
      (r) => r.imageId === gone.imageId,
    );
    const expected = build('al2023', gone.kubernetesVersion, index).filter((r) => r.imageId !== gone.imageId);
    const result = resolve([{ alias: `al2023@${gone.release}` }], { controlPlaneVersion: gone.kubernetesVersion });
    expect(result).toEqual({ amis: byId(expected.map((r) => aliasAmi(r))) });
    expect(result.amis).toHaveLength(4);
  });

  it('resolves nothing when every image of the alias is hidden from the account', () => {
    const hiddenImageIds = new Set(build('al2023', '1.30', 'newest').map((r) => r.imageId));
    expect(resolve([{ alias: 'al2023@latest' }], { hiddenImageIds })).toEqual(NOT_FOUND);
  });
});

describe('resolveAmiSelectorTerms: id, name, ssmParameter terms', () => {
  const x86 = newest('al2023', 'amd64', 'standard');
  const arm = newest('al2023', 'arm64', 'standard');
  const olderX86 = series('al2023', 'amd64', 'standard')[1]!;
  const armParameter = ssmParameterPath({
    family: 'al2023',
    kubernetesVersion: '1.30',
    arch: 'arm64',
    variant: 'standard',
    release: 'latest',
  });

  it.each<{ name: string; terms: AmiSelectorTerm[]; hidden?: string[]; expected: AmiResolution }>([
    {
      name: 'two id terms, one per arch',
      terms: [{ id: x86.imageId }, { id: arm.imageId }],
      expected: { amis: byId([releaseAmi(x86), releaseAmi(arm)]) },
    },
    {
      name: 'an id of a deregistered image',
      terms: [{ id: catalog.notable.deregistered!.imageId }],
      expected: NOT_FOUND,
    },
    { name: 'an id of a pending image', terms: [{ id: catalog.notable.pendingImageId! }], expected: NOT_FOUND },
    { name: 'an id of a failed image', terms: [{ id: catalog.notable.failedImageId! }], expected: NOT_FOUND },
    { name: 'an unknown id', terms: [{ id: 'ami-0123456789abcdef0' }], expected: NOT_FOUND },
    { name: 'an id hidden from the account', terms: [{ id: x86.imageId }], hidden: [x86.imageId], expected: NOT_FOUND },
    {
      name: 'ids of one arch keep only the newest',
      terms: [{ id: olderX86.imageId }, { id: x86.imageId }],
      expected: { amis: [releaseAmi(x86)] },
    },
    {
      name: 'a hidden newest image leaves the older one',
      terms: [{ id: olderX86.imageId }, { id: x86.imageId }],
      hidden: [x86.imageId],
      expected: { amis: [releaseAmi(olderX86)] },
    },
    {
      name: 'a name wildcard with owner amazon, newest per arch',
      terms: [{ name: 'amazon-eks-node-al2023-*-standard-1.30-*', owner: 'amazon' }],
      expected: { amis: byId([releaseAmi(x86), releaseAmi(arm)]) },
    },
    {
      name: 'a name wildcard with the EKS account as owner',
      terms: [{ name: 'amazon-eks-node-al2023-*-standard-1.30-*', owner: '602401143452' }],
      expected: { amis: byId([releaseAmi(x86), releaseAmi(arm)]) },
    },
    {
      name: 'a name wildcard with owner self',
      terms: [{ name: 'amazon-eks-node-al2023-*', owner: 'self' }],
      expected: NOT_FOUND,
    },
    {
      // Every variant of every build matches; one build shares a CreationDate, so the greater name (standard) wins.
      name: 'a name matching all x86_64 variants and builds',
      terms: [{ name: 'amazon-eks-node-al2023-x86_64-*-1.30-v*' }],
      expected: { amis: [releaseAmi(x86)] },
    },
    {
      name: 'a name matching both arches of every variant and build',
      terms: [{ name: 'amazon-eks-node-al2023-*-1.30-v*' }],
      expected: { amis: byId([releaseAmi(x86), releaseAmi(arm)]) },
    },
    { name: 'an ssmParameter name', terms: [{ ssmParameter: armParameter }], expected: { amis: [releaseAmi(arm)] } },
    {
      name: 'an ssmParameter ARN',
      terms: [{ ssmParameter: `arn:aws:ssm:us-west-2::parameter${armParameter}` }],
      expected: { amis: [releaseAmi(arm)] },
    },
    { name: 'a missing ssmParameter', terms: [{ ssmParameter: '/my-team/ami/nothing' }], expected: NOT_FOUND },
    {
      name: 'an ssmParameter whose value is no image ID',
      terms: [{ ssmParameter: armParameter.replace(/image_id$/, 'release_version') }],
      expected: NOT_FOUND,
    },
    {
      name: 'ORed id, ssmParameter and name terms',
      terms: [{ id: olderX86.imageId }, { ssmParameter: armParameter }, { name: x86.imageName }],
      expected: { amis: byId([releaseAmi(x86), releaseAmi(arm)]) },
    },
  ])('$name', ({ terms, hidden, expected }) => {
    expect(resolve(terms, hidden ? { hiddenImageIds: new Set(hidden) } : {})).toEqual(expected);
  });

  it('lists images of different builds newest first', () => {
    const olderArm = series('al2023', 'arm64', 'standard')[1]!;
    expect(resolve([{ id: olderArm.imageId }, { id: x86.imageId }])).toEqual({
      amis: [releaseAmi(x86), releaseAmi(olderArm)],
    });
  });
});

describe('resolveAmiSelectorTerms: tags, owners and deprecation', () => {
  const DISCOVERY = { 'karpenter.sh/discovery': 'prod-eks' };
  const template = catalog.images.get(newest('al2023', 'amd64', 'standard').imageId)!;
  function teamImage(
    name: string,
    architecture: CatalogImage['architecture'],
    created: string,
    extra: Partial<CatalogImage> = {},
  ): CatalogImage {
    const { ownerAlias: _amazon, deprecationTime: _never, ...rest } = template;
    return {
      ...rest,
      imageId: amiId(7, name),
      name,
      architecture,
      ownerId: catalog.accountId,
      public: false,
      creationDate: created,
      tags: DISCOVERY,
      ...extra,
    };
  }
  const x86Old = teamImage('team-al2023-x86_64-20260901', 'x86_64', '2026-09-01T10:00:00.000Z');
  // Newer, but already deprecated: Karpenter still prefers the older, non-deprecated image.
  const x86Deprecated = teamImage('team-al2023-x86_64-20261001', 'x86_64', '2026-10-01T10:00:00.000Z', {
    deprecationTime: '2026-10-15T00:00:00.000Z',
  });
  const arm = teamImage('team-al2023-arm64-20260901', 'arm64', '2026-09-01T10:00:00.000Z', {
    tags: { ...DISCOVERY, team: 'payments' },
  });
  // Another account publishes an image under the same naming scheme, without the discovery tag.
  const copycat = teamImage('team-al2023-x86_64-20261020', 'x86_64', '2026-10-20T10:00:00.000Z', {
    ownerId: '999988887777',
    public: true,
    tags: {},
  });
  const teamCatalog: AmiCatalog = amiCatalog({ images: [x86Old, x86Deprecated, arm, copycat] });
  const teamResolve = (terms: AmiSelectorTerm[], at = now) =>
    resolveAmiSelectorTerms({ terms, catalog: teamCatalog, controlPlaneVersion: '1.30', now: at });

  it.each<{ name: string; terms: AmiSelectorTerm[]; expected: AmiResolution }>([
    {
      name: 'a tag term, newest non-deprecated per arch',
      terms: [{ tags: DISCOVERY }],
      expected: { amis: byId([archAmi(x86Old), archAmi(arm)]) },
    },
    {
      name: 'a tag term with * as value',
      terms: [{ tags: { 'karpenter.sh/discovery': '*' } }],
      expected: { amis: byId([archAmi(x86Old), archAmi(arm)]) },
    },
    {
      name: 'tags within one term are ANDed',
      terms: [{ tags: { ...DISCOVERY, team: 'payments' } }],
      expected: { amis: [archAmi(arm)] },
    },
    { name: 'a tag nobody carries', terms: [{ tags: { 'karpenter.sh/discovery': 'staging' } }], expected: NOT_FOUND },
    {
      name: 'name and tags are ANDed',
      terms: [{ name: 'team-al2023-arm64-*', tags: DISCOVERY }],
      expected: { amis: [archAmi(arm)] },
    },
    // Owners default to self and amazon, so the other account's newer copy is ignored.
    {
      name: 'a name term without owner',
      terms: [{ name: 'team-al2023-x86_64-*' }],
      expected: { amis: [archAmi(x86Old)] },
    },
    {
      name: 'a name term naming the other account',
      terms: [{ name: 'team-al2023-x86_64-*', owner: '999988887777' }],
      expected: { amis: [archAmi(copycat)] },
    },
    {
      name: 'a name term with owner self',
      terms: [{ name: 'team-al2023-*', owner: 'self' }],
      expected: { amis: byId([archAmi(x86Old), archAmi(arm)]) },
    },
    {
      name: 'a deprecated image by id is still resolved',
      terms: [{ id: x86Deprecated.imageId }],
      expected: { amis: [archAmi(x86Deprecated, true)] },
    },
    {
      name: 'a deprecated image by name is still resolved',
      terms: [{ name: x86Deprecated.name }],
      expected: { amis: [archAmi(x86Deprecated, true)] },
    },
  ])('$name', ({ terms, expected }) => {
    expect(teamResolve(terms)).toEqual(expected);
  });

  it('judges deprecation at `now`: before its DeprecationTime the newer image wins and is not flagged', () => {
    expect(teamResolve([{ tags: DISCOVERY }], new Date('2026-10-14T00:00:00.000Z'))).toEqual({
      amis: [archAmi(x86Deprecated), archAmi(arm)],
    });
  });

  it.each([
    { at: 'the catalog date', now, deprecated: true },
    {
      at: 'a day before DeprecationTime',
      now: new Date(Date.parse(catalog.images.get(catalog.notable.deprecated!.imageId)!.deprecationTime!) - 86_400_000),
      deprecated: false,
    },
  ])('flags the notable deprecated release at $at: $deprecated', ({ now: at, deprecated }) => {
    const release = catalog.notable.deprecated!;
    expect(resolve([{ id: release.imageId }], { now: at })).toEqual({
      amis: [archAmi(catalog.images.get(release.imageId)!, deprecated)],
    });
  });

  it('flags every AMI of a deprecated pinned build', () => {
    const oldest = build('al2023', '1.30', 0);
    const result = resolve([{ alias: `al2023@${oldest[0]!.release}` }]);
    expect(result).toEqual({ amis: byId(oldest.map((r) => aliasAmi(r, true))) });
    expect(result.amis.map((a) => a.deprecated)).toEqual([true, true, true, true, true]);
  });
});
