// resolveAmis against aws-sdk-client-mock: a small SSM parameter store and EC2 image list stand in for AWS.
import {
  DescribeImagesCommand,
  EC2Client,
  EC2ServiceException,
  type DescribeImagesCommandInput,
  type Image,
} from '@aws-sdk/client-ec2';
import {
  GetParametersCommand,
  ParameterNotFound,
  SSMClient,
  SSMServiceException,
  type GetParametersCommandInput,
} from '@aws-sdk/client-ssm';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import { allCustomMatcher, type CustomMatcher } from 'aws-sdk-client-mock-vitest';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ssmArch } from '../../src/ami/families.js';
import { failure } from './failure.js';
import { ssmMetadataPaths, ssmParameterPath, type AmiQuery } from '../../src/ami/parameters.js';
import { resolveAmiQueries, resolveAmis } from '../../src/ami/resolve.js';
import { RuntimeFailure, UsageError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { parseAmisOptions } from '../../src/cli/options.js';

expect.extend(allCustomMatcher);
declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends CustomMatcher<T> {}
}

const ssm = mockClient(SSMClient);
const ec2 = mockClient(EC2Client);
const parameters = new Map<string, string>();
let images: Image[] = [];
const log: Logger = { info: vi.fn(), warn: vi.fn(), debug: vi.fn() };
const aws = { region: 'us-west-2' };

// Serves GetParameters from `parameters` and DescribeImages (image-id filter) from `images`, as AWS would.
beforeEach(() => {
  ssm.reset();
  ec2.reset();
  parameters.clear();
  images = [];
  ssm.on(GetParametersCommand).callsFake((input: GetParametersCommandInput) => {
    const names = input.Names ?? [];
    return {
      Parameters: names
        .filter((n) => parameters.has(n))
        .map((n) => ({ Name: n, Type: 'String', Value: parameters.get(n) })),
      InvalidParameters: names.filter((n) => !parameters.has(n)),
    };
  });
  ec2.on(DescribeImagesCommand).callsFake((input: DescribeImagesCommandInput) => {
    const ids = input.Filters?.find((f) => f.Name === 'image-id')?.Values ?? [];
    return { Images: images.filter((i) => ids.includes(i.ImageId!)) };
  });
});

let serial = 0;
const DEPRECATES = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString();

/** Publishes one release the way AWS does: image_id plus metadata in SSM, and the image in EC2. */
function publish(
  q: AmiQuery,
  image: Partial<Image> = {},
  concrete = q.release === 'latest' ? undefined : q.release,
): Image {
  const k = q.kubernetesVersion;
  const arch = ssmArch(q.arch);
  const date = concrete ?? 'v20261020';
  const semver = (concrete ?? '1.26.1').replace(/^v/, '');
  const name = {
    al2: `amazon-eks-${q.variant !== 'standard' ? 'gpu-' : q.arch === 'arm64' ? 'arm64-' : ''}node-${k}-${date}`,
    al2023: `amazon-eks-node-al2023-${arch}-${q.variant}-${k}-${date}`,
    bottlerocket: `bottlerocket-aws-k8s-${k}${q.variant === 'nvidia' ? '-nvidia' : ''}-${q.arch === 'arm64' ? 'aarch64' : 'x86_64'}-v${semver}-943d9a41`,
    windows2019: `Windows_Server-2019-English-Core-EKS_Optimized-${k}-2026.10.15`,
    windows2022: `Windows_Server-2022-English-Core-EKS_Optimized-${k}-2026.10.15`,
    windows2025: `Windows_Server-2025-English-Core-EKS_Optimized-${k}-2026.10.15`,
  }[q.family];
  const existing = images.find((i) => i.Name === name);
  const id = existing?.ImageId ?? `ami-0${(++serial).toString(16).padStart(16, '0')}`;
  parameters.set(ssmParameterPath(q), id);
  const meta = ssmMetadataPaths(q);
  if (meta.releaseVersion) parameters.set(meta.releaseVersion, `${k}.2-${date.slice(1)}`);
  if (meta.imageName) parameters.set(meta.imageName, name);
  if (meta.imageVersion) parameters.set(meta.imageVersion, `${semver}-943d9a41`);
  if (existing) return existing;
  const created: Image = {
    ImageId: id,
    Name: name,
    State: 'available',
    Architecture: arch,
    CreationDate: '2026-10-20T08:00:00.000Z',
    DeprecationTime: DEPRECATES,
    ...image,
  };
  images.push(created);
  return created;
}

function q(overrides: Partial<AmiQuery> = {}): AmiQuery {
  return {
    family: 'al2023',
    kubernetesVersion: '1.31',
    arch: 'amd64',
    variant: 'standard',
    release: 'latest',
    ...overrides,
  };
}

describe('resolveAmis', () => {
  it('reads image_id and metadata in batches of 10, describes every unique ID in one call, and reports concrete releases', async () => {
    const selection = parseAmisOptions({ to: '1.31', family: 'al2023,bottlerocket', variant: 'all' });
    for (const family of ['al2023', 'bottlerocket'] as const) {
      for (const [arch, variant] of [
        ['amd64', 'standard'],
        ['amd64', 'nvidia'],
        ['amd64', 'neuron'],
        ['arm64', 'standard'],
        ['arm64', 'nvidia'],
      ] as const) {
        publish(q({ family, arch, variant }));
      }
    }

    const { region, amis } = await resolveAmis(selection, aws, log);

    expect(region).toBe('us-west-2');
    expect(amis.map((a) => `${a.family} ${a.arch} ${a.variant} ${a.release} ${a.releaseVersion} ${a.name}`)).toEqual([
      'al2023 amd64 standard v20261020 1.31.2-20261020 amazon-eks-node-al2023-x86_64-standard-1.31-v20261020',
      'al2023 amd64 nvidia v20261020 1.31.2-20261020 amazon-eks-node-al2023-x86_64-nvidia-1.31-v20261020',
      'al2023 amd64 neuron v20261020 1.31.2-20261020 amazon-eks-node-al2023-x86_64-neuron-1.31-v20261020',
      'al2023 arm64 standard v20261020 1.31.2-20261020 amazon-eks-node-al2023-arm64-standard-1.31-v20261020',
      'al2023 arm64 nvidia v20261020 1.31.2-20261020 amazon-eks-node-al2023-arm64-nvidia-1.31-v20261020',
      'bottlerocket amd64 standard 1.26.1 1.26.1-943d9a41 bottlerocket-aws-k8s-1.31-x86_64-v1.26.1-943d9a41',
      'bottlerocket amd64 nvidia 1.26.1 1.26.1-943d9a41 bottlerocket-aws-k8s-1.31-nvidia-x86_64-v1.26.1-943d9a41',
      'bottlerocket amd64 neuron 1.26.1 1.26.1-943d9a41 bottlerocket-aws-k8s-1.31-x86_64-v1.26.1-943d9a41',
      'bottlerocket arm64 standard 1.26.1 1.26.1-943d9a41 bottlerocket-aws-k8s-1.31-aarch64-v1.26.1-943d9a41',
      'bottlerocket arm64 nvidia 1.26.1 1.26.1-943d9a41 bottlerocket-aws-k8s-1.31-nvidia-aarch64-v1.26.1-943d9a41',
    ]);
    expect(amis.every((a) => a.state === 'available' && !a.deprecated && a.problems.length === 0)).toBe(true);

    // 5 AL2023 folders × 3 names + 4 Bottlerocket folders × 2 names (neuron shares standard x86_64) = 23 names.
    const batches = ssm.commandCalls(GetParametersCommand).map((c) => c.args[0].input.Names!);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 3]);
    expect(new Set(batches.flat()).size).toBe(23);
    expect(batches.flat()).toContain(
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/recommended/release_version',
    );
    expect(batches.flat()).toContain('/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/latest/image_version');

    expect(ec2).toHaveReceivedCommandTimes(DescribeImagesCommand, 1);
    expect(ec2).toHaveReceivedCommandWith(DescribeImagesCommand, {
      Filters: [{ Name: 'image-id', Values: images.map((i) => i.ImageId!) }],
      IncludeDeprecated: true,
    });
    expect(images).toHaveLength(9);
  });

  it('lists the AL2 GPU AMI for both nvidia and neuron, read once', async () => {
    const gpu = publish(q({ family: 'al2', variant: 'nvidia' }));
    publish(q({ family: 'al2', variant: 'neuron' }));
    const { amis } = await resolveAmiQueries(
      [q({ family: 'al2', variant: 'nvidia' }), q({ family: 'al2', variant: 'neuron' })],
      aws,
      log,
    );
    expect(amis.map((a) => [a.variant, a.id, a.parameter])).toEqual([
      ['nvidia', gpu.ImageId, '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id'],
      ['neuron', gpu.ImageId, '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id'],
    ]);
    expect(ssm).toHaveReceivedCommandExactlyOnceWith(GetParametersCommand, {
      Names: [
        '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id',
        '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/release_version',
        '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_name',
      ],
    });
    expect(ec2).toHaveReceivedCommandWith(DescribeImagesCommand, {
      Filters: [{ Name: 'image-id', Values: [gpu.ImageId!] }],
    });
  });

  it('resolves a pinned release through its versioned parameter, and a Windows release from the image name', async () => {
    const pinned = q({ family: 'bottlerocket', arch: 'arm64', release: '1.20.4' });
    publish(pinned);
    publish(q({ family: 'windows2022' }));
    const { amis } = await resolveAmiQueries([pinned, q({ family: 'windows2022' })], aws, log);
    expect(amis.map((a) => [a.release, a.parameter])).toEqual([
      ['1.20.4', '/aws/service/bottlerocket/aws-k8s-1.31/arm64/1.20.4/image_id'],
      ['2026.10.15', '/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.31/image_id'],
    ]);
  });

  it('still resolves when the metadata sub-parameters are missing, naming the release from EC2', async () => {
    publish(q());
    parameters.delete(ssmMetadataPaths(q()).releaseVersion!);
    parameters.delete(ssmMetadataPaths(q()).imageName!);
    const { amis } = await resolveAmiQueries([q()], aws, log);
    expect(amis.map((a) => [a.release, a.releaseVersion])).toEqual([['v20261020', undefined]]);
  });

  it('pages DescribeImages when EC2 returns a NextToken', async () => {
    const first = publish(q());
    const second = publish(q({ arch: 'arm64' }));
    ec2.reset();
    ec2
      .on(DescribeImagesCommand)
      .resolvesOnce({ Images: [first], NextToken: 'page-2' })
      .resolvesOnce({ Images: [second] });
    const { amis } = await resolveAmiQueries([q(), q({ arch: 'arm64' })], aws, log);
    expect(amis.map((a) => a.id)).toEqual([first.ImageId, second.ImageId]);
    expect(ec2).toHaveReceivedCommandTimes(DescribeImagesCommand, 2);
    expect(ec2).toHaveReceivedNthCommandWith(DescribeImagesCommand, 2, { NextToken: 'page-2' });
  });

  it('flags a deprecated image without failing', async () => {
    publish(q({ release: 'v20240917' }), { DeprecationTime: '2026-09-17T00:00:00.000Z' });
    const { amis } = await resolveAmiQueries([q({ release: 'v20240917' })], aws, log);
    expect(amis[0]).toMatchObject({
      release: 'v20240917',
      deprecated: true,
      deprecationTime: '2026-09-17T00:00:00.000Z',
      problems: ['deprecated since 2026-09-17'],
    });
  });

  it('refuses a parameter that does not exist (InvalidParameters), naming its exact path, the region and what to check', async () => {
    publish(q());
    const err = await failure(resolveAmiQueries([q(), q({ arch: 'arm64', release: 'v20991231' })], aws, log));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(
      'no EKS-optimized AMI for Kubernetes 1.31 in us-west-2: this SSM parameter does not exist\n' +
        '  /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.31-v20991231/image_id (al2023 arm64 standard, release v20991231)',
    );
    expect(err.hint).toBe(
      'check that the release exists for Kubernetes 1.31 (https://github.com/awslabs/amazon-eks-ami/releases), or omit --release for the newest',
    );
    expect(ec2).not.toHaveReceivedCommand(DescribeImagesCommand);
  });

  it('refuses a Kubernetes version with no published AMIs', async () => {
    const err = await failure(resolveAmiQueries([q({ kubernetesVersion: '1.40' })], aws, log));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain(
      '/aws/service/eks/optimized-ami/1.40/amazon-linux-2023/x86_64/standard/recommended/image_id',
    );
    expect(err.hint).toBe(
      'check that EKS publishes AMIs for Kubernetes 1.40 (a new version appears once EKS supports it) and that us-west-2 is the right region',
    );
  });

  it.each([
    [
      'ParameterNotFound',
      new ParameterNotFound({ message: 'Parameter not found', $metadata: {} }),
      UsageError,
      'SSM rejected GetParameters in us-west-2 (ParameterNotFound: Parameter not found) for:',
    ],
    [
      'ValidationException',
      new SSMServiceException({
        name: 'ValidationException',
        $fault: 'client',
        $metadata: {},
        message: 'Member must have length less than or equal to 10',
      }),
      UsageError,
      'SSM rejected GetParameters in us-west-2 (ValidationException: Member must have length less than or equal to 10) for:',
    ],
    [
      'AccessDeniedException',
      new SSMServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: {},
        message: 'User: arn:aws:sts::111122223333:assumed-role/ci/x is not authorized',
      }),
      RuntimeFailure,
      'access denied: SSM GetParameters in us-west-2 (AccessDeniedException)',
    ],
    [
      'ThrottlingException (after the SDK retried)',
      new SSMServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: {},
        message: 'Rate exceeded',
      }),
      RuntimeFailure,
      "SSM GetParameters in us-west-2 was throttled (ThrottlingException) and the SDK's retries ran out",
    ],
  ])('maps SSM %s to %O', async (_name, rejection, type, message) => {
    ssm.on(GetParametersCommand).rejects(rejection);
    const err = await failure(resolveAmiQueries([q()], aws, log));
    expect(err).toBeInstanceOf(type);
    expect(err.message.split('\n')[0]).toBe(message);
    expect(err.cause).toBe(rejection);
  });

  it('names the IAM action and resource when SSM denies access', async () => {
    ssm
      .on(GetParametersCommand)
      .rejects(
        new SSMServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata: {}, message: 'denied' }),
      );
    const err = await failure(resolveAmiQueries([q()], { region: 'eu-central-1' }, log));
    expect(err.exitCode).toBe(1);
    expect(err.hint).toBe(
      'allow ssm:GetParameters on arn:aws:ssm:eu-central-1::parameter/aws/service/* for the AWS identity in use (docs/rbac-and-iam.md lists the IAM policy)',
    );
  });

  it('names ec2:DescribeImages when EC2 denies access', async () => {
    publish(q());
    ec2
      .on(DescribeImagesCommand)
      .rejects(
        new EC2ServiceException({
          name: 'UnauthorizedOperation',
          $fault: 'client',
          $metadata: {},
          message: 'You are not authorized',
        }),
      );
    const err = await failure(resolveAmiQueries([q()], aws, log));
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect(err.message).toBe('access denied: EC2 DescribeImages in us-west-2 (UnauthorizedOperation)');
    expect(err.hint).toBe('allow ec2:DescribeImages on * for the AWS identity in use (docs/rbac-and-iam.md lists the IAM policy)');
  });

  it('fails on an image with the wrong architecture and on a missing image, listing each with its parameter', async () => {
    const wrong = publish(q(), { Architecture: 'arm64' });
    const gone = publish(q({ variant: 'nvidia' }));
    images = images.filter((i) => i !== gone);
    publish(q({ arch: 'arm64' }));
    const err = await failure(resolveAmiQueries([q(), q({ variant: 'nvidia' }), q({ arch: 'arm64' })], aws, log));
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect(err.message).toBe(
      'EC2 verification failed for 2 AMI(s) in us-west-2:\n' +
        `  ${wrong.ImageId} (al2023 amd64 standard, /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id): architecture is arm64, not x86_64 (amd64)\n` +
        `  ${gone.ImageId} (al2023 amd64 nvidia, /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id): EC2 DescribeImages does not return the image the parameter points to: it is unavailable or deregistered`,
    );
  });

  it('passes --region and --profile to both clients, and only when given', async () => {
    publish(q());
    const config = join(mkdtempSync(join(tmpdir(), 'karp-drift-aws-')), 'config');
    writeFileSync(config, '[profile prod]\nregion = eu-west-1\n');
    vi.stubEnv('AWS_CONFIG_FILE', config);
    onTestFinished(() => void vi.unstubAllEnvs());
    await resolveAmiQueries([q()], { region: 'ap-south-1', profile: 'prod' }, log);
    const clients = [ssm.call(0).thisValue, ec2.call(0).thisValue] as (SSMClient | EC2Client)[];
    for (const client of clients) {
      await expect(client.config.region()).resolves.toBe('ap-south-1');
      expect(client.config.profile).toBe('prod');
      expect(client.config.endpoint).toBeUndefined();
    }
  });

  it('refuses a --profile that the shared files do not define, before calling AWS', async () => {
    vi.stubEnv('AWS_CONFIG_FILE', join(tmpdir(), 'karp-drift-no-such-config'));
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(tmpdir(), 'karp-drift-no-such-credentials'));
    onTestFinished(() => void vi.unstubAllEnvs());
    const err = await resolveAmiQueries([q()], { region: 'us-west-2', profile: 'nope' }, log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      `--profile nope: profile "nope" does not exist in ${join(tmpdir(), 'karp-drift-no-such-config')} (no such file), ${join(tmpdir(), 'karp-drift-no-such-credentials')} (no such file)`,
    );
    expect(ssm.calls()).toHaveLength(0);
  });

  it('refuses to run without a region, naming --region and AWS_REGION, before calling AWS', async () => {
    vi.stubEnv('AWS_REGION', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/karp-drift-test/config');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/karp-drift-test/credentials');
    try {
      const err = await failure(resolveAmiQueries([q()], {}, log));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toBe('no AWS region: pass --region or set AWS_REGION (or a region in the AWS profile)');
      expect(ssm).not.toHaveReceivedAnyCommand();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('destroys both clients whether resolution succeeds or fails', async () => {
    const destroyed = [vi.spyOn(SSMClient.prototype, 'destroy'), vi.spyOn(EC2Client.prototype, 'destroy')];
    publish(q());
    await resolveAmiQueries([q()], aws, log);
    await failure(resolveAmiQueries([q({ arch: 'arm64' })], aws, log));
    expect(destroyed.map((d) => d.mock.calls.length)).toEqual([2, 2]);
    destroyed.forEach((d) => d.mockRestore());
  });
});
