// kustomize's patches on the objects `pin` reads, and which file decides each field afterwards. Strategic merge on a
// custom resource has no schema to merge lists by, so kustomize merges maps and replaces lists (a patch that sets
// `spec.amiSelectorTerms` sets all of it); a JSON 6902 operation sets what its path names. Pure.
import jsonpatch, { type Operation } from 'fast-json-patch';
import { UsageError } from '../errors.js';
import { FIELDS, valueAt, type BuiltObject, type Decider, type Field } from './objects.js';
import type { PatchTarget } from './kustomization.js';

/** A patch document and where it is: the file, and the document's index in it. */
export interface PatchDoc {
  file: string;
  doc: number;
  /** What the kustomization calls it, for messages: `overlays/prod/kustomization.yaml patches[0]`. */
  where: string;
  value: unknown;
}

const fieldsOf = (o: BuiltObject): Field[] => (o.kind === 'EC2NodeClass' ? ['amiSelectorTerms', 'amiFamily'] : ['budgets']);
const text = (path: readonly string[]) => path.join('.');

/** Does a kustomize patch target select this object? `name` is a regular expression, matched whole. */
export function targets(t: PatchTarget, o: BuiltObject): boolean {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  if (t.kind !== undefined && t.kind !== o.kind) return false;
  if (t.group !== undefined && t.group !== group) return false;
  if (t.version !== undefined && t.version !== version) return false;
  if (t.name !== undefined) {
    const re = new RegExp(`^(?:${t.name})$`);
    if (!o.names.some((n) => re.test(n))) return false;
  }
  return true;
}

/** A strategic-merge patch without a target names its object itself: group, kind and one of its names. */
export function namedBy(patch: unknown, o: BuiltObject): boolean {
  const p = (patch ?? {}) as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
  const group = (s: string) => (s.includes('/') ? s.split('/')[0] : '');
  return (
    p.kind === o.kind &&
    typeof p.apiVersion === 'string' &&
    group(p.apiVersion) === group(o.apiVersion) &&
    typeof p.metadata?.name === 'string' &&
    o.names.includes(p.metadata.name)
  );
}

/** JSON merge on maps, lists and scalars replaced, null deleting: strategic merge without a schema. */
function merged(base: unknown, patch: unknown): unknown {
  if (patch == null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = base != null && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v == null) delete out[k];
    else out[k] = merged(out[k], v);
  }
  return out;
}

/** The object after a strategic-merge patch, each field it sets now decided by the patch's node. */
export function strategicMerge(o: BuiltObject, patch: PatchDoc): BuiltObject {
  if (JSON.stringify(patch.value).includes('"$patch"') || JSON.stringify(patch.value).includes('"$setElementOrder'))
    throw new UsageError(`${patch.where} (${patch.file}): strategic-merge directives ($patch, $setElementOrder) are not supported on ${o.kind} ${o.name}; nothing was changed`, {
      hint: 'set the fields themselves in the patch',
    });
  const deciders = { ...o.deciders };
  for (const f of fieldsOf(o)) {
    const path = FIELDS[f];
    const v = valueAt(patch.value, path);
    if (v === undefined) continue;
    if (v == null) throw deleted(patch, o, path);
    deciders[f] = { kind: 'node', at: { file: patch.file, doc: patch.doc, path } };
  }
  const value = merged(o.value, { ...(patch.value as object), metadata: undefined }) as Record<string, unknown>;
  return { ...o, value: { ...value, metadata: o.value.metadata }, deciders };
}

const deleted = (patch: PatchDoc, o: BuiltObject, path: readonly string[]) =>
  new UsageError(`${patch.where} (${patch.file}) deletes ${text(path)} of ${o.kind} ${o.name}: pin cannot tell what should set it; nothing was changed`, {
    hint: 'set the field in the patch instead of deleting it',
  });

/** JSON Pointer → keys (RFC 6901: `~1` is `/`, `~0` is `~`). */
export function pointer(path: string): string[] {
  return path === '' ? [] : path.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const startsWith = (a: readonly string[], b: readonly string[]) => b.every((s, i) => a[i] === s);

/** The object after a JSON 6902 patch, and which operation decides each field afterwards. */
export function json6902(o: BuiltObject, patch: PatchDoc): BuiltObject {
  const ops = patch.value;
  if (!Array.isArray(ops)) throw new UsageError(`${patch.where} (${patch.file}) is not a JSON 6902 patch (a list of operations); nothing was changed`);
  const deciders = { ...o.deciders };
  ops.forEach((raw: unknown, i) => {
    const op = (raw ?? {}) as { op?: unknown; path?: unknown; from?: unknown };
    if (typeof op.op !== 'string' || typeof op.path !== 'string')
      throw new UsageError(`${patch.where} (${patch.file}) operation ${i} has no op or path; nothing was changed`);
    const path = pointer(op.path);
    for (const f of fieldsOf(o)) {
      const field = FIELDS[f];
      const from = typeof op.from === 'string' ? pointer(op.from) : undefined;
      const touches = startsWith(path, field) || startsWith(field, path) || (from !== undefined && (startsWith(from, field) || startsWith(field, from)));
      if (!touches) continue;
      deciders[f] = opDecider(patch, o, op.op, path, field, i, deciders[f]);
    }
  });
  let value: Record<string, unknown>;
  try {
    value = jsonpatch.applyPatch(jsonpatch.deepClone(o.value), ops as Operation[], true, false).newDocument as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${patch.where} (${patch.file}) does not apply to ${o.kind} ${o.name}: ${(err as Error).message.split('\n')[0]}; nothing was changed`, { cause: err });
  }
  return { ...o, value, deciders };
}

function opDecider(patch: PatchDoc, o: BuiltObject, op: string, path: string[], field: readonly string[], i: number, before: Decider | undefined): Decider {
  const name = `${patch.file} operation ${i} (${op} /${path.join('/')})`;
  if (op === 'test') return before ?? { kind: 'absent' };
  if (op !== 'add' && op !== 'replace') {
    if (op === 'remove' && startsWith(field, path)) throw deleted(patch, o, field);
    return { kind: 'fixed', why: `${name} moves or copies ${text(field)}` };
  }
  if (startsWith(path, field) && path.length > field.length) {
    // Sets part of the field: the rest comes from the files before it. One such operation can be rewritten to set
    // the whole field; several cannot without rewriting the patch.
    if (before?.kind === 'op' && before.file === patch.file && before.doc === patch.doc)
      return { kind: 'fixed', why: `${name} and operation ${before.op} both set parts of ${text(field)}` };
    return { kind: 'op', file: patch.file, doc: patch.doc, op: i, field };
  }
  // The operation sets the field, or a map above it: the field is then inside its value.
  const rest = field.slice(path.length);
  const value = valueAt((patch.value as Array<{ value?: unknown }>)[i]?.value, rest);
  if (value === undefined) return { kind: 'absent', map: { file: patch.file, doc: patch.doc, path: [i, 'value'] }, keys: rest };
  return { kind: 'node', at: { file: patch.file, doc: patch.doc, path: [i, 'value', ...rest] } };
}
