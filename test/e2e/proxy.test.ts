// Behind a corporate proxy: the built CLI honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY for the Kubernetes API (as
// kubectl does) and for SSM and EC2 (as the AWS CLI does), and AWS_CA_BUNDLE for AWS. A small proxy on 127.0.0.1
// records every tunnel (CONNECT host:port) and every absolute-form request it passes on, and forwards each to
// 127.0.0.1 whatever host was asked for, as a proxy that resolves names itself would.
import { writeFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateServingCertificates } from '../../src/sandbox/kube-api/tls.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';

interface RecordingProxy {
  port: number;
  /** host:port of each CONNECT tunnel, and of each absolute-form request. */
  tunnels: string[];
  forwarded: string[];
}

const USER = 'alice';
const PASSWORD = 's3cret-proxy-pass';

async function startProxy(password = PASSWORD): Promise<RecordingProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const expected = `Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}`;
  const authorized = (req: IncomingMessage) => req.headers['proxy-authorization'] === expected;
  const server = createServer((req, res) => {
    if (!authorized(req)) return void res.writeHead(407, { 'Proxy-Authenticate': 'Basic' }).end();
    const target = new URL(req.url ?? '/');
    forwarded.push(target.host);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = httpRequest(
      { host: '127.0.0.1', port: target.port, method: req.method, path: target.pathname + target.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (!authorized(req))
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    const target = req.url ?? '';
    tunnels.push(target);
    const upstream = connect(Number(target.slice(target.lastIndexOf(':') + 1)), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, tunnels, forwarded };
}

/**
 * The sandbox's kubeconfig with the API server under a name that is not loopback: kubectl (client-go) never proxies
 * localhost or 127.0.0.1, and neither does karp-drift. The proxy resolves the name (to 127.0.0.1); the certificate is
 * checked against `localhost`, one of its names.
 */
async function proxiedKubeconfig(sandbox: Sandbox): Promise<{ path: string; host: string }> {
  const config = load(await readFile(sandbox.kubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: Record<string, string> }>;
  };
  const cluster = config.clusters[0]!.cluster;
  const port = new URL(cluster.server!).port;
  const host = `kube.proxy.test:${port}`;
  cluster.server = `https://${host}`;
  cluster['tls-server-name'] = 'localhost';
  const path = join(await mkdtemp(join(tmpdir(), 'karp-drift-proxy-')), 'kubeconfig');
  writeFileSync(path, dump(config), { mode: 0o600 });
  return { path, host };
}

const proxyEnv = (port: number, password = PASSWORD) => ({
  HTTPS_PROXY: `http://${USER}:${password}@127.0.0.1:${port}`,
  HTTP_PROXY: `http://${USER}:${password}@127.0.0.1:${port}`,
});

describe('proxies', () => {
  it('sends the Kubernetes API and SSM/EC2 calls of plan through HTTPS_PROXY/HTTP_PROXY, on kept-alive tunnels', async () => {
    const sandbox = await scenario('default');
    const proxy = await startProxy();
    const kube = await proxiedKubeconfig(sandbox);
    const aws = new URL(sandbox.env.AWS_ENDPOINT_URL_SSM!).host;
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30', '-v'], 90_000, {
      ...proxyEnv(proxy.port),
      KUBECONFIG: kube.path,
    });

    expect(run.stderr).not.toContain(PASSWORD);
    expect(run.stdout).not.toContain(PASSWORD);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`https://${kube.host} through the proxy http://127.0.0.1:${proxy.port} (HTTPS_PROXY)`);
    expect(run.stderr).toContain(`AWS http endpoints through the proxy http://127.0.0.1:${proxy.port} (HTTP_PROXY)`);
    // hpagent tunnels http targets with CONNECT too (proxy/agents.ts); the proxy would take absolute-form as well.
    const passed = [...proxy.tunnels, ...proxy.forwarded];
    expect(new Set(passed)).toEqual(new Set([kube.host, aws]));
    const actions = sandbox.aws.requests.map((r) => `${r.service} ${r.operation}`);
    expect(actions).toEqual(expect.arrayContaining(['ssm GetParameters', 'ec2 DescribeImages']));
    // One keep-alive agent: far fewer tunnels than requests.
    const kubeTunnels = passed.filter((t) => t === kube.host).length;
    expect(kubeTunnels).toBeLessThan(sandbox.kube.requests.length);
  });

  it("upgrade: server-side apply and the access review (client-node's generated clients) go through it too", async () => {
    const sandbox = await scenario('default');
    const proxy = await startProxy();
    const kube = await proxiedKubeconfig(sandbox);
    // kube.proxy.test resolves nowhere but in the proxy: a request that went around it would fail.
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json'], 90_000, {
      ...proxyEnv(proxy.port),
      KUBECONFIG: kube.path,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.kube.requests.map((r) => r.verb)).toEqual(expect.arrayContaining(['patch', 'create']));
    expect(new Set([...proxy.tunnels, ...proxy.forwarded])).toContain(kube.host);
    expect(run.stderr + run.stdout).not.toContain(PASSWORD);
  });

  it('goes direct for what NO_PROXY names (the sandbox on 127.0.0.1): nothing reaches the proxy', async () => {
    const sandbox = await scenario('default');
    const proxy = await startProxy();
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30'], 90_000, {
      ...proxyEnv(proxy.port),
      NO_PROXY: '127.0.0.1',
    });
    expect(run.code, run.stderr).toBe(0);
    expect([...proxy.tunnels, ...proxy.forwarded]).toEqual([]);
    expect(sandbox.aws.requests.length).toBeGreaterThan(0);
  });

  it('a proxy that refuses the tunnel: exit 1 naming the proxy and the variable, never the password', async () => {
    const sandbox = await scenario('default');
    const proxy = await startProxy('another-password');
    const kube = await proxiedKubeconfig(sandbox);
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30'], 90_000, {
      ...proxyEnv(proxy.port),
      KUBECONFIG: kube.path,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `the proxy http://127.0.0.1:${proxy.port} (HTTPS_PROXY) refused the tunnel to ${kube.host}: HTTP 407`,
    );
    expect(run.stderr).toContain('fix HTTPS_PROXY, or add kube.proxy.test to NO_PROXY');
    expect(run.stderr + run.stdout).not.toContain(PASSWORD);
  });

  it('a proxy that cannot be reached: exit 1 naming it and HTTP_PROXY (AWS)', async () => {
    const sandbox = await scenario('default');
    // Nothing listens on port 1.
    const run = await karpDrift(sandbox, ['amis', '--to', '1.30'], 90_000, {
      HTTP_PROXY: `http://${USER}:${PASSWORD}@127.0.0.1:1`,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /cannot reach the proxy http:\/\/127\.0\.0\.1:1 \(HTTP_PROXY\) for 127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
    expect(run.stderr).toContain(
      'check that the proxy is up and reachable from here; fix HTTP_PROXY, or add 127.0.0.1 to NO_PROXY',
    );
    expect(run.stderr).not.toContain(PASSWORD);
  });
});

describe('AWS_CA_BUNDLE', () => {
  it('an unreadable file: exit 2 naming it', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['amis', '--to', '1.30'], 90_000, {
      AWS_CA_BUNDLE: '/nonexistent/corp-ca.pem',
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('AWS_CA_BUNDLE=/nonexistent/corp-ca.pem: cannot read it (ENOENT)');
  });

  it('trusts an endpoint signed by a CA in the bundle, as a TLS-inspecting proxy re-signs AWS', async () => {
    const sandbox = await scenario('default');
    const tls = await generateServingCertificates();
    // An https front for the sandbox's AWS endpoint, with a certificate for localhost signed by a CA of our own.
    const upstream = new URL(sandbox.env.AWS_ENDPOINT_URL_SSM!);
    const front = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const up = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      front.closeAllConnections();
      front.close();
    });
    const url = `https://localhost:${(front.address() as AddressInfo).port}`;
    const bundle = join(await mkdtemp(join(tmpdir(), 'karp-drift-ca-')), 'ca.pem');
    writeFileSync(bundle, tls.caCert);
    const endpoints = { AWS_ENDPOINT_URL_SSM: url, AWS_ENDPOINT_URL_EC2: url, AWS_MAX_ATTEMPTS: '1' };

    const trusted = await karpDrift(sandbox, ['amis', '--to', '1.30'], 90_000, { ...endpoints, AWS_CA_BUNDLE: bundle });
    expect(trusted.code, trusted.stderr).toBe(0);
    const untrusted = await karpDrift(sandbox, ['amis', '--to', '1.30'], 90_000, endpoints);
    expect(untrusted.code).toBe(1);
  });
});
