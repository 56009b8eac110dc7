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

/**
 * The SDK's environment for an AMI test: credentials from the environment, nothing from the developer's ~/.aws, no
 * instance metadata, no retries, no endpoint but the ones a test points at (call it in beforeEach; vi.unstubAllEnvs
 * undoes it).
 */
export function offlineAwsEnv(): void {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAKARPDRIFTTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'karp-drift-test-secret');
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_PROFILE', undefined);
  vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/karp-drift-test/config');
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/karp-drift-test/credentials');
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
  vi.stubEnv('AWS_ENDPOINT_URL', undefined);
  vi.stubEnv('AWS_ENDPOINT_URL_SSM', undefined);
  vi.stubEnv('AWS_ENDPOINT_URL_EC2', undefined);
}
