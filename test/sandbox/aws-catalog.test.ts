import { describe, expect, it } from 'vitest';
import { AMI_FAMILIES, ARCHES, FAMILIES, type AmiFamily } from '../../src/ami/families.js';
import { ssmMetadataPaths, ssmParameterPath, ssmParameterPrefix, type AmiQuery } from '../../src/ami/parameters.js';
import { amiCatalog } from '../../src/sandbox/aws/catalog.js';
import { isDeprecatedAt } from '../../src/sandbox/aws/images.js';
import {
  imageById,
  imagesByName,
  imagesByTags,
  newestRelease,
  parameterValue,
  seriesReleases,
  wildcardMatcher,
} from '../../src/sandbox/aws/lookup.js';
import { KUBERNETES_MINORS } from '../../src/sandbox/aws/releases.js';
import type { CatalogImage, CatalogRelease } from '../../src/sandbox/aws/types.js';

const catalog = amiCatalog();

function series(): Array<Omit<AmiQuery, 'release'>> {
  return catalog.releases
    .filter((r, i, all) => all.findIndex((o) => sameSeries(o, r)) === i)
    .map(({ family, kubernetesVersion, arch, variant }) => ({ family, kubernetesVersion, arch, variant }));
}

function sameSeries(a: Omit<AmiQuery, 'release'>, b: Omit<AmiQuery, 'release'>): boolean {
  return (
    a.family === b.family && a.kubernetesVersion === b.kubernetesVersion && a.arch === b.arch && a.variant === b.variant
  );
}

function pinned(r: CatalogRelease): AmiQuery {
  return {
    family: r.family,
    kubernetesVersion: r.kubernetesVersion,
    arch: r.arch,
    variant: r.variant,
    release: r.release,
  };
}

function image(imageId: string): CatalogImage {
  const found = catalog.images.get(imageId);
  if (!found) throw new Error(`no image ${imageId}`);
  return found;
}

describe('amiCatalog coverage', () => {
  it.each(AMI_FAMILIES.map((f) => [f]))('%s publishes the minors DOMAIN.md §3.5 allows', (family: AmiFamily) => {
    const minors = [...new Set(catalog.releases.filter((r) => r.family === family).map((r) => r.kubernetesVersion))];
    const expected = {
      al2: ['1.28', '1.29', '1.30', '1.31', '1.32'],
      al2023: KUBERNETES_MINORS,
      bottlerocket: KUBERNETES_MINORS,
      windows2019: KUBERNETES_MINORS,
      windows2022: KUBERNETES_MINORS,
      windows2025: ['1.35', '1.36'],
    }[family];
    expect(minors).toEqual(expected);
  });

  it('has a series for exactly the arch × variant pairs of families.ts, with several releases each', () => {
    for (const family of AMI_FAMILIES) {
      const pairs = ARCHES.flatMap((arch) => FAMILIES[family].variants[arch].map((variant) => `${arch}/${variant}`));
      const seen = new Set(
        series()
          .filter((s) => s.family === family)
          .map((s) => `${s.arch}/${s.variant}`),
      );
      expect([...seen].sort()).toEqual(pairs.sort());
    }
    for (const s of series()) expect(seriesReleases(catalog, s).length).toBeGreaterThanOrEqual(3);
  });

  it('names every release per DOMAIN.md §3.4, Bottlerocket arm64 as aarch64', () => {
    const patterns: Record<AmiFamily, RegExp> = {
      al2: /^amazon-eks-(?:arm64-|gpu-)?node-1\.\d+-v\d{8}$/,
      al2023: /^amazon-eks-node-al2023-(?:x86_64|arm64)-(?:standard|nvidia|neuron)-1\.\d+-v\d{8}$/,
      bottlerocket: /^bottlerocket-aws-k8s-1\.\d+(?:-nvidia)?-(?:x86_64|aarch64)-v\d+\.\d+\.\d+-[0-9a-f]{8}$/,
      windows2019: /^Windows_Server-2019-English-Core-EKS_Optimized-1\.\d+-\d{4}\.\d{2}\.\d{2}$/,
      windows2022: /^Windows_Server-2022-English-Core-EKS_Optimized-1\.\d+-\d{4}\.\d{2}\.\d{2}$/,
      windows2025: /^Windows_Server-2025-English-Core-EKS_Optimized-1\.\d+-\d{4}\.\d{2}\.\d{2}$/,
    };
    for (const r of catalog.releases) {
      expect(r.imageName).toMatch(patterns[r.family]);
      expect(r.imageName).toContain(`-${r.kubernetesVersion}-`);
      if (r.family === 'bottlerocket') expect(r.imageName).toContain(r.arch === 'arm64' ? '-aarch64-' : '-x86_64-');
      if (r.family === 'al2023')
        expect(r.imageName).toContain(`-${r.arch === 'arm64' ? 'arm64' : 'x86_64'}-${r.variant}-`);
    }
  });

  it('gives images realistic, unique, deterministic IDs, owners and architectures', () => {
    const ids = [...catalog.images.keys()];
    for (const id of ids) expect(id).toMatch(/^ami-[0-9a-f]{17}$/);
    expect(new Set([...catalog.images.values()].map((i) => i.name)).size).toBe(ids.length);
    expect([...amiCatalog().images.keys()]).toEqual(ids);
    expect(amiCatalog({ seed: 2 }).images.has(ids[0]!)).toBe(false);
    const owners = {
      al2: '602401143452',
      al2023: '602401143452',
      bottlerocket: '092701018921',
      windows2019: '801119661308',
      windows2022: '801119661308',
      windows2025: '801119661308',
    };
    for (const r of catalog.releases.filter((r) => catalog.images.has(r.imageId))) {
      const i = image(r.imageId);
      expect(i).toMatchObject({ ownerId: owners[r.family], ownerAlias: 'amazon', public: true, state: 'available' });
      expect(i.architecture).toBe(r.arch === 'amd64' ? 'x86_64' : 'arm64');
      expect(i.platform).toBe(r.family.startsWith('windows') ? 'windows' : undefined);
    }
  });

  it('shares one image between AL2 nvidia and neuron, and Bottlerocket neuron with standard x86_64', () => {
    const find = (family: AmiFamily, variant: 'standard' | 'nvidia' | 'neuron') =>
      newestRelease(catalog, { family, kubernetesVersion: '1.30', arch: 'amd64', variant })!.imageId;
    expect(find('al2', 'nvidia')).toBe(find('al2', 'neuron'));
    expect(find('al2', 'nvidia')).not.toBe(find('al2', 'standard'));
    expect(find('bottlerocket', 'neuron')).toBe(find('bottlerocket', 'standard'));
    expect(find('bottlerocket', 'nvidia')).not.toBe(find('bottlerocket', 'standard'));
  });
});

describe('amiCatalog SSM parameters', () => {
  it('points every recommended/latest image_id at the newest release of its series', () => {
    for (const s of series()) {
      const newest = newestRelease(catalog, s)!;
      const parameter = catalog.parameters.get(ssmParameterPath({ ...s, release: 'latest' }));
      expect(parameter).toMatchObject({
        value: newest.imageId,
        dataType: 'aws:ec2:image',
        version: seriesReleases(catalog, s).length,
      });
    }
  });

  it('keeps a pinned image_id for every release of the pinnable families, and none for Windows', () => {
    for (const r of catalog.releases) {
      if (!FAMILIES[r.family].pinnable) continue;
      expect(parameterValue(catalog, ssmParameterPath(pinned(r)))).toBe(r.imageId);
    }
    const windows = [...catalog.parameters.keys()].filter((n) => n.startsWith('/aws/service/ami-windows-latest/'));
    expect(windows.every((n) => n.endsWith('/image_id'))).toBe(true);
    expect(windows).toHaveLength(series().filter((s) => s.family.startsWith('windows')).length);
  });

  it('publishes the metadata sub-parameters and the JSON folder value of AL2/AL2023 releases', () => {
    const r = seriesReleases(catalog, {
      family: 'al2023',
      kubernetesVersion: '1.31',
      arch: 'arm64',
      variant: 'nvidia',
    })[0]!;
    const meta = ssmMetadataPaths(pinned(r));
    const date = r.release.slice(1);
    expect(parameterValue(catalog, meta.imageName!)).toBe(r.imageName);
    expect(parameterValue(catalog, meta.releaseVersion!)).toMatch(new RegExp(`^1\\.31\\.\\d+-${date}$`));
    expect(JSON.parse(parameterValue(catalog, ssmParameterPrefix(pinned(r)))!)).toEqual({
      schema_version: '3',
      image_id: r.imageId,
      image_name: r.imageName,
      release_version: parameterValue(catalog, meta.releaseVersion!),
    });
    const latest = { ...pinned(r), release: 'latest' };
    const newest = newestRelease(catalog, r)!;
    expect(JSON.parse(parameterValue(catalog, ssmParameterPrefix(latest))!)).toMatchObject({
      image_id: newest.imageId,
      image_name: newest.imageName,
    });
    expect(parameterValue(catalog, ssmMetadataPaths(latest).imageName!)).toBe(newest.imageName);
  });

  it('publishes Bottlerocket image_version as version-commit matching the image name', () => {
    for (const variant of ['standard', 'nvidia'] as const) {
      const r = newestRelease(catalog, { family: 'bottlerocket', kubernetesVersion: '1.33', arch: 'arm64', variant })!;
      const version = parameterValue(catalog, ssmMetadataPaths(pinned(r)).imageVersion!)!;
      expect(version).toMatch(/^1\.\d+\.\d+-[0-9a-f]{8}$/);
      expect(version.startsWith(`${r.release}-`)).toBe(true);
      expect(r.imageName.endsWith(`-v${version}`)).toBe(true);
      expect(parameterValue(catalog, ssmMetadataPaths({ ...pinned(r), release: 'latest' }).imageVersion!)).toBe(
        version,
      );
    }
  });

  it('types image_id parameters as aws:ec2:image and points them at known or deregistered images', () => {
    for (const p of catalog.parameters.values()) {
      expect(p.name.startsWith('/aws/service/')).toBe(true);
      expect(p.dataType).toBe(p.name.endsWith('/image_id') ? 'aws:ec2:image' : 'text');
      if (p.dataType === 'aws:ec2:image')
        expect(catalog.images.has(p.value) || catalog.deregisteredImageIds.has(p.value)).toBe(true);
      expect(p.lastModified.getTime()).toBeLessThanOrEqual(catalog.asOf.getTime());
    }
  });
});

describe('amiCatalog entries for tests', () => {
  it('deprecates EKS AMIs two years after creation: an old pinned release is deprecated, the newest are not', () => {
    const deprecated = catalog.notable.deprecated!;
    const i = image(deprecated.imageId);
    expect(isDeprecatedAt(i, catalog.asOf)).toBe(true);
    expect(Date.parse(i.deprecationTime!) - Date.parse(i.creationDate)).toBeGreaterThanOrEqual(730 * 86_400_000);
    expect(parameterValue(catalog, ssmParameterPath(pinned(deprecated)))).toBe(deprecated.imageId);
    for (const s of series())
      expect(isDeprecatedAt(imageById(catalog, newestRelease(catalog, s)!.imageId), catalog.asOf)).toBe(false);
  });

  it('keeps the pinned parameter of a deregistered image', () => {
    const r = catalog.notable.deregistered!;
    expect(r).not.toEqual(catalog.notable.deprecated);
    expect(catalog.images.has(r.imageId)).toBe(false);
    expect(catalog.deregisteredImageIds.has(r.imageId)).toBe(true);
    expect(parameterValue(catalog, ssmParameterPath(pinned(r)))).toBe(r.imageId);
  });

  it('holds a pending and a failed image of the next build that no parameter points at', () => {
    const { pendingImageId, failedImageId } = catalog.notable;
    expect(image(pendingImageId!).state).toBe('pending');
    expect(image(failedImageId!)).toMatchObject({ state: 'failed', stateReason: { code: 'Server.InternalError' } });
    const values = new Set([...catalog.parameters.values()].map((p) => p.value));
    expect(values.has(pendingImageId!) || values.has(failedImageId!)).toBe(false);
  });

  it('takes added images and parameters and deregisters on request', () => {
    const golden: CatalogImage = {
      ...image(
        newestRelease(catalog, { family: 'al2023', kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' })!
          .imageId,
      ),
      imageId: 'ami-0aaaaaaaaaaaaaaaa',
      name: 'team-golden-al2023-1.30-20261020',
      ownerId: '111122223333',
      public: false,
      tags: { 'karpenter.sh/discovery': 'sandbox' },
    };
    delete golden.ownerAlias;
    const victim = newestRelease(catalog, {
      family: 'bottlerocket',
      kubernetesVersion: '1.30',
      arch: 'arm64',
      variant: 'standard',
    })!;
    const custom = amiCatalog({
      images: [golden],
      parameters: [{ name: '/team/golden/image_id', value: golden.imageId }],
      deregister: [victim.imageId],
    });
    expect(imageById(custom, golden.imageId)).toEqual(golden);
    expect(custom.parameters.get('/team/golden/image_id')).toMatchObject({
      value: golden.imageId,
      dataType: 'aws:ec2:image',
      version: 1,
    });
    expect(custom.images.has(victim.imageId)).toBe(false);
    expect(custom.deregisteredImageIds.has(victim.imageId)).toBe(true);
  });

  it('describes an earlier world when asked: no minor newer than asOf, fewer releases on request', () => {
    const early = amiCatalog({ asOf: '2024-03-01T00:00:00Z', releasesPerMinor: 2 });
    expect([...new Set(early.releases.map((r) => r.kubernetesVersion))]).toEqual(['1.28', '1.29']);
    expect(
      seriesReleases(early, { family: 'al2', kubernetesVersion: '1.29', arch: 'arm64', variant: 'standard' }),
    ).toHaveLength(2);
    for (const r of early.releases) expect(r.created.getTime()).toBeLessThanOrEqual(early.asOf.getTime());
  });
});

describe('catalog lookups', () => {
  it.each([
    ['amazon-eks-node-*', 'amazon-eks-node-1.30-v20240917', true],
    ['amazon-eks-node-1.3?-v*', 'amazon-eks-node-1.30-v20240917', true],
    ['amazon-eks-node-1.3?-v*', 'amazon-eks-node-1.3-v20240917', false],
    ['amazon-eks-node-1.30', 'amazon-eks-node-1x30', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['literal\\*', 'literal*', true],
    ['literal\\*', 'literalx', false],
    ['*', '', true],
  ])('wildcard %j against %j is %s', (pattern, value, expected) => {
    expect(wildcardMatcher(pattern)(value)).toBe(expected);
  });

  it('finds images by name pattern and by tags, a `*` tag value meaning "key present"', () => {
    const arm = imagesByName(catalog, 'bottlerocket-aws-k8s-1.32-nvidia-aarch64-*');
    expect(arm.map((i) => i.imageId).sort()).toEqual(
      seriesReleases(catalog, { family: 'bottlerocket', kubernetesVersion: '1.32', arch: 'arm64', variant: 'nvidia' })
        .map((r) => r.imageId)
        .sort(),
    );
    const tagged = amiCatalog({
      images: [
        { ...arm[0]!, imageId: 'ami-0bbbbbbbbbbbbbbbb', name: 'tagged', tags: { team: 'platform', env: 'prod' } },
      ],
    });
    expect(imagesByTags(tagged, { team: '*' }).map((i) => i.name)).toEqual(['tagged']);
    expect(imagesByTags(tagged, { team: 'platform', env: 'prod' })).toHaveLength(1);
    expect(imagesByTags(tagged, { team: 'platform', env: 'dev' })).toHaveLength(0);
  });

  it('resolves a parameter by name or by ARN, and the newest release of a series', () => {
    const s = { family: 'al2023', kubernetesVersion: '1.34', arch: 'amd64', variant: 'neuron' } as const;
    const path = ssmParameterPath({ ...s, release: 'latest' });
    expect(parameterValue(catalog, path)).toBe(newestRelease(catalog, s)!.imageId);
    expect(parameterValue(catalog, `arn:aws:ssm:eu-west-1::parameter${path}`)).toBe(newestRelease(catalog, s)!.imageId);
    expect(
      parameterValue(
        catalog,
        '/aws/service/eks/optimized-ami/1.40/amazon-linux-2023/x86_64/standard/recommended/image_id',
      ),
    ).toBeUndefined();
    const all = seriesReleases(catalog, s);
    expect(newestRelease(catalog, s)).toBe(all.at(-1));
    expect(all.map((r) => r.created.getTime())).toEqual(all.map((r) => r.created.getTime()).sort((a, b) => a - b));
  });
});
