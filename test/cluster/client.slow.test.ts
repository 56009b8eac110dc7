// What a person sees when the kubeconfig points at the wrong place, the wrong CA or stale credentials: a
// RuntimeFailure that names the server and context and says what to do, and never the token.
import { readFileSync, writeFileSync } from 'node:fs';
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
