// What an `alias` term reads from SSM, as karpenter-provider-aws v1.14 pkg/providers/amifamily/{al2,al2023,
// bottlerocket,windows}.go `DescribeImageQuery` do: one image_id parameter per (arch, variant) the family publishes
// for the control-plane minor, and the variants each resolved image ID serves ("known requirements").
import { AMI_FAMILIES, ARCHES, FAMILIES, minorNumber, type AmiFamily, type Variant } from '../../ami/families.js';
import { ssmParameterPath } from '../../ami/parameters.js';
import { parameterValue } from '../aws/lookup.js';
import type { AmiCatalog } from '../aws/types.js';

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

/**
 * Why an alias resolves nothing. `UnsupportedAlias` is terminal: Karpenter sets AMIsReady=False with it. An `error`
 * is a reconcile error ("failed to discover any AMIs for alias"): Karpenter logs it, retries with backoff and leaves
 * AMIsReady and status.amis as they were (KP v1.14 pkg/controllers/nodeclass/ami.go, DOMAIN.md §1.2).
 */
export type AliasFailure = { reason: 'UnsupportedAlias'; message: string } | { error: string };

/** Image ID → the variants it serves, in FAMILIES order; plus the family, which decides the requirements. */
export type AliasImages = {
  family: AmiFamily;
  variants: Map<string, Variant[]>;
};

const GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';
const ACCELERATOR_COUNT = 'karpenter.k8s.aws/instance-accelerator-count';

// v1.WindowsXXXXBuild: the node.kubernetes.io/windows-build a Windows alias pins (DOMAIN.md §1.2 Status).
const WINDOWS_BUILDS: Partial<Record<AmiFamily, string>> = {
  windows2019: '10.0.17763',
  windows2022: '10.0.20348',
  windows2025: '10.0.26100',
};

/**
 * Requirements an alias knows besides the architecture (types.go `Variant.Requirements`). Windows replaces the
 * variant with the OS and build (windows.go), so a Windows AMI never says anything about GPUs.
 */
export function variantRequirements(family: AmiFamily, variant: Variant): Requirement[] {
  const build = WINDOWS_BUILDS[family];
  if (build !== undefined) {
    return [
      { key: 'kubernetes.io/os', operator: 'In', values: ['windows'] },
      { key: 'node.kubernetes.io/windows-build', operator: 'In', values: [build] },
    ];
  }
  if (variant === 'nvidia') return [{ key: GPU_COUNT, operator: 'Exists' }];
  if (variant === 'neuron') return [{ key: ACCELERATOR_COUNT, operator: 'Exists' }];
  return [
    { key: GPU_COUNT, operator: 'DoesNotExist' },
    { key: ACCELERATOR_COUNT, operator: 'DoesNotExist' },
  ];
}

function unsupported(message: string): AliasFailure {
  return { reason: 'UnsupportedAlias', message };
}

/** `al2023@latest` → the image IDs its parameters name, or why the alias resolves nothing. */
export function aliasImages(
  alias: string,
  catalog: AmiCatalog,
  controlPlaneVersion: string,
): AliasImages | AliasFailure {
  const at = alias.indexOf('@');
  const name = alias.slice(0, at).toLowerCase();
  const version = alias.slice(at + 1);
  const family = AMI_FAMILIES.find((f) => f === name);
  // The CRD's CEL rules reject these at admission; a direct caller still gets a reason rather than a throw.
  if (at < 1 || version === '' || family === undefined) {
    return { error: `"${alias}" is not an alias of a supported family` };
  }
  if (!FAMILIES[family].pinnable && version !== 'latest') {
    return { error: `${family} aliases only accept "latest", not "${version}"` };
  }
  // Karpenter reads SSM for "<major>.<minor>" (version provider), whatever patch the API server reports.
  const kubernetesVersion = controlPlaneVersion.split('.').slice(0, 2).join('.');
  const minor = minorNumber(kubernetesVersion);
  // ami.go `DescribeImageQueries`: these are terminal (AMIsReady=False, reason UnsupportedAlias), not retried.
  if (family === 'al2' && minor >= 33) {
    return unsupported(
      'AL2 aliases are no longer supported on EKS 1.33+ (see https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html#kubernetes-1-33)',
    );
  }
  if (family === 'windows2025' && minor < 35) {
    return unsupported(
      `Windows Server 2025 requires EKS version 1.35 or higher, current version: ${kubernetesVersion}`,
    );
  }
  const variants = new Map<string, Variant[]>();
  for (const arch of ARCHES) {
    for (const variant of FAMILIES[family].variants[arch]) {
      // ssmParameterPath drops Bottlerocket's optional leading `v` and maps AL2 GPU / Bottlerocket neuron onto the
      // shared image's folder, so a shared image collects both variants here, as Karpenter's `ids` map does.
      const path = ssmParameterPath({ family, kubernetesVersion, arch, variant, release: version });
      const imageId = parameterValue(catalog, path);
      // A missing parameter is skipped quietly; so is a value that is no image ID (DescribeImages would reject it).
      if (imageId === undefined || !imageId.startsWith('ami-')) continue;
      variants.set(imageId, [...(variants.get(imageId) ?? []), variant]);
    }
  }
  if (variants.size === 0) {
    return { error: `failed to discover any AMIs for alias "${name}@${version}"` };
  }
  return { family, variants };
}
