// --expect-cluster against the sandbox: EKS DescribeCluster (the sandbox's, through AWS_ENDPOINT_URL_EKS) must name
// the kubeconfig context's server and CA before anything else happens. A mismatch, an unknown cluster or a denied
// DescribeCluster stops every command that reaches a cluster before its first Kubernetes request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { httpWrites, karpDrift } from './cli-sandbox.js';

// Two sandboxes, each an EKS cluster named `sandbox` in us-west-2 with its own API server and CA: the CLI pointed at
// the first one's kubeconfig and the second one's EKS is a kubeconfig that is not the cluster the user vouched for.
let here: Sandbox;
let elsewhere: Sandbox;
beforeAll(async () => {
  [here, elsewhere] = await Promise.all([
    startSandbox({ scenario: 'default', speed: 60 }),
    startSandbox({ scenario: 'default', speed: 60 }),
  ]);
});
afterAll(async () => {
  await Promise.all([here.stop(), elsewhere.stop()]);
});

const ARN = 'arn:aws:eks:us-west-2:111122223333:cluster/sandbox';
const CONTEXT = 'karp-drift-sandbox-default';

describe('--expect-cluster', () => {
  it.each([
    ['by name', 'sandbox'],
    ['by ARN', ARN],
  ])('the sandbox is the cluster it expects (%s): status exits 0', async (_how, expected) => {
    const before = here.aws.requests.length;
    const run = await karpDrift(here, ['status', '--expect-cluster', expected, '-v']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('NODEPOOL');
    expect(run.stderr).toContain(
      `debug: --expect-cluster: context ${CONTEXT} is EKS cluster ${ARN} (${here.kube.url})`,
    );
    expect(here.aws.requests.slice(before)).toEqual([
      { service: 'eks', operation: 'DescribeCluster', region: 'us-west-2', params: { name: 'sandbox' }, status: 200 },
    ]);
    // DescribeCluster came first: the CLI's first Kubernetes request is logged after it.
    expect(run.stderr.indexOf('EKS DescribeCluster in us-west-2: sandbox')).toBeLessThan(
      run.stderr.indexOf('debug: GET /'),
    );
  });

  // Every command that reaches a cluster goes through the same connect, so each refuses before its first request.
  it.each<[string, string[]]>([
    ['status', ['status']],
    ['plan', ['plan', '--to', '1.30']],
    ['upgrade', ['upgrade', '--to', '1.30', '--yes']],
    [
      'upgrade --templates',
      [
        'upgrade',
        '--to',
        '1.30',
        '--yes',
        '--templates',
        'templates',
        '--cluster-name',
        'sandbox',
        '--role',
        'KarpenterNodeRole-sandbox',
      ],
    ],
    ['rollback', ['rollback', '--yes']],
    ['pause', ['pause']],
    ['resume', ['resume']],
  ])(
    'a kubeconfig that is another cluster: %s exits 3 naming both, with no request to the cluster',
    async (_name, args) => {
      const kubeBefore = here.kube.requests.length;
      const awsBefore = here.aws.requests.length;
      const run = await karpDrift(here, [...args, '--expect-cluster', 'sandbox'], 60_000, {
        AWS_ENDPOINT_URL_EKS: elsewhere.aws.url,
      });
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(
        `error: --expect-cluster sandbox: kubeconfig context "${CONTEXT}" (server ${here.kube.url}) is not EKS cluster sandbox (${ARN}, endpoint ${elsewhere.kube.url}): the servers differ; the certificate authorities differ; nothing was changed\n` +
          '  next: pass the context of sandbox with --context, or write one with: aws eks update-kubeconfig --name sandbox --region us-west-2\n',
      );
      // Not one Kubernetes request (so no write), and no SSM or EC2 call either.
      expect(here.kube.requests.length).toBe(kubeBefore);
      expect(here.aws.requests.length).toBe(awsBefore);
      expect(httpWrites(here)).toBe(0);
    },
  );

  it('the same server with another CA is another cluster: exit 3', async () => {
    const original = here.aws.clusters[0]!;
    here.aws.clusters[0] = { ...original, caPem: elsewhere.kube.caData };
    try {
      const before = here.kube.requests.length;
      const run = await karpDrift(here, ['upgrade', '--to', '1.30', '--yes', '--expect-cluster', 'sandbox']);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(
        `(${ARN}, endpoint ${here.kube.url}): the certificate authorities differ; nothing was changed`,
      );
      expect(here.kube.requests.length).toBe(before);
    } finally {
      here.aws.clusters[0] = original;
    }
  });

  it.each<[string, string[], Record<string, string>, string, string]>([
    [
      'an unknown name',
      ['--expect-cluster', 'prod'],
      {},
      'error: --expect-cluster prod: no EKS cluster named prod in region us-west-2; nothing was changed',
      'next: check the name and the region (--region, or AWS_REGION): aws eks list-clusters --region us-west-2',
    ],
    [
      'the right name in another region (--region)',
      ['--expect-cluster', 'sandbox', '--region', 'eu-west-1'],
      {},
      'error: --expect-cluster sandbox: no EKS cluster named sandbox in region eu-west-1; nothing was changed',
      'next: check the name and the region (--region, or AWS_REGION): aws eks list-clusters --region eu-west-1',
    ],
    [
      'an ARN in another region: the ARN region wins over AWS_REGION',
      ['--expect-cluster', 'arn:aws:eks:eu-west-1:111122223333:cluster/sandbox'],
      {},
      'error: --expect-cluster arn:aws:eks:eu-west-1:111122223333:cluster/sandbox: no EKS cluster named sandbox in region eu-west-1; nothing was changed',
      'next: check the name and the region (the ARN names it): aws eks list-clusters --region eu-west-1',
    ],
  ])(
    '%s: exit 3 naming the cluster and the region, nothing sent to the cluster',
    async (_name, flags, env, message, next) => {
      const before = here.kube.requests.length;
      const run = await karpDrift(here, ['upgrade', '--to', '1.30', '--yes', ...flags], 60_000, env);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain(next);
      expect(here.kube.requests.length).toBe(before);
    },
  );

  it('DescribeCluster denied: exit 1 naming eks:DescribeCluster, nothing sent to the cluster', async () => {
    here.aws.faults.denyAccess({ service: 'eks' });
    try {
      const before = here.kube.requests.length;
      const run = await karpDrift(here, ['upgrade', '--to', '1.30', '--yes', '--expect-cluster', 'sandbox']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('error: access denied: EKS DescribeCluster in us-west-2 (AccessDeniedException)');
      expect(run.stderr).toContain(
        'next: allow eks:DescribeCluster on arn:aws:eks:us-west-2:*:cluster/sandbox for the AWS identity in use',
      );
      expect(run.stderr).not.toContain(here.env.AWS_SECRET_ACCESS_KEY);
      expect(here.kube.requests.length).toBe(before);
    } finally {
      here.aws.faults.clear();
    }
  });

  it('nothing answering at AWS_ENDPOINT_URL_EKS: exit 1 naming the URL and the variable', async () => {
    const run = await karpDrift(here, ['status', '--expect-cluster', 'sandbox'], 60_000, {
      AWS_ENDPOINT_URL_EKS: 'http://127.0.0.1:1',
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      'error: EKS DescribeCluster in us-west-2 failed: nothing answers at http://127.0.0.1:1 (AWS_ENDPOINT_URL_EKS): ECONNREFUSED',
    );
  });
});
