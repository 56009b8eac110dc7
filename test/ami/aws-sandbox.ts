// The sandbox's SSM and EC2 endpoints for the AMI tests, reached as karp-drift reaches AWS: only through the SDK's
// endpoint variables.
import { onTestFinished, vi } from 'vitest';
import { startAwsEndpoints } from '../../src/sandbox/aws/server.js';

/** Starts the endpoints for this test and points the SDK's SSM and EC2 clients at them. */
export async function sandboxAws(): Promise<Awaited<ReturnType<typeof startAwsEndpoints>>> {
  const aws = await startAwsEndpoints();
  onTestFinished(() => aws.stop());
  vi.stubEnv('AWS_ENDPOINT_URL_SSM', aws.url);
  vi.stubEnv('AWS_ENDPOINT_URL_EC2', aws.url);
  return aws;
}
