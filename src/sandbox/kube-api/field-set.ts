// A set of field paths, as sigs.k8s.io/structured-merge-diff `fieldpath.Set` keeps them, stored as the tree that
// FieldsV1 serialises (fieldpath/serialize.go): each path element is a key `f:<field>`, `k:<json key object>`,
// `v:<json value>` or `i:<index>`; `member` marks a path that is itself in the set (the `.` marker when the node
// also has children).

export interface FieldSet {
  member: boolean;
  children: Map<string, FieldSet>;
}

export function emptyFieldSet(): FieldSet {
  return { member: false, children: new Map() };
}

export function isEmptyFieldSet(set: FieldSet): boolean {
  return !set.member && set.children.size === 0;
}

export function childSet(set: FieldSet, pe: string): FieldSet {
  let child = set.children.get(pe);
  if (!child) {
    child = emptyFieldSet();
    set.children.set(pe, child);
  }
  return child;
}

export function insertPath(set: FieldSet, path: readonly string[]): void {
  let node = set;
  for (const pe of path) node = childSet(node, pe);
  node.member = true;
}

export function fieldSetOf(paths: ReadonlyArray<readonly string[]>): FieldSet {
  const set = emptyFieldSet();
  for (const path of paths) insertPath(set, path);
  return set;
}

export function unionSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member || b.member, children: new Map() };
  for (const [pe, child] of a.children) {
    const other = b.children.get(pe);
    out.children.set(pe, other ? unionSets(child, other) : copySet(child));
  }
  for (const [pe, child] of b.children) if (!a.children.has(pe)) out.children.set(pe, copySet(child));
  return out;
}

/** Paths of `a` that are not paths of `b` (exact paths, like `Set.Difference`: a parent in `b` does not cover children). */
export function subtractSets(a: FieldSet, b: FieldSet | undefined): FieldSet {
  if (!b) return copySet(a);
  const out: FieldSet = { member: a.member && !b.member, children: new Map() };
  for (const [pe, child] of a.children) {
    const rest = subtractSets(child, b.children.get(pe));
    if (!isEmptyFieldSet(rest)) out.children.set(pe, rest);
  }
  return out;
}

export function intersectSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member && b.member, children: new Map() };
  for (const [pe, child] of a.children) {
    const other = b.children.get(pe);
    if (!other) continue;
    const both = intersectSets(child, other);
    if (!isEmptyFieldSet(both)) out.children.set(pe, both);
  }
  return out;
}

function copySet(set: FieldSet): FieldSet {
  return { member: set.member, children: new Map([...set.children].map(([pe, child]) => [pe, copySet(child)])) };
}

/** The paths in `Set.Iterate` order: at each node its members first, then its children, each sorted by path element. */
export function setPaths(set: FieldSet, prefix: string[] = []): string[][] {
  const sorted = [...set.children.entries()].sort(([a], [b]) => comparePathElements(a, b));
  const out: string[][] = [];
  for (const [pe, child] of sorted) if (child.member) out.push([...prefix, pe]);
  for (const [pe, child] of sorted) if (child.children.size > 0) out.push(...setPaths(child, [...prefix, pe]));
  return out;
}

const kindOrder: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** `PathElement.Compare`: field names before keys before values before indexes. */
export function comparePathElements(a: string, b: string): number {
  const byKind = (kindOrder[a[0] ?? ''] ?? 9) - (kindOrder[b[0] ?? ''] ?? 9);
  if (byKind !== 0) return byKind;
  if (a.startsWith('f:')) return a < b ? -1 : a > b ? 1 : 0;
  return compareJson(JSON.parse(a.slice(2)), JSON.parse(b.slice(2)));
}

function compareJson(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (isRecord(a) && isRecord(b)) {
    const ak = Object.keys(a);
    const bk = Object.keys(b);
    for (let i = 0; i < Math.min(ak.length, bk.length); i++) {
      const byName = compareJson(ak[i], bk[i]);
      if (byName !== 0) return byName;
      const byValue = compareJson(a[ak[i] as string], b[bk[i] as string]);
      if (byValue !== 0) return byValue;
    }
    return ak.length - bk.length;
  }
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** `fieldpath.Path.String()`: `.spec.containers[name="app"].image`, `[="value"]`, `[0]`. */
export function pathString(path: readonly string[]): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      if (pe.startsWith('f:')) return `.${body}`;
      if (pe.startsWith('i:')) return `[${body}]`;
      if (pe.startsWith('v:')) return `[=${valueString(JSON.parse(body))}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${valueString(v)}`)
        .join(',')}]`;
    })
    .join('');
}

// structured-merge-diff value.ToString: strings quoted with %q, everything else as Go prints it.
function valueString(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
}

export function fieldSetFromFieldsV1(fields: Record<string, unknown>): FieldSet {
  const set = emptyFieldSet();
  for (const [key, value] of Object.entries(fields)) {
    if (key === '.') {
      set.member = true;
      continue;
    }
    const child = isRecord(value) ? fieldSetFromFieldsV1(value) : emptyFieldSet();
    if (child.children.size === 0) child.member = true;
    set.children.set(key, child);
  }
  return set;
}

/**
 * The set as FieldsV1. Every node below the root is interned: a frozen trie shared by every entry that records the same
 * fields (a ReplicaSet's pods, their kubelet's and kube-scheduler's status entries), for as long as one of them is
 * stored. A 50,000-pod rollout recreates every pod with three managers' entries; built apart, their tries held some
 * 300 MB more by its end, V8 having given many of them a map of their own.
 */
export function fieldsV1FromFieldSet(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [pe, child] of sortedChildren(set)) {
    if (child.children.size === 0) {
      if (child.member) out[pe] = EMPTY_TRIE;
      continue;
    }
    out[pe] = internedTrie(child);
  }
  return out;
}

function sortedChildren(set: FieldSet): Array<[string, FieldSet]> {
  return [...set.children.entries()].sort(([a], [b]) => comparePathElements(a, b));
}

/** A leaf: `{}`. */
const EMPTY_TRIE: Record<string, unknown> = Object.freeze({});
/** Interned tries by their key (below); an entry goes once its trie is collected. */
const tries = new Map<string, WeakRef<Record<string, unknown>>>();
const trieIds = new WeakMap<object, number>();
let nextTrieId = 0;
const collected = new FinalizationRegistry<string>((key) => {
  if (tries.get(key)?.deref() === undefined) tries.delete(key);
});

/** A node with children, `.` first when it is a member itself; keyed by its elements and its children's ids. */
function internedTrie(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = set.member ? { '.': EMPTY_TRIE } : {};
  let key = set.member ? '.' : '';
  for (const [pe, child] of sortedChildren(set)) {
    if (child.children.size === 0) {
      if (!child.member) continue;
      out[pe] = EMPTY_TRIE;
      key += `\u0000${pe}`;
      continue;
    }
    const trie = internedTrie(child);
    out[pe] = trie;
    key += `\u0000${pe}\u0001${trieIds.get(trie)}`;
  }
  const known = tries.get(key)?.deref();
  if (known) return known;
  Object.freeze(out);
  trieIds.set(out, nextTrieId++);
  tries.set(key, new WeakRef(out));
  collected.register(out, key);
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value != null && !Array.isArray(value);
}

/** A decoded JSON value as text: strings as they are, anything else as JSON. */
export function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
