// Pure checks on what SSM and EC2 DescribeImages returned for one query: does the image exist, is it usable, and is it
// the image the parameter claims (arch, Kubernetes minor, variant and release encoded in its name, DOMAIN.md §3.4)?
import { ssmArch, type AmiFamily, type Arch, type Variant } from './families.js';
import { ssmParameterPath, type AmiQuery } from './parameters.js';

/** The narrow view of an EC2 `Image` the checks need (converted at the boundary in resolve.ts). */
export interface ImageView {
  id: string;
  name?: string;
  state?: string;
  /** EC2's names: x86_64, arm64, i386, … */
  architecture?: string;
  deprecationTime?: string;
  creationDate?: string;
  /** The account that owns it (EKS: 602401143452 in most regions; Bottlerocket and Windows have their own). */
  ownerId?: string;
}

/** The metadata sub-parameters read next to image_id (DOMAIN.md §3.2). */
export interface ReleaseMetadata {
  /** AL2/AL2023 `release_version`, e.g. 1.30.4-20240917. */
  releaseVersion?: string;
  /** AL2/AL2023 `image_name`. */
  imageName?: string;
  /** Bottlerocket `image_version`, e.g. 1.20.4-abcdef12. */
  imageVersion?: string;
}

export interface ResolvedAmi {
  family: AmiFamily;
  arch: Arch;
  variant: Variant;
  kubernetesVersion: string;
  /** Concrete release: v20241109 (AL2, AL2023), 1.26.1 (Bottlerocket), 2024.09.10 (Windows, from the name). */
  release: string;
  /** 1.30.4-20240917 (AL2, AL2023) or 1.20.4-abcdef12 (Bottlerocket). */
  releaseVersion?: string;
  id: string;
  name: string;
  /** The exact image_id parameter read. */
  parameter: string;
  state: string;
  /** EC2's x86_64 | arm64. */
  architecture: string;
  /** Deprecated, or will be within DEPRECATION_NOTICE_DAYS. */
  deprecated: boolean;
  deprecationTime?: string;
  creationDate?: string;
  /** Verification findings, hard failures first. */
  problems: string[];
  /** No hard failure: the image may be pinned (deprecation is judged by the plan). */
  usable: boolean;
  /** The owner account EC2 reports, which a `--pin name` term names. */
  owner?: string;
  /** `--pin name`: how many available images (deprecated ones included) carry this name under `owner`. */
  nameMatches?: number;
}

export interface Verdict {
  /** The image must not be pinned: missing, unusable, or not what the parameter claims. */
  failures: string[];
  /** Usable but worth a warning: deprecated or about to be. */
  warnings: string[];
  deprecated: boolean;
}

export const DEPRECATION_NOTICE_DAYS = 30;
const DAY_MS = 86_400_000;

/** What an EKS-optimized image name encodes. `flavor` is the family's variant token (al2: standard|gpu; windows: the year). */
export interface ImageNameFields {
  kubernetesVersion: string;
  architecture?: 'x86_64' | 'arm64';
  flavor: string;
  release: string;
}

export function imageNameFields(family: AmiFamily, name: string): ImageNameFields | undefined {
  let m: RegExpExecArray | null;
  switch (family) {
    case 'al2023':
      m = /^amazon-eks-node-al2023-(x86_64|arm64)-(standard|nvidia|neuron)-(1\.\d+)-(v\d{8})$/.exec(name);
      return m
        ? { architecture: m[1] as 'x86_64' | 'arm64', flavor: m[2]!, kubernetesVersion: m[3]!, release: m[4]! }
        : undefined;
    case 'al2':
      m = /^amazon-eks-(?:(arm64|gpu)-)?node-(1\.\d+)-(v\d{8})$/.exec(name);
      if (!m) return undefined;
      return {
        architecture: m[1] === 'arm64' ? 'arm64' : 'x86_64',
        flavor: m[1] === 'gpu' ? 'gpu' : 'standard',
        kubernetesVersion: m[2]!,
        release: m[3]!,
      };
    case 'bottlerocket':
      // Bottlerocket names arm64 images `aarch64`, unlike its SSM paths.
      m = /^bottlerocket-aws-k8s-(1\.\d+)(-nvidia)?-(x86_64|aarch64)-v(\d+\.\d+\.\d+)-[0-9a-f]+$/.exec(name);
      if (!m) return undefined;
      return {
        kubernetesVersion: m[1]!,
        flavor: m[2] ? 'nvidia' : 'standard',
        architecture: m[3] === 'aarch64' ? 'arm64' : 'x86_64',
        release: m[4]!,
      };
    case 'windows2019':
    case 'windows2022':
    case 'windows2025':
      m = /^Windows_Server-(\d{4})-English-Core-EKS_Optimized-(1\.\d+)-(.+)$/.exec(name);
      return m ? { flavor: m[1]!, kubernetesVersion: m[2]!, release: m[3]! } : undefined;
  }
}

/** The flavor token a query's image name must carry: AL2 shares one GPU image, Bottlerocket neuron uses standard. */
function expectedFlavor(q: AmiQuery): string {
  switch (q.family) {
    case 'al2':
      return q.variant === 'standard' ? 'standard' : 'gpu';
    case 'al2023':
      return q.variant;
    case 'bottlerocket':
      return q.variant === 'nvidia' ? 'nvidia' : 'standard';
    default:
      return q.family.slice('windows'.length);
  }
}

const NAME_EXAMPLES: Record<AmiFamily, string> = {
  al2: 'amazon-eks-node-1.30-v20240917',
  al2023: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20240917',
  bottlerocket: 'bottlerocket-aws-k8s-1.30-x86_64-v1.22.0-7f4d9b3b',
  windows2019: 'Windows_Server-2019-English-Core-EKS_Optimized-1.30-2024.09.10',
  windows2022: 'Windows_Server-2022-English-Core-EKS_Optimized-1.30-2024.09.10',
  windows2025: 'Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026.01.13',
};

export function verifyImage(q: AmiQuery, image: ImageView | undefined, now: Date): Verdict {
  if (image === undefined) {
    return {
      failures: [
        'EC2 DescribeImages does not return the image the parameter points to: it is unavailable or deregistered',
      ],
      warnings: [],
      deprecated: false,
    };
  }
  const failures: string[] = [];
  if (image.state !== 'available') failures.push(`state is ${image.state ?? 'unknown'}, not available`);
  const arch = ssmArch(q.arch);
  if (image.architecture !== arch)
    failures.push(`architecture is ${image.architecture ?? 'unknown'}, not ${arch} (${q.arch})`);

  const name = image.name ?? '';
  const fields = imageNameFields(q.family, name);
  if (fields === undefined) {
    failures.push(
      `name ${JSON.stringify(name)} is not an EKS-optimized ${q.family} AMI name (like ${NAME_EXAMPLES[q.family]})`,
    );
  } else {
    if (fields.kubernetesVersion !== q.kubernetesVersion)
      failures.push(`name ${name} is for Kubernetes ${fields.kubernetesVersion}, not ${q.kubernetesVersion}`);
    const flavor = expectedFlavor(q);
    if (fields.flavor !== flavor)
      failures.push(`name ${name} is the ${fields.flavor} image, not ${flavor} (variant ${q.variant})`);
    if (fields.architecture !== undefined && fields.architecture !== arch)
      failures.push(`name ${name} is for ${fields.architecture}, not ${arch}`);
    if (q.release !== 'latest' && fields.release !== q.release)
      failures.push(`name ${name} is release ${fields.release}, not ${q.release}`);
  }

  const warnings: string[] = [];
  const deprecatedAt = image.deprecationTime === undefined ? NaN : Date.parse(image.deprecationTime);
  const deprecated = deprecatedAt - now.getTime() <= DEPRECATION_NOTICE_DAYS * DAY_MS;
  if (deprecated) {
    const when = image.deprecationTime!.slice(0, 10);
    const days = Math.ceil((deprecatedAt - now.getTime()) / DAY_MS);
    warnings.push(
      deprecatedAt <= now.getTime() ? `deprecated since ${when}` : `will be deprecated on ${when} (in ${days} days)`,
    );
  }
  return { failures, warnings, deprecated };
}

/** The release the AMI is, concrete even for `latest`, from the metadata first and the image name second. */
export function concreteRelease(q: AmiQuery, metadata: ReleaseMetadata, image: ImageView | undefined): string {
  if (q.release !== 'latest') return q.release;
  // release_version is "<k8s patch>-<YYYYMMDD>"; image_version is "<X.Y.Z>-<commit>" (DOMAIN.md §3.2).
  const dated = /^\d+\.\d+\.\d+-(\d{8})$/.exec(metadata.releaseVersion ?? '');
  if (dated) return `v${dated[1]}`;
  const semver = /^v?(\d+\.\d+\.\d+)-[0-9a-f]+$/.exec(metadata.imageVersion ?? '');
  if (semver) return semver[1]!;
  const fromName = imageNameFields(q.family, metadata.imageName ?? image?.name ?? '');
  if (fromName) return fromName.release;
  // A Windows name that does not end in its build date: the creation date is the next best name for it.
  if (image?.creationDate) return image.creationDate.slice(0, 10).replaceAll('-', '.');
  return q.release;
}

export function resolvedAmi(
  q: AmiQuery,
  id: string,
  metadata: ReleaseMetadata,
  image: ImageView | undefined,
  verdict: Verdict,
): ResolvedAmi {
  return {
    family: q.family,
    arch: q.arch,
    variant: q.variant,
    kubernetesVersion: q.kubernetesVersion,
    release: concreteRelease(q, metadata, image),
    releaseVersion: metadata.releaseVersion ?? metadata.imageVersion,
    id,
    name: image?.name ?? metadata.imageName ?? '',
    parameter: ssmParameterPath(q),
    state: image?.state ?? 'missing',
    architecture: image?.architecture ?? '',
    deprecated: verdict.deprecated,
    deprecationTime: image?.deprecationTime,
    creationDate: image?.creationDate,
    problems: [...verdict.failures, ...verdict.warnings],
    usable: verdict.failures.length === 0,
    ...(image?.ownerId !== undefined ? { owner: image.ownerId } : {}),
  };
}
