// What `upgrade --templates` would change in the live EC2NodeClass and NodePool, field by field, and what each change
// makes Karpenter do. Pure: returns data; report/diff.ts draws it (STYLE.md "Diffs are computed and rendered apart",
// as aws-cdk's cloudformation-diff computes `fullDiff` apart from `format.ts`).
//
// A server-side apply of the whole rendered object sets every field it carries and removes the fields karp-drift's
// field manager applied before but no longer sends (unless another manager owns them too); fields it does not
// carry and never applied stay as they are. So the diff is: each field the rendered object sets, live vs rendered,
// plus the fields karp-drift's managedFields own that the rendered object drops.
//
// What each change makes Karpenter do is manifests/hash-fields.ts.
import type { LiveObject, ManagedFieldsEntry } from '../karpenter/views.js';
import { classify, isMap, resolvedAmiFamily, type ChangeClass, type DriftReason, type ManifestKind } from './hash-fields.js';

export type { ChangeClass, DriftReason, ManifestKind };

export interface FieldChange {
  /** `spec.role`, `spec.tags["karpenter.sh/discovery"]`: for people. */
  path: string;
  segments: string[];
  op: 'add' | 'remove' | 'change';
  before?: unknown;
  after?: unknown;
  class: ChangeClass;
  reason?: DriftReason;
}

export interface ObjectDiff {
  kind: ManifestKind;
  name: string;
  /** The object does not exist yet: the apply creates it, and nothing of it drifts. */
  created: boolean;
  changes: FieldChange[];
}

export interface ManifestDiff {
  nodeClass: ObjectDiff;
  nodePool: ObjectDiff;
}

/** The rendered objects: plain Kubernetes objects with metadata and spec. */
export interface RenderedObject {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: object;
}

export function manifestDiff(
  rendered: { nodeClass: RenderedObject; nodePool: RenderedObject },
  live: { nodeClass?: LiveObject; nodePool?: LiveObject },
  fieldManager: string,
): ManifestDiff {
  return {
    nodeClass: objectDiff('EC2NodeClass', rendered.nodeClass, live.nodeClass, fieldManager),
    nodePool: objectDiff('NodePool', rendered.nodePool, live.nodePool, fieldManager),
  };
}

export function objectDiff(kind: ManifestKind, rendered: RenderedObject, live: LiveObject | undefined, fieldManager: string): ObjectDiff {
  const name = rendered.metadata.name;
  if (live === undefined) return { kind, name, created: true, changes: [] };
  const renderedTree = tree(rendered.metadata.labels, rendered.metadata.annotations, rendered.spec as Record<string, unknown>);
  const liveTree = tree(live.labels, live.annotations, live.spec);
  const found: Array<Omit<FieldChange, 'class' | 'reason' | 'path'>> = [];
  for (const root of ['metadata', 'spec']) walk(renderedTree[root], liveTree[root], [root], found);
  for (const segments of droppedFields(live.managedFields, fieldManager, renderedTree, liveTree)) {
    found.push({ segments, op: 'remove', before: valueAt(liveTree, segments) });
  }
  const familyChanges = kind === 'EC2NodeClass' && resolvedFamilyChanges(renderedTree, liveTree, found);
  const changes = found.map((c) => {
    const { class: cls, reason } = classify(kind, c.segments, {
      familyChanges,
      before: c.before,
      after: c.after,
    });
    return {
      path: fieldPath(c.segments),
      ...c,
      class: cls,
      ...(reason ? { reason } : {}),
    };
  });
  return { kind, name, created: false, changes };
}

type Tree = Record<string, unknown>;

function tree(labels: Record<string, string> | undefined, annotations: Record<string, string> | undefined, spec: Record<string, unknown>): Tree {
  return {
    metadata: {
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
    spec,
  };
}

// Maps merge key by key under server-side apply, so the walk descends into them; lists are compared whole (the
// Karpenter CRDs declare none of them as keyed lists, so an apply replaces a list outright).
function walk(rendered: unknown, live: unknown, segments: string[], out: Array<Omit<FieldChange, 'class' | 'reason' | 'path'>>): void {
  if (rendered === undefined) return;
  if (isMap(rendered) && isMap(live)) {
    for (const [key, value] of Object.entries(rendered)) walk(value, live[key], [...segments, key], out);
    return;
  }
  if (live === undefined) {
    if (isMap(rendered) && Object.keys(rendered).length === 0) return; // `metadata: {}`: sets nothing
    out.push({ segments, op: 'add', after: rendered });
  } else if (!sameValue(rendered, live)) {
    out.push({ segments, op: 'change', before: live, after: rendered });
  }
}

/** Equal as Karpenter's hash sees them: lists as sets (SlicesAsSets), maps by key. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).sort().join(',')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

// The leaf paths a managedFields entry owns: fieldsV1 is a trie of `f:<field>` keys; `k:`/`v:`/`i:` children name
// list items, so owning one means owning (part of) that list; `.` marks the map itself.
export function ownedPaths(fieldsV1: unknown, prefix: string[] = []): string[][] {
  if (!isMap(fieldsV1)) return [prefix];
  const fields = Object.keys(fieldsV1).filter((k) => k.startsWith('f:'));
  const items = Object.keys(fieldsV1).some((k) => /^[kvi]:/.test(k));
  if (fields.length === 0 || items) return prefix.length > 0 ? [prefix] : [];
  return fields.flatMap((k) => ownedPaths(fieldsV1[k], [...prefix, k.slice(2)]));
}

const WATCHED = [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']];
const startsWith = (path: string[], prefix: string[]) => prefix.every((p, i) => path[i] === p);
const overlaps = (a: string[], b: string[]) => startsWith(a, b) || startsWith(b, a);

function droppedFields(entries: readonly ManagedFieldsEntry[], fieldManager: string, rendered: Tree, live: Tree): string[][] {
  const main = entries.filter((e) => e.subresource === undefined || e.subresource === '');
  const mine = main.filter((e) => e.manager === fieldManager && e.operation === 'Apply').flatMap((e) => ownedPaths(e.fieldsV1));
  const others = main.filter((e) => !(e.manager === fieldManager && e.operation === 'Apply')).flatMap((e) => ownedPaths(e.fieldsV1));
  return mine.filter(
    (path) =>
      WATCHED.some((w) => startsWith(path, w) && path.length > w.length) &&
      valueAt(rendered, path) === undefined &&
      valueAt(live, path) !== undefined &&
      // A field another manager also owns stays: server-side apply removes only what no one else claims.
      !others.some((o) => overlaps(o, path)),
  );
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let v: unknown = root;
  for (const s of segments) {
    if (!isMap(v)) return undefined;
    v = v[s];
  }
  return v;
}

// The family after the apply: the rendered amiFamily, else the live one unless karp-drift's removal drops it; the
// terms are always the rendered ones. Moving from `alias: al2023@…` to id terms plus `amiFamily: AL2023` keeps it.
function resolvedFamilyChanges(rendered: Tree, live: Tree, found: ReadonlyArray<{ segments: string[]; op: string }>): boolean {
  const liveSpec = live.spec as Record<string, unknown>;
  const renderedSpec = rendered.spec as Record<string, unknown>;
  const dropped = found.some((c) => c.op === 'remove' && c.segments.join('.') === 'spec.amiFamily');
  const after = {
    ...renderedSpec,
    amiFamily: renderedSpec.amiFamily ?? (dropped ? undefined : liveSpec.amiFamily),
  };
  return resolvedAmiFamily(after) !== resolvedAmiFamily(liveSpec);
}

/** `spec.tags["karpenter.sh/discovery"]`: plain segments dotted, others quoted. */
export function fieldPath(segments: readonly string[]): string {
  return segments.map((s, i) => (/^[A-Za-z_][\w-]*$/.test(s) ? `${i === 0 ? '' : '.'}${s}` : `[${JSON.stringify(s)}]`)).join('');
}

// Flow YAML, as a person writes a value in a manifest: `KarpenterNodeRole-prod`, `{team: ml}`, `[{id: ami-1}]`.
// Long values (userData) are cut at `max` characters with their length, so a diff line stays readable; the JSON
// output carries them whole.
export function flowValue(v: unknown, max = 120): string {
  const text = flow(v);
  return text.length <= max ? text : `${text.slice(0, max - 1)}… (${text.length} chars)`;
}

function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (isMap(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${scalar(k)}: ${flow(x)}`)
      .join(', ')}}`;
  return typeof v === 'string' ? scalar(v) : String(v);
}

const scalar = (s: string): string =>
  /^[A-Za-z0-9][\w@./%-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s) && !/^[\d.]+$/.test(s) ? s : JSON.stringify(s);

/** A list changed into another, as sets (Karpenter hashes lists as sets): the items gone and the items new. */
export function listDelta(before: readonly unknown[], after: readonly unknown[]): { removed: unknown[]; added: unknown[] } {
  const keys = (l: readonly unknown[]) => new Set(l.map(canonical));
  const [had, has] = [keys(before), keys(after)];
  return {
    removed: before.filter((v) => !has.has(canonical(v))),
    added: after.filter((v) => !had.has(canonical(v))),
  };
}
