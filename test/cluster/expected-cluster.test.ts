// --expect-cluster: parsing the name or ARN, and comparing a kubeconfig context with what EKS DescribeCluster says.
import { describe, expect, it } from 'vitest';
import {
  clusterMismatches,
  endpointKey,
  expectedClusterRefusal,
  parseExpectedCluster,
  pemKey,
  unknownClusterRefusal,
  type EksClusterView,
  type ExpectedCluster,
  type KubeconfigClusterView,
} from '../../src/cluster/expected-cluster.js';
import { UsageError } from '../../src/errors.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUabc\nZGVmZ2hp\n-----END CERTIFICATE-----\n';
const OTHER_PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUxyz\nZGVmZ2hp\n-----END CERTIFICATE-----\n';
const ARN = 'arn:aws:eks:us-west-2:111122223333:cluster/prod';
const ENDPOINT = 'https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com';

const eks = (o: Partial<EksClusterView> = {}): EksClusterView => ({
  name: 'prod',
  arn: ARN,
  region: 'us-west-2',
  endpoint: ENDPOINT,
  caData: Buffer.from(PEM).toString('base64'),
  ...o,
});
const kube = (o: Partial<KubeconfigClusterView> = {}): KubeconfigClusterView => ({
  context: 'prod-admin',
  server: ENDPOINT,
  caPem: PEM,
  ...o,
});
const byName: ExpectedCluster = { text: 'prod', name: 'prod' };

describe('parseExpectedCluster', () => {
  it.each<[string, ExpectedCluster]>([
    ['prod', { text: 'prod', name: 'prod' }],
    [' prod_eu-1 ', { text: 'prod_eu-1', name: 'prod_eu-1' }],
    ['1st', { text: '1st', name: '1st' }],
    [ARN, { text: ARN, name: 'prod', region: 'us-west-2', account: '111122223333' }],
    [
      'arn:aws-cn:eks:cn-north-1:111122223333:cluster/prod',
      {
        text: 'arn:aws-cn:eks:cn-north-1:111122223333:cluster/prod',
        name: 'prod',
        region: 'cn-north-1',
        account: '111122223333',
      },
    ],
    [
      'arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/gov',
      {
        text: 'arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/gov',
        name: 'gov',
        region: 'us-gov-west-1',
        account: '111122223333',
      },
    ],
  ])('%s', (value, expected) => {
    expect(parseExpectedCluster(value)).toEqual(expected);
  });

  it.each<[string, string]>([
    [
      '',
      '--expect-cluster "" is not an EKS cluster name (1-100 letters, digits, - and _, starting with a letter or digit) or cluster ARN',
    ],
    ['prod cluster', '--expect-cluster "prod cluster" is not an EKS cluster name'],
    ['-prod', '--expect-cluster "-prod" is not an EKS cluster name'],
    ['a'.repeat(101), 'is not an EKS cluster name'],
    [
      'arn:aws:eks:us-west-2:1111:cluster/prod',
      '--expect-cluster "arn:aws:eks:us-west-2:1111:cluster/prod" is not an EKS cluster ARN; expected arn:aws:eks:<region>:<12-digit account>:cluster/<name>, or just the cluster\'s name',
    ],
    ['arn:aws:eks:us-west-2:111122223333:nodegroup/prod/ng/x', 'is not an EKS cluster ARN'],
    ['arn:aws:ec2:us-west-2:111122223333:cluster/prod', 'is not an EKS cluster ARN'],
    ['arn:aws:eks:us-west-2:111122223333:cluster/bad name', 'is not an EKS cluster ARN'],
  ])('refuses %j', (value, message) => {
    const err = (() => {
      try {
        parseExpectedCluster(value);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(message);
  });
});

describe('endpointKey', () => {
  it.each<[string, string, boolean]>([
    ['the same URL', ENDPOINT, true],
    ['host case', 'https://0123456789abcdef.GR7.us-west-2.eks.amazonaws.com', true],
    ['scheme case', 'HTTPS://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com', true],
    ['a trailing slash', `${ENDPOINT}/`, true],
    ['the default port', `${ENDPOINT}:443`, true],
    ['the default port and a slash', `${ENDPOINT}:443/`, true],
    ['another host', 'https://FEDCBA9876543210.gr7.us-west-2.eks.amazonaws.com', false],
    ['another port', `${ENDPOINT}:8443`, false],
    ['another scheme', 'http://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com', false],
    ['http on 443 is not https', 'http://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com:443', false],
    ['a path', `${ENDPOINT}/k8s`, false],
  ])('%s', (_name, server, same) => {
    expect(endpointKey(server) === endpointKey(ENDPOINT)).toBe(same);
  });

  it('compares what is not a URL as it is, without trailing slashes', () => {
    expect(endpointKey('not a url/')).toBe('not a url');
  });
});

describe('pemKey', () => {
  it('ignores line wrapping, CRLF and a final newline', () => {
    const rewrapped = PEM.replaceAll('\n', '\r\n')
      .replace('MIIBszCCAVmgAwIBAgIUabc\r\n', 'MIIBszCCAVmg\r\nAwIBAgIUabc\r\n')
      .trimEnd();
    expect(pemKey(rewrapped)).toBe(pemKey(PEM));
    expect(pemKey(OTHER_PEM)).not.toBe(pemKey(PEM));
  });
});

describe('clusterMismatches', () => {
  it.each<[string, KubeconfigClusterView, EksClusterView, ExpectedCluster, string[]]>([
    ['the same cluster', kube(), eks(), byName, []],
    ['the same cluster, written differently', kube({ server: `${ENDPOINT.toLowerCase()}:443/` }), eks(), byName, []],
    ['the CA wrapped differently', kube({ caPem: PEM.replaceAll('\n', '\n\n') }), eks(), byName, []],
    [
      'no CA in the kubeconfig (insecure-skip-tls-verify): the endpoint alone',
      kube({ caPem: undefined }),
      eks(),
      byName,
      [],
    ],
    ['no CA from EKS: the endpoint alone', kube(), eks({ caData: undefined }), byName, []],
    ['another server', kube({ server: 'https://127.0.0.1:6443' }), eks(), byName, ['the servers differ']],
    ['the same server, another CA', kube({ caPem: OTHER_PEM }), eks(), byName, ['the certificate authorities differ']],
    [
      'another server and another CA',
      kube({ server: 'https://127.0.0.1:6443', caPem: OTHER_PEM }),
      eks(),
      byName,
      ['the servers differ', 'the certificate authorities differ'],
    ],
    [
      'no endpoint yet',
      kube(),
      eks({ endpoint: undefined }),
      byName,
      ['EKS reports no endpoint for it (is it still being created?)'],
    ],
    ['the account of the ARN', kube(), eks(), parseExpectedCluster(ARN), []],
    [
      'another account than the ARN names',
      kube(),
      eks(),
      parseExpectedCluster('arn:aws:eks:us-west-2:444455556666:cluster/prod'),
      ["the cluster is in account 111122223333, not 444455556666 (the AWS credentials in use are another account's)"],
    ],
  ])('%s', (_name, k, e, expected, problems) => {
    expect(clusterMismatches(k, e, expected)).toEqual(problems);
  });
});

describe('the refusals (exit 3)', () => {
  it('a context that is not the expected cluster names both, and what to do next', () => {
    const err = expectedClusterRefusal(kube({ server: 'https://127.0.0.1:6443' }), eks(), byName)!;
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(
      `--expect-cluster prod: kubeconfig context "prod-admin" (server https://127.0.0.1:6443) is not EKS cluster prod (${ARN}, endpoint ${ENDPOINT}): the servers differ; nothing was changed`,
    );
    expect(err.hint).toBe(
      'pass the context of prod with --context, or write one with: aws eks update-kubeconfig --name prod --region us-west-2',
    );
  });

  it('another account points at the credentials', () => {
    const err = expectedClusterRefusal(
      kube(),
      eks(),
      parseExpectedCluster('arn:aws:eks:us-west-2:444455556666:cluster/prod'),
    )!;
    expect(err.hint).toBe('use credentials of account 444455556666 (--profile, AWS_PROFILE), then check again');
  });

  it('none when the context is the cluster', () => {
    expect(expectedClusterRefusal(kube(), eks(), byName)).toBeUndefined();
  });

  it.each<[ExpectedCluster, string, string]>([
    [
      byName,
      'eu-west-1',
      'check the name and the region (--region, or AWS_REGION): aws eks list-clusters --region eu-west-1',
    ],
    [
      parseExpectedCluster(ARN),
      'us-west-2',
      'check the name and the region (the ARN names it): aws eks list-clusters --region us-west-2',
    ],
  ])('an unknown cluster names it and the region (%j)', (expected, region, hint) => {
    const err = unknownClusterRefusal(expected, region, new Error('No cluster found for name: prod.'));
    expect(err.exitCode).toBe(3);
    expect(err.message).toBe(
      `--expect-cluster ${expected.text}: no EKS cluster named prod in region ${region}; nothing was changed`,
    );
    expect(err.hint).toBe(hint);
  });
});
