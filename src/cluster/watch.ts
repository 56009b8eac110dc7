// One watch connection, read to its end: `?watch=1` from a resourceVersion, newline-delimited `{type, object}` JSON,
// as kube-apiserver streams it (endpoints/handlers/watch.go). follow.ts decides what to do when it ends.
//
// Raw HTTPS rather than client-node's Watch: Watch (1.4) builds a new agent, so a new TLS connection, per call;
// it hands back its AbortController only once the response has started, so an abort during connect cannot reach it;
// and it reports a non-200 answer as `new Error(statusText)` with a statusCode, losing the Status body and the
// Retry-After header. Here the caller's AbortSignal goes straight to http.request, the agent is shared, and a 429
// keeps its Retry-After.
import type { Cluster } from './client.js';
import type { ApiObject } from '../karpenter/convert.js';
import { ApiError, openStream, type Query, type StatusBody } from './request.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** How a watch ended: the server closed it (timeoutSeconds), the connection was cut, or the RV is gone (410). */
export type WatchEnd = { end: 'closed' | 'cut'; events: number } | { end: 'expired' };

export interface WatchRequest {
  path: string;
  query?: Query;
  resourceVersion: string;
  signal: AbortSignal;
  /** A change; its object's resourceVersion is the new position. */
  onEvent: (type: WatchEventType, object: ApiObject) => void;
  /** Every resourceVersion seen, BOOKMARKs included: where the next watch resumes. */
  onResourceVersion: (rv: string) => void;
  /** The server accepted the watch (HTTP 200). */
  onOpen?: () => void;
}

interface WatchLine {
  type?: string;
  object?: ApiObject & StatusBody;
}

// kube-apiserver ends a watch after a random 30–60 min (--min-request-timeout); client-go's reflector asks for
// 5–10 min itself so that a dead connection behind a load balancer is noticed and replaced in time.
const watchTimeoutSeconds = () => 300 + Math.floor(Math.random() * 300);

/** Resolves when the watch ends for any reason; rejects when it cannot be opened (ApiError, connect errors). */
export async function readWatch(cluster: Cluster, w: WatchRequest): Promise<WatchEnd> {
  const res = await openStream(
    cluster,
    w.path,
    { ...w.query, watch: 1, resourceVersion: w.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: watchTimeoutSeconds() },
    w.signal,
  );
  w.onOpen?.();
  return new Promise<WatchEnd>((resolve, reject) => {
    let events = 0;
    let buffer = '';
    let settled = false;
    const finish = (outcome: WatchEnd | Error) => {
      if (settled) return;
      settled = true;
      res.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const line = (text: string) => {
      if (text.trim() === '') return;
      const event = JSON.parse(text) as WatchLine;
      const object = event.object ?? {};
      if (event.type === 'ERROR') {
        // The RV fell out of the watch cache's history: only a relist can say what changed meanwhile.
        if (object.code === 410) return finish({ end: 'expired' });
        return finish(new ApiError(object.code ?? 500, object, object.details?.retryAfterSeconds === undefined ? undefined : object.details.retryAfterSeconds * 1000));
      }
      const rv = object.metadata?.resourceVersion;
      if (rv) w.onResourceVersion(rv);
      if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
        events++;
        w.onEvent(event.type, object);
      }
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      try {
        while (!settled && (newline = buffer.indexOf('\n')) >= 0) {
          const text = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          line(text);
        }
      } catch (err) {
        // A line that is not JSON is a stream cut mid-object (a proxy); anything else is the consumer's own error.
        finish(err instanceof SyntaxError ? { end: 'cut', events } : (err as Error));
      }
    });
    res.on('end', () => finish({ end: 'closed', events }));
    res.on('error', () => finish({ end: 'cut', events }));
    res.on('close', () => finish({ end: 'cut', events }));
  });
}
