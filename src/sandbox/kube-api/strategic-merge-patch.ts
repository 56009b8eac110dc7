import { isRecord, jsonText } from './field-set.js';
import { ApiStatusError } from './types.js';

// Strategic merge patch as k8s.io/apimachinery/pkg/util/strategicpatch/patch.go `mergeMap` applies it on the
// server (MergeParallelList, IgnoreUnmatchedNulls), for the core kinds the sandbox serves. The strategies are the
// `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api; a list without a tag is replaced whole (so node
// `spec.taints`, pod `spec.tolerations` and namespace `spec.finalizers` are atomic), a map without one is merged.

type Strategy = { kind: 'merge'; mergeKey?: string } | { kind: 'replace' };

const mergeBy = (mergeKey?: string): Strategy => ({ kind: 'merge', mergeKey });

const objectMeta: Record<string, Strategy> = {
  'metadata.finalizers': mergeBy(),
  'metadata.ownerReferences': mergeBy('uid'),
};

const container = (prefix: string): Record<string, Strategy> => ({
  [prefix]: mergeBy('name'),
  [`${prefix}.ports`]: mergeBy('containerPort'),
  [`${prefix}.env`]: mergeBy('name'),
  [`${prefix}.volumeMounts`]: mergeBy('mountPath'),
  [`${prefix}.volumeDevices`]: mergeBy('devicePath'),
});

const conditionsByType = { 'status.conditions': mergeBy('type') };

const strategies: Record<string, Record<string, Strategy>> = {
  pods: {
    ...container('spec.containers'),
    ...container('spec.initContainers'),
    ...container('spec.ephemeralContainers'),
    'spec.volumes': mergeBy('name'),
    'spec.imagePullSecrets': mergeBy('name'),
    'spec.hostAliases': mergeBy('ip'),
    'spec.topologySpreadConstraints': mergeBy('topologyKey'),
    'spec.schedulingGates': mergeBy('name'),
    'spec.resourceClaims': mergeBy('name'),
    ...conditionsByType,
    'status.podIPs': mergeBy('ip'),
    'status.hostIPs': mergeBy('ip'),
  },
  nodes: { 'spec.podCIDRs': mergeBy(), ...conditionsByType, 'status.addresses': mergeBy('type') },
  namespaces: conditionsByType,
  events: {},
  // policy/v1 PodDisruptionBudgetSpec: `Selector ... patchStrategy:"replace"`.
  poddisruptionbudgets: { 'spec.selector': { kind: 'replace' }, ...conditionsByType },
};

type Lookup = (fields: readonly string[]) => Strategy | undefined;

/** Applies a strategic merge patch to a core object of `resource` (plural). */
export function strategicMerge(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  resource: string,
): Record<string, unknown> {
  const table = { ...objectMeta, ...(strategies[resource] ?? {}) };
  return mergeMap(original, patch, [], (fields) => table[fields.join('.')]);
}

const badRequest = (message: string) => new ApiStatusError(400, 'BadRequest', message);
// Errors strategicpatch returns bare reach the client as a 500 with no reason (handlers/patch.go
// `interpretStrategicMergePatchError` only maps the format errors).
const internal = (message: string) => new ApiStatusError(500, '', message);

function mergeMap(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  fields: string[],
  lookup: Lookup,
): Record<string, unknown> {
  const directive = patch.$patch;
  if (directive === 'replace') return mergeMap({}, omit(patch, '$patch'), fields, lookup);
  if (directive === 'delete') return {};
  if (directive !== undefined) throw internal(`unknown patch type: ${goString(directive)} in map: ${goString(patch)}`);
  const out = { ...original };
  const rest = { ...patch };

  if ('$retainKeys' in rest) {
    const retain = rest.$retainKeys;
    delete rest.$retainKeys;
    if (!Array.isArray(retain)) throw badRequest('invalid patch format of retainKeys');
    const keep = new Set(retain.map(String));
    const unlisted = Object.entries(rest).some(([k, v]) => v != null && !k.startsWith('$') && !keep.has(k));
    if (unlisted) throw badRequest('invalid patch format of retainKeys');
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }

  for (const key of Object.keys(rest).filter((k) => k.startsWith('$setElementOrder/'))) {
    const field = key.slice('$setElementOrder/'.length);
    const order = rest[key];
    if (!Array.isArray(order)) throw badRequest('invalid patch format of setElementOrder list');
    const strategy = lookup([...fields, field]);
    const mergeKey = strategy?.kind === 'merge' ? strategy.mergeKey : undefined;
    const originalList = Array.isArray(out[field]) ? (out[field] as unknown[]) : [];
    const patchList = Array.isArray(rest[field]) ? (rest[field] as unknown[]) : [];
    const merged = mergeList(originalList, patchList, mergeKey, [...fields, field], lookup);
    out[field] = ordered(merged, order, originalList, mergeKey);
    delete rest[key];
    delete rest[field];
  }

  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(value)) throw badRequest('invalid patch format of primitive list');
      const current = out[field];
      if (Array.isArray(current)) {
        const drop = new Set(value.map((v) => JSON.stringify(v)));
        out[field] = current.filter((v) => !drop.has(JSON.stringify(v)));
      }
      continue;
    }
    if (value == null) {
      delete out[key];
      continue;
    }
    out[key] = mergeValue(out[key], value, [...fields, key], lookup);
  }
  return out;
}

function mergeValue(original: unknown, patch: unknown, fields: string[], lookup: Lookup): unknown {
  const strategy = lookup(fields);
  if (isRecord(patch)) {
    if (strategy?.kind === 'replace') return patch;
    return mergeMap(isRecord(original) ? original : {}, patch, fields, lookup);
  }
  if (Array.isArray(patch)) {
    if (strategy?.kind !== 'merge') return patch;
    const originalList = Array.isArray(original) ? original : [];
    return ordered(
      mergeList(originalList, patch, strategy.mergeKey, fields, lookup),
      patch,
      originalList,
      strategy.mergeKey,
    );
  }
  return patch;
}

// `mergeSlice`: scalars are unioned; maps are matched on the merge key, honouring `$patch: delete` and
// `$patch: replace` elements.
function mergeList(
  original: unknown[],
  patch: unknown[],
  mergeKey: string | undefined,
  fields: string[],
  lookup: Lookup,
): unknown[] {
  if (!patch.some(isRecord) && !original.some(isRecord)) {
    const seen = new Set<string>();
    return [...original, ...patch].filter((v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v)));
  }
  if (!mergeKey) throw internal(`cannot merge lists without merge key for ${fields.join('.')}`);
  let out = [...original];
  const items: Record<string, unknown>[] = [];
  let replace = false;
  for (const item of patch.filter(isRecord)) {
    const directive = item.$patch;
    if (directive === undefined) items.push(item);
    else if (directive === 'delete') {
      if (!(mergeKey in item))
        throw internal(`map: ${goString(item)} does not contain declared merge key: ${mergeKey}`);
      out = out.filter((o) => !(isRecord(o) && sameKey(o, item, mergeKey)));
    } else if (directive === 'replace') replace = true;
    else if (directive === 'merge') throw internal('merging lists cannot yet be specified in the patch');
    else throw internal(`unknown patch type: ${goString(directive)} in map: ${goString(item)}`);
  }
  if (replace) return items.map((item) => mergeMap({}, item, fields, lookup));
  for (const item of items) {
    if (!(mergeKey in item)) throw internal(`map: ${goString(item)} does not contain declared merge key: ${mergeKey}`);
    const at = out.findIndex((o) => isRecord(o) && sameKey(o, item, mergeKey));
    if (at >= 0) out[at] = mergeMap(out[at] as Record<string, unknown>, item, fields, lookup);
    else out.push(mergeMap({}, item, fields, lookup));
  }
  return out;
}

function sameKey(a: Record<string, unknown>, b: Record<string, unknown>, key: string): boolean {
  return JSON.stringify(a[key]) === JSON.stringify(b[key]);
}

// `normalizeElementOrder` + `mergeSortedSlice`: items named by the patch (or its $setElementOrder) take that order,
// server-only items keep theirs, and the two are interleaved by their positions in the live list.
function ordered(merged: unknown[], order: unknown[], serverOrder: unknown[], mergeKey: string | undefined): unknown[] {
  const id = (item: unknown) => JSON.stringify(mergeKey && isRecord(item) ? item[mergeKey] : item);
  const wanted = new Map(order.filter((o) => !(isRecord(o) && o.$patch !== undefined)).map((o, i) => [id(o), i]));
  const server = new Map(serverOrder.map((o, i) => [id(o), i]));
  const patchItems = merged
    .filter((m) => wanted.has(id(m)))
    .sort((a, b) => (wanted.get(id(a)) ?? 0) - (wanted.get(id(b)) ?? 0));
  const serverOnly = merged.filter((m) => !wanted.has(id(m)));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(patchItems[j++]);
    else {
      const li = server.get(id(serverOnly[i])) ?? -1;
      const ri = server.get(id(patchItems[j])) ?? -1;
      out.push(li >= 0 && ri >= 0 && li < ri ? serverOnly[i++] : patchItems[j++]);
    }
  }
  return out;
}

function omit(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out = { ...obj };
  delete out[key];
  return out;
}

/** How Go's %v prints a decoded JSON value, for error messages that quote the patch. */
function goString(value: unknown): string {
  if (value == null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goString).join(' ')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goString(value[k])}`).join(' ')}]`;
  }
  return jsonText(value);
}
