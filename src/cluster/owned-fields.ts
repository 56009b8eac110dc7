// What one field manager's server-side apply set on an object, read back from the object: client-go's
// `Extract<Kind>(obj, fieldManager)` (applyconfigurations), for a read-modify-apply. Under server-side apply a manager's
// next apply must carry every field it owns that should stay: a field it owned alone and leaves out is removed
// (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management). An EC2NodeClass that
// `upgrade --templates` applied whole is owned by karp-drift field by field (role, selectors, userData, tags...), so
// pinning or restoring its AMI selection alone would strip the rest: the pin keeps what this extracts. Pure.

type Json = Record<string, unknown>;

const isMap = (v: unknown): v is Json => v != null && typeof v === 'object' && !Array.isArray(v);

export interface AppliedFields {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Json;
}

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: unknown;
}

/**
 * The part of `live` a fieldsV1 trie owns: `f:<key>` descends into a map; `{}` (a leaf, or an atomic list or map) and a
 * granular list (`k:`/`v:`/`i:` children; Karpenter's CRDs declare none) take the value whole; `.` alone owns the map
 * but none of its keys.
 */
export function ownedPart(fields: unknown, live: unknown): unknown {
  if (!isMap(fields) || !isMap(live)) return live;
  const keys = Object.keys(fields);
  const children = keys.filter((k) => k.startsWith('f:'));
  if (keys.some((k) => /^[kvi]:/.test(k))) return live;
  if (children.length === 0) return keys.includes('.') ? {} : live;
  const out: Json = {};
  for (const k of children) {
    const key = k.slice(2);
    if (live[key] !== undefined) out[key] = ownedPart(fields[k], live[key]);
  }
  return out;
}

/** The labels, annotations and spec `manager`'s apply (not an update, not a subresource) owns on `object`. */
export function appliedFields(object: { metadata?: { labels?: Json; annotations?: Json; managedFields?: ManagedFieldsEntry[] }; spec?: unknown }, manager: string): AppliedFields {
  const entry = (object.metadata?.managedFields ?? []).find(
    (e) => e.manager === manager && e.operation === 'Apply' && (e.subresource === undefined || e.subresource === ''),
  );
  const fields = isMap(entry?.fieldsV1) ? entry.fieldsV1 : {};
  const metadata = isMap(fields['f:metadata']) ? fields['f:metadata'] : {};
  const strings = (v: unknown): Record<string, string> =>
    isMap(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  const part = (f: unknown, v: unknown) => (f === undefined || v === undefined ? undefined : ownedPart(f, v));
  return {
    labels: strings(part(metadata['f:labels'], object.metadata?.labels)),
    annotations: strings(part(metadata['f:annotations'], object.metadata?.annotations)),
    spec: (() => {
      const spec = part(fields['f:spec'], object.spec);
      return isMap(spec) ? spec : {};
    })(),
  };
}
