// Starts the sandbox API server with the Karpenter v1 CRDs and writes a kubeconfig for it into a temp folder, so
// tests reach it exactly as karp-drift and kubectl reach a cluster: through the file.
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadKarpenterCrds } from '../../src/sandbox/kube-api/crds.js';
import { writeKubeconfig } from '../../src/sandbox/kube-api/kubeconfig.js';
import {
  startKubeApiServer,
  type KubeApiServer,
  type KubeApiServerOptions,
} from '../../src/sandbox/kube-api/server.js';
import type { UserInfo } from '../../src/sandbox/kube-api/authn.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';

export interface TestCluster {
  server: KubeApiServer;
  dir: string;
  kubeconfigPath: string;
  kc: KubeConfig;
  close(): Promise<void>;
}

export async function startTestCluster(options: KubeApiServerOptions = {}): Promise<TestCluster> {
  const server = await startKubeApiServer({
    crds: loadKarpenterCrds('v1'),
    ...options,
  });
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-kube-api-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, {
    server: server.url,
    caData: server.caData,
    token: server.token,
  });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return {
    server,
    dir,
    kubeconfigPath,
    kc,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A token for `user` (the server authenticates it as that user, whose RBAC then applies: authz.ts) and a kubeconfig
 * at `path` that uses it, for karp-drift or kubectl to run as someone other than the sandbox's admin.
 */
export async function userKubeconfig(
  server: Pick<KubeApiServer, 'url' | 'caData' | 'auth'>,
  user: UserInfo,
  path: string,
): Promise<{ token: string; kubeconfigPath: string }> {
  const token = randomBytes(24).toString('hex');
  server.auth.accept(token, user);
  await writeKubeconfig(path, { server: server.url, caData: server.caData, token, userName: user.name });
  return { token, kubeconfigPath: path };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request trusting the sandbox CA, for what no typed client sends (no token, odd media types). */
export function rawRequest(
  server: KubeApiServer,
  method: string,
  path: string,
  options: {
    token?: string | null;
    body?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<RawResponse> {
  const token = options.token === undefined ? server.token : options.token;
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method,
        ca: server.caData,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: { providerID: `aws:///us-west-2a/i-${name}` },
  status: {
    conditions: [{ type: 'Ready', status: 'True' }],
    nodeInfo: { kubeletVersion: 'v1.30.4-eks-a737599' },
  },
});

export const nodeClaim = (name: string, extra: { finalizers?: string[]; drifted?: boolean } = {}): KubeObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: {
    name,
    labels: { 'karpenter.sh/nodepool': 'default' },
    ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
  },
  spec: {
    nodeClassRef: {
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    },
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
  },
});

export const ec2NodeClass = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name },
  spec: {
    role: 'KarpenterNodeRole-demo',
    amiSelectorTerms: [{ alias: 'al2023@v20240807' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    ...spec,
  },
});
