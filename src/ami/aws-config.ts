// What every AWS client karp-drift builds (SSM and EC2 in resolve.ts, EKS in eks-cluster.ts) is given: only what the
// user passed. Everything else (credentials, region, AWS_ENDPOINT_URL[_SERVICE], retries) comes from the SDK's default
// chain; passing `endpoint` here would override the endpoint variables the sandbox and local emulators rely on.
import { UsageError } from '../errors.js';

export interface AwsOptions {
  region?: string;
  profile?: string;
  /** --request-timeout for each request (the SDK's own retries still apply within it). */
  requestTimeoutMs?: number;
}

export function awsClientConfig(aws: AwsOptions) {
  return {
    ...(aws.region !== undefined && { region: aws.region }),
    ...(aws.profile !== undefined && { profile: aws.profile }),
    ...(aws.requestTimeoutMs !== undefined && {
      requestHandler: {
        requestTimeout: aws.requestTimeoutMs,
        connectionTimeout: Math.min(aws.requestTimeoutMs, 10_000),
      },
    }),
  };
}

/** The region a client resolved (--region, AWS_REGION, the profile's), or exit 2 saying how to give one. */
export async function clientRegion(client: { config: { region: () => Promise<string> } }): Promise<string> {
  try {
    return await client.config.region();
  } catch (err) {
    throw new UsageError('no AWS region: pass --region or set AWS_REGION (or a region in the AWS profile)', {
      cause: err,
    });
  }
}
