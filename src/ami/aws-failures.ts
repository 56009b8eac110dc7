// Pure: turns SSM and EC2 failures into errors that say what failed, where (parameter, region) and what to do next.
// SDK errors are recognised by name, so this file needs no @aws-sdk import (STYLE.md: only resolve.ts has one).
import { ssmParameterPath, type AmiQuery } from './parameters.js';
import { RuntimeFailure, UsageError, type KarpDriftError } from '../errors.js';
import { ProxyError, proxyHint } from '../proxy/proxy-error.js';

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

export function ssmFailure(
  err: unknown,
  batch: readonly string[],
  region: string,
  env: NodeJS.ProcessEnv = {},
  operation: 'GetParameters' | 'GetParametersByPath' = 'GetParameters',
): KarpDriftError {
  const name = err instanceof Error ? err.name : '';
  if (name === 'ParameterNotFound' || name === 'ValidationException' || name === 'InvalidParameters') {
    return new UsageError(
      `SSM rejected ${operation} in ${region} (${name}: ${(err as Error).message}) for:\n${batch.map((n) => `  ${n}`).join('\n')}`,
      {
        cause: err,
        hint: 'check that --to names a Kubernetes version EKS publishes AMIs for and that the release exists',
      },
    );
  }
  return apiFailure(
    err,
    { service: 'SSM', action: `ssm:${operation}`, resource: `arn:aws:ssm:${region}::parameter/aws/service/*` },
    region,
    env,
  );
}

export function ec2Failure(err: unknown, region: string, env: NodeJS.ProcessEnv = {}): KarpDriftError {
  return apiFailure(err, { service: 'EC2', action: 'ec2:DescribeImages', resource: '*' }, region, env);
}

/** DescribeCluster for --expect-cluster; an unknown cluster is the caller's (a refusal, not an API failure). */
export function eksFailure(err: unknown, name: string, region: string, env: NodeJS.ProcessEnv = {}): KarpDriftError {
  return apiFailure(
    err,
    { service: 'EKS', action: 'eks:DescribeCluster', resource: `arn:aws:eks:${region}:*:cluster/${name}` },
    region,
    env,
  );
}

/**
 * The endpoint the SDK calls and the variable that set it: AWS_ENDPOINT_URL_<SERVICE> before AWS_ENDPOINT_URL, both
 * off with AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (AWS SDKs and Tools reference guide, "Service-specific endpoints").
 */
export function endpointInEffect(service: AwsCall['service'], env: NodeJS.ProcessEnv, region: string): { url: string; variable?: string } {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() !== 'true') {
    for (const variable of [`AWS_ENDPOINT_URL_${service}`, 'AWS_ENDPOINT_URL']) {
      const url = env[variable];
      if (url) return { url, variable };
    }
  }
  return { url: `https://${service.toLowerCase()}.${region}.amazonaws.com` };
}

// Nothing answered: refused, no such host, no route. Node sets `code` (an AggregateError when several addresses were
// tried, as for localhost); the message carries it too.
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

function unreachable(e: Error & { code?: unknown }): string | undefined {
  if (typeof e.code === 'string' && UNREACHABLE.includes(e.code)) return e.code;
  return UNREACHABLE.find((code) => e.message.includes(code));
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

export interface AwsCall {
  service: 'SSM' | 'EC2' | 'EKS';
  action: string;
  resource: string;
}

// Messages name the call, the region and the IAM action; never the credentials (the SDK's messages carry none).
function apiFailure(err: unknown, call: AwsCall, region: string, env: NodeJS.ProcessEnv): KarpDriftError {
  const e: Error & { $retryable?: { throttling?: boolean }; code?: unknown } = err instanceof Error ? err : new Error(String(err));
  const what = `${call.service} ${call.action.split(':')[1]} in ${region}`;
  if (e instanceof ProxyError) {
    const { url } = endpointInEffect(call.service, env, region);
    return new RuntimeFailure(`${what} failed: ${e.message}`, { cause: err, hint: proxyHint(e, new URL(url).hostname) });
  }
  const code = unreachable(e);
  if (code !== undefined) {
    const { url, variable } = endpointInEffect(call.service, env, region);
    return new RuntimeFailure(`${what} failed: nothing answers at ${url}${variable ? ` (${variable})` : ''}: ${code}`, {
      cause: err,
      hint: variable
        ? `${variable} points there: start what it names (for karp-drift's sandbox: eval "$(karp-drift sandbox --detach)"), or unset ${variable} to reach AWS itself`
        : 'check the network, the proxy (HTTPS_PROXY) and --region',
    });
  }
  if (DENIED.has(e.name)) {
    return new RuntimeFailure(`access denied: ${what} (${e.name})`, {
      cause: err,
      hint: `allow ${call.action} on ${call.resource} for the AWS identity in use (docs/rbac-and-iam.md lists the IAM policy)`,
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
