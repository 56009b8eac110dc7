// EC2 images of EKS-optimized AMI releases, named and owned as AWS publishes them. Pure and seeded.
import { ssmArch, type AmiFamily } from '../../ami/families.js';
import { ssmParameterPrefix, type AmiQuery } from '../../ami/parameters.js';
import { seededHex, type Build } from './releases.js';
import type { CatalogImage } from './types.js';

// Owners as DescribeImages reports them: EKS AMIs come from the EKS account (602401143452 in most regions),
// Bottlerocket from its own per-region accounts (092701018921 is us-east-1's), Windows from Amazon's Windows account.
// All carry the owner alias `amazon`, which is why `Owner.1=amazon` finds them.
const OWNERS: Record<AmiFamily, string> = {
  al2: '602401143452',
  al2023: '602401143452',
  bottlerocket: '092701018921',
  windows2019: '801119661308',
  windows2022: '801119661308',
  windows2025: '801119661308',
};
// EKS AMIs are deprecated two years after creation (DescribeImages shows DeprecationTime = CreationDate + 2 years).
const DEPRECATION_YEARS = 2;

export function amiId(seed: number, imageName: string): string {
  return `ami-0${seededHex(seed, `ami|${imageName}`).slice(0, 16)}`;
}

export function bottlerocketCommit(seed: number, version: string): string {
  return seededHex(seed, `bottlerocket|${version}`).slice(0, 8);
}

/** The release a pinned query names; Windows cannot be pinned and only its newest build is published. */
export function releaseOf(family: AmiFamily, b: Build): string {
  if (family === 'al2' || family === 'al2023') return b.amazonLinuxTag;
  if (family === 'bottlerocket') return b.bottlerocketVersion;
  return b.windowsDate;
}

/** AMI names per DOMAIN.md §3.4. For AL2/AL2023 the pinned SSM folder is named after the image, as AWS does. */
function imageName(seed: number, q: AmiQuery, b: Build): string {
  const k = q.kubernetesVersion;
  switch (q.family) {
    case 'al2':
    case 'al2023':
      return ssmParameterPrefix(q).split('/').pop()!;
    case 'bottlerocket': {
      // Bottlerocket names its arm64 images `aarch64`, unlike its SSM paths (`arm64`).
      const flavor = q.variant === 'nvidia' ? `aws-k8s-${k}-nvidia` : `aws-k8s-${k}`;
      const arch = q.arch === 'arm64' ? 'aarch64' : 'x86_64';
      return `bottlerocket-${flavor}-${arch}-v${b.bottlerocketVersion}-${bottlerocketCommit(seed, b.bottlerocketVersion)}`;
    }
    default:
      return `Windows_Server-${q.family.slice('windows'.length)}-English-Core-EKS_Optimized-${k}-${b.windowsDate}`;
  }
}

function description(q: AmiQuery, b: Build, name: string): string {
  const k8s = `${q.kubernetesVersion}.${b.kubernetesPatch}`;
  if (q.family === 'al2023')
    return `EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: ${k8s}, containerd: 1.7.*)`;
  if (q.family === 'al2') return `EKS Kubernetes Worker AMI with AmazonLinux2 image, (k8s: ${k8s}, containerd: 1.7.*)`;
  if (q.family === 'bottlerocket') return name;
  return `Microsoft Windows Server ${q.family.slice('windows'.length)} Core optimized for EKS and provided by Amazon`;
}

export function eksImage(seed: number, q: AmiQuery, b: Build): CatalogImage {
  const name = imageName(seed, q, b);
  const windows = q.family.startsWith('windows');
  const deprecation = new Date(b.created);
  deprecation.setUTCFullYear(deprecation.getUTCFullYear() + DEPRECATION_YEARS);
  return {
    imageId: amiId(seed, name),
    name,
    description: description(q, b, name),
    architecture: ssmArch(q.arch),
    state: 'available',
    ownerId: OWNERS[q.family],
    ownerAlias: 'amazon',
    public: true,
    creationDate: b.created.toISOString(),
    deprecationTime: deprecation.toISOString(),
    ...(windows ? { platform: 'windows' as const } : {}),
    platformDetails: windows ? 'Windows' : 'Linux/UNIX',
    usageOperation: windows ? 'RunInstances:0002' : 'RunInstances',
    tags: {},
  };
}

/** EC2 hides deprecated images from other accounts unless asked; an image is deprecated from its DeprecationTime on. */
export function isDeprecatedAt(image: CatalogImage | undefined, now: Date): boolean {
  return image?.deprecationTime !== undefined && Date.parse(image.deprecationTime) <= now.getTime();
}
