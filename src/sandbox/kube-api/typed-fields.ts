import { childSet, emptyFieldSet, insertPath, isRecord, type FieldSet } from './field-set.js';
import type { ListSemanticsLookup } from './list-semantics.js';
import type { ListSemantics, ResourceInfo } from './types.js';

// The field sets of an object, as sigs.k8s.io/structured-merge-diff typed/tofieldset.go (`ToFieldSet`, what an
// applier owns) and typed/compare.go (`Compare`, what a write changed) compute them over a value and its schema.

/** A list item's path element: `k:{"name":"app"}` in a map list, `v:"value"` in a set, `i:N` otherwise. */
export function itemPathElement(item: unknown, index: number, semantics: ListSemantics): string {
  if (semantics.type === 'set') return `v:${JSON.stringify(item)}`;
  if (semantics.type === 'map' && isRecord(item)) {
    const key = Object.fromEntries(
      [...semantics.keys]
        .sort()
        .filter((k) => k in item)
        .map((k) => [k, item[k]]),
    );
    return `k:${JSON.stringify(key)}`;
  }
  return `i:${index}`;
}

/** `TypedValue.ToFieldSet`: leaves, list items, atomic lists and empty maps of an applied configuration. */
export function appliedFieldSet(obj: unknown, lists: ListSemanticsLookup): FieldSet {
  const set = emptyFieldSet();
  walkApplied(obj, [], set, lists);
  return set;
}

function walkApplied(value: unknown, fields: string[], node: FieldSet, lists: ListSemanticsLookup): void {
  if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childNode = childSet(node, `f:${key}`);
      if (child == null || (isRecord(child) && Object.keys(child).length === 0)) childNode.member = true;
      else if (isRecord(child) || Array.isArray(child)) walkApplied(child, [...fields, key], childNode, lists);
      else childNode.member = true;
    }
    return;
  }
  if (!Array.isArray(value)) return;
  const semantics = lists(fields);
  if (semantics.type === 'atomic') {
    node.member = true;
    return;
  }
  value.forEach((item, i) => {
    const itemNode = childSet(node, itemPathElement(item, i, semantics));
    itemNode.member = true;
    if (isRecord(item)) walkApplied(item, fields, itemNode, lists);
  });
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * `TypedValue.Compare`: which paths a write added, changed or removed. An absent value and a null one differ: a map
 * or list present as null in the typed empty object (pod `spec.containers`) is not "added" when it fills up, which
 * is why kubectl-create's entry has no `.` on `f:containers` but a custom resource's has one on `f:spec`.
 */
export function compareObjects(lhs: unknown, rhs: unknown, lists: ListSemanticsLookup): Comparison {
  const out = { added: emptyFieldSet(), modified: emptyFieldSet(), removed: emptyFieldSet() };
  compareValues(lhs, rhs, [], [], out, lists);
  return out;
}

function compareValues(
  l: unknown,
  r: unknown,
  path: string[],
  fields: string[],
  out: Comparison,
  lists: ListSemanticsLookup,
): void {
  if (l === undefined && r === undefined) return;
  const maps = isRecord(l) || isRecord(r);
  const arrays = Array.isArray(l) || Array.isArray(r);
  if (maps === arrays) return compareLeaf(l, r, path, out);
  if (maps) {
    const lm = isRecord(l) ? l : {};
    const rm = isRecord(r) ? r : {};
    if (Object.keys(lm).length === 0 && Object.keys(rm).length === 0) return compareLeaf(l, r, path, out);
    for (const key of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      compareValues(lm[key], rm[key], [...path, `f:${key}`], [...fields, key], out, lists);
    }
  } else {
    const semantics = lists(fields);
    const la = Array.isArray(l) ? l : [];
    const ra = Array.isArray(r) ? r : [];
    if (semantics.type === 'atomic' || (la.length === 0 && ra.length === 0)) return compareLeaf(l, r, path, out);
    const li = indexItems(la, semantics);
    const ri = indexItems(ra, semantics);
    for (const pe of new Set([...li.keys(), ...ri.keys()]))
      compareValues(li.get(pe), ri.get(pe), [...path, pe], fields, out, lists);
  }
  // compare.go's postItemHook: a map or list (or list item) that appears or disappears is itself added or removed.
  if (l === undefined) insertPath(out.added, path);
  else if (r === undefined) insertPath(out.removed, path);
}

function compareLeaf(l: unknown, r: unknown, path: string[], out: Comparison): void {
  if (l === undefined) insertPath(out.added, path);
  else if (r === undefined) insertPath(out.removed, path);
  else if (!deepEqual(l, r)) insertPath(out.modified, path);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

export function indexItems(items: readonly unknown[], semantics: ListSemantics): Map<string, unknown> {
  return new Map(items.map((item, i) => [itemPathElement(item, i, semantics), item]));
}

// The typed empty object of each core kind, as runtime.DefaultUnstructuredConverter renders `&v1.Pod{}`: struct
// fields without omitempty are there, as null or zero. Custom resources start from nothing.
const emptyObjects: Record<string, Record<string, unknown>> = {
  pods: { metadata: { creationTimestamp: null }, spec: { containers: null }, status: {} },
  nodes: {
    metadata: { creationTimestamp: null },
    spec: {},
    status: {
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: Object.fromEntries(
        [
          'machineID',
          'systemUUID',
          'bootID',
          'kernelVersion',
          'osImage',
          'containerRuntimeVersion',
          'kubeletVersion',
          'kubeProxyVersion',
          'operatingSystem',
          'architecture',
        ].map((f) => [f, '']),
      ),
    },
  },
  namespaces: { metadata: { creationTimestamp: null }, spec: {}, status: {} },
  events: {
    metadata: { creationTimestamp: null },
    involvedObject: {},
    reportingComponent: '',
    reportingInstance: '',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: null,
  },
  poddisruptionbudgets: {
    metadata: { creationTimestamp: null },
    spec: {},
    status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  },
};

export function emptyObject(resource: ResourceInfo): Record<string, unknown> {
  if (resource.crd) return {};
  return structuredClone(emptyObjects[resource.resource] ?? { metadata: {} });
}
