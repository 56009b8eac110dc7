// Pure: turns SSM and EC2 failures into errors that say what failed, where (parameter, region) and what to do next.
// SDK errors are recognised by name, so this file needs no @aws-sdk import (STYLE.md: only resolve.ts has one).
import { ssmParameterPath, type AmiQuery } from './parameters.js';
import { RuntimeFailure, UsageError, type KarpDriftError } from '../errors.js';

const RELEASE_NOTES = {
  eks: 'https://github.com/awslabs/amazon-eks-ami/releases',
  bottlerocket: 'https://github.com/bottlerocket-os/bottlerocket/releases',
};

/** image_id parameters that do not exist: a version not yet published, or a release that does not exist. */
export function missingParametersError(missing: readonly AmiQuery[], region: string): UsageError {
  const lines = missing.map(
    (q) => `  ${ssmParameterPath(q)} (${q.family} ${q.arch} ${q.variant}, release ${q.release})`,
  );
  const pinned = missing.filter((q) => q.release !== 'latest');
  const releases = [...new Set(pinned.map((q) => RELEASE_NOTES[q.family === 'bottlerocket' ? 'bottlerocket' : 'eks']))];
  const versions = [...new Set(missing.map((q) => q.kubernetesVersion))].join(', ');
  return new UsageError(
    `no EKS-optimized AMI for Kubernetes ${versions} in ${region}: ${missing.length === 1 ? 'this SSM parameter does' : 'these SSM parameters do'} not exist\n${lines.join('\n')}`,
    {
      hint:
        pinned.length > 0
          ? `check that the release exists for Kubernetes ${versions} (${releases.join(', ')}), or omit --release for the newest`
          : `check that EKS publishes AMIs for Kubernetes ${versions} (a new version appears once EKS supports it) and that ${region} is the right region`,
    },
  );
}

export function ssmFailure(err: unknown, batch: readonly string[], region: string): KarpDriftError {
  const name = err instanceof Error ? err.name : '';
  if (name === 'ParameterNotFound' || name === 'ValidationException' || name === 'InvalidParameters') {
    return new UsageError(
      `SSM rejected GetParameters in ${region} (${name}: ${(err as Error).message}) for:\n${batch.map((n) => `  ${n}`).join('\n')}`,
      {
        cause: err,
        hint: 'check that --to names a Kubernetes version EKS publishes AMIs for and that the release exists',
      },
    );
  }
  return apiFailure(
    err,
    { service: 'SSM', action: 'ssm:GetParameters', resource: `arn:aws:ssm:${region}::parameter/aws/service/*` },
    region,
  );
}

export function ec2Failure(err: unknown, region: string): KarpDriftError {
  return apiFailure(err, { service: 'EC2', action: 'ec2:DescribeImages', resource: '*' }, region);
}

const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
]);
const DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation']);
const BAD_CREDENTIALS = new Set([
  'CredentialsProviderError',
  'ExpiredTokenException',
  'ExpiredToken',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'AuthFailure',
]);

interface AwsCall {
  service: 'SSM' | 'EC2';
  action: string;
  resource: string;
}

// Messages name the call, the region and the IAM action; never the credentials (the SDK's messages carry none).
function apiFailure(err: unknown, call: AwsCall, region: string): KarpDriftError {
  const e: Error & { $retryable?: { throttling?: boolean } } = err instanceof Error ? err : new Error(String(err));
  const what = `${call.service} ${call.action.split(':')[1]} in ${region}`;
  if (DENIED.has(e.name)) {
    return new RuntimeFailure(`access denied: ${what} (${e.name})`, {
      cause: err,
      hint: `allow ${call.action} on ${call.resource} for the AWS identity in use (see README "IAM permissions")`,
    });
  }
  if (THROTTLING.has(e.name) || e.$retryable?.throttling === true) {
    return new RuntimeFailure(`${what} was throttled (${e.name}) and the SDK's retries ran out`, {
      cause: err,
      hint: 'retry in a minute, or raise AWS_MAX_ATTEMPTS / set AWS_RETRY_MODE=adaptive',
    });
  }
  if (BAD_CREDENTIALS.has(e.name)) {
    return new RuntimeFailure(`no usable AWS credentials for ${what} (${e.name}: ${e.message})`, {
      cause: err,
      hint: 'pass --profile or set AWS_PROFILE, run `aws sso login`, or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    });
  }
  return new RuntimeFailure(`${what} failed: ${e.name}: ${e.message}`, { cause: err });
}
