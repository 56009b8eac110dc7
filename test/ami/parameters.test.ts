// The SSM paths Karpenter v1 reads (DOMAIN.md §3.1–3.3), for every family × arch × variant, latest and pinned.
import { describe, expect, it } from 'vitest';
import { AMI_FAMILIES, ARCHES, FAMILIES, type AmiFamily, type Arch, type Variant } from '../../src/ami/families.js';
import { ssmMetadataPaths, ssmParameterPath } from '../../src/ami/parameters.js';

const EKS = '/aws/service/eks/optimized-ami/1.31';
const BR = '/aws/service/bottlerocket';
const WIN = '/aws/service/ami-windows-latest';

const table: [AmiFamily, Arch, Variant, string, string][] = [
  ['al2', 'amd64', 'standard', 'latest', `${EKS}/amazon-linux-2/recommended/image_id`],
  ['al2', 'amd64', 'standard', 'v20241109', `${EKS}/amazon-linux-2/amazon-eks-node-1.31-v20241109/image_id`],
  ['al2', 'arm64', 'standard', 'latest', `${EKS}/amazon-linux-2-arm64/recommended/image_id`],
  [
    'al2',
    'arm64',
    'standard',
    'v20241109',
    `${EKS}/amazon-linux-2-arm64/amazon-eks-arm64-node-1.31-v20241109/image_id`,
  ],
  // One GPU AMI serves nvidia and neuron.
  ['al2', 'amd64', 'nvidia', 'latest', `${EKS}/amazon-linux-2-gpu/recommended/image_id`],
  ['al2', 'amd64', 'nvidia', 'v20241109', `${EKS}/amazon-linux-2-gpu/amazon-eks-gpu-node-1.31-v20241109/image_id`],
  ['al2', 'amd64', 'neuron', 'latest', `${EKS}/amazon-linux-2-gpu/recommended/image_id`],
  ['al2', 'amd64', 'neuron', 'v20241109', `${EKS}/amazon-linux-2-gpu/amazon-eks-gpu-node-1.31-v20241109/image_id`],
  ['al2023', 'amd64', 'standard', 'latest', `${EKS}/amazon-linux-2023/x86_64/standard/recommended/image_id`],
  [
    'al2023',
    'amd64',
    'standard',
    'v20241109',
    `${EKS}/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.31-v20241109/image_id`,
  ],
  ['al2023', 'amd64', 'nvidia', 'latest', `${EKS}/amazon-linux-2023/x86_64/nvidia/recommended/image_id`],
  [
    'al2023',
    'amd64',
    'nvidia',
    'v20241109',
    `${EKS}/amazon-linux-2023/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.31-v20241109/image_id`,
  ],
  ['al2023', 'amd64', 'neuron', 'latest', `${EKS}/amazon-linux-2023/x86_64/neuron/recommended/image_id`],
  [
    'al2023',
    'amd64',
    'neuron',
    'v20241109',
    `${EKS}/amazon-linux-2023/x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.31-v20241109/image_id`,
  ],
  ['al2023', 'arm64', 'standard', 'latest', `${EKS}/amazon-linux-2023/arm64/standard/recommended/image_id`],
  [
    'al2023',
    'arm64',
    'standard',
    'v20241109',
    `${EKS}/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.31-v20241109/image_id`,
  ],
  ['al2023', 'arm64', 'nvidia', 'latest', `${EKS}/amazon-linux-2023/arm64/nvidia/recommended/image_id`],
  [
    'al2023',
    'arm64',
    'nvidia',
    'v20241109',
    `${EKS}/amazon-linux-2023/arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.31-v20241109/image_id`,
  ],
  ['bottlerocket', 'amd64', 'standard', 'latest', `${BR}/aws-k8s-1.31/x86_64/latest/image_id`],
  ['bottlerocket', 'amd64', 'standard', '1.26.1', `${BR}/aws-k8s-1.31/x86_64/1.26.1/image_id`],
  // Karpenter strips the alias's optional `v`.
  ['bottlerocket', 'amd64', 'standard', 'v1.26.1', `${BR}/aws-k8s-1.31/x86_64/1.26.1/image_id`],
  ['bottlerocket', 'amd64', 'nvidia', 'latest', `${BR}/aws-k8s-1.31-nvidia/x86_64/latest/image_id`],
  ['bottlerocket', 'amd64', 'nvidia', '1.26.1', `${BR}/aws-k8s-1.31-nvidia/x86_64/1.26.1/image_id`],
  // Neuron instances run the standard x86_64 Bottlerocket AMI.
  ['bottlerocket', 'amd64', 'neuron', 'latest', `${BR}/aws-k8s-1.31/x86_64/latest/image_id`],
  ['bottlerocket', 'amd64', 'neuron', '1.26.1', `${BR}/aws-k8s-1.31/x86_64/1.26.1/image_id`],
  ['bottlerocket', 'arm64', 'standard', 'latest', `${BR}/aws-k8s-1.31/arm64/latest/image_id`],
  ['bottlerocket', 'arm64', 'standard', 'v1.26.1', `${BR}/aws-k8s-1.31/arm64/1.26.1/image_id`],
  ['bottlerocket', 'arm64', 'nvidia', 'latest', `${BR}/aws-k8s-1.31-nvidia/arm64/latest/image_id`],
  ['bottlerocket', 'arm64', 'nvidia', '1.26.1', `${BR}/aws-k8s-1.31-nvidia/arm64/1.26.1/image_id`],
  // Windows publishes only the latest Core AMI; select.ts refuses a pinned release before a path is built.
  ['windows2019', 'amd64', 'standard', 'latest', `${WIN}/Windows_Server-2019-English-Core-EKS_Optimized-1.31/image_id`],
  ['windows2022', 'amd64', 'standard', 'latest', `${WIN}/Windows_Server-2022-English-Core-EKS_Optimized-1.31/image_id`],
  ['windows2025', 'amd64', 'standard', 'latest', `${WIN}/Windows_Server-2025-English-Core-EKS_Optimized-1.31/image_id`],
];

describe('ssmParameterPath', () => {
  it.each(table)('%s %s %s @%s -> %s', (family, arch, variant, release, path) => {
    expect(ssmParameterPath({ family, kubernetesVersion: '1.31', arch, variant, release })).toBe(path);
  });

  it('covers every (family, arch, variant) the family tables say exists, latest and pinned where pinnable', () => {
    const expected = AMI_FAMILIES.flatMap((family) =>
      ARCHES.flatMap((arch) =>
        FAMILIES[family].variants[arch].flatMap((variant) => [
          `${family} ${arch} ${variant} latest`,
          ...(FAMILIES[family].pinnable ? [`${family} ${arch} ${variant} pinned`] : []),
        ]),
      ),
    );
    const covered = new Set(table.map(([f, a, v, r]) => `${f} ${a} ${v} ${r === 'latest' ? 'latest' : 'pinned'}`));
    expect([...covered].sort()).toEqual(expected.sort());
  });
});

describe('ssmMetadataPaths', () => {
  it.each([
    [
      'al2023',
      'amd64',
      'standard',
      'latest',
      {
        releaseVersion: `${EKS}/amazon-linux-2023/x86_64/standard/recommended/release_version`,
        imageName: `${EKS}/amazon-linux-2023/x86_64/standard/recommended/image_name`,
      },
    ],
    [
      'al2',
      'arm64',
      'standard',
      'v20241109',
      {
        releaseVersion: `${EKS}/amazon-linux-2-arm64/amazon-eks-arm64-node-1.31-v20241109/release_version`,
        imageName: `${EKS}/amazon-linux-2-arm64/amazon-eks-arm64-node-1.31-v20241109/image_name`,
      },
    ],
    [
      'bottlerocket',
      'arm64',
      'nvidia',
      'latest',
      { imageVersion: `${BR}/aws-k8s-1.31-nvidia/arm64/latest/image_version` },
    ],
    [
      'bottlerocket',
      'amd64',
      'standard',
      'v1.26.1',
      { imageVersion: `${BR}/aws-k8s-1.31/x86_64/1.26.1/image_version` },
    ],
    ['windows2022', 'amd64', 'standard', 'latest', {}],
  ] as const)('%s %s %s @%s', (family, arch, variant, release, paths) => {
    expect(ssmMetadataPaths({ family, kubernetesVersion: '1.31', arch, variant, release })).toEqual(paths);
  });
});
