// Pure: `--expect-cluster <name|arn>`, and whether the kubeconfig context in use is that EKS cluster. A kubeconfig
// names its cluster however it likes; what identifies the cluster is the API server endpoint and the certificate
// authority EKS serves it with (DescribeCluster's `endpoint` and `certificateAuthority.data`), the two things
// `aws eks update-kubeconfig` copies into the kubeconfig.
import { RefusedError, UsageError } from '../errors.js';

export interface ExpectedCluster {
  /** What the user typed, for messages. */
  text: string;
  name: string;
  /** From an ARN; otherwise the region is --region or the SDK chain's. */
  region?: string;
  account?: string;
}

/** What EKS DescribeCluster says of the cluster (the SDK's `Cluster` shape, narrowed). */
export interface EksClusterView {
  name: string;
  arn: string;
  region: string;
  endpoint?: string;
  /** Base64 of the PEM, as DescribeCluster returns it. */
  caData?: string;
}

/** The kubeconfig side: the context in use, its server, and its CA as PEM text when it has one. */
export interface KubeconfigClusterView {
  context: string;
  server: string;
  caPem?: string;
}

// CreateCluster's `name`: 1–100 characters, a letter or digit first, then letters, digits, `-` and `_`.
const EKS_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const EKS_ARN = /^arn:(aws[a-z-]*):eks:([a-z0-9-]+):(\d{12}):cluster\/([^/]+)$/;

export function parseExpectedCluster(value: string): ExpectedCluster {
  const text = value.trim();
  if (text.startsWith('arn:')) {
    const m = EKS_ARN.exec(text);
    if (!m || !EKS_NAME.test(m[4]!)) {
      throw new UsageError(
        `--expect-cluster ${JSON.stringify(value)} is not an EKS cluster ARN; expected arn:aws:eks:<region>:<12-digit account>:cluster/<name>, or just the cluster's name`,
      );
    }
    return { text, name: m[4]!, region: m[2]!, account: m[3]! };
  }
  if (!EKS_NAME.test(text)) {
    throw new UsageError(
      `--expect-cluster ${JSON.stringify(value)} is not an EKS cluster name (1-100 letters, digits, - and _, starting with a letter or digit) or cluster ARN`,
    );
  }
  return { text, name: text };
}

/**
 * The form two server URLs are compared in: scheme and host in lower case, the scheme's default port left out, no
 * trailing slash. Anything that is not a URL is compared as it is.
 */
export function endpointKey(server: string): string {
  try {
    const url = new URL(server.trim()); // lowercases scheme and host, drops :443 for https and :80 for http
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return server.trim().replace(/\/+$/, '');
  }
}

/** A PEM (or a bundle of them) without its whitespace, so line wrapping and a final newline do not matter. */
export function pemKey(pem: string): string {
  return pem.replace(/\s+/g, '');
}

function accountOf(arn: string): string | undefined {
  return EKS_ARN.exec(arn)?.[3];
}

/** What differs between the kubeconfig context and the expected EKS cluster; empty when they are the same cluster. */
export function clusterMismatches(
  kube: KubeconfigClusterView,
  eks: EksClusterView,
  expected: ExpectedCluster,
): string[] {
  const problems: string[] = [];
  const account = accountOf(eks.arn);
  if (expected.account !== undefined && account !== expected.account) {
    problems.push(
      `the cluster is in account ${account ?? '(unknown)'}, not ${expected.account} (the AWS credentials in use are another account's)`,
    );
  }
  if (eks.endpoint === undefined) problems.push('EKS reports no endpoint for it (is it still being created?)');
  else if (endpointKey(kube.server) !== endpointKey(eks.endpoint)) problems.push('the servers differ');
  if (kube.caPem !== undefined && eks.caData !== undefined) {
    const eksPem = Buffer.from(eks.caData, 'base64').toString('utf8');
    if (pemKey(kube.caPem) !== pemKey(eksPem)) problems.push('the certificate authorities differ');
  }
  return problems;
}

/** Exit 3 naming both sides, or nothing when the context is the expected cluster. */
export function expectedClusterRefusal(
  kube: KubeconfigClusterView,
  eks: EksClusterView,
  expected: ExpectedCluster,
): RefusedError | undefined {
  const problems = clusterMismatches(kube, eks, expected);
  if (problems.length === 0) return undefined;
  return new RefusedError(
    `--expect-cluster ${expected.text}: kubeconfig context "${kube.context}" (server ${kube.server}) is not EKS cluster ${eks.name} (${eks.arn}, endpoint ${eks.endpoint ?? 'none'}): ${problems.join('; ')}; nothing was changed`,
    {
      hint:
        expected.account !== undefined && accountOf(eks.arn) !== expected.account
          ? `use credentials of account ${expected.account} (--profile, AWS_PROFILE), then check again`
          : `pass the context of ${eks.name} with --context, or write one with: aws eks update-kubeconfig --name ${eks.name} --region ${eks.region}`,
    },
  );
}

/** DescribeCluster's ResourceNotFoundException: the cluster the user vouched for does not exist where we looked. */
export function unknownClusterRefusal(expected: ExpectedCluster, region: string, cause: unknown): RefusedError {
  return new RefusedError(
    `--expect-cluster ${expected.text}: no EKS cluster named ${expected.name} in region ${region}; nothing was changed`,
    {
      cause,
      hint: `check the name and the region (${expected.region !== undefined ? 'the ARN names it' : '--region, or AWS_REGION'}): aws eks list-clusters --region ${region}`,
    },
  );
}
