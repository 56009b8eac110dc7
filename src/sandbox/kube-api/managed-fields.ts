import {
  emptyFieldSet,
  fieldSetFromFieldsV1,
  fieldSetOf,
  fieldsV1FromFieldSet,
  isEmptyFieldSet,
  isRecord,
  subtractSets,
  unionSets,
  type FieldSet,
} from './field-set.js';
import type { ListSemanticsLookup } from './list-semantics.js';
import { compareObjects, emptyObject, type Comparison } from './typed-fields.js';
import type { KubeObject, ManagedFieldsEntry, ResourceInfo } from './types.js';

// managedFields bookkeeping as k8s.io/apimachinery/pkg/util/managedfields/internal does it, over the field sets
// of typed-fields.ts, with the ownership rules of sigs.k8s.io/structured-merge-diff merge/update.go.

export interface ManagerRecord {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

export type Managers = Map<string, ManagerRecord>;

/** `BuildManagerIdentifier`: the entry as Go marshals it, without time and fields, and without apiVersion for appliers. */
export function managerIdentifier(
  m: Pick<ManagerRecord, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  return JSON.stringify({
    manager: m.manager,
    operation: m.operation,
    ...(m.operation === 'Update' ? { apiVersion: m.apiVersion } : {}),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  });
}

export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managers {
  const managers: Managers = new Map();
  for (const e of entries ?? []) {
    const record: ManagerRecord = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      subresource: e.subresource,
      set: fieldSetFromFieldsV1(e.fieldsV1 ?? {}),
    };
    managers.set(managerIdentifier(record), record);
  }
  return managers;
}

/** Entries sorted as `sortEncodedManagedFields` does: Apply before Update, then by time, manager, apiVersion. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  return [...managers.values()]
    .filter((m) => !isEmptyFieldSet(m.set))
    .sort(
      (p, q) =>
        compareStrings(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        compareStrings(p.manager, q.manager) ||
        compareStrings(p.apiVersion, q.apiVersion) ||
        compareStrings(p.subresource ?? '', q.subresource ?? ''),
    )
    .map((m) => ({
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      time: m.time ?? '',
      fieldsType: 'FieldsV1' as const,
      fieldsV1: fieldsV1FromFieldSet(m.set),
      ...(m.subresource ? { subresource: m.subresource } : {}),
    }));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// internal/stripmeta.go: fields the server owns are never tracked.
const serverOwned = fieldSetOf(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ...[
      'name',
      'namespace',
      'creationTimestamp',
      'selfLink',
      'uid',
      'clusterName',
      'generation',
      'managedFields',
      'resourceVersion',
    ].map((f) => ['metadata', f]),
  ].map((path) => path.map((f) => `f:${f}`)),
);

export function withoutServerOwnedFields(set: FieldSet): FieldSet {
  return subtractSets(set, serverOwned);
}

/**
 * merge/update.go `Updater.update` as an Update by `manager`: every path the write added or changed moves to it
 * from whoever owned it, removed paths leave every owner, and owners left with nothing are dropped.
 */
export function recordUpdateInManagers(
  managers: Managers,
  comparison: Comparison,
  self: Omit<ManagerRecord, 'set' | 'time'>,
  now: string,
): Managers {
  const changed = unionSets(comparison.added, comparison.modified);
  const out: Managers = new Map();
  for (const [id, m] of managers) {
    const set = subtractSets(subtractSets(m.set, changed), comparison.removed);
    if (!isEmptyFieldSet(set)) out.set(id, { ...m, set });
  }
  const taken = withoutServerOwnedFields(changed);
  if (isEmptyFieldSet(taken)) return out;
  const id = managerIdentifier(self);
  const previous = out.get(id)?.set ?? emptyFieldSet();
  out.set(id, { ...self, time: now, set: unionSets(previous, taken) });
  return out;
}

export function apiVersionOf(resource: ResourceInfo): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/** RFC 3339 with whole seconds, as metav1.Time marshals. */
export function metaTime(now: string): string {
  return new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function withoutManagedFields(obj: KubeObject | Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(obj.metadata) ? { ...obj.metadata } : undefined;
  if (metadata) delete metadata.managedFields;
  return metadata ? { ...obj, metadata } : { ...obj };
}

export interface RecordUpdateArgs {
  old: KubeObject | undefined;
  updated: KubeObject;
  manager: string;
  now: string;
  resource: ResourceInfo;
  subresource?: 'status';
  listSemantics: ListSemanticsLookup;
}

/**
 * managedFields after a create, PUT or non-apply PATCH (FieldManager.Update). A create counts as an Update by its
 * manager. On the main resource a client may rewrite managedFields itself, and `[{}]` resets them
 * (internal/fieldmanager.go `decodeLiveOrNew`); on a subresource the live ones always win. An existing object
 * nobody tracks stays untracked until someone applies (internal/skipnonapplied.go).
 */
export function recordUpdate(args: RecordUpdateArgs): KubeObject {
  const { old, updated, resource, subresource } = args;
  const sent = updated.metadata.managedFields;
  const reset = !subresource && sent?.length === 1 && Object.keys(sent[0] ?? {}).length === 0;
  const live = decodeManagedFields(old?.metadata.managedFields);
  const requested: Managers = subresource || reset ? new Map<string, ManagerRecord>() : decodeManagedFields(sent);
  const managers: Managers = reset ? new Map<string, ManagerRecord>() : requested.size > 0 ? requested : live;
  if (old && managers.size === 0) return withManagedFields(updated, managers);
  const comparison = compareObjects(
    withoutManagedFields(old ?? emptyObject(resource)),
    withoutManagedFields(updated),
    args.listSemantics,
  );
  const self = { manager: args.manager, operation: 'Update' as const, apiVersion: apiVersionOf(resource), subresource };
  const next = recordUpdateInManagers(managers, comparison, self, metaTime(args.now));
  return withManagedFields(updated, next);
}

export function withManagedFields(obj: KubeObject, managers: Managers): KubeObject {
  const entries = encodeManagedFields(managers);
  const metadata = { ...obj.metadata };
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return { ...obj, metadata };
}
