// The EKS edge of --expect-cluster: one DescribeCluster, built like the SSM and EC2 clients of resolve.ts (the same
// region, profile, endpoint variables and request timeout), mapped to the narrow view expected-cluster.ts compares.
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { awsClientConfig, clientRegion, type AwsOptions } from './aws-config.js';
import { eksFailure } from './aws-failures.js';
import { requireProfile } from './profiles.js';
import { unknownClusterRefusal, type EksClusterView, type ExpectedCluster } from '../cluster/expected-cluster.js';
import type { Logger } from '../logger.js';

export async function describeEksCluster(
  expected: ExpectedCluster,
  aws: AwsOptions,
  log: Logger,
): Promise<EksClusterView> {
  requireProfile(aws.profile, process.env);
  // An ARN says where the cluster is; its region wins over --region and the SDK chain.
  const eks = new EKSClient(awsClientConfig(expected.region !== undefined ? { ...aws, region: expected.region } : aws, process.env, log));
  try {
    const region = await clientRegion(eks);
    log.debug(`EKS DescribeCluster in ${region}: ${expected.name}`);
    try {
      const { cluster } = await eks.send(new DescribeClusterCommand({ name: expected.name }));
      return {
        name: cluster?.name ?? expected.name,
        arn: cluster?.arn ?? '',
        region,
        ...(cluster?.endpoint !== undefined && { endpoint: cluster.endpoint }),
        ...(cluster?.certificateAuthority?.data !== undefined && { caData: cluster.certificateAuthority.data }),
      };
    } catch (err) {
      if (err instanceof Error && err.name === 'ResourceNotFoundException')
        throw unknownClusterRefusal(expected, region, err);
      throw eksFailure(err, expected.name, region, process.env);
    }
  } finally {
    eks.destroy(); // keep-alive sockets would otherwise hold the process open
  }
}
