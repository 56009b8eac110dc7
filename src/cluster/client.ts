// The connection to one cluster: the kubeconfig (--kubeconfig, else $KUBECONFIG, else ~/.kube/config) resolved to one
// context, its user's credentials (credentials.ts runs an exec plugin itself, so a 401 can force a new token), and one
// keep-alive agent for every list and watch karp-drift makes itself (request.ts). The generated clients for
// server-side apply and access reviews are made where they are used (apply.ts, access.ts): with their object
// serializer they are most of client-node's code, which `status` and `plan` then never load.
//
// Why an agent of our own: client-node 1.4's KubeConfig builds a new https.Agent for every call
// (`applySecurityAuthentication` → `createAgent`), so each call pays a TCP and TLS handshake; paging 50,000 pods is 100
// calls and a follow re-opens watches for hours. The shared agent keeps connections alive between calls.
// Behind a proxy (the cluster's proxy-url, else HTTPS_PROXY/HTTP_PROXY less NO_PROXY, as kubectl) the same agent
// tunnels its connections through it (proxy/agents.ts), where client-node would build a proxy agent per call too.
import { existsSync, readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Cluster as KubeconfigCluster, Context, User } from '@kubernetes/client-node';
// The module itself, not the package index: the index reaches every generated API and model, and a bundle keeps the
// files its imports reach in the chunk `status` and `plan` load (scripts/build.mjs).
import { bufferFromFileOrString, KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { UsageError } from '../errors.js';
import { httpsTunnelAgent, httpTunnelAgent } from '../proxy/agents.js';
import { proxyChoice, proxyFor, type ProxyChoice } from '../proxy/select.js';
import { Credentials } from './credentials.js';
import type { RetryPolicy } from './retry.js';
import { clusterIdentity, type ClusterIdentity } from '../apis/cluster-identity.js';
import { newServerClock, type ServerClock } from './server-clock.js';

export interface LoadClusterOptions {
  /** --request-timeout: a request with no answer (headers) after this long fails (default 30 s). */
  requestTimeoutMs?: number;
  /** --kubeconfig: one file. */
  kubeconfig?: string;
  /** --context: a context of that file (default: its current-context). */
  context?: string;
  /** Where $KUBECONFIG and $HOME come from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** -v: one line per API request (method, URL without credentials, status, duration). */
  log?: (line: string) => void;
  /** Tests: where the pod's service account is mounted (default SERVICE_ACCOUNT_DIR). */
  serviceAccountDir?: string;
  /** Tests: this machine's clock in ms, which the API server's `Date` is compared with (server-clock.ts). */
  localClock?: () => number;
}

export interface Cluster {
  kc: KubeConfig;
  /** The context in use, and the API server it points at: the "where" of every message. */
  context: string;
  server: string;
  /** The context, server and cluster name that machine-readable output names (identity.ts). */
  identity: ClusterIdentity;
  /** The kubeconfig file(s) read, for messages. */
  source: string;
  /** What the context's user authenticates with (for messages), and the new token a 401 may get (request.ts). */
  credentials: Credentials;
  /** For request.ts: the shared keep-alive agent, or undefined behind a SOCKS proxy-url (client-node's agent per call). */
  agent: HttpAgent | undefined;
  /** The proxy the agent tunnels through (the cluster's proxy-url, else HTTPS_PROXY/HTTP_PROXY less NO_PROXY). */
  proxy?: ProxyChoice;
  log?: (line: string) => void;
  requestTimeoutMs: number;
  /** The API server's clock, learnt from the `Date` of every answer (server-clock.ts). */
  serverClock: ServerClock;
  /**
   * While a staged run holds the cluster lock (commands/hold-shared.ts): how its calls retry (retry.ts LOCKED_RETRY:
   * refused, reset and timed-out connections too), and the lock's `lost`, which ends every call in flight and refuses
   * every new one once the lock has lapsed (another run may take it then). Unset: each call's own default, a one-shot
   * command's.
   */
  lease?: { retry: RetryPolicy; lost: AbortSignal };
  /** Closes the agent's connections. Call it last: watches close through their AbortSignal, followCluster first. */
  close(): void;
}

const UPDATE_KUBECONFIG = 'run aws eks update-kubeconfig --name <cluster> (or pass --kubeconfig)';

export function loadCluster(options: LoadClusterOptions = {}): Cluster {
  const env = options.env ?? process.env;
  const inPod = inClusterConfig(options, env);
  const files = inPod ? [] : kubeconfigFiles(options.kubeconfig, env);
  const source = inPod ? `the pod's service account (${inPod.dir})` : files.join(delimiter);
  const kc = inPod ? inPod.kc : readKubeconfig(files);
  const contexts = kc.getContexts().map((c) => c.name);
  const context = options.context ?? kc.getCurrentContext();
  if (!context) {
    throw new UsageError(`${source} sets no current-context${contexts.length > 0 ? `; its contexts: ${contexts.join(', ')}` : ' and has no contexts'}`, {
      hint: contexts.length > 0 ? `pass --context ${contexts[0]}` : UPDATE_KUBECONFIG,
    });
  }
  if (!contexts.includes(context)) {
    throw new UsageError(`no context "${context}" in ${source}; its contexts: ${contexts.join(', ') || '(none)'}`, {
      hint: `pass one of them with --context, or ${UPDATE_KUBECONFIG}`,
    });
  }
  kc.setCurrentContext(context);
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new UsageError(`context "${context}" in ${source} names cluster "${kc.getContextObject(context)?.cluster ?? ''}", which is not in the file or has no server`, {
      hint: UPDATE_KUBECONFIG,
    });
  }
  const user = kc.getCurrentUser();
  if (!user) {
    throw new UsageError(`context "${context}" in ${source} names user "${kc.getContextObject(context)?.user ?? ''}", which is not in the file`, {
      hint: UPDATE_KUBECONFIG,
    });
  }
  const credentials = new Credentials(user, { env, timeoutMs: options.requestTimeoutMs ?? 30_000, ...(options.log ? { log: options.log } : {}) });
  if (credentials.exec) {
    // client-node's own ExecAuth claims any user with `exec` before it asks added authenticators: without it, the
    // user is ours (credentials.ts says why).
    kc.loadFromOptions({ clusters: kc.getClusters(), contexts: kc.getContexts(), currentContext: context, users: kc.getUsers().map((u) => (u === user ? { ...u, exec: undefined } : u)) });
    kc.addAuthenticator(credentials);
  }
  const server = cluster.server.replace(/\/+$/, '');
  const socks = cluster.proxyUrl?.startsWith('socks') === true;
  const proxy = socks ? undefined : clusterProxy(cluster, context, env);
  if (proxy) options.log?.(`${server} through the proxy ${proxy.shown} (${proxy.source})`);
  const agent = socks ? undefined : sharedAgent(cluster, user, proxy);
  return {
    kc,
    context,
    server,
    identity: clusterIdentity(context, kc.getContextObject(context)?.cluster ?? cluster.name, server),
    source,
    credentials,
    agent,
    ...(proxy ? { proxy } : {}),
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    serverClock: newServerClock(options.localClock),
    ...(options.log ? { log: options.log } : {}),
    close: () => agent?.destroy(),
  };
}

/** Where Kubernetes mounts a pod's service account token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * In a pod with no kubeconfig (no --kubeconfig, no KUBECONFIG, no ~/.kube/config), the pod's service account, as
 * kubectl and every client-go program do (rest.InClusterConfig): the API server from KUBERNETES_SERVICE_HOST/PORT,
 * the mounted CA, and the mounted token, which the kubelet rotates (a bound token lives an hour): client-node's
 * `tokenFile` auth provider reads it again every minute. Built here rather than with client-node's loadFromCluster,
 * which reads process.env and not the environment this command was given.
 */
function inClusterConfig(options: LoadClusterOptions, env: NodeJS.ProcessEnv): { kc: KubeConfig; dir: string } | undefined {
  if (options.kubeconfig || (env.KUBECONFIG ?? '') !== '') return undefined;
  if (existsSync(join(env.HOME ?? homedir(), '.kube', 'config'))) return undefined;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (!host || !port || !existsSync(join(dir, 'token'))) return undefined;
  const kc = new KubeConfig();
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server, caFile: join(dir, 'ca.crt'), skipTLSVerify: false }],
    users: [{ name: 'service-account', authProvider: { name: 'tokenFile', config: { tokenFile: join(dir, 'token') } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'service-account' }],
    currentContext: 'in-cluster',
  });
  return { kc, dir };
}

function kubeconfigFiles(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (flag) {
    if (!existsSync(flag)) throw new UsageError(`--kubeconfig ${flag}: no such file`, { hint: UPDATE_KUBECONFIG });
    return [flag];
  }
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) {
    // kubectl skips the files of $KUBECONFIG that do not exist; none at all is an error.
    const existing = fromEnv.filter((f) => existsSync(f));
    if (existing.length === 0) throw new UsageError(`KUBECONFIG=${env.KUBECONFIG ?? ''}: no such file`, { hint: UPDATE_KUBECONFIG });
    return existing;
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (!existsSync(home)) {
    throw new UsageError(
      `no kubeconfig: --kubeconfig not given, KUBECONFIG not set, ${home} does not exist, and not in a pod (no KUBERNETES_SERVICE_HOST and service account token)`,
      { hint: UPDATE_KUBECONFIG },
    );
  }
  return [home];
}

// client-go (ResolveLocalPaths) resolves an exec command that contains a path separator against the folder of the
// kubeconfig that defines it, as it does certificate paths; a bare name is looked up on PATH. client-node does neither.
function execCommandFrom(user: User, folder: string): User {
  const exec = user.exec as Record<string, unknown> | undefined; // client-node types it as any
  const command = exec?.command;
  if (typeof command !== 'string' || !command.includes(sep) || isAbsolute(command)) return user;
  return { ...user, exec: { ...exec, command: resolve(folder, command) } };
}

/**
 * A kubeconfig that does not load, said on one line with where to look. js-yaml's message is its reason, then a blank
 * line and a frame of the source with a caret: on a terminal the frame pushed the `next:` off the screen, and in a log
 * it read as several errors.
 */
export function kubeconfigReadError(file: string, err: unknown): UsageError {
  const mark = (err as { name?: unknown; reason?: unknown; mark?: { line?: unknown; column?: unknown } } | null)?.mark;
  const reason = (err as { reason?: unknown } | null)?.reason;
  if ((err as Error | null)?.name === 'YAMLException' && typeof reason === 'string' && typeof mark?.line === 'number' && typeof mark.column === 'number') {
    const line = mark.line + 1;
    return new UsageError(`cannot read kubeconfig ${file}: not valid YAML at line ${line}, column ${mark.column + 1}: ${reason}`, {
      cause: err,
      hint: `fix the YAML at line ${line} of ${file}, or point --kubeconfig at another file`,
    });
  }
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  return new UsageError(`cannot read kubeconfig ${file}: ${message}`, { cause: err, hint: UPDATE_KUBECONFIG });
}

// kubectl's merge rules for a $KUBECONFIG list: the first file to define a name (or current-context) wins.
// client-node's own mergeConfig throws on a duplicate name instead.
function readKubeconfig(files: string[]): KubeConfig {
  const clusters: KubeconfigCluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  for (const file of files) {
    const one = new KubeConfig();
    try {
      const text = readFileSync(file, 'utf8');
      // An empty file is an empty config to kubectl (client-node would fail on it with a TypeError).
      if (text.trim() === '') continue;
      one.loadFromString(text);
      one.makePathsAbsolute(dirname(file)); // what loadFromFile does: certificate paths are relative to the file
    } catch (err) {
      throw kubeconfigReadError(file, err);
    }
    const add = <T extends { name: string }>(into: T[], from: T[]) => {
      for (const item of from) if (!into.some((i) => i.name === item.name)) into.push(item);
    };
    add(clusters, one.getClusters());
    add(users, one.getUsers().map((u) => execCommandFrom(u, dirname(file))));
    add(contexts, one.getContexts());
    currentContext ||= one.getCurrentContext() ?? '';
  }
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters, users, contexts, currentContext });
  return kc;
}

// The TLS material client-node would put on its per-call agent (`applyHTTPSOptions`: CA, client certificate,
// skip-verify, server name), on one agent that keeps connections alive. Credentials that can change (exec plugin
// tokens such as `aws eks get-token`) are read per request instead (request.ts).
// With a proxy, the same agent tunnels each of its connections through it (proxy/agents.ts), so they stay alive too.
function sharedAgent(cluster: KubeconfigCluster, user: User, proxy: ProxyChoice | undefined): HttpAgent {
  const keepAlive = { keepAlive: true, keepAliveMsecs: 30_000 };
  if (cluster.server.startsWith('http:')) return proxy ? httpTunnelAgent(proxy, keepAlive) : new HttpAgent(keepAlive);
  const ca = bufferFromFileOrString(cluster.caFile, cluster.caData);
  const cert = bufferFromFileOrString(user.certFile, user.certData);
  const key = bufferFromFileOrString(user.keyFile, user.keyData);
  const options = {
    ...keepAlive,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
    ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
  return proxy ? httpsTunnelAgent(proxy, options) : new HttpsAgent(options);
}

// client-go's order: the cluster's proxy-url wins; else the environment as http.ProxyFromEnvironment reads it, which
// never proxies localhost or a loopback address (a kind cluster stays reachable behind a corporate HTTPS_PROXY).
function clusterProxy(cluster: KubeconfigCluster, context: string, env: NodeJS.ProcessEnv): ProxyChoice | undefined {
  const name = `proxy-url of cluster "${cluster.name}"`;
  if (cluster.proxyUrl) return proxyChoice(cluster.proxyUrl, name);
  try {
    return proxyFor(new URL(cluster.server), env, 'direct');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`context "${context}": server ${cluster.server} is not a URL`, { cause: err, hint: UPDATE_KUBECONFIG });
  }
}

/** The PEM of the context's certificate-authority(-data), for --expect-cluster; undefined when it has none. */
export function clusterCaPem(cluster: Cluster): string | undefined {
  const entry = cluster.kc.getCurrentCluster();
  try {
    return bufferFromFileOrString(entry?.caFile, entry?.caData)?.toString('utf8');
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      `context "${cluster.context}" in ${cluster.source}: cannot read certificate-authority ${entry?.caFile ?? ''}: ${why}`,
      { cause: err, hint: UPDATE_KUBECONFIG },
    );
  }
}
