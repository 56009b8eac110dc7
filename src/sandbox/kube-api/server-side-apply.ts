import { load } from 'js-yaml';
import {
  intersectSets,
  isEmptyFieldSet,
  isRecord,
  pathString,
  setPaths,
  subtractSets,
  unionSets,
  type FieldSet,
} from './field-set.js';
import type { ListSemanticsLookup } from './list-semantics.js';
import {
  apiVersionOf,
  decodeManagedFields,
  managerIdentifier,
  metaTime,
  recordUpdateInManagers,
  withManagedFields,
  withoutServerOwnedFields,
  type ManagerRecord,
  type Managers,
} from './managed-fields.js';
import { mergeApplied, pruneUnowned } from './structured-merge.js';
import { appliedFieldSet, compareObjects, emptyObject, type Comparison } from './typed-fields.js';
import { ApiStatusError, type KubeObject, type ResourceInfo, type StatusCause } from './types.js';

// Server-side apply (PATCH with application/apply-patch+yaml) as kube-apiserver's field manager chain runs it:
// internal/versioncheck.go, skipnonapplied.go, managedfieldsupdater.go, stripmeta.go and structuredmerge.go around
// sigs.k8s.io/structured-merge-diff merge/update.go `Updater.Apply`. Not emulated: the last-applied-configuration
// upgrade path (lastappliedmanager.go) and capping Update managers at 10 (capmanagers.go).

/** The body of an apply patch: YAML, or JSON (which is YAML), holding one object (the handler's `yaml.Unmarshal`). */
export function parseApplyPatch(body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = load(body);
  } catch (err) {
    throw new ApiStatusError(400, 'BadRequest', `error decoding YAML: ${(err as Error).message}`);
  }
  if (!isRecord(parsed)) {
    const got = Array.isArray(parsed) ? 'array' : parsed == null ? 'null' : typeof parsed;
    throw new ApiStatusError(
      400,
      'BadRequest',
      `error decoding YAML: json: cannot unmarshal ${got} into Go value of type map[string]interface {}`,
    );
  }
  return parsed;
}

export interface ServerSideApplyArgs {
  live: KubeObject | undefined;
  applied: Record<string, unknown>;
  manager: string;
  force: boolean;
  now: string;
  resource: ResourceInfo;
  /** The object name and namespace from the URL. */
  name: string;
  namespace?: string;
  subresource?: 'status';
  listSemantics: ListSemanticsLookup;
}

// Fields the server sets; an applied value never lands (resourceVersion is checked as a precondition first).
const serverMetadata = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** The object after the apply, managedFields included. Throws ApiStatusError 400 (bad patch) or 409 (conflict). */
export function serverSideApply(args: ServerSideApplyArgs): KubeObject {
  const { live, applied, resource, subresource, listSemantics: lists } = args;
  const apiVersion = apiVersionOf(resource);
  checkAppliedType(applied, apiVersion, resource.kind);
  const appliedMeta = isRecord(applied.metadata) ? applied.metadata : {};
  if (appliedMeta.managedFields !== undefined)
    throw new ApiStatusError(400, 'BadRequest', 'metadata.managedFields must be nil');
  if (
    live &&
    typeof appliedMeta.resourceVersion === 'string' &&
    appliedMeta.resourceVersion !== live.metadata.resourceVersion
  ) {
    throw modifiedConflict(resource, args.name);
  }

  const base = live ? stripManaged(live) : ({ apiVersion, kind: resource.kind, metadata: {} } as KubeObject);
  let managers = decodeManagedFields(live?.metadata.managedFields);
  // skipnonapplied.go: fields of an object nobody tracked yet belong to "before-first-apply".
  if (live && managers.size === 0) {
    const existing = compareObjects(emptyObject(resource), base, lists);
    const self = { manager: 'before-first-apply', operation: 'Update' as const, apiVersion };
    managers = recordUpdateInManagers(managers, existing, self, metaTime(args.now));
  }

  const config = appliedScope(applied, resource, subresource);
  const merged = mergeApplied(base, config, lists) as KubeObject;
  const self = { manager: args.manager, operation: 'Apply' as const, apiVersion, subresource };
  const id = managerIdentifier(self);
  const previous = managers.get(id);
  managers.set(id, { ...self, time: previous?.time, set: withoutServerOwnedFields(appliedFieldSet(config, lists)) });
  const owned = [...managers.values()].reduce<FieldSet | undefined>(
    (all, m) => (all ? unionSets(all, m.set) : m.set),
    undefined,
  );
  const result = (previous ? pruneUnowned(merged, previous.set, owned, lists) : merged) as KubeObject;

  managers = takeOwnership(managers, id, compareObjects(base, result, lists), args.force);
  const changed = JSON.stringify(base) !== JSON.stringify(result);
  const mine = managers.get(id);
  if (mine && (changed || !mine.time)) managers.set(id, { ...mine, time: metaTime(args.now) });

  const withMeta = restoreServerMetadata(result, live, args);
  return withManagedFields(withMeta, managers);
}

// merge/update.go `update` for an applier: fields it changes conflict with their other owners unless forced, and
// then leave them; fields it removes leave everyone.
function takeOwnership(managers: Managers, applier: string, comparison: Comparison, force: boolean): Managers {
  const changed = unionSets(comparison.added, comparison.modified);
  const conflicts: Array<{ id: string; record: ManagerRecord; set: FieldSet }> = [];
  const out: Managers = new Map();
  for (const [id, record] of managers) {
    if (id === applier) {
      out.set(id, record);
      continue;
    }
    const conflict = withoutServerOwnedFields(intersectSets(record.set, changed));
    if (!isEmptyFieldSet(conflict)) conflicts.push({ id, record, set: conflict });
    const set = subtractSets(subtractSets(record.set, force ? changed : emptySet), comparison.removed);
    if (!isEmptyFieldSet(set)) out.set(id, { ...record, set });
  }
  if (conflicts.length > 0 && !force) throw applyConflict(conflicts);
  return out;
}

const emptySet: FieldSet = { member: false, children: new Map() };

/** internal/conflict.go `NewConflictError`: the 409 Status with one FieldManagerConflict cause per field. */
function applyConflict(conflicts: Array<{ id: string; record: ManagerRecord; set: FieldSet }>): ApiStatusError {
  const sorted = [...conflicts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rows = sorted.flatMap(({ record, set }) =>
    setPaths(set).map((path) => ({ manager: printManager(record), field: pathString(path) })),
  );
  const causes: StatusCause[] = rows.map((r) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${r.manager}`,
    field: r.field,
  }));
  const first = rows[0];
  const message =
    rows.length === 1 && first
      ? `Apply failed with 1 conflict: conflict with ${first.manager}: ${first.field}`
      : `Apply failed with ${rows.length} conflicts: ${sorted
          .flatMap(({ record, set }) => [
            `conflicts with ${printManager(record)}:`,
            ...setPaths(set).map((p) => `- ${pathString(p)}`),
          ])
          .join('\n')}`;
  return new ApiStatusError(409, 'Conflict', message, { causes });
}

// conflict.go `printManager`: the manager identifier carries no time, so an Update owner reads `"name" using v1`.
function printManager(m: ManagerRecord): string {
  const name = `${JSON.stringify(m.manager)}${m.subresource ? ` with subresource ${JSON.stringify(m.subresource)}` : ''}`;
  return m.operation === 'Update' ? `${name} using ${m.apiVersion}` : name;
}

// internal/versioncheck.go: the applied apiVersion and kind must be the endpoint's.
function checkAppliedType(applied: Record<string, unknown>, apiVersion: string, kind: string): void {
  const gotVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  const gotKind = typeof applied.kind === 'string' ? applied.kind : '';
  if (gotVersion === apiVersion && gotKind === kind) return;
  const [group, version] = gotVersion.includes('/') ? gotVersion.split('/', 2) : ['', gotVersion];
  throw new ApiStatusError(400, 'BadRequest', `invalid object type: ${group}/${version}, Kind=${gotKind}`);
}

// The status subresource applies status only; the main resource of a kind with a status subresource ignores
// status (the strategies' GetResetFields).
function appliedScope(
  applied: Record<string, unknown>,
  resource: ResourceInfo,
  subresource?: 'status',
): Record<string, unknown> {
  const metadata = { ...(isRecord(applied.metadata) ? applied.metadata : {}) };
  for (const field of serverMetadata) delete metadata[field];
  if (subresource === 'status') {
    return {
      apiVersion: applied.apiVersion,
      kind: applied.kind,
      metadata: pick(metadata, ['name', 'namespace']),
      status: applied.status,
    };
  }
  const scoped: Record<string, unknown> = { ...applied, metadata };
  if (resource.subresources.status) delete scoped.status;
  return scoped;
}

function pick(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
}

function stripManaged(obj: KubeObject): KubeObject {
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata };
}

// handlers/rest.go `checkName`, and the namespace a create takes from the URL.
function restoreServerMetadata(obj: KubeObject, live: KubeObject | undefined, args: ServerSideApplyArgs): KubeObject {
  const metadata = { ...obj.metadata };
  for (const field of serverMetadata) {
    if (live?.metadata[field] !== undefined) metadata[field] = live.metadata[field];
    else delete metadata[field];
  }
  const objName = metadata.name ?? '';
  if (objName !== args.name) {
    throw new ApiStatusError(
      400,
      'BadRequest',
      `the name of the object (${objName}) does not match the name on the URL (${args.name})`,
    );
  }
  if (args.namespace) {
    if (metadata.namespace && metadata.namespace !== args.namespace) {
      throw new ApiStatusError(
        400,
        'BadRequest',
        `the namespace of the object (${metadata.namespace}) does not match the namespace on the URL (${args.namespace})`,
      );
    }
    metadata.namespace = args.namespace;
  }
  return { ...obj, metadata };
}

function modifiedConflict(resource: ResourceInfo, name: string): ApiStatusError {
  const qualified = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
  return new ApiStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: resource.group, kind: resource.resource },
  );
}
