// The API server goes away while the client holds several keep-alive sockets to it. The first request on a dead
// pooled socket is retried once (Go's transport does the same); when that retry lands on another dead socket, what
// comes back must still read as a cut connection: retried under a follow, and reported as "cannot reach", never as
// an unknown error (which the CLI would call a bug, exit 70).
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { clusterFailure } from '../../src/cluster/failures.js';
import { getJson } from '../../src/cluster/request.js';
import { FOLLOW_RETRY, isRetryable } from '../../src/cluster/retry.js';

/** A plain-HTTP API server that answers until `kill()`, then resets every request on a socket it had kept open. */
async function dyingServer(): Promise<{ url: string; kill: () => void; answered: () => number }> {
  let alive = true;
  let answered = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    if (!alive) {
      req.socket.resetAndDestroy();
      return;
    }
    answered++;
    // Held a moment, so that concurrent requests each open their own socket and the pool keeps several.
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"Status"}'), 50);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, kill: () => (alive = false), answered: () => answered };
}

function kubeconfigFor(server: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'karp-drift-request-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters: [{ name: dying, cluster: { server: "${server}", insecure-skip-tls-verify: true } }]
users: [{ name: someone, user: { token: not-a-secret } }]
contexts: [{ name: dying, context: { cluster: dying, user: someone } }]
current-context: dying
`,
  );
  return path;
}

describe('an API server that goes away with sockets open', () => {
  it('is a cut connection when the retry on a stale socket meets another stale socket', async () => {
    const server = await dyingServer();
    const cluster = loadCluster({ kubeconfig: kubeconfigFor(server.url) });
    onTestFinished(() => cluster.close());
    // Three at once: the agent opens three sockets and keeps them for the next requests.
    await Promise.all([1, 2, 3].map(() => getJson(cluster, '/version')));
    expect(server.answered()).toBe(3);

    server.kill();
    const err: unknown = await getJson(cluster, '/version').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'ECONNRESET' });
    expect(isRetryable(err, FOLLOW_RETRY)).toBe(true);
    const failure = clusterFailure(err, { doing: 'reading /version', verb: 'get', resource: 'version' }, { context: 'dying', server: server.url });
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toMatch(/^cannot reach the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \(context "dying"\)/);
  });
});
