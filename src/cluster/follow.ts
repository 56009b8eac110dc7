// Following a rollout: WATCHES of NodeClaims, Nodes, EC2NodeClasses and Karpenter's Events, each started from the
// resourceVersion of a paged list, as client-go's reflector does (tools/cache/reflector.go ListAndWatch):
// - a watch that ends or is cut resumes from the last resourceVersion seen, BOOKMARKs included: nothing is missed,
//   nothing is listed again;
// - 410 Gone (an ERROR event, or the answer to the watch request) means the history is lost: list again and emit
//   `synced` with the whole current set, which replaces what the consumer knew;
// - 429 and 5xx back off (retry.ts) for up to two minutes of continuous failure, then onError;
// - 401 (an exec plugin's token rejected, say when every watch reconnects after a cut) has already had the plugin
//   run again and the request sent once more (request.ts); a 401 that reaches here is final: onError, never a loop.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { KarpDriftError, RuntimeFailure } from '../errors.js';
import type { Cluster } from './client.js';
import { clusterFailure, isApiFailure, listCall, watchCall } from './failures.js';
import { pages } from './list.js';
import { ApiError } from './request.js';
import { KARPENTER_EVENT_REASONS } from '../karpenter/events.js';
import { EVENTS, karpenterResources, NODES, type Resource } from '../karpenter/resources.js';
import { FailureStreak, FOLLOW_RETRY, GaveUp, isRetryable, type RetryPolicy } from './retry.js';
import type { ClusterChange, EventView, KarpenterApi, NodeClaimView, NodeClassView, NodeView, WatchedKind as FollowedKind } from '../karpenter/views.js';
import { readWatch } from './watch.js';

export type { ClusterChange, WatchedKind as FollowedKind } from '../karpenter/views.js';

export interface FollowOptions {
  karpenterApi: KarpenterApi;
  /** Aborting it closes every watch; followCluster then resolves. */
  signal: AbortSignal;
  onChange: (change: ClusterChange) => void;
  /** Following gave up (a refusal such as 403, or failures beyond the retry budget); everything is closed. Without it,
   * followCluster rejects with the error instead. */
  onError?: (err: KarpDriftError) => void;
  /** Tests: page size and retry budget. */
  pageSize?: number;
  retry?: RetryPolicy;
}

type View = NodeClaimView | NodeView | NodeClassView | EventView;

/** One list+watch; a kind is one stream, except Events: one per reason (resources.ts says why). */
interface Stream {
  resource: Resource<View>;
  query: Record<string, string>;
  /** By uid: the current set, for `synced` after a relist. */
  cache: Map<string, View>;
  resourceVersion: string;
}

export async function followCluster(cluster: Cluster, options: FollowOptions): Promise<void> {
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  setMaxListeners(100, signal); // a request or a backoff timer per stream: 14 streams
  const policy = options.retry ?? FOLLOW_RETRY;
  const karpenter = karpenterResources(options.karpenterApi);
  const stream = <V extends View>(resource: Resource<V>, query: Record<string, string> = {}): Stream => ({
    resource,
    query,
    cache: new Map(),
    resourceVersion: '',
  });
  const groups: Array<{ kind: FollowedKind; streams: Stream[] }> = [
    { kind: 'NodeClaim', streams: [stream(karpenter.nodeClaims)] },
    { kind: 'Node', streams: [stream(NODES)] },
    { kind: 'EC2NodeClass', streams: [stream(karpenter.nodeClasses)] },
    { kind: 'Event', streams: KARPENTER_EVENT_REASONS.map((reason) => stream(EVENTS, { fieldSelector: `reason=${reason}` })) },
  ];
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
    stop.abort();
  };

  const relist = async (s: Stream) => {
    try {
      const listed = await pages(cluster, s.resource, { query: s.query, signal, retry: policy, ...(options.pageSize ? { pageSize: options.pageSize } : {}) });
      s.cache = new Map(listed.items.map((v) => [v.uid, v]));
      s.resourceVersion = listed.resourceVersion;
    } catch (err) {
      throw isApiFailure(err) && !signal.aborted ? clusterFailure(err, listCall(s.resource), cluster) : err;
    }
  };
  const synced = (kind: FollowedKind, streams: Stream[]) =>
    options.onChange({ type: 'synced', kind, items: streams.flatMap((s) => [...s.cache.values()]) });

  const watchLoop = async (kind: FollowedKind, s: Stream, group: Stream[]) => {
    const streak = new FailureStreak(policy);
    while (!signal.aborted) {
      const opened = Date.now();
      let expired = false;
      try {
        const ended = await readWatch(cluster, {
          path: s.resource.path,
          query: s.query,
          resourceVersion: s.resourceVersion,
          signal,
          onOpen: () => streak.reset(),
          onResourceVersion: (rv) => (s.resourceVersion = rv),
          onEvent: (type, object) => {
            const view = s.resource.view(object);
            if (type === 'DELETED') s.cache.delete(view.uid);
            else s.cache.set(view.uid, view);
            options.onChange({ type, kind, view } as ClusterChange);
          },
        });
        expired = ended.end === 'expired';
        // A server or proxy that closes watches at once must not turn this loop into a busy one.
        if (ended.end !== 'expired' && ended.events === 0 && Date.now() - opened < 1000) await sleep(1000, undefined, { signal });
      } catch (err) {
        if (signal.aborted) return;
        if (!isApiFailure(err)) throw err;
        expired = err instanceof ApiError && err.code === 410;
        if (!expired) {
          if (!isRetryable(err, policy)) throw clusterFailure(err, watchCall(s.resource), cluster);
          const delay = streak.next(err);
          if (delay === undefined) throw clusterFailure(new GaveUp(err, streak.elapsedMs()), watchCall(s.resource), cluster);
          await sleep(delay, undefined, { signal }).catch(() => undefined);
        }
      }
      if (expired && !signal.aborted) {
        await relist(s);
        synced(kind, group);
      }
    }
  };

  const followGroup = async ({ kind, streams }: (typeof groups)[number]) => {
    // Every stream of the kind is listed before the one `synced`, and only then watched, so no change of a kind
    // reaches the consumer before its first full set.
    await Promise.all(streams.map(relist));
    synced(kind, streams);
    await Promise.all(streams.map((s) => watchLoop(kind, s, streams)));
  };

  await Promise.all(groups.map((g) => followGroup(g).catch((err: unknown) => (signal.aborted && !(err instanceof KarpDriftError) ? undefined : fail(err)))));
  if (failure === undefined || options.signal.aborted) return;
  const err = failure instanceof KarpDriftError ? withLastKnown(failure, groups) : failure;
  if (options.onError && err instanceof KarpDriftError) options.onError(err);
  else throw err instanceof Error ? err : new Error('following the cluster failed', { cause: err });
}

function withLastKnown(err: KarpDriftError, groups: Array<{ kind: FollowedKind; streams: Stream[] }>): KarpDriftError {
  // Of a kind watched in several streams (Events), the newest position; etcd's resourceVersions are numbers.
  const newest = (streams: Stream[]) => streams.map((s) => s.resourceVersion).reduce((a, b) => (Number(b) > Number(a) ? b : a), '') || '-';
  const known = groups.map(({ kind, streams }) => `${kind} ${streams.reduce((n, s) => n + s.cache.size, 0)} at resourceVersion ${newest(streams)}`).join(', ');
  return new RuntimeFailure(`following the cluster stopped: ${err.message}; last known: ${known}`, { cause: err.cause ?? err, ...(err.hint ? { hint: err.hint } : {}) });
}
