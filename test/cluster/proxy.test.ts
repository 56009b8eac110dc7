// loadCluster's proxy, in client-go's order: the kubeconfig cluster's proxy-url, else HTTPS_PROXY (https servers) or
// HTTP_PROXY (http servers) unless NO_PROXY names the server or it is loopback. No connection is made.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';

const dir = mkdtempSync(join(tmpdir(), 'karp-drift-proxy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(server: string, proxyUrl?: string): string {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}`);
  const proxy = proxyUrl ? `, proxy-url: "${proxyUrl}"` : '';
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"${proxy}}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
  return path;
}

const CORP = { HTTPS_PROXY: 'http://user:pw@proxy.corp:3128', HTTP_PROXY: 'http://proxy.corp:8080' };

describe('loadCluster: the proxy', () => {
  it.each([
    [
      'HTTPS_PROXY for an https server',
      'https://abc.gr7.us-west-2.eks.amazonaws.com',
      undefined,
      CORP,
      'HTTPS_PROXY',
      'http://proxy.corp:3128',
    ],
    [
      'HTTP_PROXY for an http server',
      'http://kube.internal:8080',
      undefined,
      CORP,
      'HTTP_PROXY',
      'http://proxy.corp:8080',
    ],
    [
      'https_proxy in lower case',
      'https://kube.example.com',
      undefined,
      { https_proxy: 'proxy.corp:3128' },
      'https_proxy',
      'http://proxy.corp:3128',
    ],
    [
      'proxy-url wins over the environment',
      'https://kube.example.com',
      'http://jump:3128',
      CORP,
      'proxy-url of cluster "c"',
      'http://jump:3128',
    ],
    [
      'proxy-url wins over NO_PROXY',
      'https://kube.example.com',
      'http://jump:3128',
      { NO_PROXY: '*' },
      'proxy-url of cluster "c"',
      'http://jump:3128',
    ],
    [
      'NO_PROXY names the server',
      'https://abc.eks.amazonaws.com',
      undefined,
      { ...CORP, NO_PROXY: '.eks.amazonaws.com' },
      undefined,
      undefined,
    ],
    [
      'no_proxy with a CIDR',
      'https://10.1.2.3:6443',
      undefined,
      { ...CORP, no_proxy: '10.0.0.0/8' },
      undefined,
      undefined,
    ],
    ['loopback is never proxied (client-go)', 'https://127.0.0.1:6443', undefined, CORP, undefined, undefined],
    ['localhost is never proxied (client-go)', 'https://localhost:6443', undefined, CORP, undefined, undefined],
    ['no variables', 'https://kube.example.com', undefined, {}, undefined, undefined],
  ])('%s', (_, server, proxyUrl, env, source, shown) => {
    const lines: string[] = [];
    const cluster = loadCluster({ kubeconfig: kubeconfig(server, proxyUrl), env, log: (l) => lines.push(l) });
    try {
      expect(cluster.proxy && { source: cluster.proxy.source, shown: cluster.proxy.shown }).toEqual(
        source && { source, shown },
      );
      expect(cluster.agent).toBeDefined();
      expect(lines.join('\n')).not.toContain('pw');
      if (shown) expect(lines).toContain(`${server} through the proxy ${shown} (${source})`);
    } finally {
      cluster.close();
    }
  });

  it("a SOCKS proxy-url stays client-node's (its per-call agent)", () => {
    const cluster = loadCluster({
      kubeconfig: kubeconfig('https://kube.example.com', 'socks5://jump:1080'),
      env: CORP,
    });
    expect(cluster.proxy).toBeUndefined();
    expect(cluster.agent).toBeUndefined();
  });

  it('a SOCKS proxy in HTTPS_PROXY is a usage error that does not print it whole', () => {
    expect(() =>
      loadCluster({
        kubeconfig: kubeconfig('https://kube.example.com'),
        env: { HTTPS_PROXY: 'socks5://u:secret@jump:1080' },
      }),
    ).toThrow('HTTPS_PROXY: socks5 proxies are not supported (socks5://jump:1080)');
  });
});
