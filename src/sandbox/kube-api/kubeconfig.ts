// A kubeconfig for the sandbox, shaped like the one `aws eks update-kubeconfig` writes (one cluster, one user, one
// context, current-context set) but with a static token user instead of the exec plugin, so kubectl and
// @kubernetes/client-node need nothing but the file.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { dump } from 'js-yaml';

export interface KubeconfigOptions {
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  caData: string;
  token: string;
  clusterName?: string;
  contextName?: string;
  userName?: string;
}

export function kubeconfigYaml(options: KubeconfigOptions): string {
  const cluster = options.clusterName ?? 'karp-drift-sandbox';
  const context = options.contextName ?? cluster;
  const user = options.userName ?? `${cluster}-admin`;
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: {
          server: options.server,
          'certificate-authority-data': Buffer.from(options.caData, 'utf8').toString('base64'),
        },
      },
    ],
    users: [{ name: user, user: { token: options.token } }],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context,
    preferences: {},
  });
}

/** Writes the kubeconfig with mode 0600, as kubectl itself does, creating the folder if needed. */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(options), { mode: 0o600 });
}
