// What the follow loop knows of the cluster, folded from the watcher's changes (src/rollout/README.md).
//
// Watches deliver duplicates and, across a reconnect, stale changes: a relist can overtake events still buffered
// from the old stream. Each object therefore keeps its resourceVersion and a change that is not newer is ignored.
// resourceVersions are etcd revisions, one counter for the whole store, so they compare as integers across objects
// of a kind; the API only promises they are opaque, so one that is not an integer always counts as newer
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions).
import { KARPENTER_EVENT_REASONS } from '../karpenter/events.js';
import type { ClusterChange, EventView, Inventory, NodeClaimView, NodeClassView, NodeView } from '../karpenter/views.js';
import { inOrder } from '../text/order.js';

export type WatchedKind = 'NodeClaim' | 'Node' | 'EC2NodeClass' | 'Event';
export type SyncedItem = NodeClaimView | NodeView | NodeClassView | EventView;

export type { ClusterChange };

type ObjectKind = Exclude<WatchedKind, 'Event'>;
type ObjectView = NodeClaimView | NodeView | NodeClassView;

/** Where a NodeClaim of the first full list was: the rollout's starting point. */
export interface BaselineNodeClaim {
  nodePool?: string;
  imageId?: string;
}

export interface Snapshot {
  /** By name (all three kinds are cluster-scoped). */
  nodeClaims: Map<string, NodeClaimView>;
  nodes: Map<string, NodeView>;
  nodeClasses: Map<string, NodeClassView>;
  /** Karpenter's events by uid, least recently updated first, at most MAX_EVENTS. */
  events: Map<string, EventView>;
  /** Kinds listed in full at least once: before NodeClaims and Nodes are, an empty map proves nothing. */
  synced: Set<WatchedKind>;
  /** The NodeClaims of the first full NodeClaim list, by name: `replaced` counts those of them now gone. */
  baseline: Map<string, BaselineNodeClaim>;
  /** Incremented by every change that altered what is known; an ignored change leaves it alone. */
  revision: number;
  /** Deleted objects: name → the resourceVersion of the deletion, so a late older change cannot bring them back. */
  tombstones: Record<ObjectKind, Map<string, string>>;
  /** The highest resourceVersion in the kind's last full list: an unknown object at or below it was deleted before. */
  listedUpTo: Partial<Record<ObjectKind, string>>;
  /** Deleted events' uids (events carry no resourceVersion in their view). */
  deletedEvents: Set<string>;
  /**
   * NodeClaims seen deleted, by name: their last view (the DELETED object, or the last one known before a relist
   * left them out), oldest first, at most MAX_DEPARTED. The health gates judge a replacement deleted before it was
   * Initialized from it, even when it came and went between two turns of the follow.
   */
  departed: Map<string, NodeClaimView>;
}

export const MAX_EVENTS = 500;
export const MAX_DEPARTED = 500;

const KEPT_REASONS: ReadonlySet<string> = new Set(KARPENTER_EVENT_REASONS);

export function emptySnapshot(): Snapshot {
  return {
    nodeClaims: new Map(),
    nodes: new Map(),
    nodeClasses: new Map(),
    events: new Map(),
    synced: new Set(),
    baseline: new Map(),
    revision: 0,
    tombstones: { NodeClaim: new Map(), Node: new Map(), EC2NodeClass: new Map() },
    listedUpTo: {},
    deletedEvents: new Set(),
    departed: new Map(),
  };
}

/**
 * Folds one change into `snapshot` **in place** and returns it: `snapshot = applyChange(snapshot, change)`.
 * Copying Maps of 5,000 NodeClaims on every change would make a rollout quadratic; nothing else holds a snapshot
 * across changes (the tracker compares RolloutProgress values, not snapshots).
 */
export function applyChange(snapshot: Snapshot, change: ClusterChange): Snapshot {
  let changed: boolean;
  if (change.type === 'synced') changed = applySynced(snapshot, change.kind, change.items);
  else if (change.kind === 'Event') changed = applyEvent(snapshot, change.type, change.view);
  else changed = applyObject(snapshot, change.kind, change.type, change.view);
  if (changed) snapshot.revision += 1;
  return snapshot;
}

/** The watched Nodes and NodeClaims: they say which nodes are Karpenter's, for the pods a diagnosis reads. */
export function karpenterNodesOf(snapshot: Snapshot): { nodes: NodeView[]; nodeClaims: NodeClaimView[] } {
  return { nodes: [...snapshot.nodes.values()], nodeClaims: [...snapshot.nodeClaims.values()] };
}

/** A snapshot of a one-off read (`karp-drift status`): every kind listed once. */
export function inventorySnapshot(
  inventory: Pick<Inventory, 'nodeClaims' | 'nodes' | 'nodeClasses' | 'events'>,
): Snapshot {
  const s = emptySnapshot();
  applyChange(s, { type: 'synced', kind: 'NodeClaim', items: inventory.nodeClaims });
  applyChange(s, { type: 'synced', kind: 'Node', items: inventory.nodes });
  applyChange(s, { type: 'synced', kind: 'EC2NodeClass', items: inventory.nodeClasses });
  applyChange(s, { type: 'synced', kind: 'Event', items: inventory.events });
  return s;
}

function objectsOf(s: Snapshot, kind: ObjectKind): Map<string, ObjectView> {
  if (kind === 'NodeClaim') return s.nodeClaims;
  if (kind === 'Node') return s.nodes;
  return s.nodeClasses;
}

const INTEGER = /^[0-9]+$/;

/** -1, 0 or 1; undefined when either is not an integer (then the incoming one counts as newer). */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!INTEGER.test(a) || !INTEGER.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const notNewer = (incoming: string, known: string | undefined): boolean => {
  if (known === undefined) return false;
  const c = compareResourceVersions(incoming, known);
  return c !== undefined && c <= 0;
};
const older = (incoming: string, known: string): boolean => compareResourceVersions(incoming, known) === -1;

function applyObject(s: Snapshot, kind: ObjectKind, type: 'ADDED' | 'MODIFIED' | 'DELETED', view: ObjectView): boolean {
  const objects = objectsOf(s, kind);
  const tombstones = s.tombstones[kind];
  const live = objects.get(view.name);
  const rv = view.resourceVersion;
  if (type === 'DELETED') {
    // The DELETED object carries the revision of the deletion, at least that of its last update.
    if (live !== undefined) {
      if (older(rv, live.resourceVersion)) return false; // the end of an earlier incarnation of the name
      objects.delete(view.name);
      tombstones.set(view.name, rv);
      if (kind === 'NodeClaim') depart(s, view as NodeClaimView);
      return true;
    }
    if (!notNewer(rv, tombstones.get(view.name))) tombstones.set(view.name, rv);
    return false;
  }
  if (live !== undefined) {
    if (notNewer(rv, live.resourceVersion)) return false;
  } else if (notNewer(rv, tombstones.get(view.name)) || notNewer(rv, s.listedUpTo[kind])) {
    // Deleted after this version, or absent from a list taken after it: either way, gone.
    return false;
  }
  tombstones.delete(view.name);
  objects.set(view.name, view);
  return true;
}

function applySynced(s: Snapshot, kind: WatchedKind, items: SyncedItem[]): boolean {
  if (kind === 'Event') {
    // The kind says what the items are (the watcher's contract); the union type cannot.
    const events = (items as EventView[])
      .filter((e) => KEPT_REASONS.has(e.reason))
      .sort((a, b) => inOrder(eventTime(a), eventTime(b)))
      .slice(-MAX_EVENTS);
    s.events.clear();
    for (const e of events) s.events.set(e.uid, e);
    s.deletedEvents.clear();
    s.synced.add(kind);
    return true;
  }
  const objects = objectsOf(s, kind);
  // A NodeClaim known before and absent from the new list was deleted while the watch was down.
  const before = kind === 'NodeClaim' ? new Map(s.nodeClaims) : undefined;
  objects.clear();
  let highest: string | undefined;
  for (const item of items as ObjectView[]) {
    const known = objects.get(item.name);
    if (known === undefined || !notNewer(item.resourceVersion, known.resourceVersion)) objects.set(item.name, item);
    if (INTEGER.test(item.resourceVersion) && (highest === undefined || older(highest, item.resourceVersion))) {
      highest = item.resourceVersion;
    }
  }
  if (before !== undefined) for (const [name, view] of before) if (!objects.has(name)) depart(s, view);
  s.tombstones[kind].clear();
  if (highest === undefined) delete s.listedUpTo[kind];
  else s.listedUpTo[kind] = highest;
  if (kind === 'NodeClaim' && !s.synced.has('NodeClaim')) {
    for (const claim of s.nodeClaims.values()) {
      s.baseline.set(claim.name, {
        ...(claim.nodePool !== undefined ? { nodePool: claim.nodePool } : {}),
        ...(claim.imageId !== undefined ? { imageId: claim.imageId } : {}),
      });
    }
  }
  s.synced.add(kind);
  return true;
}

function depart(s: Snapshot, view: NodeClaimView): void {
  s.departed.delete(view.name); // re-inserted last: a name used again departs again
  s.departed.set(view.name, view);
  if (s.departed.size > MAX_DEPARTED) s.departed.delete(s.departed.keys().next().value as string);
}

/** RFC 3339 UTC timestamps order as strings; an event without one sorts first. */
export function eventTime(e: EventView): string {
  return e.lastTimestamp ?? e.firstTimestamp ?? '';
}

// Events repeat by updating one object (count and lastTimestamp go up), so the newer is the one with the higher
// count, or the later lastTimestamp at the same count.
function applyEvent(s: Snapshot, type: 'ADDED' | 'MODIFIED' | 'DELETED', event: EventView): boolean {
  if (type === 'DELETED') {
    s.deletedEvents.add(event.uid);
    if (s.deletedEvents.size > MAX_EVENTS) s.deletedEvents.delete(s.deletedEvents.values().next().value as string);
    return s.events.delete(event.uid);
  }
  if (!KEPT_REASONS.has(event.reason) || s.deletedEvents.has(event.uid)) return false;
  const known = s.events.get(event.uid);
  if (known !== undefined) {
    const newer = event.count > known.count || (event.count === known.count && eventTime(event) > eventTime(known));
    if (!newer) return false;
    s.events.delete(event.uid); // re-inserted last: the Map stays ordered by last update
  }
  s.events.set(event.uid, event);
  if (s.events.size > MAX_EVENTS) s.events.delete(s.events.keys().next().value as string);
  return true;
}
