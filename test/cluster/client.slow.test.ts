// What a person sees when the kubeconfig points at the wrong place, the wrong CA or stale credentials: a
// RuntimeFailure that names the server and context and says what to do, and never the token.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { discoverCluster } from '../../src/cluster/discovery.js';
import { RuntimeFailure } from '../../src/errors.js';
import { sandboxCluster } from './helpers.js';

describe('API failures from the kubeconfig', () => {
  it.each([
    [
      'nothing listens at the server',
      (yaml: string) => yaml.replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1'),
      /^cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:1 \(context "karp-drift-sandbox-default"\): connect ECONNREFUSED 127\.0\.0\.1:1$/,
      /check the kubeconfig context/,
    ],
    [
      'the CA is not the one that signed the server',
      (yaml: string) => yaml.replace(/ +certificate-authority-data: .*\n/, ''),
      /^the TLS certificate of the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\) was not accepted: /,
      /certificate-authority-data must be the cluster's CA: run aws eks update-kubeconfig/,
    ],
    [
      'the token is stale',
      (yaml: string) => yaml.replace(/token: .*/, 'token: k8s-aws-v1.stale'),
      /^the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\) rejected the static token of kubeconfig user "karp-drift-sandbox-default-admin" \(401 Unauthorized\) while discovering API groups; a static token cannot be refreshed$/,
      /aws eks update-kubeconfig --name <cluster>.*access entry/,
    ],
  ])('%s', async (_, edit, expectedMessage, expectedHint) => {
    const { sandbox } = await sandboxCluster('default');
    const original = readFileSync(sandbox.kubeconfigPath, 'utf8');
    const token = /token: (.*)/.exec(original)?.[1] ?? '';
    writeFileSync(sandbox.kubeconfigPath, edit(original));
    const cluster = loadCluster({ kubeconfig: sandbox.kubeconfigPath });
    const err = await discoverCluster(cluster).catch((e: unknown) => e);
    cluster.close();
    expect(err).toBeInstanceOf(RuntimeFailure);
    const { message, hint: next } = err as RuntimeFailure;
    expect(message).toMatch(expectedMessage);
    expect(next).toMatch(expectedHint);
    expect(token.length).toBeGreaterThan(8);
    expect(`${message} ${next ?? ''}`).not.toContain(token);
  });
});

describe('in a pod, with no kubeconfig: the pod service account', () => {
  /** A service-account mount as the kubelet writes it (token, ca.crt, namespace), for the sandbox's API server. */
  function mount(sandbox: Awaited<ReturnType<typeof sandboxCluster>>['sandbox'], token: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-sa-'));
    writeFileSync(join(dir, 'token'), token);
    writeFileSync(join(dir, 'ca.crt'), sandbox.kube.caData);
    writeFileSync(join(dir, 'namespace'), 'kube-system');
    return dir;
  }
  const inPod = (port: string, home: string) => ({
    HOME: home,
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: port,
  });

  it('reaches the API server from KUBERNETES_SERVICE_HOST/PORT with the mounted CA and token', async () => {
    const { sandbox } = await sandboxCluster('default');
    const dir = mount(sandbox, sandbox.kube.token);
    const port = new URL(sandbox.kube.url).port;
    const cluster = loadCluster({ env: inPod(port, dir), serviceAccountDir: dir });
    try {
      expect(cluster.context).toBe('in-cluster');
      expect(cluster.server).toBe(`https://127.0.0.1:${port}`);
      expect(cluster.source).toContain("the pod's service account");
      expect(cluster.credentials.source.kind).toBe('auth-provider');
      const discovery = await discoverCluster(cluster);
      expect(discovery.karpenterApi).toBe('v1');
      const seen = sandbox.kube.requests.length;
      expect(seen).toBeGreaterThan(0);
    } finally {
      cluster.close();
    }
  });

  it('a kubeconfig, when there is one, wins over the pod (as kubectl does); without either, the error names both', async () => {
    const { sandbox } = await sandboxCluster('default');
    const dir = mount(sandbox, 'k8s-aws-v1.not-used');
    const port = new URL(sandbox.kube.url).port;
    const withFile = loadCluster({
      env: { ...inPod(port, dir), KUBECONFIG: sandbox.kubeconfigPath },
      serviceAccountDir: dir,
    });
    expect(withFile.context).toBe('karp-drift-sandbox-default');
    withFile.close();
    const nowhere = mkdtempSync(join(tmpdir(), 'karp-drift-home-'));
    expect(() => loadCluster({ env: { HOME: nowhere }, serviceAccountDir: join(nowhere, 'none') })).toThrow(
      /no kubeconfig: --kubeconfig not given, KUBECONFIG not set, .* does not exist, and not in a pod/,
    );
  });
});
