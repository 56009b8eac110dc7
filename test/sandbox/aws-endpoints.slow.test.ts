// The sandbox's SSM and EC2 endpoints driven by the real AWS SDK v3 clients over HTTP on 127.0.0.1.
import { DescribeImagesCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  ParameterNotFound,
  paginateGetParametersByPath,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ssmMetadataPaths, ssmParameterPath } from '../../src/ami/parameters.js';
import { newestRelease, seriesReleases } from '../../src/sandbox/aws/lookup.js';
import { startAwsEndpoints, type AwsEndpointsOptions } from '../../src/sandbox/aws/server.js';
import type { CatalogImage, CatalogRelease } from '../../src/sandbox/aws/types.js';

const credentials = { accessKeyId: 'AKIASANDBOXEXAMPLE', secretAccessKey: 'sandbox-secret' };

async function start(options: AwsEndpointsOptions = {}) {
  const aws = await startAwsEndpoints(options);
  onTestFinished(() => aws.stop());
  const ssm = new SSMClient({ region: 'us-west-2', endpoint: aws.url, credentials, maxAttempts: 1 });
  const ec2 = new EC2Client({ region: 'us-west-2', endpoint: aws.url, credentials, maxAttempts: 1 });
  onTestFinished(() => {
    ssm.destroy();
    ec2.destroy();
  });
  return { aws, ssm, ec2 };
}

async function rejection(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

function query(r: CatalogRelease, release = r.release) {
  return { family: r.family, kubernetesVersion: r.kubernetesVersion, arch: r.arch, variant: r.variant, release };
}

const al2023 = { family: 'al2023', kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' } as const;

describe('SSM (JSON 1.1) through SSMClient', () => {
  it('answers GetParameter with the recommended image_id, the region of the credential scope in the ARN', async () => {
    const { aws, ssm } = await start();
    const name = ssmParameterPath({ ...al2023, release: 'latest' });
    const { Parameter } = await ssm.send(new GetParameterCommand({ Name: name }));
    expect(Parameter).toEqual({
      Name: name,
      Type: 'String',
      Value: newestRelease(aws.catalog, al2023)!.imageId,
      Version: seriesReleases(aws.catalog, al2023).length,
      LastModifiedDate: aws.catalog.parameters.get(name)!.lastModified,
      ARN: `arn:aws:ssm:us-west-2::parameter${name}`,
      DataType: 'aws:ec2:image',
    });
    const eu = new SSMClient({ region: 'eu-central-1', endpoint: aws.url, credentials });
    onTestFinished(() => eu.destroy());
    const again = await eu.send(new GetParameterCommand({ Name: name }));
    expect(again.Parameter?.ARN).toBe(`arn:aws:ssm:eu-central-1::parameter${name}`);
    expect(aws.requests.map((r) => [r.service, r.operation, r.region, r.params])).toEqual([
      ['ssm', 'GetParameter', 'us-west-2', { Name: name }],
      ['ssm', 'GetParameter', 'eu-central-1', { Name: name }],
    ]);
  });

  it('reports an unknown name as ParameterNotFound, the modeled SDK exception', async () => {
    const { ssm } = await start();
    const err = await rejection(
      ssm.send(
        new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.99/amazon-linux-2/recommended/image_id' }),
      ),
    );
    expect(err).toBeInstanceOf(ParameterNotFound);
    expect(err.name).toBe('ParameterNotFound');
    expect(err.$metadata?.httpStatusCode).toBe(400);
  });

  it('answers GetParameters for a pinned release with its metadata, listing unknown names in InvalidParameters', async () => {
    const { aws, ssm } = await start();
    const r = seriesReleases(aws.catalog, { ...al2023, arch: 'arm64' })[1]!;
    const meta = ssmMetadataPaths(query(r));
    const missing = ssmParameterPath(query(r, 'v19990101'));
    const out = await ssm.send(
      new GetParametersCommand({ Names: [ssmParameterPath(query(r)), meta.releaseVersion!, missing] }),
    );
    expect(out.Parameters?.map((p) => [p.Name, p.Value])).toEqual([
      [ssmParameterPath(query(r)), r.imageId],
      [meta.releaseVersion, expect.stringMatching(new RegExp(`^1\\.30\\.\\d+-${r.release.slice(1)}$`))],
    ]);
    expect(out.InvalidParameters).toEqual([missing]);
  });

  it('rejects more than 10 names with ValidationException', async () => {
    const { ssm } = await start();
    const names = Array.from({ length: 11 }, (_, i) => `/aws/service/x/${i}`);
    const err = await rejection(ssm.send(new GetParametersCommand({ Names: names })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toContain('Member must have length less than or equal to 10');
  });

  it('pages GetParametersByPath 10 at a time, recursively or one level deep', async () => {
    const { aws, ssm } = await start();
    const path = '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/';
    const names: string[] = [];
    for await (const page of paginateGetParametersByPath({ client: ssm }, { Path: path, Recursive: true })) {
      expect(page.Parameters!.length).toBeLessThanOrEqual(10);
      names.push(...page.Parameters!.map((p) => p.Name!));
    }
    const expected = [...aws.catalog.parameters.keys()].filter((n) => n.startsWith(path));
    expect(names.sort()).toEqual(expected.sort());
    expect(aws.requests.length).toBe(Math.ceil(expected.length / 10));
    expect(aws.requests.at(-1)?.params).toMatchObject({ Path: path, Recursive: true, NextToken: expect.any(String) });

    const folder = '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard';
    const shallow = await ssm.send(new GetParametersByPathCommand({ Path: folder }));
    const leaves = shallow.Parameters!.map((p) => p.Name!.slice(folder.length + 1));
    expect(leaves).toContain('recommended');
    expect(leaves.every((leaf) => !leaf.includes('/'))).toBe(true);
    expect(leaves).toHaveLength(1 + seriesReleases(aws.catalog, { ...al2023, kubernetesVersion: '1.31' }).length);
  });

  it('rejects a path without a leading slash and a foreign NextToken', async () => {
    const { ssm } = await start();
    const noSlash = await rejection(ssm.send(new GetParametersByPathCommand({ Path: 'aws/service' })));
    expect(noSlash.name).toBe('ValidationException');
    const first = await ssm.send(
      new GetParametersByPathCommand({ Path: '/aws/service/bottlerocket', Recursive: true, MaxResults: 2 }),
    );
    const foreign = await rejection(
      ssm.send(
        new GetParametersByPathCommand({ Path: '/aws/service/eks', Recursive: true, NextToken: first.NextToken }),
      ),
    );
    expect(foreign.name).toBe('InvalidNextToken');
  });
});

describe('EC2 DescribeImages (query protocol, XML) through EC2Client', () => {
  it('describes images by ID with their EC2 fields, a deprecated one included, a deregistered one silently absent', async () => {
    const { aws, ec2 } = await start();
    const { deprecated, deregistered } = aws.catalog.notable;
    const current = newestRelease(aws.catalog, al2023)!;
    const ids = [current.imageId, deprecated!.imageId, deregistered!.imageId];
    const { Images } = await ec2.send(new DescribeImagesCommand({ ImageIds: ids, IncludeDeprecated: true }));
    expect(Images?.map((i) => i.ImageId).sort()).toEqual([current.imageId, deprecated!.imageId].sort());
    const image = aws.catalog.images.get(current.imageId)!;
    expect(Images?.find((i) => i.ImageId === current.imageId)).toEqual({
      ImageId: image.imageId,
      Name: current.imageName,
      Description: image.description,
      Architecture: 'x86_64',
      State: 'available',
      OwnerId: '602401143452',
      ImageOwnerAlias: 'amazon',
      ImageLocation: `amazon/${current.imageName}`,
      CreationDate: image.creationDate,
      DeprecationTime: image.deprecationTime,
      Public: true,
      ImageType: 'machine',
      PlatformDetails: 'Linux/UNIX',
      UsageOperation: 'RunInstances',
      RootDeviceType: 'ebs',
      RootDeviceName: '/dev/xvda',
      VirtualizationType: 'hvm',
      Hypervisor: 'xen',
      EnaSupport: true,
    });
    expect(aws.requests[0]?.params).toEqual({
      'ImageId.1': ids[0],
      'ImageId.2': ids[1],
      'ImageId.3': ids[2],
      IncludeDeprecated: 'true',
    });
    // Asked for by ID, a deprecated image is returned even without IncludeDeprecated (EC2 "Deprecate an AMI").
    const byId = await ec2.send(new DescribeImagesCommand({ ImageIds: [deprecated!.imageId] }));
    expect(byId.Images?.map((i) => i.ImageId)).toEqual([deprecated!.imageId]);
  });

  it('filters by name wildcards, architecture, state and owner, hiding deprecated images unless IncludeDeprecated', async () => {
    const { aws, ec2 } = await start();
    const s = {
      ...al2023,
      kubernetesVersion: aws.catalog.notable.deprecated!.kubernetesVersion,
      arch: 'arm64',
    } as const;
    const all = seriesReleases(aws.catalog, s).filter((r) => aws.catalog.images.has(r.imageId));
    const filters = [
      { Name: 'name', Values: [`amazon-eks-node-al2023-*-standard-${s.kubernetesVersion}-v????????`] },
      { Name: 'architecture', Values: ['arm64'] },
      { Name: 'state', Values: ['available'] },
    ];
    const withDeprecated = await ec2.send(
      new DescribeImagesCommand({ Owners: ['amazon'], Filters: filters, IncludeDeprecated: true }),
    );
    expect(withDeprecated.Images?.map((i) => i.Name).sort()).toEqual(all.map((r) => r.imageName).sort());
    const current = await ec2.send(new DescribeImagesCommand({ Owners: ['602401143452'], Filters: filters }));
    const deprecatedNames = withDeprecated
      .Images!.filter((i) => Date.parse(i.DeprecationTime!) <= aws.catalog.asOf.getTime())
      .map((i) => i.Name);
    expect(deprecatedNames.length).toBeGreaterThan(0);
    expect(current.Images?.map((i) => i.Name).sort()).toEqual(
      all
        .map((r) => r.imageName)
        .filter((n) => !deprecatedNames.includes(n))
        .sort(),
    );
    const otherOwner = await ec2.send(
      new DescribeImagesCommand({ Owners: ['092701018921'], Filters: filters, IncludeDeprecated: true }),
    );
    expect(otherOwner.Images).toEqual([]);
  });

  it('finds the pending and failed images by state, and the account’s own tagged images with Owners self', async () => {
    const golden: CatalogImage = {
      imageId: 'ami-0123456789abcdef0',
      name: 'team-golden-al2023-1.30-20261020',
      architecture: 'arm64',
      state: 'available',
      ownerId: '111122223333',
      public: false,
      creationDate: '2026-10-20T10:00:00.000Z',
      deprecationTime: '2026-10-25T00:00:00.000Z', // already deprecated, yet listed: owners always see their own
      platformDetails: 'Linux/UNIX',
      usageOperation: 'RunInstances',
      tags: { 'karpenter.sh/discovery': 'sandbox', team: 'platform' },
    };
    const { aws, ec2 } = await start({ images: [golden] });
    const pending = await ec2.send(
      new DescribeImagesCommand({ Filters: [{ Name: 'state', Values: ['pending', 'failed'] }] }),
    );
    expect(pending.Images?.map((i) => [i.ImageId, i.State]).sort()).toEqual(
      [
        [aws.catalog.notable.failedImageId, 'failed'],
        [aws.catalog.notable.pendingImageId, 'pending'],
      ].sort(),
    );
    expect(pending.Images?.find((i) => i.State === 'failed')?.StateReason?.Code).toBe('Server.InternalError');
    const own = await ec2.send(
      new DescribeImagesCommand({
        Owners: ['self'],
        Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['sand*'] }],
      }),
    );
    expect(own.Images?.map((i) => [i.ImageId, i.Tags?.find((t) => t.Key === 'team')?.Value])).toEqual([
      [golden.imageId, 'platform'],
    ]);
    const byKey = await ec2.send(new DescribeImagesCommand({ Filters: [{ Name: 'tag-key', Values: ['team'] }] }));
    expect(byKey.Images?.map((i) => i.ImageId)).toEqual([golden.imageId]);
  });

  it('pages with MaxResults and NextToken', async () => {
    const { aws, ec2 } = await start();
    const filters = [{ Name: 'name', Values: ['bottlerocket-aws-k8s-1.3?-x86_64-*'] }];
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeImagesCommand({ Filters: filters, IncludeDeprecated: true, MaxResults: 5, NextToken: token }),
      );
      expect(page.Images!.length).toBeLessThanOrEqual(5);
      seen.push(...page.Images!.map((i) => i.Name!));
      token = page.NextToken;
    } while (token);
    const expected = [...aws.catalog.images.values()]
      .filter((i) => /^bottlerocket-aws-k8s-1\.3\d-x86_64-/.test(i.name))
      .map((i) => i.name);
    expect(seen.sort()).toEqual(expected.sort());
    expect(aws.requests.length).toBeGreaterThan(1);
  });

  it.each([
    ['ami-0000000000000000f', 'InvalidAMIID.NotFound', "The image id '[ami-0000000000000000f]' does not exist"],
    ['ami-12345', 'InvalidAMIID.Malformed', 'Invalid id: "ami-12345" (expecting "ami-...")'],
    ['i-0123456789abcdef0', 'InvalidAMIID.Malformed', 'Invalid id: "i-0123456789abcdef0" (expecting "ami-...")'],
  ])('answers ImageId %s with %s', async (id, name, message) => {
    const { ec2 } = await start();
    const err = await rejection(ec2.send(new DescribeImagesCommand({ ImageIds: [id] })));
    expect([err.name, err.message, err.$metadata?.httpStatusCode]).toEqual([name, message, 400]);
  });
});

describe('injected faults', () => {
  it('throttles the next SSM call with ThrottlingException, then answers again', async () => {
    const { aws, ssm } = await start();
    aws.faults.throttle({ service: 'ssm', operation: 'GetParameters', next: 1 });
    const names = [ssmParameterPath({ ...al2023, release: 'latest' })];
    const err = await rejection(ssm.send(new GetParametersCommand({ Names: names })));
    expect([err.name, err.message]).toEqual(['ThrottlingException', 'Rate exceeded']);
    await expect(ssm.send(new GetParametersCommand({ Names: names }))).resolves.toMatchObject({
      InvalidParameters: [],
    });
    expect(aws.requests.map((r) => [r.status, r.errorCode])).toEqual([
      [400, 'ThrottlingException'],
      [200, undefined],
    ]);
  });

  it('throttles EC2 with RequestLimitExceeded, which the SDK retries by itself', async () => {
    const { aws, ec2 } = await start();
    aws.faults.throttle({ service: 'ec2', next: 1 });
    const err = await rejection(ec2.send(new DescribeImagesCommand({ Owners: ['self'] })));
    expect([err.name, err.$metadata?.httpStatusCode]).toEqual(['RequestLimitExceeded', 503]);
    aws.faults.throttle({ service: 'ec2', next: 1 });
    const retrying = new EC2Client({ region: 'us-west-2', endpoint: aws.url, credentials, maxAttempts: 2 });
    onTestFinished(() => retrying.destroy());
    await expect(retrying.send(new DescribeImagesCommand({ Owners: ['self'] }))).resolves.toMatchObject({ Images: [] });
    expect(aws.requests.map((r) => r.errorCode)).toEqual(['RequestLimitExceeded', 'RequestLimitExceeded', undefined]);
  });

  it('throttles a seeded fraction of calls, the same calls for the same seed', async () => {
    const pattern = async () => {
      const { aws, ssm } = await start({ faultSeed: 7 });
      aws.faults.throttle({ service: 'ssm', rate: 0.5 });
      for (let i = 0; i < 20; i++) await ssm.send(new GetParametersCommand({ Names: ['/x'] })).catch(() => undefined);
      return aws.requests.map((r) => r.errorCode ?? 'ok');
    };
    const first = await pattern();
    expect(new Set(first)).toEqual(new Set(['ok', 'ThrottlingException']));
    expect(await pattern()).toEqual(first);
  });

  it('denies access: AccessDeniedException from SSM, UnauthorizedOperation from EC2', async () => {
    const { aws, ssm, ec2 } = await start();
    aws.faults.denyAccess({ service: 'ssm', operation: 'GetParameter' });
    aws.faults.denyAccess({ service: 'ec2' });
    const name = ssmParameterPath({ ...al2023, release: 'latest' });
    const denied = await rejection(ssm.send(new GetParameterCommand({ Name: name })));
    expect([denied.name, denied.$metadata?.httpStatusCode]).toEqual(['AccessDeniedException', 400]);
    expect(denied.message).toContain(`ssm:GetParameter on resource: arn:aws:ssm:us-west-2::parameter${name}`);
    await expect(ssm.send(new GetParametersCommand({ Names: [name] }))).resolves.toBeDefined();
    const unauthorized = await rejection(ec2.send(new DescribeImagesCommand({})));
    expect([unauthorized.name, unauthorized.$metadata?.httpStatusCode]).toEqual(['UnauthorizedOperation', 403]);
    aws.faults.clear();
    await expect(ssm.send(new GetParameterCommand({ Name: name }))).resolves.toBeDefined();
  });

  it('holds a slowed answer until stop() closes the connection', async () => {
    const { aws, ssm } = await start();
    aws.faults.slow({ service: 'ssm', delayMs: 60_000 });
    const arrived = vi.spyOn(aws.faults, 'decide');
    const pending = rejection(ssm.send(new GetParameterCommand({ Name: '/aws/service/anything' })));
    await vi.waitFor(() => expect(arrived).toHaveBeenCalledWith('ssm', 'GetParameter'));
    await aws.stop();
    const err = await pending;
    expect((err as Error & { code?: string }).code).toBe('ECONNRESET');
    expect(aws.requests).toEqual([]);
  });
});

describe('reached only through the SDK endpoint variables', () => {
  it('uses AWS_ENDPOINT_URL_SSM and AWS_ENDPOINT_URL_EC2 with clients built from the environment alone', async () => {
    const aws = await startAwsEndpoints();
    onTestFinished(() => aws.stop());
    const env = {
      AWS_ENDPOINT_URL_SSM: aws.url,
      AWS_ENDPOINT_URL_EC2: aws.url,
      AWS_REGION: 'ap-southeast-2',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL: undefined,
      AWS_PROFILE: undefined,
      AWS_SESSION_TOKEN: undefined,
    };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    const apply = (values: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(values)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    apply(env);
    onTestFinished(() => apply(saved));
    const ssm = new SSMClient({});
    const ec2 = new EC2Client({});
    onTestFinished(() => {
      ssm.destroy();
      ec2.destroy();
    });
    const s = { family: 'bottlerocket', kubernetesVersion: '1.33', arch: 'arm64', variant: 'nvidia' } as const;
    const { Parameter } = await ssm.send(
      new GetParameterCommand({ Name: ssmParameterPath({ ...s, release: 'latest' }) }),
    );
    expect(Parameter?.ARN).toMatch(/^arn:aws:ssm:ap-southeast-2::parameter\/aws\/service\/bottlerocket\//);
    const { Images } = await ec2.send(new DescribeImagesCommand({ ImageIds: [Parameter!.Value!] }));
    expect(Images?.map((i) => i.Name)).toEqual([newestRelease(aws.catalog, s)!.imageName]);
    expect(aws.requests.map((r) => [r.service, r.region])).toEqual([
      ['ssm', 'ap-southeast-2'],
      ['ec2', 'ap-southeast-2'],
    ]);
  });
});
