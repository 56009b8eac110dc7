import type { ListSemantics, ResourceInfo } from './types.js';

// How server-side apply merges and tracks each list, keyed by its field path with list items skipped
// (`spec.containers.ports`). Built-in types take it from the `+listType`/`+listMapKey` markers of k8s.io/api
// (core/v1/types.go, policy/v1/types.go, meta/v1/types.go); custom resources from `x-kubernetes-list-type` in
// their schema. A list with neither is atomic: structured-merge-diff's default element relationship.
export type ListSemanticsLookup = (path: readonly string[]) => ListSemantics;

const atomic: ListSemantics = { type: 'atomic' };
const set: ListSemantics = { type: 'set' };
const mapBy = (...keys: string[]): ListSemantics => ({ type: 'map', keys });

// ObjectMeta applies to every kind, custom resources included: kube-apiserver types CR metadata with ObjectMeta's
// schema, whatever the CRD declares for `metadata`.
const objectMeta: Record<string, ListSemantics> = {
  'metadata.finalizers': set,
  'metadata.ownerReferences': mapBy('uid'),
  'metadata.managedFields': atomic,
};

const container = (prefix: string): Record<string, ListSemantics> => ({
  [prefix]: mapBy('name'),
  [`${prefix}.ports`]: mapBy('containerPort', 'protocol'),
  [`${prefix}.env`]: mapBy('name'),
  [`${prefix}.volumeMounts`]: mapBy('mountPath'),
  [`${prefix}.volumeDevices`]: mapBy('devicePath'),
  [`${prefix}.resizePolicy`]: atomic,
});

const conditionsByType = { 'status.conditions': mapBy('type') };

const builtin: Record<string, Record<string, ListSemantics>> = {
  pods: {
    ...container('spec.containers'),
    ...container('spec.initContainers'),
    ...container('spec.ephemeralContainers'),
    'spec.volumes': mapBy('name'),
    'spec.imagePullSecrets': mapBy('name'),
    'spec.hostAliases': mapBy('ip'),
    'spec.topologySpreadConstraints': mapBy('topologyKey', 'whenUnsatisfiable'),
    'spec.schedulingGates': mapBy('name'),
    'spec.resourceClaims': mapBy('name'),
    ...conditionsByType,
    'status.podIPs': mapBy('ip'),
  },
  nodes: {
    'spec.podCIDRs': set,
    ...conditionsByType,
    'status.addresses': mapBy('type'),
  },
  namespaces: conditionsByType,
  poddisruptionbudgets: conditionsByType,
};

export function builtinListSemantics(resource: string): ListSemanticsLookup {
  const table = { ...objectMeta, ...(builtin[resource] ?? {}) };
  return (path) => table[path.join('.')] ?? atomic;
}

export function crdListSemantics(openAPIV3Schema: Record<string, unknown>): ListSemanticsLookup {
  return (path) => objectMeta[path.join('.')] ?? schemaListSemantics(openAPIV3Schema, path);
}

export function listSemanticsFor(
  resource: ResourceInfo,
  openAPIV3Schema?: Record<string, unknown>,
): ListSemanticsLookup {
  return resource.crd && openAPIV3Schema ? crdListSemantics(openAPIV3Schema) : builtinListSemantics(resource.resource);
}

function schemaListSemantics(schema: Record<string, unknown>, path: readonly string[]): ListSemantics {
  let node: Record<string, unknown> | undefined = schema;
  for (const field of path) {
    node = node && itemsOf(node);
    const properties = node?.properties as Record<string, Record<string, unknown>> | undefined;
    const additional: unknown = node?.additionalProperties;
    node =
      properties?.[field] ?? (typeof additional === 'object' ? (additional as Record<string, unknown>) : undefined);
    if (!node) return atomic;
  }
  if (node.type !== 'array') return atomic;
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'set') return set;
  if (listType === 'map') return mapBy(...((node['x-kubernetes-list-map-keys'] as string[] | undefined) ?? []));
  return atomic;
}

// A path names fields only, so step through the items of any list on the way.
function itemsOf(node: Record<string, unknown>): Record<string, unknown> | undefined {
  let current: Record<string, unknown> | undefined = node;
  while (current?.type === 'array') current = current.items as Record<string, unknown> | undefined;
  return current;
}
