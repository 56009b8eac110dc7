// Pure SSM public-parameter paths for EKS-optimized AMIs, exactly as Karpenter v1 reads them
// (DOMAIN.md §3.1–3.3; karpenter-provider-aws pkg/providers/amifamily/*.go `resolvePath`-style builders).
import { ssmArch, type AmiFamily, type Arch, type Variant } from './families.js';

/** `latest` reads the mutable recommended/latest parameters; anything else is a concrete release. */
export type Release = string; // 'latest' or a concrete release

export interface AmiQuery {
  family: AmiFamily;
  kubernetesVersion: string; // "1.30"
  arch: Arch;
  variant: Variant;
  release: Release; // "latest", "v20241109" (AL2/AL2023), "1.26.1" (Bottlerocket)
}

/** The SSM "folder" whose leaves are image_id and the metadata sub-parameters. */
export function ssmParameterPrefix(q: AmiQuery): string {
  const k = q.kubernetesVersion;
  const arch = ssmArch(q.arch);
  switch (q.family) {
    case 'al2': {
      // One GPU AMI serves nvidia and neuron; arm64 has only the standard AMI.
      const [dir, stem] =
        q.variant === 'standard'
          ? q.arch === 'arm64'
            ? ['amazon-linux-2-arm64', 'amazon-eks-arm64-node']
            : ['amazon-linux-2', 'amazon-eks-node']
          : ['amazon-linux-2-gpu', 'amazon-eks-gpu-node'];
      const leaf = q.release === 'latest' ? 'recommended' : `${stem}-${k}-${q.release}`;
      return `/aws/service/eks/optimized-ami/${k}/${dir}/${leaf}`;
    }
    case 'al2023': {
      const leaf = q.release === 'latest' ? 'recommended' : `amazon-eks-node-al2023-${arch}-${q.variant}-${k}-${q.release}`;
      return `/aws/service/eks/optimized-ami/${k}/amazon-linux-2023/${arch}/${q.variant}/${leaf}`;
    }
    case 'bottlerocket': {
      // Neuron instances use the standard x86_64 Bottlerocket AMI.
      const flavor = q.variant === 'nvidia' ? `aws-k8s-${k}-nvidia` : `aws-k8s-${k}`;
      const leaf = q.release === 'latest' ? 'latest' : q.release.replace(/^v/, '');
      return `/aws/service/bottlerocket/${flavor}/${arch}/${leaf}`;
    }
    case 'windows2019':
    case 'windows2022':
    case 'windows2025': {
      const year = q.family.slice('windows'.length);
      return `/aws/service/ami-windows-latest/Windows_Server-${year}-English-Core-EKS_Optimized-${k}`;
    }
  }
}

/** The parameter Karpenter reads: always the image_id leaf. */
export function ssmParameterPath(q: AmiQuery): string {
  return `${ssmParameterPrefix(q)}/image_id`;
}

/** Metadata sub-parameters that name the release (DOMAIN.md §3.2). Windows publishes none. */
export function ssmMetadataPaths(q: AmiQuery): { releaseVersion?: string; imageName?: string; imageVersion?: string } {
  const prefix = ssmParameterPrefix(q);
  switch (q.family) {
    case 'al2':
    case 'al2023':
      return { releaseVersion: `${prefix}/release_version`, imageName: `${prefix}/image_name` };
    case 'bottlerocket':
      return { imageVersion: `${prefix}/image_version` };
    default:
      return {};
  }
}
