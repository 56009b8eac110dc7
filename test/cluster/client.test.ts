// loadCluster: which kubeconfig is read (--kubeconfig, $KUBECONFIG, ~/.kube/config), which context is used, and the
// usage errors a person meets before any request is made.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { UsageError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'karp-drift-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(name: string, contexts: Array<{ name: string; server: string }>, current?: string): string {
  const path = join(dir, name);
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c) => [`- name: ${c.name}`, '  cluster:', `    server: ${c.server}`]),
    'users:',
    ...contexts.flatMap((c) => [`- name: ${c.name}`, '  user:', '    token: not-a-real-token']),
    'contexts:',
    ...contexts.flatMap((c) => [`- name: ${c.name}`, '  context:', `    cluster: ${c.name}`, `    user: ${c.name}`]),
    ...(current ? [`current-context: ${current}`] : []),
  ];
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

const prod = kubeconfig('prod', [{ name: 'prod', server: 'https://prod.eks.example:443/' }, { name: 'staging', server: 'https://staging.eks.example' }], 'prod');
const dev = kubeconfig('dev', [{ name: 'dev', server: 'https://dev.eks.example' }, { name: 'prod', server: 'https://shadowed.example' }], 'dev');

describe('loadCluster', () => {
  it.each([
    ['--kubeconfig, its current-context', { kubeconfig: prod }, 'prod', 'https://prod.eks.example:443'],
    ['--kubeconfig and --context', { kubeconfig: prod, context: 'staging' }, 'staging', 'https://staging.eks.example'],
    ['$KUBECONFIG, first file wins', { env: { KUBECONFIG: [dev, prod].join(delimiter) } }, 'dev', 'https://dev.eks.example'],
    ['$KUBECONFIG, a name in two files: the first one', { env: { KUBECONFIG: [dev, prod].join(delimiter) }, context: 'prod' }, 'prod', 'https://shadowed.example'],
    ['$KUBECONFIG skips missing files', { env: { KUBECONFIG: [join(dir, 'nope'), prod].join(delimiter) } }, 'prod', 'https://prod.eks.example:443'],
  ])('%s', (_, options, context, server) => {
    const cluster = loadCluster(options);
    expect({ context: cluster.context, server: cluster.server }).toEqual({ context, server });
    cluster.close();
  });

  it('resolves a certificate-authority path against the kubeconfig file, as kubectl does', () => {
    const sub = join(dir, 'relative');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'ca.pem'), 'not read until a connection is made');
    writeFileSync(join(sub, 'config'), `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://rel.example", certificate-authority: ca.pem}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: rel, context: {cluster: c, user: u}}]\ncurrent-context: rel\n`);
    const cluster = loadCluster({ kubeconfig: join(sub, 'config') });
    expect(cluster.kc.getCurrentCluster()?.caFile).toBe(join(sub, 'ca.pem'));
    cluster.close();
  });

  it.each([
    ['./bin/get-token', (folder: string) => join(folder, 'bin', 'get-token')],
    ['aws', () => 'aws'], // a bare name is looked up on PATH
    ['/usr/local/bin/aws', () => '/usr/local/bin/aws'],
  ])('runs the exec plugin %s as kubectl would find it', (command, expected) => {
    const sub = join(dir, 'exec-relative');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'config'), `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://exec.example"}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "${command}", args: [eks, get-token]}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
    const cluster = loadCluster({ kubeconfig: join(sub, 'config') });
    expect(cluster.credentials.exec?.command).toBe(expected(sub));
    cluster.close();
  });

  it('reads ~/.kube/config when neither --kubeconfig nor $KUBECONFIG is given', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://home.example"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: home, context: {cluster: c, user: u}}]\ncurrent-context: home\n`);
    const cluster = loadCluster({ env: { HOME: home } });
    expect(cluster.server).toBe('https://home.example');
    cluster.close();
  });

  it.each([
    ['an unknown --context lists the contexts', { kubeconfig: prod, context: 'pord' }, `no context "pord" in ${prod}; its contexts: prod, staging`],
    ['a missing --kubeconfig', { kubeconfig: join(dir, 'missing') }, `--kubeconfig ${join(dir, 'missing')}: no such file`],
    ['no kubeconfig anywhere', { env: { HOME: join(dir, 'empty-home') } }, `no kubeconfig: --kubeconfig not given, KUBECONFIG not set, ${join(dir, 'empty-home', '.kube', 'config')} does not exist, and not in a pod (no KUBERNETES_SERVICE_HOST and service account token)`],
    ['no current-context', { kubeconfig: kubeconfig('nocurrent', [{ name: 'a', server: 'https://a.example' }]) }, `${join(dir, 'nocurrent')} sets no current-context; its contexts: a`],
  ])('%s', (_, options, message) => {
    let err: unknown;
    try {
      loadCluster(options);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(message);
    expect((err as UsageError).hint).toBeTruthy();
  });
});
