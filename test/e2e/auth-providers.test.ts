// The kubeconfig cases whose libraries the bundle loads only when they are met (scripts/cli-build-options.mjs): a
// `gcp` auth-provider (jsonpath-plus, evaluated on its first call), a `socks5://` proxy-url (socks-proxy-agent, the
// same) and an `oidc` auth-provider (openid-client, a chunk of its own imported where client-node uses it). Each is
// run through the built CLI: what the bundle does to them must leave them working as client-node wrote them.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

/** A kubeconfig for the sandbox with this `user` (YAML flow mapping) and cluster fields added; its path. */
async function kubeconfig(sandbox: Sandbox, user: string, cluster = ''): Promise<{ path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-auth-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: c, cluster: { server: "${sandbox.kube.url}", certificate-authority-data: "${Buffer.from(sandbox.kube.caData).toString('base64')}"${cluster} } }]`,
      `users: [{ name: u, user: ${user} }]`,
      'contexts: [{ name: c, context: { cluster: c, user: u } }]',
      'current-context: c',
    ].join('\n') + '\n',
  );
  return { path, dir };
}

/**
 * A SOCKS5 proxy (RFC 1928: no authentication, CONNECT to an IPv4 address) on loopback, recording where it tunnels
 * to: enough for client-node's socks-proxy-agent to reach the sandbox through it.
 */
async function socksProxy(): Promise<{ url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client: Socket) => {
    sockets.add(client);
    client.once('data', () => {
      client.write(Buffer.from([5, 0])); // version 5, no authentication
      client.once('data', (req: Buffer) => {
        const host = [...req.subarray(4, 8)].join('.');
        const port = req.readUInt16BE(8);
        tunnels.push(`${host}:${port}`);
        const upstream = connect(port, host, () => {
          sockets.add(upstream);
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          client.pipe(upstream).pipe(client);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  return { url: `socks5://127.0.0.1:${port}`, tunnels };
}

describe('kubeconfig cases the bundle loads on demand', () => {
  it('a gcp auth-provider: its cmd-path run, its token found by the token-key path (jsonpath-plus)', async () => {
    const sandbox = await scenario('default');
    const token = randomBytes(24).toString('hex');
    sandbox.kube.auth.accept(token);
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-gcp-'));
    const cmd = join(dir, 'gcloud-token');
    writeFileSync(cmd, `#!/bin/sh\necho '{"credential":{"access_token":"${token}","token_expiry":"2099-01-01T00:00:00Z"}}'\n`, { mode: 0o755 });
    const { path } = await kubeconfig(
      sandbox,
      `{ auth-provider: { name: gcp, config: { cmd-path: "${cmd}", token-key: "{.credential.access_token}", expiry-key: "{.credential.token_expiry}" } } }`,
    );
    const r = await karpDrift(sandbox, ['status', '--kubeconfig', path]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NODEPOOL\s+NODECLASS/);
  });

  it('a socks5 proxy-url: every request tunnelled through it (socks-proxy-agent)', async () => {
    const sandbox = await scenario('default');
    const proxy = await socksProxy();
    const { path } = await kubeconfig(sandbox, `{ token: "${sandbox.kube.token}" }`, `, proxy-url: "${proxy.url}"`);
    const r = await karpDrift(sandbox, ['status', '--kubeconfig', path]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NODEPOOL\s+NODECLASS/);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(sandbox.kube.url).host]));
  });

  it('an oidc auth-provider with an expired id-token: openid-client loaded and asked, its failure reported with exit 1', async () => {
    const sandbox = await scenario('default');
    const expired = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"exp":1}').toString('base64url')}.`;
    const { path } = await kubeconfig(
      sandbox,
      `{ auth-provider: { name: oidc, config: { idp-issuer-url: "https://127.0.0.1:1", client-id: karp-drift, id-token: "${expired}", refresh-token: r } } }`,
    );
    const r = await karpDrift(sandbox, ['status', '--kubeconfig', path]);
    expect(r.code).toBe(1);
    // openid-client 6's own check of its argument: client-node 1.4's oidc provider hands discovery() a string, so the
    // refresh fails there, bundled or not (the same words from client-node run unbundled); what matters here is that
    // openid-client's chunk was loaded and ran.
    expect(r.stderr).toContain('getting credentials for the Kubernetes API');
    expect(r.stderr).toContain('"server" must be an instance of URL');
    expect(sandbox.kube.requests.filter((q) => q.code === 200 && q.path !== '/version' && q.path !== '/apis')).toEqual([]);
    expect(httpWrites(sandbox)).toBe(0);
  });
});
