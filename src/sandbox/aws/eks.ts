// EKS DescribeCluster over REST-JSON: `GET /clusters/{name}` answered with `{ "cluster": { … } }` (the SDK's
// `Cluster` shape; timestamps as epoch seconds). Errors carry `x-amzn-ErrorType` and a JSON body with `message`, as
// EKS sends them; the SDK names the error after the header (@smithy/core protocols/json `loadRestJsonErrorCode`).
// Clusters are regional: one is found only by a request signed for its region.
import type { AwsCallContext, AwsReply } from './types.js';

/** One EKS cluster the endpoint knows: the sandbox's own, or one a test adds. */
export interface EksCluster {
  name: string;
  region: string;
  /** The API server URL. */
  endpoint: string;
  /** PEM of the CA that signed the API server's certificate (sent base64-encoded, as EKS does). */
  caPem: string;
  /** The control plane's minor, e.g. `1.30`. */
  version: string;
  createdAt: Date;
}

const CLUSTER_PATH = /^\/clusters\/([^/?]+)\/?$/;

/** The cluster name of a DescribeCluster request, or undefined for any other request. */
export function describeClusterName(method: string | undefined, url: string | undefined): string | undefined {
  if (method !== 'GET') return undefined;
  const m = CLUSTER_PATH.exec(new URL(url ?? '/', 'http://localhost').pathname);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

function reply(status: number, body: unknown, ctx: AwsCallContext, errorCode?: string): AwsReply {
  return {
    status,
    headers: {
      'Content-Type': 'application/json',
      'x-amzn-RequestId': ctx.requestId,
      ...(errorCode ? { 'x-amzn-ErrorType': errorCode } : {}),
    },
    body: JSON.stringify(body),
    ...(errorCode ? { errorCode } : {}),
  };
}

export function eksDescribeCluster(clusters: readonly EksCluster[], name: string, ctx: AwsCallContext): AwsReply {
  const c = clusters.find((x) => x.name === name && x.region === ctx.region);
  if (!c) {
    return reply(
      404,
      { message: `No cluster found for name: ${name}.`, clusterName: name },
      ctx,
      'ResourceNotFoundException',
    );
  }
  const arn = `arn:aws:eks:${c.region}:${ctx.accountId}:cluster/${c.name}`;
  return reply(
    200,
    {
      cluster: {
        name: c.name,
        arn,
        createdAt: c.createdAt.getTime() / 1000,
        version: c.version,
        endpoint: c.endpoint,
        roleArn: `arn:aws:iam::${ctx.accountId}:role/eks-cluster-role-${c.name}`,
        certificateAuthority: { data: Buffer.from(c.caPem, 'utf8').toString('base64') },
        status: 'ACTIVE',
        platformVersion: 'eks.1',
        accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
        tags: {},
      },
    },
    ctx,
  );
}

export function eksFault(failure: 'throttle' | 'access-denied', name: string, ctx: AwsCallContext): AwsReply {
  if (failure === 'throttle') return reply(429, { message: 'Rate exceeded' }, ctx, 'ThrottlingException');
  return reply(
    403,
    {
      message:
        `User: arn:aws:sts::${ctx.accountId}:assumed-role/karp-drift-sandbox/session is not authorized to perform: eks:DescribeCluster ` +
        `on resource: arn:aws:eks:${ctx.region}:${ctx.accountId}:cluster/${name}`,
    },
    ctx,
    'AccessDeniedException',
  );
}
