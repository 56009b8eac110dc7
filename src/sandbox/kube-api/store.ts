import type { KubeObject } from './types.js';

// The sandbox's etcd: every object once, per group-resource, keyed as kube-apiserver keys etcd
// (`/registry/<resource>/<namespace>/<name>`, so lists come back sorted by namespace then name), one global
// resourceVersion counter (etcd's revision), and a bounded history of changes that watches replay from. Like the
// watch cache (storage/cacher/watch_cache.go), a resourceVersion older than the history's start is "too old".
// Separately, etcd's own history is compacted on a timer (compactEtcd): continue tokens of older lists expire then.
// Objects are never mutated once stored: a write stores a new object, so a reader may keep what it got, and the JSON
// of the stored versions read lately is kept (serialized(), up to `jsonCacheChars`): lists and watches write those
// bytes. kube-apiserver keeps no such bytes for lists (it serializes each answer); the sandbox keeps a bounded share,
// so a fleet polled every few seconds costs its JSON once, and 50,000 pods listed once cost nothing once they are read.

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  /** The group-resource key, e.g. `pods` or `nodeclaims.karpenter.sh`. */
  groupResource: string;
  resourceVersion: number;
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED), for selector transitions in watches. */
  previous?: KubeObject;
}

export type ChangeListener = (change: Change) => void;

interface Table {
  byNamespace: Map<string, Map<string, KubeObject>>;
  /** The same objects by `namespace/name`: a list walks `sorted` with one lookup per key. */
  byKey: Map<string, KubeObject>;
  /** `namespace/name` keys in etcd order, built on the first list and kept sorted by each insert and removal. */
  sorted?: string[];
  count: number;
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

export class ObjectStore {
  private readonly tables = new Map<string, Table>();
  private readonly history: Change[] = [];
  private historyStart = 0; // index of history[0] in the logical log, so trimming is O(1) amortised
  private readonly listeners = new Set<ChangeListener>();
  /** The JSON of the versions serialized lately, least recently read first (an LRU bounded by `jsonCacheChars`). */
  private readonly json = new Map<KubeObject, string>();
  private jsonChars = 0;
  private readonly podsByNode = new Map<string, Map<string, KubeObject>>();
  private readonly dependents = new Map<string, Map<string, { groupResource: string; object: KubeObject }>>();
  private revision: number;
  /** Every change after this revision is still in the history. */
  private compactedRevision: number;
  /** etcd's compaction: revisions before this one are gone for continue tokens (kube's compactor, every 5 min). */
  private etcdCompacted: number;
  /** The revision the next compactEtcd() compacts to: the one seen at the previous compaction. */
  private etcdCompactNext: number;
  /** How many objects have been serialized: one per stored version read, however often it is listed or watched. */
  serializations = 0;

  constructor(
    private readonly historySize = 10_000,
    initialRevision = 1000,
    /** 32 Mi characters of JSON: a 5,000-node fleet's nodes and NodeClaims (24 Mi) and a list of events. */
    private readonly jsonCacheChars = 32 * 2 ** 20,
  ) {
    this.revision = initialRevision;
    this.compactedRevision = initialRevision;
    this.etcdCompacted = initialRevision;
    this.etcdCompactNext = initialRevision;
  }

  get resourceVersion(): number {
    return this.revision;
  }

  /** The oldest resourceVersion a watch or continue token may still start from. */
  get oldestResourceVersion(): number {
    return this.compactedRevision;
  }

  /** The oldest revision a continue token may still read at: older ones were compacted away (410 Expired). */
  get etcdCompactedRevision(): number {
    return this.etcdCompacted;
  }

  get(groupResource: string, namespace: string, name: string): KubeObject | undefined {
    return this.tables.get(groupResource)?.byNamespace.get(namespace)?.get(name);
  }

  count(groupResource: string, namespace?: string): number {
    const table = this.tables.get(groupResource);
    if (!table) return 0;
    return namespace === undefined ? table.count : (table.byNamespace.get(namespace)?.size ?? 0);
  }

  /** Objects in etcd key order, optionally one namespace only, starting at `startKey` (`namespace/name`). */
  *list(groupResource: string, namespace?: string, startKey?: string): Generator<KubeObject> {
    const table = this.tables.get(groupResource);
    if (!table) return;
    if (namespace !== undefined && !table.byNamespace.has(namespace)) return;
    // One sorted key list serves every list: a namespace's keys are a contiguous run of it (`<namespace>/…`).
    table.sorted ??= [...table.byNamespace.entries()]
      .flatMap(([ns, objects]) => [...objects.keys()].map((n) => key(ns, n)))
      .sort();
    const prefix = namespace === undefined ? '' : `${namespace}/`;
    const from = startKey !== undefined && startKey > prefix ? startKey : prefix;
    for (let i = lowerBound(table.sorted, from); i < table.sorted.length; i++) {
      const k = table.sorted[i] as string;
      if (!k.startsWith(prefix)) return;
      const object = table.byKey.get(k);
      if (object) yield object;
    }
  }

  /** Pods bound to a node: the `spec.nodeName` index kube-apiserver's watch cache keeps for kubelets. */
  podsOnNode(nodeName: string): KubeObject[] {
    return [...(this.podsByNode.get(nodeName)?.values() ?? [])];
  }

  /** How many pods are bound to a node, without copying them. */
  podCountOnNode(nodeName: string): number {
    return this.podsByNode.get(nodeName)?.size ?? 0;
  }

  /** Objects whose ownerReferences name `uid`: what the garbage collector's graph holds. */
  dependentsOf(uid: string): Array<{ groupResource: string; object: KubeObject }> {
    return [...(this.dependents.get(uid)?.values() ?? [])];
  }

  /** The object as JSON, serialized once per stored version while it is read often enough to stay cached. */
  serialized(object: KubeObject): string {
    let text = this.json.get(object);
    if (text !== undefined) {
      this.json.delete(object);
      this.json.set(object, text);
      return text;
    }
    text = JSON.stringify(object);
    this.serializations++;
    this.json.set(object, text);
    this.jsonChars += text.length;
    for (const [oldest, json] of this.json) {
      if (this.jsonChars <= this.jsonCacheChars || oldest === object) break;
      this.json.delete(oldest);
      this.jsonChars -= json.length;
    }
    return text;
  }

  /** A stored version replaced or removed is read no more by lists: its JSON goes (a lagging watch serializes it again). */
  private forgetJson(object: KubeObject | undefined): void {
    const json = object && this.json.get(object);
    if (json === undefined) return;
    this.json.delete(object!);
    this.jsonChars -= json.length;
  }

  /** Stores `object` under a new resourceVersion and tells watchers. */
  put(groupResource: string, object: KubeObject): KubeObject {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name ?? '';
    const previous = this.get(groupResource, namespace, name);
    this.revision++;
    const stored = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(this.revision) },
    };
    const table = this.table(groupResource);
    let objects = table.byNamespace.get(namespace);
    if (!objects) table.byNamespace.set(namespace, (objects = new Map<string, KubeObject>()));
    const k = key(namespace, name);
    if (!previous) {
      table.count++;
      table.sorted?.splice(lowerBound(table.sorted, k), 0, k);
    }
    objects.set(name, stored);
    table.byKey.set(k, stored);
    this.forgetJson(previous);
    this.index(groupResource, previous, stored);
    this.emit({
      type: previous ? 'MODIFIED' : 'ADDED',
      groupResource,
      resourceVersion: this.revision,
      object: stored,
      previous,
    });
    return stored;
  }

  /** Removes the object; the DELETED event carries its last state under a new resourceVersion, as etcd's does. */
  remove(groupResource: string, namespace: string, name: string): KubeObject | undefined {
    const table = this.tables.get(groupResource);
    const objects = table?.byNamespace.get(namespace);
    const previous = objects?.get(name);
    if (!table || !objects || !previous) return undefined;
    objects.delete(name);
    if (objects.size === 0) table.byNamespace.delete(namespace);
    table.count--;
    const k = key(namespace, name);
    table.byKey.delete(k);
    const at = table.sorted ? lowerBound(table.sorted, k) : -1;
    if (at >= 0 && table.sorted?.[at] === k) table.sorted.splice(at, 1);
    this.forgetJson(previous);
    this.index(groupResource, previous, undefined);
    this.revision++;
    const last = {
      ...previous,
      metadata: {
        ...previous.metadata,
        resourceVersion: String(this.revision),
      },
    };
    this.emit({
      type: 'DELETED',
      groupResource,
      resourceVersion: this.revision,
      object: last,
      previous,
    });
    return last;
  }

  /** Drops every object of a group-resource without events (its CRD is gone: watches on it are closed). */
  dropResource(groupResource: string): void {
    for (const object of this.list(groupResource)) this.index(groupResource, object, undefined);
    this.tables.delete(groupResource);
  }

  /** Changes after `resourceVersion`, or undefined when the history no longer reaches back that far. */
  changesSince(resourceVersion: number): Change[] | undefined {
    if (resourceVersion < this.compactedRevision) return undefined;
    const first = lowerBoundBy(this.history, resourceVersion + 1, this.historyStart);
    return this.history.slice(first);
  }

  /** Forgets the whole history, as an etcd compaction does: older resourceVersions become "too old". */
  compact(): void {
    this.history.length = 0;
    this.historyStart = 0;
    this.compactedRevision = this.revision;
    this.etcdCompacted = this.revision;
    this.etcdCompactNext = this.revision;
  }

  /**
   * One run of kube-apiserver's etcd compactor (storage/etcd3/compact.go): it compacts to the revision it saw on
   * its previous run, so a list's continue token lives between one and two compaction intervals.
   */
  compactEtcd(): void {
    this.etcdCompacted = Math.max(this.etcdCompacted, this.etcdCompactNext);
    this.etcdCompactNext = this.revision;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private table(groupResource: string): Table {
    let table = this.tables.get(groupResource);
    if (!table) this.tables.set(groupResource, (table = { byNamespace: new Map(), byKey: new Map(), count: 0 }));
    return table;
  }

  private emit(change: Change): void {
    this.history.push(change);
    if (this.history.length - this.historyStart > this.historySize) {
      this.compactedRevision = (this.history[this.historyStart] as Change).resourceVersion;
      this.historyStart++;
      if (this.historyStart > this.historySize) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const listener of this.listeners) listener(change);
  }

  private index(groupResource: string, before: KubeObject | undefined, after: KubeObject | undefined): void {
    const objectKey = (o: KubeObject) => `${groupResource}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    if (groupResource === 'pods') {
      const nodeOf = (o: KubeObject | undefined) => (o?.spec as { nodeName?: string } | undefined)?.nodeName;
      const was = nodeOf(before);
      if (was && before) this.podsByNode.get(was)?.delete(objectKey(before));
      const now = nodeOf(after);
      if (now && after) {
        let pods = this.podsByNode.get(now);
        if (!pods) this.podsByNode.set(now, (pods = new Map<string, KubeObject>()));
        pods.set(objectKey(after), after);
      }
    }
    for (const ref of before?.metadata.ownerReferences ?? [])
      this.dependents.get(ref.uid)?.delete(objectKey(before as KubeObject));
    for (const ref of after?.metadata.ownerReferences ?? []) {
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Map<string, { groupResource: string; object: KubeObject }>()));
      set.set(objectKey(after as KubeObject), {
        groupResource,
        object: after as KubeObject,
      });
    }
  }
}

function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBoundBy(changes: readonly Change[], resourceVersion: number, from: number): number {
  let lo = from;
  let hi = changes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((changes[mid] as Change).resourceVersion < resourceVersion) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
