import type { ServerResponse } from 'node:http';
import type { KubeFaults } from './faults.js';
import type { KubeStore } from './registry-store.js';
import { groupResource, groupVersion } from './resources.js';
import type { Matcher } from './selectors.js';
import { statusBody } from './status.js';
import type { Change } from './store.js';
import { ApiStatusError, type KubeObject, type ResourceInfo } from './types.js';

// `?watch=true` as kube-apiserver serves it from the watch cache (storage/cacher/cacher.go, watch_cache.go) over
// HTTP/1.1 chunked JSON (endpoints/handlers/watch.go): one `{"type":…,"object":…}` per line.
// - resourceVersion unset or "0": the current objects as ADDED, then changes;
// - a resourceVersion still in the history: every change after it, then changes;
// - an older one: HTTP 200 and a single ERROR event carrying a 410 Expired Status, then the stream ends;
// - selectors apply to both sides of a change, so an object that starts or stops matching arrives as ADDED or
//   DELETED (cacher.go `watchCacheInterval` / `cacheWatcher.convertToWatchEvent`);
// - a watcher that does not read what it is sent (more than `watchBufferBytes` unread) is closed, as the cacher
//   closes a watcher whose buffered channel fills (cacher.go "Forcing ... watcher close due to unresponsiveness"),
//   here with an ERROR event 410 Expired so the client knows to relist rather than resume: its position is lost.
// Events carry each stored object's cached JSON (store.serialized), so a change fans out to any number of watchers
// without serializing the object again.

export interface WatchRequest {
  resource: ResourceInfo;
  namespace?: string;
  matches: Matcher;
  resourceVersion?: string;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds?: number;
  /** How an object is written in an event (plain JSON, or a one-row Table for kubectl get --watch). */
  encode: (object: KubeObject) => string;
}

export interface WatchContext {
  store: KubeStore;
  faults: KubeFaults;
  bookmarkIntervalMs: number;
  watchBufferBytes: number;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export function serveWatch(res: ServerResponse, w: WatchRequest, ctx: WatchContext): void {
  const { store } = ctx;
  const key = groupResource(w.resource);
  const inScope = (o: KubeObject) => w.namespace === undefined || o.metadata.namespace === w.namespace;
  const visible = (o: KubeObject | undefined) => o !== undefined && inScope(o) && w.matches(o);
  // Nothing is written once the response has ended: a watch that was expired or timed out may still have a
  // bookmark due before its connection closes (a client that fell behind reads nothing, so 'close' comes late).
  const send = (type: EventType, objectJson: string) => {
    if (!res.writableEnded) res.write(`{"type":"${type}","object":${objectJson}}\n`);
  };
  const sendObject = (type: EventType, o: KubeObject) => send(type, w.encode(store.asVersion(w.resource, o)));

  // What a watch holds until it ends: its subscription to the change feed and its timers.
  let closed = false;
  let unsubscribe = () => {};
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    closed = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
  };

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
  });
  res.flushHeaders();

  const expire = (message: string) => {
    send('ERROR', JSON.stringify(statusBody(new ApiStatusError(410, 'Expired', message))));
    stop();
    res.end();
  };
  const requested = w.resourceVersion ? Number(w.resourceVersion) : 0;
  const replay = requested > 0 ? store.objects.changesSince(requested) : undefined;
  if (requested > 0 && !replay) {
    expire(`too old resource version: ${requested} (${store.objects.oldestResourceVersion})`);
    return;
  }

  const bookmark = () =>
    send(
      'BOOKMARK',
      JSON.stringify({
        kind: w.resource.kind,
        apiVersion: groupVersion(w.resource),
        metadata: { resourceVersion: String(store.objects.resourceVersion) },
      }),
    );

  const deliver = (change: Change) => {
    if (change.groupResource !== key) return;
    const now = change.type !== 'DELETED' && visible(change.object);
    const before = change.type !== 'ADDED' && visible(change.previous);
    if (change.type === 'DELETED') {
      if (before) sendObject('DELETED', change.object);
    } else if (now && before) sendObject('MODIFIED', change.object);
    else if (now) sendObject('ADDED', change.object);
    else if (before) sendObject('DELETED', change.object);
  };

  if (replay) for (const change of replay) deliver(change);
  else {
    for (const o of store.objects.list(key, w.resource.namespaced ? w.namespace : undefined)) {
      if (visible(o)) sendObject('ADDED', o);
    }
    // watch-list (KEP-3157): the end of the initial state is a bookmark so annotated.
    if (w.sendInitialEvents && w.allowBookmarks) {
      send(
        'BOOKMARK',
        JSON.stringify({
          kind: w.resource.kind,
          apiVersion: groupVersion(w.resource),
          metadata: {
            resourceVersion: String(store.objects.resourceVersion),
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        }),
      );
    }
  }

  let lastSent = String(requested || store.objects.resourceVersion);
  const live = (change: Change) => {
    if (closed) return;
    deliver(change);
    if (change.groupResource === key) lastSent = String(change.resourceVersion);
    if (res.writableLength > ctx.watchBufferBytes) {
      // The client fell behind: stop buffering for it. What it has not read is lost with the connection, so its
      // resourceVersion is no good to resume from.
      expire(
        `too old resource version: ${lastSent} (${store.objects.resourceVersion}): the watcher fell behind (${res.writableLength} bytes unread)`,
      );
      setTimeout(() => res.destroy(), 10_000).unref();
    }
  };
  unsubscribe = store.objects.subscribe(live);
  if (w.allowBookmarks) timers.push(setInterval(bookmark, ctx.bookmarkIntervalMs));
  if (w.timeoutSeconds !== undefined && w.timeoutSeconds > 0) {
    timers.push(
      setTimeout(() => {
        stop();
        res.end();
      }, w.timeoutSeconds * 1000),
    );
  }
  // A dropped watch is a cut connection, not a clean end of stream: the client must re-establish it.
  const undrop = ctx.faults.onDropWatches(() => res.destroy());
  const unexpire = ctx.faults.onExpireWatches(() => {
    expire(`too old resource version: ${lastSent} (${store.objects.resourceVersion})`);
  });
  res.on('close', () => {
    stop();
    undrop();
    unexpire();
  });
}
