// A paginated list: `limit` and `continue`, as client-go's pager does, with each page converted to views as it
// arrives so the raw JSON of a 50,000-pod list is never held at once. The resourceVersion returned is the first
// page's: the snapshot the continued pages belong to, and where a watch must start so it misses nothing.
import { setImmediate } from "node:timers/promises";
import type { Cluster } from "./client.js";
import type { ApiObject } from "../karpenter/convert.js";
import { clusterFailure, listCall } from "./failures.js";
import type { InFlight } from './in-flight.js';
import { ApiError, getJson, type Query } from "./request.js";
import type { Resource } from '../karpenter/resources.js';
import { READ_RETRY, retrying, retryOn, type RetryPolicy } from "./retry.js";

/** 500 is client-go's pager default (tools/pager DefaultPageSize) and kubectl's --chunk-size. */
export const PAGE_SIZE = 500;

export interface ListOptions {
  query?: Query;
  signal?: AbortSignal;
  pageSize?: number;
  retry?: RetryPolicy;
  /** Shared with the other lists of a read: how many of their pages may be on the wire at once (in-flight.ts). */
  inFlight?: InFlight;
}

export interface Listed<V> {
  items: V[];
  resourceVersion: string;
}

interface ListBody {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: ApiObject[];
}

/** Lists every object of `resource`, page by page; a failure is a KarpDriftError naming the call (failures.ts). */
export async function listAll<V>(
  cluster: Cluster,
  resource: Resource<V>,
  options: ListOptions = {},
): Promise<Listed<V>> {
  try {
    return await pages(cluster, resource, options);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw clusterFailure(err, listCall(resource), cluster);
  }
}

/** The same, with failures as thrown (ApiError, GaveUp, ...), for callers that retry on their own terms (follow.ts). */
export async function pages<V>(
  cluster: Cluster,
  resource: Resource<V>,
  options: ListOptions = {},
): Promise<Listed<V>> {
  const limit = options.pageSize ?? PAGE_SIZE;
  const policy = options.retry ?? retryOn(cluster, READ_RETRY);
  const request = (query: Query) => () =>
    getJson<ListBody>(cluster, resource.path, { ...options.query, ...query }, options.signal);
  const { inFlight } = options;
  // A place among the pages in flight for each attempt: none is held while a retry waits.
  const get = (query: Query) =>
    retrying(inFlight ? () => inFlight.run(request(query)) : request(query), policy, options.signal);
  const items: V[] = [];
  let resourceVersion = "";
  let next: Promise<ListBody> | undefined = get({ limit });
  let token: string | undefined;
  while (next !== undefined) {
    let page: ListBody;
    try {
      page = await next;
    } catch (err) {
      if (token === undefined || !isExpired(err)) throw err;
      // A continue token outlives its snapshot only for etcd's compaction window (five minutes by default, EKS's
      // too): kube-apiserver then answers 410 Expired. client-go's pager (tools/pager ListPager.List with
      // FullListIfExpired, on by default) falls back to one full list without pagination, and so does this: paging
      // again from the start could expire again on a cluster that changes fast, one request cannot. The pages read
      // so far are dropped, so every object is listed once, as of the new list's resourceVersion.
      cluster.log?.(
        `${resource.path}: the continue token expired (410 Expired); listing again without pages, as client-go's pager does`,
      );
      const whole = await get({});
      return {
        items: (whole.items ?? []).map((o) => resource.view(o)),
        resourceVersion: whole.metadata?.resourceVersion ?? "",
      };
    }
    resourceVersion ||= page.metadata?.resourceVersion ?? "";
    token = page.metadata?.continue || undefined;
    // The next page is asked for before this one is converted: the API server reads it meanwhile. Its failure is the
    // loop's to handle when awaited; until then it must not surface as an unhandled rejection.
    next = token === undefined ? undefined : get({ limit, continue: token });
    next?.catch(() => undefined);
    // Asking is not sending: the request is made only after the credentials are applied, a few promise turns away
    // (request.ts), and converting the page first would hold it back for as long as that takes (on `large`, 500 pods
    // a page, 100 pages). One turn of the event loop lets it go out on the wire.
    if (next !== undefined) await setImmediate();
    for (const o of page.items ?? []) items.push(resource.view(o));
  }
  return { items, resourceVersion };
}

/** client-go's errors.IsResourceExpired: a Status with reason Expired (code 410). */
function isExpired(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.code === 410 &&
    err.status.reason === "Expired"
  );
}
