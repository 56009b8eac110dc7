// The EC2NodeClasses and NodePools of a scenario, written as a platform team writes them for the Karpenter API the
// scenario installs (v1, or v1beta1 for Karpenter 0.32–0.37), and the AMIs each class's nodes run.
import { ARCHES, FAMILIES, variantExists, type AmiFamily, type Arch } from '../../ami/families.js';
import { UsageError } from '../../errors.js';
import { seriesReleases } from '../aws/lookup.js';
import type { AmiCatalog, CatalogRelease } from '../aws/types.js';
import type { KubeObject } from '../kube-api/types.js';
import type { Scenario, ScenarioNodeClass, ScenarioNodePool } from './schema.js';
import type { KarpenterApi } from './versions.js';

export interface ClassImages {
  name: string;
  family: AmiFamily;
  kubernetesVersion: string;
  /** nvidia when the class serves GPU pools (checks.ts keeps GPU and non-GPU pools on separate classes). */
  variant: 'standard' | 'nvidia';
  arches: Arch[];
  /** The release the nodes run, as the catalog names it (`v20240917`, `1.20.4`). */
  release: string;
  imageIds: Partial<Record<Arch, string>>;
  /** Per arch, the release record: image name for nodeInfo, creation date. */
  releases: Partial<Record<Arch, CatalogRelease>>;
}

/** The AMIs of a class's current nodes: the given (or newest) release of its family and version, per arch used. */
export function classImages(scenario: Scenario, index: number, catalog: AmiCatalog): ClassImages {
  const c = scenario.nodeClasses[index] as ScenarioNodeClass;
  const pools = scenario.nodePools.filter((p) => p.nodeClass === c.name);
  const used = new Set(pools.flatMap((p) => p.arch));
  // A class no pool uses still needs one term per arch its family publishes.
  const arches = ARCHES.filter((a) => (used.size > 0 ? used.has(a) : variantExists(c.family, a, 'standard')));
  const variant = pools.some((p) => p.gpu) ? 'nvidia' : 'standard';
  const wanted = c.release === undefined || c.release === 'latest' ? undefined : c.release.replace(/^v(?=\d+\.)/, '');
  const releases: ClassImages['releases'] = {};
  const imageIds: ClassImages['imageIds'] = {};
  for (const arch of arches) {
    const series = seriesReleases(catalog, { family: c.family, kubernetesVersion: c.kubernetesVersion, arch, variant });
    const release = wanted === undefined ? series.at(-1) : series.find((r) => r.release === wanted);
    if (!release) {
      const known = series.map((r) => r.release).join(', ') || 'none';
      throw new UsageError(
        `nodeClasses[${index}].release: the AMI catalog has no ${c.family} ${c.kubernetesVersion} ${arch} ${variant} release ${wanted ?? ''} (it has: ${known})`,
      );
    }
    releases[arch] = release;
    imageIds[arch] = release.imageId;
  }
  const first = releases[arches[0] ?? 'amd64'];
  return {
    name: c.name,
    family: c.family,
    kubernetesVersion: c.kubernetesVersion,
    variant,
    arches,
    release: first?.release ?? '',
    imageIds,
    releases,
  };
}

/** `id` terms plus amiFamily, or one alias term (DOMAIN.md §1.2 amiSelectorTerms forms). */
function amiSelection(c: ScenarioNodeClass, images: ClassImages): Record<string, unknown> {
  if (c.pin === 'id') {
    const amiSelectorTerms = images.arches.map((a) => ({ id: images.imageIds[a] }));
    return { amiFamily: FAMILIES[c.family].amiFamily, amiSelectorTerms };
  }
  const floating = c.release === 'latest' || !FAMILIES[c.family].pinnable;
  const tag = c.family === 'bottlerocket' ? `v${images.release}` : images.release;
  return { amiSelectorTerms: [{ alias: `${c.family}@${floating ? 'latest' : tag}` }] };
}

export function ec2NodeClassManifest(
  scenario: Scenario,
  c: ScenarioNodeClass,
  images: ClassImages,
  apiVersion: string,
): KubeObject {
  const discovery = () => [{ tags: { 'karpenter.sh/discovery': scenario.clusterName } }];
  return {
    apiVersion,
    kind: 'EC2NodeClass',
    metadata: { name: c.name },
    spec: {
      ...amiSelection(c, images),
      role: `KarpenterNodeRole-${scenario.clusterName}`,
      subnetSelectorTerms: discovery(),
      securityGroupSelectorTerms: discovery(),
    },
  };
}

export function nodePoolRequirements(pool: ScenarioNodePool, family: AmiFamily): Array<Record<string, unknown>> {
  return [
    { key: 'kubernetes.io/arch', operator: 'In', values: [...pool.arch] },
    { key: 'kubernetes.io/os', operator: 'In', values: [family.startsWith('windows') ? 'windows' : 'linux'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: pool.gpu ? ['g'] : ['c', 'm', 'r'] },
  ];
}

export function nodePoolManifest(
  pool: ScenarioNodePool,
  family: AmiFamily,
  api: KarpenterApi,
  apiVersion: string,
): KubeObject {
  const budgets = pool.budgets ? { budgets: pool.budgets.map((b) => JSON.parse(JSON.stringify(b)) as object) } : {};
  // v1beta1 (DOMAIN.md §2.9): nodeClassRef by apiVersion, expireAfter under disruption, WhenUnderutilized.
  const v1 = api === 'v1';
  const nodeClassRef = v1
    ? { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool.nodeClass }
    : { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: pool.nodeClass };
  const disruption = v1
    ? {
        consolidationPolicy: pool.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
        consolidateAfter: pool.consolidateAfter ?? '0s',
        ...budgets,
      }
    : { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h', ...budgets };
  return {
    apiVersion,
    kind: 'NodePool',
    metadata: { name: pool.name },
    spec: {
      template: {
        spec: {
          nodeClassRef,
          requirements: nodePoolRequirements(pool, family),
          ...(pool.terminationGracePeriod ? { terminationGracePeriod: pool.terminationGracePeriod } : {}),
        },
      },
      disruption,
    },
  };
}
