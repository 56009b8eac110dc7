// The sandbox's EKS-optimized AMI catalog: public SSM parameters and the EC2 images they point at, for Kubernetes
// 1.28–1.36 × every family/arch/variant of src/ami/families.ts × a few releases. Pure and seeded.
// Parameter names come only from src/ami/parameters.ts, so they can never disagree with what the resolver reads.
import { AMI_FAMILIES, ARCHES, FAMILIES, familyVersionProblem } from '../../ami/families.js';
import { ssmMetadataPaths, ssmParameterPath, ssmParameterPrefix, type AmiQuery } from '../../ami/parameters.js';
import { bottlerocketCommit, eksImage, isDeprecatedAt, releaseOf } from './images.js';
import { KUBERNETES_MINORS, minorBuilds, nextBuild, type Build } from './releases.js';
import type { AmiCatalog, CatalogImage, CatalogParameter, CatalogRelease } from './types.js';

export interface AmiCatalogOptions {
  seed?: number;
  /** The instant the catalog describes (default 2026-11-01): no release is newer, deprecation is judged at it. */
  asOf?: Date | string;
  /** Builds per (family, minor): the first after the minor reached EKS, then the newest ones (default 4). */
  releasesPerMinor?: number;
  /** The account `self` means in DescribeImages (default 111122223333). */
  accountId?: string;
  /** Added to the catalog; an image with an existing ID replaces it. */
  images?: CatalogImage[];
  /** Added or replacing by name; `version` defaults to 1, `lastModified` to `asOf`. */
  parameters?: Array<Pick<CatalogParameter, 'name' | 'value'> & Partial<CatalogParameter>>;
  /** Image IDs to deregister: DescribeImages stops returning them, parameters keep pointing at them. */
  deregister?: string[];
}

const HOUR_MS = 3_600_000;

export const DEFAULT_AS_OF = '2026-11-01T00:00:00.000Z';

/** Writes `image_id` and the metadata sub-parameters of one SSM folder (DOMAIN.md §3.2). */
function publish(
  params: Map<string, CatalogParameter>,
  q: AmiQuery,
  image: CatalogImage,
  b: Build,
  seed: number,
  version: number,
): void {
  const lastModified = new Date(b.created.getTime() + 2 * HOUR_MS);
  const set = (name: string, value: string, dataType: CatalogParameter['dataType'] = 'text') =>
    params.set(name, { name, value, version, lastModified, dataType });
  set(ssmParameterPath(q), image.imageId, 'aws:ec2:image');
  const meta = ssmMetadataPaths(q);
  const releaseVersion = `${q.kubernetesVersion}.${b.kubernetesPatch}-${b.amazonLinuxTag.slice(1)}`;
  if (meta.imageName) set(meta.imageName, image.name);
  if (meta.releaseVersion) set(meta.releaseVersion, releaseVersion);
  if (meta.imageVersion)
    set(meta.imageVersion, `${b.bottlerocketVersion}-${bottlerocketCommit(seed, b.bottlerocketVersion)}`);
  if (q.family === 'al2' || q.family === 'al2023') {
    // The folder itself holds the same facts as one JSON string (AWS "Retrieve recommended Amazon Linux AMI IDs").
    const json = {
      schema_version: '3',
      image_id: image.imageId,
      image_name: image.name,
      release_version: releaseVersion,
    };
    set(ssmParameterPrefix(q), JSON.stringify(json));
  }
}

export function amiCatalog(options: AmiCatalogOptions = {}): AmiCatalog {
  const seed = options.seed ?? 1;
  const asOf = new Date(options.asOf ?? DEFAULT_AS_OF);
  const catalog: AmiCatalog = {
    asOf,
    accountId: options.accountId ?? '111122223333',
    parameters: new Map(),
    images: new Map(),
    deregisteredImageIds: new Set(),
    releases: [],
    notable: {},
  };
  for (const kubernetesVersion of KUBERNETES_MINORS) {
    const builds = minorBuilds(seed, kubernetesVersion, asOf, options.releasesPerMinor ?? 4);
    if (builds.length === 0) continue;
    for (const family of AMI_FAMILIES) {
      if (familyVersionProblem(family, kubernetesVersion)) continue;
      const info = FAMILIES[family];
      for (const arch of ARCHES) {
        for (const variant of info.variants[arch]) {
          const latest = { family, kubernetesVersion, arch, variant, release: 'latest' };
          builds.forEach((b, i) => {
            const pinned = { ...latest, release: info.pinnable ? releaseOf(family, b) : 'latest' };
            // AL2's GPU image serves nvidia and neuron, Bottlerocket's standard x86_64 image serves neuron:
            // the same name, hence the same ID, so the variants share one image and one SSM folder.
            const image = eksImage(seed, pinned, b);
            catalog.images.set(image.imageId, image);
            const newest = i === builds.length - 1;
            if (info.pinnable) publish(catalog.parameters, pinned, image, b, seed, 1);
            if (newest) publish(catalog.parameters, latest, image, b, seed, builds.length);
            catalog.releases.push({
              family,
              kubernetesVersion,
              arch,
              variant,
              release: releaseOf(family, b),
              imageId: image.imageId,
              imageName: image.name,
              created: b.created,
              ...(info.pinnable || newest ? { parameterPrefix: ssmParameterPrefix(pinned) } : {}),
            });
          });
        }
      }
    }
  }
  addNotableEntries(catalog, seed);
  applyOverrides(catalog, options);
  return catalog;
}

function al2023Standard(catalog: AmiCatalog, kubernetesVersion: string | undefined): CatalogRelease[] {
  return catalog.releases.filter(
    (r) =>
      r.family === 'al2023' &&
      r.arch === 'amd64' &&
      r.variant === 'standard' &&
      r.kubernetesVersion === kubernetesVersion,
  );
}

function addNotableEntries(catalog: AmiCatalog, seed: number): void {
  const minors = [...new Set(catalog.releases.map((r) => r.kubernetesVersion))];
  const deprecated = catalog.releases.find(
    (r) =>
      r.family === 'al2023' && r.variant === 'standard' && isDeprecatedAt(catalog.images.get(r.imageId), catalog.asOf),
  );
  if (deprecated) catalog.notable.deprecated = deprecated;
  const series = al2023Standard(catalog, minors[1] ?? minors[0]);
  const deregistered = series.length >= 3 ? series[1] : undefined;
  if (deregistered) {
    catalog.images.delete(deregistered.imageId);
    catalog.deregisteredImageIds.add(deregistered.imageId);
    catalog.notable.deregistered = deregistered;
  }
  const newestMinor = minors.at(-1);
  if (newestMinor === undefined) return;
  // The next build is being registered: one image still `pending`, one that `failed`; SSM knows neither.
  const b = nextBuild(seed, newestMinor, catalog.asOf);
  const created = new Date(catalog.asOf.getTime() - 2 * HOUR_MS);
  const base = {
    family: 'al2023',
    kubernetesVersion: newestMinor,
    variant: 'standard',
    release: b.amazonLinuxTag,
  } as const;
  const pending = eksImage(seed, { ...base, arch: 'amd64' }, { ...b, created });
  const failed = eksImage(seed, { ...base, arch: 'arm64' }, { ...b, created });
  catalog.images.set(pending.imageId, { ...pending, state: 'pending' });
  catalog.images.set(failed.imageId, {
    ...failed,
    state: 'failed',
    stateReason: { code: 'Server.InternalError', message: 'Server.InternalError: Internal error on launch' },
  });
  catalog.notable.pendingImageId = pending.imageId;
  catalog.notable.failedImageId = failed.imageId;
}

function applyOverrides(catalog: AmiCatalog, options: AmiCatalogOptions): void {
  for (const image of options.images ?? []) {
    catalog.images.set(image.imageId, image);
    catalog.deregisteredImageIds.delete(image.imageId);
  }
  for (const p of options.parameters ?? []) {
    catalog.parameters.set(p.name, {
      version: 1,
      lastModified: catalog.asOf,
      dataType: p.name.endsWith('/image_id') ? 'aws:ec2:image' : 'text',
      ...p,
    });
  }
  for (const imageId of options.deregister ?? []) {
    if (catalog.images.delete(imageId)) catalog.deregisteredImageIds.add(imageId);
  }
}
