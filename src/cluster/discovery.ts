// What the cluster is: the control plane's Kubernetes version (/version) and which Karpenter API it serves (API
// discovery), read before anything else so every later path uses the served version (DOMAIN.md §2.9, §4, §8.1).
import { RefusedError, UsageError } from '../errors.js';
import type { Cluster } from './client.js';
import { clusterFailure, type ApiCall } from './failures.js';
import { ApiError, getJson } from './request.js';
import { READ_RETRY, retrying, retryOn } from './retry.js';
import type { ControlPlaneVersion, KarpenterApi } from '../karpenter/views.js';

export interface Discovery {
  karpenterApi: KarpenterApi;
  controlPlane: ControlPlaneVersion;
}

interface VersionInfo {
  major?: string;
  minor?: string;
  gitVersion?: string;
}

interface ApiGroupList {
  groups?: Array<{ name: string; versions?: Array<{ version: string }> }>;
}

interface Crd {
  spec?: { versions?: Array<{ name: string; served?: boolean; storage?: boolean }> };
}

const CORE = 'karpenter.sh';
const AWS = 'karpenter.k8s.aws';
const AUTO_MODE = 'eks.amazonaws.com';

export async function discoverCluster(cluster: Cluster, signal?: AbortSignal): Promise<Discovery> {
  const read = async <T>(path: string, call: ApiCall): Promise<T> => {
    try {
      return await retrying(() => getJson<T>(cluster, path, {}, signal), retryOn(cluster, READ_RETRY), signal);
    } catch (err) {
      throw clusterFailure(err, call, cluster);
    }
  };
  const [version, groups] = await Promise.all([
    read<VersionInfo>('/version', { doing: 'reading the server version', verb: 'get', resource: '/version' }),
    read<ApiGroupList>('/apis', { doing: 'discovering API groups', verb: 'get', resource: '/apis' }),
  ]);
  const served = (group: string) => groups.groups?.find((g) => g.name === group)?.versions?.map((v) => v.version) ?? [];
  const versions = servedKarpenterVersions(served(CORE), served(AWS), served(AUTO_MODE), cluster.context);
  const karpenterApi = versions.length === 1 ? (versions[0] as KarpenterApi) : await storageVersion(cluster, signal);
  return { karpenterApi, controlPlane: controlPlaneVersion(version) };
}

/** `/version` as EKS reports it: minor "30+" → "1.30". */
export function controlPlaneVersion(v: VersionInfo): ControlPlaneVersion {
  const minor = (v.minor ?? '').replace(/\D+$/, '');
  return { minor: `${v.major ?? '1'}.${minor}`, gitVersion: v.gitVersion ?? '' };
}

/** The Karpenter API versions both groups serve, newest first; refuses or rejects a cluster karp-drift cannot upgrade. */
export function servedKarpenterVersions(core: string[], aws: string[], autoMode: string[], context: string): KarpenterApi[] {
  if (aws.length === 0 && autoMode.length > 0) {
    throw new RefusedError(
      `context "${context}" is an EKS Auto Mode cluster: its nodes use NodeClass (${AUTO_MODE}), which has no AMI fields; AWS chooses and updates Auto Mode AMIs itself, so karp-drift has nothing to pin`,
      { hint: 'Auto Mode nodes are replaced with new AMIs by AWS (see the EKS Auto Mode docs); karp-drift is for self-managed Karpenter with EC2NodeClass' },
    );
  }
  if (core.length === 0 && aws.length === 0) {
    throw new UsageError(`no Karpenter CRDs in context "${context}" (neither ${CORE} nor ${AWS} is served): is Karpenter installed?`, {
      hint: 'check the context (--context), or install Karpenter: https://karpenter.sh/docs/getting-started/',
    });
  }
  if (aws.length === 0) {
    throw new UsageError(`context "${context}" serves ${CORE} but not ${AWS}: karp-drift needs Karpenter's AWS provider (EC2NodeClass)`, {
      hint: 'check the context (--context); Karpenter on other clouds has no EC2NodeClass AMIs to pin',
    });
  }
  const both = (['v1', 'v1beta1'] as const).filter((v) => core.includes(v) && aws.includes(v));
  if (both.length === 0) {
    throw new UsageError(
      `context "${context}" serves Karpenter APIs ${CORE} ${core.join(', ') || '(none)'} and ${AWS} ${aws.join(', ')}, but karp-drift needs v1 or v1beta1 (Karpenter v0.32 or later) in both`,
      { hint: 'upgrade Karpenter to v0.32 or later (v1.x recommended): https://karpenter.sh/docs/upgrading/' },
    );
  }
  return both;
}

// Karpenter v0.33.6+/v0.34.7+/…/v0.37.x serve v1 next to v1beta1 so that v1.0 can be installed over them, and v1.0
// still serves v1beta1; both convert through a webhook. What the controller itself speaks (taints, annotations) shows
// in the CRD's storage version: v1beta1 before v1.0, v1 from v1.0. Without permission to read CRDs, assume v1, which
// converts either way.
async function storageVersion(cluster: Cluster, signal?: AbortSignal): Promise<KarpenterApi> {
  try {
    const crd = await retrying(
      () => getJson<Crd>(cluster, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodeclaims.${CORE}`, {}, signal),
      retryOn(cluster, READ_RETRY),
      signal,
    );
    return crd.spec?.versions?.find((v) => v.storage)?.name === 'v1beta1' ? 'v1beta1' : 'v1';
  } catch (err) {
    if (err instanceof ApiError && (err.code === 403 || err.code === 404)) return 'v1';
    throw clusterFailure(err, { doing: 'reading the NodeClaim CRD', verb: 'get', resource: 'customresourcedefinitions.apiextensions.k8s.io' }, cluster);
  }
}
