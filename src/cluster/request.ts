// Raw GETs against the API server for lists, discovery and watches, on the cluster's keep-alive agent (client.ts).
// Credentials are applied per request through KubeConfig.applyToHTTPSOptions, so an exec plugin's token
// (`aws eks get-token`, 15 minutes) is renewed as it expires, and a 401 runs the plugin again and sends the request
// once more (credentials.ts). Tokens go in headers only: nothing here logs or throws a header.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { createGunzip } from 'node:zlib';
import { ApiError, CredentialsError, isOwnAbort, type StatusBody } from './api-errors.js';
import type { Cluster } from './client.js';
import { observeServerDate } from './server-clock.js';

export type Query = Record<string, string | number | boolean | undefined>;

export { ApiError, CredentialsError, type StatusBody } from './api-errors.js';

export function apiUrl(cluster: Cluster, path: string, query: Query = {}): URL {
  const url = new URL(cluster.server + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

/** GET a JSON document. */
export async function getJson<T>(cluster: Cluster, path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
  const url = apiUrl(cluster, path, query);
  const started = Date.now();
  const res = await exchange(cluster, url, signal);
  const body = await readBody(res);
  cluster.log?.(`GET ${url.pathname}${url.search} ${res.statusCode ?? 0} in ${Date.now() - started} ms`);
  if ((res.statusCode ?? 0) >= 300) throw apiError(res, body);
  return JSON.parse(body) as T;
}

/** Opens a watch (or any stream); resolves with the 200 response, whose body the caller reads; else an ApiError. */
export async function openStream(cluster: Cluster, path: string, query: Query, signal: AbortSignal): Promise<IncomingMessage> {
  const url = apiUrl(cluster, path, query);
  const res = await exchange(cluster, url, signal);
  cluster.log?.(`GET ${url.pathname}${url.search} ${res.statusCode ?? 0} (watch)`);
  if (res.statusCode === 200) return res;
  throw apiError(res, await readBody(res));
}

/**
 * One GET, answered. A 401 runs the exec plugin again (at most once for a burst of them: Credentials.refresh) and
 * sends the request once more; a second 401 is the caller's to report (failures.ts names the credentials).
 */
async function exchange(cluster: Cluster, url: URL, signal: AbortSignal | undefined, write?: Write): Promise<IncomingMessage> {
  const first = await sendOnce(cluster, url, signal, write);
  if (first.res.statusCode !== 401) cluster.credentials.accepted(first.authorization);
  if (first.res.statusCode !== 401 || !cluster.credentials.refreshable) return first.res;
  first.res.resume();
  cluster.log?.(`${write?.method ?? 'GET'} ${url.pathname}${url.search} 401: running ${cluster.credentials.source.label} again for a new token`);
  await cluster.credentials.refresh(first.authorization);
  const again = await sendOnce(cluster, url, signal, write);
  if (again.res.statusCode !== 401) cluster.credentials.accepted(again.authorization);
  return again.res;
}

/**
 * A keep-alive socket the server closed meanwhile is retried once, as Go's transport does. Writes are retried too:
 * every write karp-drift sends this way carries a resourceVersion precondition (or is a create), so a write that did
 * land the first time answers 409 the second time instead of landing twice.
 */
async function sendOnce(cluster: Cluster, url: URL, signal: AbortSignal | undefined, write?: Write): Promise<Sent> {
  try {
    return await send(cluster, url, signal, write);
  } catch (err) {
    if (!(err instanceof StaleSocket)) throw err;
    return send(cluster, url, signal, write);
  }
}

/** A write's method and JSON body; `contentType` says which patch it is. */
export interface Write {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body: unknown;
  contentType?: 'application/json' | 'application/merge-patch+json' | 'application/json-patch+json';
}

/** One write (create, update, patch, delete) of a JSON object; resolves with the server's answer, else an ApiError. */
export async function sendJson<T>(cluster: Cluster, path: string, write: Write, query: Query = {}, signal?: AbortSignal): Promise<T> {
  const url = apiUrl(cluster, path, query);
  const started = Date.now();
  const res = await exchange(cluster, url, signal, write);
  const body = await readBody(res);
  cluster.log?.(`${write.method} ${url.pathname}${url.search} ${res.statusCode ?? 0} in ${Date.now() - started} ms`);
  if ((res.statusCode ?? 0) >= 300) throw apiError(res, body);
  return JSON.parse(body) as T;
}

/**
 * A reused keep-alive socket the server had closed. It keeps the reset's code: when the one retry lands on another
 * dead socket of the pool (the API server went away with several open), the caller must still see a cut connection
 * (retry.ts retries it, failures.ts says the API server cannot be reached), not an error it does not know.
 */
class StaleSocket extends Error {
  readonly code = 'ECONNRESET';
}

interface Sent {
  res: IncomingMessage;
  /** The Authorization header it went with: Credentials.refresh tells by it whether a newer token exists. */
  authorization: string | undefined;
}

async function send(cluster: Cluster, url: URL, given: AbortSignal | undefined, write?: Write): Promise<Sent> {
  // Under a staged run's cluster lock, nothing is sent once the lock has lapsed, and nothing in flight is waited for.
  const lost = cluster.lease?.lost;
  const signal = lost === undefined ? given : given === undefined ? lost : AbortSignal.any([given, lost]);
  const auth: RequestOptions = { headers: {} };
  try {
    await cluster.kc.applyToHTTPSOptions(auth);
  } catch (err) {
    throw err instanceof CredentialsError ? err : new CredentialsError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  const authorization = (auth.headers as OutgoingHttpHeaders | undefined)?.Authorization;
  // Aborted while the credentials were read: http.request with an aborted signal could still write the request to
  // a free keep-alive socket before it destroys itself.
  signal?.throwIfAborted();
  const request = url.protocol === 'http:' ? httpRequest : httpsRequest;
  const payload = write === undefined ? undefined : Buffer.from(JSON.stringify(write.body));
  const clock = cluster.serverClock;
  const sentAt = clock.local();
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(
      url,
      {
        method: write?.method ?? 'GET',
        agent: cluster.agent ?? auth.agent,
        ...(auth.auth ? { auth: auth.auth } : {}),
        headers: {
          ...auth.headers,
          Accept: 'application/json',
          // kube-apiserver gzips large list responses for clients that ask (APIResponseCompression); 50,000 pods are
          // ~30 MB of JSON, a few MB compressed.
          'Accept-Encoding': 'gzip',
          'User-Agent': 'karp-drift',
          ...(payload ? { 'Content-Type': write?.contentType ?? 'application/json', 'Content-Length': payload.length } : {}),
        },
        ...(signal ? { signal } : {}),
      },
      (res) => {
        // Every answer says the API server's time: what the switch and the windows are timed by (server-clock.ts).
        observeServerDate(clock, res.headers.date, sentAt, clock.local());
        resolve(res);
      },
    );
    // Until the answer's headers arrive (a watch then streams for as long as it likes): a server that accepts the
    // connection and never answers must not hang karp-drift.
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`no answer from ${url.host} within ${cluster.requestTimeoutMs / 1000} s (--request-timeout)`), { code: 'ETIMEDOUT' }));
    }, cluster.requestTimeoutMs);
    req.on('response', () => clearTimeout(timer));
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Cut short by a deadline or a lost lock of karp-drift's own: that is what happened, in its words (the
      // runtime's AbortError says only "The operation was aborted"). An interrupt stays the AbortError it is.
      if (signal?.aborted === true && isOwnAbort(signal.reason)) return reject(signal.reason);
      reject(req.reusedSocket && err.code === 'ECONNRESET' ? new StaleSocket(err.message) : err);
    });
    req.end(payload);
  }).then((res) => ({ res, authorization: typeof authorization === 'string' ? authorization : undefined }));
}

/**
 * Decompressed 64 KiB at a time rather than zlib's default 16 KiB: each piece is a round trip to the thread pool and
 * back through the event loop, and a page of 500 pods is a megabyte of JSON. On the `large` sandbox, `plan` read its
 * 100 pages of pods in 1.38 s instead of 1.55 s (medians of 9); bench/minimal-reads.mjs decompresses the same way, so
 * the floor it is compared with gains as much. Larger pieces gained nothing more.
 */
const GUNZIP_CHUNK = 64 * 1024;

function readBody(res: IncomingMessage): Promise<string> {
  const stream = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip({ chunkSize: GUNZIP_CHUNK })) : res;
  return new Promise((resolve, reject) => {
    // Decoded as it arrives: each chunk's buffer is garbage at once, and no page-sized Buffer.concat copy is made
    // (100 pages of pods on a 50,000-pod cluster; buffers are freed only when V8 collects, which Node 24's larger
    // young generation does less often).
    stream.setEncoding('utf8');
    let body = '';
    stream.on('data', (c: string) => (body += c));
    stream.on('end', () => resolve(body));
    stream.on('error', reject);
    if (stream !== res) res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('the connection closed mid-response'), { code: 'ECONNRESET' })));
  });
}

function apiError(res: IncomingMessage, body: string): ApiError {
  let status: StatusBody = {};
  try {
    const parsed = JSON.parse(body) as StatusBody;
    if (parsed && typeof parsed === 'object') status = parsed;
  } catch {
    status = { message: body.slice(0, 200) };
  }
  const code = res.statusCode ?? 0;
  const header = Number(res.headers['retry-after']);
  const seconds = Number.isFinite(header) && header >= 0 ? header : status.details?.retryAfterSeconds;
  return new ApiError(code, { ...status, reason: status.reason ?? res.statusMessage ?? '' }, seconds === undefined ? undefined : seconds * 1000);
}
