// The AMI families Karpenter v1 supports, and which (architecture, variant) combinations exist for each.
// DOMAIN.md §3.1; karpenter-provider-aws pkg/providers/amifamily/{al2,al2023,bottlerocket,windows}.go.

export const AMI_FAMILIES = ['al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'] as const;
export type AmiFamily = (typeof AMI_FAMILIES)[number];

/** Kubernetes names for architectures; SSM's `x86_64` stays internal (see `ssmArch`). */
export const ARCHES = ['amd64', 'arm64'] as const;
export type Arch = (typeof ARCHES)[number];

export const VARIANTS = ['standard', 'nvidia', 'neuron'] as const;
export type Variant = (typeof VARIANTS)[number];

/** `spec.amiFamily` values in the v1 EC2NodeClass CRD. */
export type AmiFamilyField = 'AL2' | 'AL2023' | 'Bottlerocket' | 'Windows2019' | 'Windows2022' | 'Windows2025';

export interface FamilyInfo {
  amiFamily: AmiFamilyField;
  /** Which variants exist per architecture. */
  variants: Record<Arch, readonly Variant[]>;
  /** Pinned releases through versioned SSM paths (Windows publishes only the latest). */
  pinnable: boolean;
  /** Kubernetes minors this family publishes AMIs for, inclusive; undefined = open-ended. */
  minMinor?: number;
  maxMinor?: number;
}

export const FAMILIES: Record<AmiFamily, FamilyInfo> = {
  // AL2's single GPU AMI serves both nvidia and neuron instances; Karpenter lists it twice in status.amis.
  al2: {
    amiFamily: 'AL2',
    variants: { amd64: ['standard', 'nvidia', 'neuron'], arm64: ['standard'] },
    pinnable: true,
    maxMinor: 32,
  },
  al2023: {
    amiFamily: 'AL2023',
    variants: { amd64: ['standard', 'nvidia', 'neuron'], arm64: ['standard', 'nvidia'] },
    pinnable: true,
  },
  // Bottlerocket's standard x86_64 AMI also serves neuron instances (Karpenter v1.3+).
  bottlerocket: {
    amiFamily: 'Bottlerocket',
    variants: { amd64: ['standard', 'nvidia', 'neuron'], arm64: ['standard', 'nvidia'] },
    pinnable: true,
  },
  windows2019: { amiFamily: 'Windows2019', variants: { amd64: ['standard'], arm64: [] }, pinnable: false },
  windows2022: { amiFamily: 'Windows2022', variants: { amd64: ['standard'], arm64: [] }, pinnable: false },
  windows2025: {
    amiFamily: 'Windows2025',
    variants: { amd64: ['standard'], arm64: [] },
    pinnable: false,
    minMinor: 35,
  },
};

export function familyFromAmiFamilyField(field: string): AmiFamily | undefined {
  return AMI_FAMILIES.find((f) => FAMILIES[f].amiFamily.toLowerCase() === field.toLowerCase());
}

export function variantExists(family: AmiFamily, arch: Arch, variant: Variant): boolean {
  return FAMILIES[family].variants[arch].includes(variant);
}

export function ssmArch(arch: Arch): 'x86_64' | 'arm64' {
  return arch === 'amd64' ? 'x86_64' : 'arm64';
}

/** Parses "1.30" into 30; the major is always 1 for the versions Karpenter supports. */
export function minorNumber(kubernetesVersion: string): number {
  return Number(kubernetesVersion.split('.')[1]);
}

/**
 * The Kubernetes minor an EKS-optimized AMI name encodes (`amazon-eks-node-al2023-x86_64-standard-1.29-v2026…`,
 * `bottlerocket-aws-k8s-1.29-x86_64-v1.26.1-…`): the first of `names` that carries one.
 */
export function minorInAmiNames(names: ReadonlyArray<string | undefined>): string | undefined {
  for (const n of names) {
    const m = /-(1\.\d+)-/.exec(n ?? '');
    if (m) return m[1];
  }
  return undefined;
}

/** Why a family has no AMIs for a Kubernetes minor, or undefined when it has. */
export function familyVersionProblem(family: AmiFamily, kubernetesVersion: string): string | undefined {
  const info = FAMILIES[family];
  const minor = minorNumber(kubernetesVersion);
  if (info.maxMinor !== undefined && minor > info.maxMinor) {
    return `${family} has no EKS-optimized AMIs for Kubernetes ${kubernetesVersion}: 1.${info.maxMinor} was the last version with ${info.amiFamily} AMIs (Karpenter rejects the alias with UnsupportedAlias)`;
  }
  if (info.minMinor !== undefined && minor < info.minMinor) {
    return `${family} needs Kubernetes 1.${info.minMinor} or later (asked for ${kubernetesVersion})`;
  }
  return undefined;
}
