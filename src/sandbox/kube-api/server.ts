// The sandbox's Kubernetes API server: HTTPS on 127.0.0.1 with a CA generated at start and a bearer token (tests can
// accept and revoke more: authn.ts), so @kubernetes/client-node and the real kubectl reach it through an ordinary
// kubeconfig (kubeconfig.ts).
// Behaviour is specified in ../README.md.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { ANONYMOUS, KubeTokens, type UserInfo } from './authn.js';
import { decide, forbidden, requestAttributes, selfSubjectAccessReview, selfSubjectReview } from './authz.js';
import { encodeBody } from './compression.js';
import { EventLeases } from './event-ttl.js';
import type { CustomResourceDefinition } from './crds.js';
import {
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  eksVersion,
  type KubeVersion,
} from './discovery.js';
import { KubeFaults } from './faults.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';
import { sandboxControllers } from './garbage-collector.js';
import { KubeStore, type StorageConversions } from './registry-store.js';
import { requestInfo, type RequestInfo } from './request-info.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from './rbac-bootstrap.js';
import { ResourceRegistry } from './resources.js';
import { serveResource, type Reply } from './rest.js';
import { internalError, pathNotFound, statusBody } from './status.js';
import { ObjectStore } from './store.js';
import { generateServingCertificates } from './tls.js';
import { ApiStatusError } from './types.js';

export interface KubeApiServerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** /version; default EKS 1.30 (`v1.30.4-eks-a737599`). */
  version?: KubeVersion;
  /** Default: 32 random bytes, hex. */
  token?: string;
  /** CRDs stored at start, e.g. `loadKarpenterCrds('v1')`. */
  crds?: CustomResourceDefinition[];
  /** What their conversion webhooks do to writes through a version other than storage (registry-store.ts). */
  conversions?: StorageConversions;
  /** Namespaces besides default, kube-system, kube-public and kube-node-lease. */
  namespaces?: string[];
  /** Changes kept for watches to resume from (default 10,000). */
  historySize?: number;
  /** Characters of stored objects' JSON kept serialized (store.ts; default 32 Mi). */
  jsonCacheChars?: number;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (default 60 s, kube-apiserver's cadence). */
  bookmarkIntervalMs?: number;
  /** How often etcd is compacted, expiring older continue tokens (default 5 min, kube-apiserver's --etcd-compaction-interval). */
  compactionIntervalMs?: number;
  /** Bytes a watcher may leave unread before it is closed with 410 Expired (default 16 MiB). */
  watchBufferBytes?: number;
  /** An Event not written for this long (on `clusterNow`) is deleted (default 1 h, kube-apiserver's --event-ttl). */
  eventTtlSeconds?: number;
  faultSeed?: number;
  now?: () => Date;
  /**
   * The cluster's clock, for what the API server keeps for a span of the cluster's life (the event TTL): the sandbox's
   * simulated clock, so a fast sandbox keeps the events of its last simulated hour. Default: `now`.
   */
  clusterNow?: () => Date;
}

export interface KubeRequestRecord {
  verb: string;
  /** The resource for resource requests (`nodeclaims`), else the path (`/apis`). */
  resource?: string;
  path: string;
  /** The query string's parameters (`limit`, `continue`, `labelSelector`, `watch`, ...), as sent. */
  query: Record<string, string>;
  namespace?: string;
  name?: string;
  subresource?: string;
  code: number;
  userAgent: string;
}

export interface KubeApiServer {
  url: string;
  /** PEM of the CA: the kubeconfig's certificate-authority-data. */
  caData: string;
  token: string;
  /** The bearer tokens it accepts: `token`, and whatever a test accepts; revoke any to have it answered 401. */
  auth: KubeTokens;
  store: KubeStore;
  faults: KubeFaults;
  /** The requests answered, oldest first: the newest REQUESTS_KEPT to REQUESTS_KEPT × 2 of them. */
  requests: KubeRequestRecord[];
  /**
   * The API server stops answering, its objects kept (a test of a run that loses its cluster, then a re-run once it
   * is back): `refuse` closes the port (connection refused, open connections reset), as a killed or restarting
   * kube-apiserver or a removed load-balancer target does; `hang` keeps the port open and answers nothing (no
   * response, no watch event), as a frozen (SIGSTOP'd, overloaded, partitioned) one does.
   */
  outage(mode: 'refuse' | 'hang'): Promise<void>;
  /** Answers again on the same port: held requests and watch data go out as a thawed server sends them. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

const SELF_SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

// kube-apiserver's system:public-info-viewer role lets anyone read these; everything else needs a token.
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);
const DEFAULT_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];
/** The request records kept (server.requests): far more than one command's run sends, a bound on a long one's. */
const REQUESTS_KEPT = 50_000;

function nonResource(info: RequestInfo, store: KubeStore, version: KubeVersion, host: string): Reply {
  const json = (value: unknown): Reply => ({
    code: 200,
    body: JSON.stringify(value),
  });
  const parts = info.path.split('/').filter((p) => p !== '');
  if (['/healthz', '/livez', '/readyz'].includes(info.path))
    return {
      code: 200,
      body: 'ok',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    };
  if (info.path === '/version') return json(version);
  if (info.path === '/api') return json(apiVersions(host));
  if (info.path === '/apis') return json(apiGroupList(store.resources));
  if (info.path === '/openapi/v3') return json(openApiV3Index(store));
  const doc = info.path.startsWith('/openapi/v3/')
    ? openApiV3Document(store, info.path.slice('/openapi/v3/'.length))
    : parts[0] === 'api' && parts.length === 2
      ? apiResourceList(store.resources, '', parts[1] ?? '')
      : parts[0] === 'apis' && parts.length === 2
        ? apiGroupDocument(store.resources, parts[1] ?? '')
        : parts[0] === 'apis' && parts.length === 3
          ? apiResourceList(store.resources, parts[1] ?? '', parts[2] ?? '')
          : undefined;
  if (!doc) throw pathNotFound();
  return json(doc);
}

export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const tls = await generateServingCertificates();
  const token = options.token ?? randomBytes(32).toString('hex');
  const version = options.version ?? eksVersion();
  const resources = new ResourceRegistry();
  const store = new KubeStore(new ObjectStore(options.historySize, undefined, options.jsonCacheChars), resources, options.now);
  store.controllers = sandboxControllers();
  store.conversions = options.conversions ?? {};
  for (const name of [...DEFAULT_NAMESPACES, ...(options.namespaces ?? [])]) {
    store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  }
  for (const role of BOOTSTRAP_CLUSTER_ROLES) store.create('clusterroles.rbac.authorization.k8s.io', structuredClone(role));
  for (const binding of BOOTSTRAP_CLUSTER_ROLE_BINDINGS)
    store.create('clusterrolebindings.rbac.authorization.k8s.io', structuredClone(binding));
  for (const crd of options.crds ?? []) {
    store.create('customresourcedefinitions.apiextensions.k8s.io', structuredClone(crd) as never);
  }
  const faults = new KubeFaults(options.faultSeed);
  const auth = new KubeTokens(token);
  const requests: KubeRequestRecord[] = [];
  const ctx = {
    store,
    faults,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    watchBufferBytes: options.watchBufferBytes ?? 16 * 1024 * 1024,
  };
  const compactor = setInterval(() => store.objects.compactEtcd(), options.compactionIntervalMs ?? 5 * 60_000).unref();
  const eventTtlMs = (options.eventTtlSeconds ?? 3600) * 1000;
  const eventLeases = new EventLeases(store, eventTtlMs, options.clusterNow ?? store.now);
  // Every second (the lease that ran out, oldest first: each look costs the Events it deletes).
  const eventReaper = setInterval(() => eventLeases.expire(), Math.min(1000, eventTtlMs)).unref();
  const stopping = new AbortController();
  let host = '127.0.0.1';
  // A `hang` outage: requests wait for the thaw; every open connection is corked, so nothing written reaches a client.
  let frozen: { thawed: Promise<void>; thaw: () => void } | undefined;
  const sockets = new Set<TLSSocket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (frozen) await frozen.thawed;
    const url = new URL(req.url ?? '/', 'https://localhost');
    const info = requestInfo(req.method ?? 'GET', url);
    const body = await text(req);
    const record: KubeRequestRecord = {
      verb: info.verb,
      ...(info.isResourceRequest ? { resource: info.resource } : {}),
      path: info.path,
      query: Object.fromEntries(url.searchParams),
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      ...(info.name !== undefined ? { name: info.name } : {}),
      ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
      code: 0,
      userAgent: req.headers['user-agent'] ?? '',
    };
    requests.push(record);
    // A record per request for as long as a test or a benchmark looks (one command's run), not a whole day's.
    if (requests.length > 2 * REQUESTS_KEPT) requests.splice(0, requests.length - REQUESTS_KEPT);
    res.on('close', () => (record.code = res.statusCode));
    let reply: Reply | undefined;
    try {
      const user = auth.user(req.headers.authorization) ?? (PUBLIC_PATHS.has(info.path) ? ANONYMOUS : undefined);
      if (!user) throw new ApiStatusError(401, 'Unauthorized', 'Unauthorized');
      const decision = faults.decide(info.verb, info.resource, info.name);
      if (decision.delayMs > 0) await sleep(decision.delayMs, undefined, { signal: stopping.signal });
      if (decision.failure) throw faultError(decision.failure, info, user);
      const attributes = requestAttributes(info, url, user);
      const authorized = decide(store, attributes);
      if (!authorized.allowed) throw forbidden(attributes, authorized.reason);
      reply =
        req.method === 'POST' && info.path === SELF_SUBJECT_ACCESS_REVIEWS
          ? selfSubjectAccessReview(body, user, store, (verb, resource) => faults.allows(verb, resource))
          : req.method === 'POST' && info.path === SELF_SUBJECT_REVIEWS
            ? selfSubjectReview(user)
            : info.isResourceRequest
            ? serveResource(req, res, info, body, ctx)
            : nonResource(info, store, version, host);
    } catch (err) {
      if (stopping.signal.aborted) return;
      const status = err instanceof ApiStatusError ? err : internalError(err);
      const headers: Record<string, string> = {};
      if (status.details?.retryAfterSeconds !== undefined)
        headers['Retry-After'] = String(status.details.retryAfterSeconds);
      reply = {
        code: status.code,
        body: JSON.stringify(statusBody(status)),
        headers,
      };
    }
    if (!reply) {
      record.code = 200; // a watch: its headers are out
      return;
    }
    record.code = reply.code;
    const encoded = await encodeBody(reply.body, req.headers['accept-encoding']);
    if (stopping.signal.aborted) return;
    res.writeHead(reply.code, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      ...reply.headers,
      ...encoded.headers,
      'Content-Length': Buffer.byteLength(encoded.body),
    });
    res.end(encoded.body);
  }

  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    // As kube-apiserver's net/http does on every answer, by the cluster's clock (`now`): what clients learn its time by.
    res.setHeader('Date', store.now().toUTCString());
    handle(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  host = `127.0.0.1:${port}`;
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    if (frozen) socket.cork();
    socket.once('close', () => sockets.delete(socket));
  });
  let stopped: Promise<void> | undefined;
  let refused = false;
  return {
    url: `https://127.0.0.1:${port}`,
    caData: tls.caCert,
    token,
    auth,
    store,
    faults,
    requests,
    async outage(mode) {
      if (mode === 'hang') {
        if (frozen) return;
        let thaw = () => {};
        const thawed = new Promise<void>((resolve) => (thaw = resolve));
        frozen = { thawed, thaw };
        for (const socket of sockets) socket.cork();
        return;
      }
      if (refused) return;
      refused = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    async restore() {
      if (frozen) {
        const { thaw } = frozen;
        frozen = undefined;
        for (const socket of sockets) while (socket.writableCorked > 0) socket.uncork();
        thaw();
      }
      if (refused) {
        refused = false;
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
        });
      }
    },
    // Idempotent; cuts open watches and keep-alive connections instead of waiting for them.
    stop: () =>
      (stopped ??= new Promise<void>((resolve, reject) => {
        frozen?.thaw();
        frozen = undefined;
        if (refused) {
          stopping.abort();
          faults.clear();
          clearInterval(compactor);
          clearInterval(eventReaper);
          eventLeases.close();
          resolve();
          return;
        }
        stopping.abort();
        faults.clear();
        clearInterval(compactor);
        clearInterval(eventReaper);
        eventLeases.close();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
  };
}

// API Priority and Fairness answers 429 with Retry-After (apiserver pkg/server/filters/priority-and-fairness.go);
// an injected refusal is worded as RBAC's (authz.ts `forbidden`).
function faultError(
  failure: NonNullable<ReturnType<KubeFaults['decide']>['failure']>,
  info: RequestInfo,
  user: UserInfo,
): ApiStatusError {
  if (failure.code === 403) return forbidden(requestAttributes(info, new URL(`https://localhost${info.path}`), user));
  if (failure.code === 400) {
    // kube-apiserver's wording for a validating webhook's denial (admission/plugin/webhook/errors ToStatusErr).
    return new ApiStatusError(
      400,
      'BadRequest',
      `admission webhook "${failure.webhook}" denied the request: ${failure.message}`,
    );
  }
  if (failure.code === 429) {
    return new ApiStatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
      retryAfterSeconds: failure.retryAfterSeconds,
    });
  }
  return internalError(new Error('injected fault'));
}
