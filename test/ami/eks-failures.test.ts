// EKS DescribeCluster failures (--expect-cluster) name the call, the region, the IAM action and the endpoint variable.
import { describe, expect, it } from 'vitest';
import { eksFailure, endpointInEffect } from '../../src/ami/aws-failures.js';

describe('eksFailure', () => {
  it.each<[string, unknown, NodeJS.ProcessEnv, string, string]>([
    [
      'AccessDenied names eks:DescribeCluster and the cluster',
      Object.assign(
        new Error('User: arn:aws:sts::111122223333:assumed-role/r/s is not authorized to perform: eks:DescribeCluster'),
        {
          name: 'AccessDeniedException',
        },
      ),
      {},
      'access denied: EKS DescribeCluster in us-west-2 (AccessDeniedException)',
      'allow eks:DescribeCluster on arn:aws:eks:us-west-2:*:cluster/prod for the AWS identity in use (docs/rbac-and-iam.md lists the IAM policy)',
    ],
    [
      'nothing at AWS_ENDPOINT_URL_EKS',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' }),
      { AWS_ENDPOINT_URL_EKS: 'http://127.0.0.1:4566', AWS_ENDPOINT_URL: 'http://127.0.0.1:1' },
      'EKS DescribeCluster in us-west-2 failed: nothing answers at http://127.0.0.1:4566 (AWS_ENDPOINT_URL_EKS): ECONNREFUSED',
      "AWS_ENDPOINT_URL_EKS points there: start what it names (for karp-drift's sandbox: eval \"$(karp-drift sandbox --detach)\"), or unset AWS_ENDPOINT_URL_EKS to reach AWS itself",
    ],
    [
      'expired credentials',
      Object.assign(new Error('The security token included in the request is expired'), {
        name: 'ExpiredTokenException',
      }),
      {},
      'no usable AWS credentials for EKS DescribeCluster in us-west-2 (ExpiredTokenException: The security token included in the request is expired)',
      'pass --profile or set AWS_PROFILE, run `aws sso login`, or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    ],
  ])('%s', (_name, cause, env, message, hint) => {
    const err = eksFailure(cause, 'prod', 'us-west-2', env);
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(message);
    expect(err.hint).toBe(hint);
  });

  it('the regional endpoint when no variable is set', () => {
    expect(endpointInEffect('EKS', {}, 'eu-west-1')).toEqual({ url: 'https://eks.eu-west-1.amazonaws.com' });
  });
});
