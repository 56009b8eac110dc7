// The SDK's standard endpoint variables reach karp-drift's clients unchanged: a tiny SSM + EC2 server on 127.0.0.1
// sees the real SDK's requests (the sandbox and local AWS emulators depend on this).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { vi } from 'vitest';
import { resolveAmiQueries, resolveAmis } from '../../src/ami/resolve.js';
import { RuntimeFailure, UsageError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { parseAmisOptions } from '../../src/cli/options.js';
import { newestRelease } from '../../src/sandbox/aws/lookup.js';
import { offlineAwsEnv, sandboxAws as sandbox } from './aws-sandbox.js';
import { failure } from './failure.js';
import type { CatalogRelease } from '../../src/sandbox/aws/types.js';

const PREFIX = '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended';
const IMAGE = 'ami-0aaaabbbbccccdddd';
const NAME = 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261020';
const PARAMETERS: Record<string, string> = {
  [`${PREFIX}/image_id`]: IMAGE,
  [`${PREFIX}/image_name`]: NAME,
  [`${PREFIX}/release_version`]: '1.31.2-20261020',
};

interface Seen {
  server: string;
  target: string;
  body: string;
}

// Answers SSM GetParameters (JSON 1.1) and EC2 DescribeImages (query protocol, XML), and records what arrived.
async function tinyAws(label: string, seen: Seen[]): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? new URLSearchParams(body).get('Action'));
      seen.push({ server: label, target, body });
      if (target === 'AmazonSSM.GetParameters') {
        const names = (JSON.parse(body) as { Names: string[] }).Names;
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(
          JSON.stringify({
            Parameters: names
              .filter((n) => n in PARAMETERS)
              .map((n) => ({ Name: n, Type: 'String', Value: PARAMETERS[n] })),
            InvalidParameters: names.filter((n) => !(n in PARAMETERS)),
          }),
        );
      } else if (target === 'DescribeImages') {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(
          `<DescribeImagesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><imagesSet><item>` +
            `<imageId>${IMAGE}</imageId><name>${NAME}</name><imageState>available</imageState><architecture>x86_64</architecture>` +
            `<creationDate>2026-10-20T08:00:00.000Z</creationDate><deprecationTime>2099-10-20T08:00:00.000Z</deprecationTime>` +
            `</item></imagesSet></DescribeImagesResponse>`,
        );
      } else {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const log: Logger = { info: () => {}, warn: () => {}, debug: () => {} };
const selection = parseAmisOptions({ to: '1.31', arch: 'amd64' });

beforeEach(() => {
  offlineAwsEnv();
});
afterEach(() => vi.unstubAllEnvs());

describe('resolveAmis through the SDK endpoint variables', () => {
  it('sends SSM to AWS_ENDPOINT_URL_SSM and EC2 to AWS_ENDPOINT_URL_EC2', async () => {
    const seen: Seen[] = [];
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', await tinyAws('ssm', seen));
    vi.stubEnv('AWS_ENDPOINT_URL_EC2', await tinyAws('ec2', seen));

    const { region, amis } = await resolveAmis(selection, { region: 'eu-west-1' }, log);

    expect(region).toBe('eu-west-1');
    expect(amis.map((a) => [a.id, a.release, a.state])).toEqual([[IMAGE, 'v20261020', 'available']]);
    expect(seen.map((s) => [s.server, s.target])).toEqual([
      ['ssm', 'AmazonSSM.GetParameters'],
      ['ec2', 'DescribeImages'],
    ]);
    expect(JSON.parse(seen[0]!.body)).toEqual({
      Names: [`${PREFIX}/image_id`, `${PREFIX}/release_version`, `${PREFIX}/image_name`],
    });
    expect(Object.fromEntries(new URLSearchParams(seen[1]!.body))).toMatchObject({
      'Filter.1.Name': 'image-id',
      'Filter.1.Value.1': IMAGE,
      IncludeDeprecated: 'true',
    });
  });

  it('sends both services to AWS_ENDPOINT_URL when no service-specific variable is set', async () => {
    const seen: Seen[] = [];
    vi.stubEnv('AWS_ENDPOINT_URL', await tinyAws('shared', seen));
    const { amis } = await resolveAmis(selection, { region: 'us-west-2' }, log);
    expect(amis.map((a) => a.id)).toEqual([IMAGE]);
    expect(seen.map((s) => [s.server, s.target])).toEqual([
      ['shared', 'AmazonSSM.GetParameters'],
      ['shared', 'DescribeImages'],
    ]);
  });
});

// The other side of the contract: the sandbox's SSM and EC2 endpoints, which reach karp-drift only through the variables.
describe('resolveAmis against the sandbox AWS endpoints', () => {
  const pinned = (r: CatalogRelease) => ({
    family: r.family,
    kubernetesVersion: r.kubernetesVersion,
    arch: r.arch,
    variant: r.variant,
    release: r.release,
  });

  it.each([
    ['1.31', 'al2,al2023,bottlerocket,windows2019,windows2022', 16],
    ['1.35', 'al2023,bottlerocket,windows2019,windows2022,windows2025', 13],
  ])('resolves and verifies every family, arch and variant for Kubernetes %s', async (to, families, count) => {
    const aws = await sandbox();
    const { amis } = await resolveAmis(
      parseAmisOptions({ to, family: 'all', arch: 'all', variant: 'all' }),
      { region: 'us-west-2' },
      log,
    );
    expect(amis).toHaveLength(count);
    expect([...new Set(amis.map((a) => a.family))].join(',')).toBe(families);
    for (const a of amis) {
      const newest = newestRelease(aws.catalog, a)!;
      expect([a.family, a.arch, a.variant, a.id, a.release, a.state]).toEqual([
        a.family,
        a.arch,
        a.variant,
        newest.imageId,
        newest.release,
        'available',
      ]);
    }
    const calls = aws.requests.map((r) => r.operation);
    expect(calls.filter((o) => o === 'DescribeImages')).toHaveLength(1);
    expect(calls.filter((o) => o === 'GetParameters').length).toBeGreaterThan(1);
  });

  it('reports the deprecated release and refuses the deregistered one', async () => {
    const aws = await sandbox();
    const { deprecated, deregistered } = aws.catalog.notable;
    const { amis } = await resolveAmiQueries([pinned(deprecated!)], { region: 'us-west-2' }, log);
    expect(amis.map((a) => [a.id, a.deprecated])).toEqual([[deprecated!.imageId, true]]);

    const err = await failure(resolveAmiQueries([pinned(deregistered!)], { region: 'us-west-2' }, log));
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect(err.message).toContain(`${deregistered!.imageId} (`);
    expect(err.message).toContain('unavailable or deregistered');
  });

  it('keepUnusable (plan, upgrade): keeps what EC2 refuses as unusable and leaves out what SSM lacks, unless nothing is published', async () => {
    const aws = await sandbox();
    const { deprecated, deregistered } = aws.catalog.notable;
    const unpublished = { ...pinned(deprecated!), release: 'v19990101' };
    const { amis } = await resolveAmiQueries([pinned(deprecated!), pinned(deregistered!), unpublished], { region: 'us-west-2' }, log, {
      keepUnusable: true,
    });
    expect(amis.map((a) => [a.id, a.usable, a.state])).toEqual([
      [deprecated!.imageId, true, 'available'],
      [deregistered!.imageId, false, 'missing'],
    ]);
    const err = await failure(resolveAmiQueries([unpublished], { region: 'us-west-2' }, log, { keepUnusable: true }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('no EKS-optimized AMI for Kubernetes');
  });

  it('lets the SDK retry throttled calls, and names the IAM action when access is denied', async () => {
    const aws = await sandbox();
    vi.stubEnv('AWS_MAX_ATTEMPTS', '3');
    aws.faults.throttle({ service: 'ssm', operation: 'GetParameters', next: 1 });
    const { amis } = await resolveAmis(selection, { region: 'us-west-2' }, log);
    expect(amis).toHaveLength(1);
    expect(aws.requests.map((r) => [r.operation, r.errorCode])).toEqual([
      ['GetParameters', 'ThrottlingException'],
      ['GetParameters', undefined],
      ['DescribeImages', undefined],
    ]);

    aws.faults.clear();
    aws.faults.denyAccess({ service: 'ec2' });
    const err = await failure(resolveAmis(selection, { region: 'us-west-2' }, log));
    expect(err.message).toBe('access denied: EC2 DescribeImages in us-west-2 (UnauthorizedOperation)');
  });
});
