import type { CustomResourceDefinition } from './crds.js';
import type { ResourceInfo } from './types.js';

// What the sandbox serves: a few built-in kinds (the ones karp-drift and kubectl touch during a drift rollout) and
// whatever CustomResourceDefinitions are stored, as apiextensions-apiserver's crdHandler serves a CRD's versions
// once it is Established. Several served versions of one CRD share one storage (the storage version's objects).

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Pick<ResourceInfo, 'shortNames' | 'categories'> & { status?: boolean },
): ResourceInfo {
  return {
    group,
    version: 'v1',
    resource,
    kind,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: ALL_VERBS,
    subresources: { status: extra.status ?? true },
    ...(extra.shortNames ? { shortNames: extra.shortNames } : {}),
    ...(extra.categories ? { categories: extra.categories } : {}),
  };
}

const BUILTINS: ResourceInfo[] = [
  builtin('', 'namespaces', 'Namespace', false, { shortNames: ['ns'] }),
  builtin('', 'nodes', 'Node', false, { shortNames: ['no'] }),
  builtin('', 'pods', 'Pod', true, { shortNames: ['po'], categories: ['all'] }),
  builtin('', 'events', 'Event', true, { shortNames: ['ev'], status: false }),
  // karp-drift's run records (`karp-drift history`), beside the lock.
  builtin('', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'], status: false }),
  builtin('policy', 'poddisruptionbudgets', 'PodDisruptionBudget', true, {
    shortNames: ['pdb'],
  }),
  // karp-drift's cluster lock, as leader election uses them (no status subresource).
  builtin('coordination.k8s.io', 'leases', 'Lease', true, { status: false }),
  builtin('apiextensions.k8s.io', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
  }),
  // What the RBAC authorizer reads (authz.ts): deploy/rbac.yaml applies to the sandbox as to a cluster.
  builtin('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', false, { status: false }),
  builtin('rbac.authorization.k8s.io', 'clusterrolebindings', 'ClusterRoleBinding', false, { status: false }),
  builtin('rbac.authorization.k8s.io', 'roles', 'Role', true, { status: false }),
  builtin('rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', true, { status: false }),
];

/** The storage key of a resource across its versions: `pods`, `nodeclaims.karpenter.sh`. */
export const groupResource = (r: Pick<ResourceInfo, 'group' | 'resource'>): string =>
  r.group ? `${r.resource}.${r.group}` : r.resource;

export const groupVersion = (r: Pick<ResourceInfo, 'group' | 'version'>): string =>
  r.group ? `${r.group}/${r.version}` : r.version;

export interface ServedGroup {
  name: string;
  versions: string[];
  preferredVersion: string;
}

interface InstalledCrd {
  crd: CustomResourceDefinition;
  storageVersion: string;
  resources: ResourceInfo[];
}

export class ResourceRegistry {
  private readonly crds = new Map<string, InstalledCrd>(); // by group-resource

  /** The resource served at /apis/<group>/<version>/<resource> (or /api/v1/<resource>). */
  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.all().find((r) => r.group === group && r.version === version && r.resource === resource);
  }

  /** The preferred version of a group-resource, for in-process callers that name resources as `nodeclaims.karpenter.sh`. */
  byGroupResource(key: string): ResourceInfo | undefined {
    const installed = this.crds.get(key);
    if (installed) return installed.resources.find((r) => r.version === installed.storageVersion);
    return BUILTINS.find((r) => groupResource(r) === key);
  }

  all(): ResourceInfo[] {
    return [...BUILTINS, ...[...this.crds.values()].flatMap((c) => c.resources)];
  }

  /** The CRD behind a custom resource and the version its objects are stored in. */
  customResource(r: ResourceInfo): { crd: CustomResourceDefinition; storageVersion: string } | undefined {
    return this.crds.get(groupResource(r));
  }

  /** Served groups in discovery order: core first, then built-in groups, then CRD groups by name (as aggregator sorts). */
  groups(): ServedGroup[] {
    const order: string[] = [];
    const versions = new Map<string, string[]>();
    for (const r of this.all()) {
      if (!versions.has(r.group)) {
        order.push(r.group);
        versions.set(r.group, []);
      }
      const list = versions.get(r.group) as string[];
      if (!list.includes(r.version)) list.push(r.version);
    }
    return order.map((name) => {
      const list = sortVersions(versions.get(name) ?? []);
      return { name, versions: list, preferredVersion: list[0] ?? 'v1' };
    });
  }

  /** Serves a stored CRD's versions; replaces what an earlier version of the same CRD served. */
  install(crd: CustomResourceDefinition): void {
    const { group, names, scope } = crd.spec;
    const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
    const resources = crd.spec.versions
      .filter((v) => v.served)
      .map<ResourceInfo>((v) => ({
        group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        singular: names.singular || names.kind.toLowerCase(),
        namespaced: scope === 'Namespaced',
        verbs: ALL_VERBS,
        subresources: { status: v.subresources?.status !== undefined },
        ...(names.shortNames ? { shortNames: names.shortNames } : {}),
        ...(names.categories ? { categories: names.categories } : {}),
        crd: {
          name: crd.metadata.name ?? '',
          additionalPrinterColumns: v.additionalPrinterColumns,
        },
      }));
    this.crds.set(`${names.plural}.${group}`, {
      crd,
      storageVersion: storage?.name ?? 'v1',
      resources,
    });
  }

  uninstall(crd: CustomResourceDefinition): void {
    this.crds.delete(`${crd.spec.names.plural}.${crd.spec.group}`);
  }
}

// apimachinery version.CompareKubeAwareVersionStrings: GA before beta before alpha, higher numbers first.
function sortVersions(versions: string[]): string[] {
  const rank = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
    return a < b ? -1 : 1;
  });
}
