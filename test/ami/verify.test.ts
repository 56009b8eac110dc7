// Pure checks on DescribeImages results (DOMAIN.md §3.4 names) and the concrete release behind `latest`.
import { describe, expect, it } from 'vitest';
import type { AmiQuery } from '../../src/ami/parameters.js';
import { concreteRelease, imageNameFields, resolvedAmi, verifyImage, type ImageView } from '../../src/ami/verify.js';

const now = new Date('2026-11-01T00:00:00.000Z');

function query(overrides: Partial<AmiQuery> = {}): AmiQuery {
  return {
    family: 'al2023',
    kubernetesVersion: '1.31',
    arch: 'amd64',
    variant: 'standard',
    release: 'latest',
    ...overrides,
  };
}

function image(overrides: Partial<ImageView> = {}): ImageView {
  return {
    id: 'ami-0123456789abcdef0',
    name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261020',
    state: 'available',
    architecture: 'x86_64',
    creationDate: '2026-10-20T08:00:00.000Z',
    deprecationTime: '2028-10-20T08:00:00.000Z',
    ...overrides,
  };
}

describe('imageNameFields', () => {
  it.each([
    [
      'al2023',
      'amazon-eks-node-al2023-arm64-nvidia-1.31-v20241109',
      { architecture: 'arm64', flavor: 'nvidia', kubernetesVersion: '1.31', release: 'v20241109' },
    ],
    [
      'al2',
      'amazon-eks-node-1.30-v20240917',
      { architecture: 'x86_64', flavor: 'standard', kubernetesVersion: '1.30', release: 'v20240917' },
    ],
    [
      'al2',
      'amazon-eks-arm64-node-1.30-v20240917',
      { architecture: 'arm64', flavor: 'standard', kubernetesVersion: '1.30', release: 'v20240917' },
    ],
    [
      'al2',
      'amazon-eks-gpu-node-1.30-v20240917',
      { architecture: 'x86_64', flavor: 'gpu', kubernetesVersion: '1.30', release: 'v20240917' },
    ],
    [
      'bottlerocket',
      'bottlerocket-aws-k8s-1.31-aarch64-v1.26.1-943d9a41',
      { architecture: 'arm64', flavor: 'standard', kubernetesVersion: '1.31', release: '1.26.1' },
    ],
    [
      'bottlerocket',
      'bottlerocket-aws-k8s-1.31-nvidia-x86_64-v1.26.1-943d9a41',
      { architecture: 'x86_64', flavor: 'nvidia', kubernetesVersion: '1.31', release: '1.26.1' },
    ],
    [
      'windows2022',
      'Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.11.12',
      { flavor: '2022', kubernetesVersion: '1.31', release: '2024.11.12' },
    ],
    ['al2023', 'amazon-eks-node-1.31-v20241109', undefined],
    ['windows2022', 'Windows_Server-2022-English-Full-EKS_Optimized-1.31-2024.11.12', undefined],
    ['bottlerocket', 'bottlerocket-aws-k8s-1.31-fips-x86_64-v1.26.1-943d9a41', undefined],
  ] as const)('%s %s', (family, name, fields) => {
    expect(imageNameFields(family, name)).toEqual(fields);
  });
});

describe('verifyImage', () => {
  it.each<[string, AmiQuery, ImageView]>([
    ['the AL2023 image it names', query(), image()],
    [
      'the AL2 GPU image for nvidia',
      query({ family: 'al2', variant: 'nvidia' }),
      image({ name: 'amazon-eks-gpu-node-1.31-v20261020' }),
    ],
    [
      'the AL2 GPU image for neuron',
      query({ family: 'al2', variant: 'neuron' }),
      image({ name: 'amazon-eks-gpu-node-1.31-v20261020' }),
    ],
    [
      'the standard Bottlerocket image for neuron',
      query({ family: 'bottlerocket', variant: 'neuron' }),
      image({ name: 'bottlerocket-aws-k8s-1.31-x86_64-v1.26.1-943d9a41' }),
    ],
    [
      'a pinned Bottlerocket arm64 image named aarch64',
      query({ family: 'bottlerocket', arch: 'arm64', release: '1.26.1' }),
      image({ name: 'bottlerocket-aws-k8s-1.31-aarch64-v1.26.1-943d9a41', architecture: 'arm64' }),
    ],
    [
      'a Windows Server 2022 image',
      query({ family: 'windows2022' }),
      image({ name: 'Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.11.12' }),
    ],
  ])('accepts %s', (_name, q, img) => {
    expect(verifyImage(q, img, now)).toEqual({ failures: [], warnings: [], deprecated: false });
  });

  it.each<[string, AmiQuery, ImageView | undefined, string[]]>([
    [
      'a missing image',
      query(),
      undefined,
      ['EC2 DescribeImages does not return the image the parameter points to: it is unavailable or deregistered'],
    ],
    ['a pending image', query(), image({ state: 'pending' }), ['state is pending, not available']],
    [
      'an arm64 image behind an amd64 parameter',
      query(),
      image({ architecture: 'arm64', name: 'amazon-eks-node-al2023-arm64-standard-1.31-v20261020' }),
      [
        'architecture is arm64, not x86_64 (amd64)',
        'name amazon-eks-node-al2023-arm64-standard-1.31-v20261020 is for arm64, not x86_64',
      ],
    ],
    [
      'another Kubernetes minor',
      query(),
      image({ name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20261020' }),
      ['name amazon-eks-node-al2023-x86_64-standard-1.30-v20261020 is for Kubernetes 1.30, not 1.31'],
    ],
    [
      'another variant',
      query(),
      image({ name: 'amazon-eks-node-al2023-x86_64-nvidia-1.31-v20261020' }),
      ['name amazon-eks-node-al2023-x86_64-nvidia-1.31-v20261020 is the nvidia image, not standard (variant standard)'],
    ],
    [
      'the AL2 GPU image for standard',
      query({ family: 'al2' }),
      image({ name: 'amazon-eks-gpu-node-1.31-v20261020' }),
      ['name amazon-eks-gpu-node-1.31-v20261020 is the gpu image, not standard (variant standard)'],
    ],
    [
      'another release than the pinned one',
      query({ release: 'v20241109' }),
      image(),
      ['name amazon-eks-node-al2023-x86_64-standard-1.31-v20261020 is release v20261020, not v20241109'],
    ],
    [
      'a name that is not an EKS-optimized AMI',
      query({ family: 'bottlerocket' }),
      image({ name: 'my-golden-image' }),
      [
        'name "my-golden-image" is not an EKS-optimized bottlerocket AMI name (like bottlerocket-aws-k8s-1.30-x86_64-v1.22.0-7f4d9b3b)',
      ],
    ],
  ])('fails %s', (_name, q, img, failures) => {
    expect(verifyImage(q, img, now).failures).toEqual(failures);
  });

  it.each([
    ['2026-06-01T00:00:00.000Z', true, ['deprecated since 2026-06-01']],
    ['2026-11-11T00:00:00.000Z', true, ['will be deprecated on 2026-11-11 (in 10 days)']],
    ['2026-12-01T00:00:00.000Z', true, ['will be deprecated on 2026-12-01 (in 30 days)']],
    ['2026-12-02T00:00:00.000Z', false, []],
  ])('flags DeprecationTime %s within 30 days: %s', (deprecationTime, deprecated, warnings) => {
    expect(verifyImage(query(), image({ deprecationTime }), now)).toEqual({ failures: [], warnings, deprecated });
  });

  it('does not flag an image without a DeprecationTime', () => {
    expect(verifyImage(query(), image({ deprecationTime: undefined }), now).deprecated).toBe(false);
  });
});

describe('concreteRelease', () => {
  it.each<[string, AmiQuery, Parameters<typeof concreteRelease>[1], ImageView | undefined, string]>([
    ['a pinned release as asked', query({ release: 'v20241109' }), {}, image(), 'v20241109'],
    ['AL2023 latest from release_version', query(), { releaseVersion: '1.31.2-20261020' }, image(), 'v20261020'],
    [
      'Bottlerocket latest from image_version',
      query({ family: 'bottlerocket' }),
      { imageVersion: '1.26.1-943d9a41' },
      undefined,
      '1.26.1',
    ],
    [
      'AL2 latest from image_name when release_version is missing',
      query({ family: 'al2' }),
      { imageName: 'amazon-eks-node-1.31-v20261001' },
      undefined,
      'v20261001',
    ],
    ['latest from the EC2 name when SSM has no metadata', query(), {}, image(), 'v20261020'],
    [
      'Windows from the date its name ends in',
      query({ family: 'windows2019' }),
      {},
      image({ name: 'Windows_Server-2019-English-Core-EKS_Optimized-1.31-2026.10.15' }),
      '2026.10.15',
    ],
    [
      'Windows from the creation date otherwise',
      query({ family: 'windows2019' }),
      {},
      image({ name: 'Windows_Server-2019', creationDate: '2026-10-14T19:00:00.000Z' }),
      '2026.10.14',
    ],
  ])('%s', (_name, q, metadata, img, release) => {
    expect(concreteRelease(q, metadata, img)).toBe(release);
  });
});

describe('resolvedAmi', () => {
  it('carries the parameter read, EC2 facts and every finding', () => {
    const img = image({ deprecationTime: '2026-10-01T00:00:00.000Z' });
    const verdict = verifyImage(query(), img, now);
    expect(resolvedAmi(query(), img.id, { releaseVersion: '1.31.2-20261020' }, img, verdict)).toEqual({
      family: 'al2023',
      arch: 'amd64',
      variant: 'standard',
      kubernetesVersion: '1.31',
      release: 'v20261020',
      releaseVersion: '1.31.2-20261020',
      id: 'ami-0123456789abcdef0',
      name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261020',
      parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id',
      state: 'available',
      architecture: 'x86_64',
      deprecated: true,
      deprecationTime: '2026-10-01T00:00:00.000Z',
      creationDate: '2026-10-20T08:00:00.000Z',
      problems: ['deprecated since 2026-10-01'],
      usable: true,
    });
  });
});
