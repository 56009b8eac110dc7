// Shared by the cluster tests: a sandbox with karp-drift's Cluster on its kubeconfig, and the query strings the
// sandbox API server received. sandbox.kube.requests records verb, resource and path but not the query, so the
// server-side `http.server.request.start` diagnostics channel supplies it: what the server saw, not what the client
// meant to send.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { onTestFinished } from 'vitest';
import { loadCluster, type Cluster } from '../../src/cluster/client.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { manualSandbox } from '../sandbox/karpenter/harness.js';

export async function sandboxCluster(scenario = 'default'): Promise<{ sandbox: Awaited<ReturnType<typeof manualSandbox>>; cluster: Cluster }> {
  const sandbox = await manualSandbox(scenario);
  const cluster = loadCluster({ kubeconfig: sandbox.kubeconfigPath });
  onTestFinished(async () => {
    cluster.close();
    await sandbox.stop();
  });
  return { sandbox, cluster };
}

/** Every request URL (path and query) the sandbox's API server receives from now until the test ends. */
export function receivedUrls(sandbox: Sandbox): URL[] {
  const port = Number(new URL(sandbox.kube.url).port);
  const urls: URL[] = [];
  const listener = (message: unknown) => {
    const request = (message as { request: IncomingMessage }).request;
    if (request.socket.localPort === port) urls.push(new URL(request.url ?? '/', sandbox.kube.url));
  };
  subscribe('http.server.request.start', listener);
  onTestFinished(() => void unsubscribe('http.server.request.start', listener));
  return urls;
}

export const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Waits (in real time, yielding to the event loop) until `check` holds; fails the test after `ms`. */
export async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
