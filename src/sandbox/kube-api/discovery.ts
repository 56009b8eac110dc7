import { groupVersion, type ResourceRegistry } from './resources.js';
import type { ResourceInfo } from './types.js';

// Legacy discovery documents (apimachinery pkg/apis/meta/v1 APIVersions, APIGroupList, APIGroup, APIResourceList)
// and /version. Aggregated discovery (apidiscovery.k8s.io/v2) is not served: to a request that prefers it, the
// server answers the legacy document with a plain `Content-Type: application/json`, which client-go's discovery
// client takes as "the server does not support aggregation" and falls back to per-group requests
// (client-go discovery/discovery_client.go `downloadLegacy`/`downloadAPIs` check the response Content-Type).

export interface KubeVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** /version as EKS reports it, e.g. `1.30` → gitVersion `v1.30.4-eks-a737599`, minor `30+`. */
export function eksVersion(minorVersion = '1.30', patch = 4, eksSuffix = 'a737599'): KubeVersion {
  const [major = '1', minor = '30'] = minorVersion.split('.');
  return {
    major,
    minor: `${minor}+`,
    gitVersion: `v${major}.${minor}.${patch}-eks-${eksSuffix}`,
    gitCommit: '9ea0c5d6aa5a9ed3b37cd59c93fc4ecd3d6b7a9e',
    gitTreeState: 'clean',
    buildDate: '2024-08-26T21:31:40Z',
    goVersion: 'go1.22.5',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

const serverAddress = (host: string) => [{ clientCIDR: '0.0.0.0/0', serverAddress: host }];

export function apiVersions(host: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: serverAddress(host),
  };
}

function apiGroup(group: ReturnType<ResourceRegistry['groups']>[number]): object {
  const version = (v: string) => ({
    groupVersion: `${group.name}/${v}`,
    version: v,
  });
  return {
    name: group.name,
    versions: group.versions.map(version),
    preferredVersion: version(group.preferredVersion),
  };
}

export function apiGroupList(registry: ResourceRegistry): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .map(apiGroup),
  };
}

/** /apis/<group>: the APIGroup, or undefined when the group is not served. */
export function apiGroupDocument(registry: ResourceRegistry, name: string): object | undefined {
  const group = registry.groups().find((g) => g.name === name);
  return group && { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) };
}

function apiResources(r: ResourceInfo): object[] {
  const main = {
    name: r.resource,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
    ...(r.shortNames ? { shortNames: r.shortNames } : {}),
    ...(r.categories ? { categories: r.categories } : {}),
  };
  if (!r.subresources.status) return [main];
  const status = {
    name: `${r.resource}/status`,
    singularName: '',
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: ['get', 'patch', 'update'],
  };
  return [main, status];
}

/** /api/v1 or /apis/<group>/<version>: undefined when that group version is not served. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): object | undefined {
  const served = registry.all().filter((r) => r.group === group && r.version === version);
  if (served.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources: served.flatMap(apiResources),
  };
}
