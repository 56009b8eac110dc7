// The sandbox's EKS DescribeCluster (REST-JSON, `GET /clusters/{name}`) driven by the real EKSClient over HTTP.
import { DescribeClusterCommand, EKSClient, ResourceNotFoundException } from '@aws-sdk/client-eks';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { EksCluster } from '../../src/sandbox/aws/eks.js';
import { startAwsEndpoints } from '../../src/sandbox/aws/server.js';

const credentials = { accessKeyId: 'AKIASANDBOXEXAMPLE', secretAccessKey: 'sandbox-secret' };
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUabc\n-----END CERTIFICATE-----\n';
const prod: EksCluster = {
  name: 'prod',
  region: 'us-west-2',
  endpoint: 'https://127.0.0.1:6443',
  caPem: PEM,
  version: '1.30',
  createdAt: new Date('2026-08-01T00:00:00Z'),
};

async function start(region = 'us-west-2') {
  const aws = await startAwsEndpoints({ clusters: [prod] });
  onTestFinished(() => aws.stop());
  const eks = new EKSClient({ region, endpoint: aws.url, credentials, maxAttempts: 1 });
  onTestFinished(() => eks.destroy());
  return { aws, eks };
}

async function rejection(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

describe('EKS DescribeCluster through EKSClient', () => {
  it('describes a known cluster: ARN in the caller account, endpoint, CA as base64 PEM, version, ACTIVE', async () => {
    const { aws, eks } = await start();
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(cluster).toMatchObject({
      name: 'prod',
      arn: `arn:aws:eks:us-west-2:${aws.catalog.accountId}:cluster/prod`,
      endpoint: 'https://127.0.0.1:6443',
      version: '1.30',
      status: 'ACTIVE',
      createdAt: new Date('2026-08-01T00:00:00Z'),
    });
    expect(Buffer.from(cluster!.certificateAuthority!.data!, 'base64').toString('utf8')).toBe(PEM);
    expect(aws.requests).toEqual([
      { service: 'eks', operation: 'DescribeCluster', region: 'us-west-2', params: { name: 'prod' }, status: 200 },
    ]);
  });

  it('answers an unknown name with 404 ResourceNotFoundException, as EKS does', async () => {
    const { aws, eks } = await start();
    const err = await rejection(eks.send(new DescribeClusterCommand({ name: 'staging' })));
    expect(err).toBeInstanceOf(ResourceNotFoundException);
    expect(err.message).toBe('No cluster found for name: staging.');
    expect(err.$metadata?.httpStatusCode).toBe(404);
    expect(aws.requests.at(-1)).toMatchObject({ status: 404, errorCode: 'ResourceNotFoundException' });
  });

  it('finds a cluster only in its own region', async () => {
    const { eks } = await start('eu-west-1');
    const err = await rejection(eks.send(new DescribeClusterCommand({ name: 'prod' })));
    expect(err.name).toBe('ResourceNotFoundException');
  });

  it('knows clusters pushed onto `clusters` after the start', async () => {
    const { aws, eks } = await start();
    aws.clusters.push({ ...prod, name: 'staging', endpoint: 'https://127.0.0.1:7443' });
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'staging' }));
    expect(cluster?.endpoint).toBe('https://127.0.0.1:7443');
  });

  it.each<['throttle' | 'deny', string, number]>([
    ['throttle', 'ThrottlingException', 429],
    ['deny', 'AccessDeniedException', 403],
  ])('injected faults: %s', async (fault, name, status) => {
    const { aws, eks } = await start();
    if (fault === 'throttle') aws.faults.throttle({ service: 'eks', next: 1 });
    else aws.faults.denyAccess({ service: 'eks', operation: 'DescribeCluster' });
    const err = await rejection(eks.send(new DescribeClusterCommand({ name: 'prod' })));
    expect(err.name).toBe(name);
    expect(err.$metadata?.httpStatusCode).toBe(status);
    if (fault === 'deny')
      expect(err.message).toContain(
        'is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:us-west-2:',
      );
  });

  it('is reached through AWS_ENDPOINT_URL_EKS by a client built from the environment alone', async () => {
    const aws = await startAwsEndpoints({ clusters: [prod] });
    onTestFinished(() => aws.stop());
    const env: Record<string, string | undefined> = {
      AWS_ENDPOINT_URL_EKS: aws.url,
      AWS_REGION: 'us-west-2',
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
    const eks = new EKSClient({});
    onTestFinished(() => eks.destroy());
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
    expect(cluster?.name).toBe('prod');
    expect(aws.requests.map((r) => [r.service, r.region])).toEqual([['eks', 'us-west-2']]);
  });
});
