// What a kubeconfig user authenticates with, named without its values, and the ExecCredential a plugin prints,
// checked without quoting it (its stdout holds the token).
import type { User } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { credentialFresh, credentialSource, execConfig, parseExecCredential } from '../../src/cluster/credential-source.js';

const user = (fields: Partial<Record<keyof User, unknown>>): User => ({ name: 'prod', ...fields }) as User;
const awsExec = { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'], env: [{ name: 'AWS_PROFILE', value: 'secret-profile' }] };

describe('credentialSource', () => {
  it.each<[string, User, string, string]>([
    ['an exec plugin', user({ exec: awsExec }), 'exec', 'exec plugin "aws" of kubeconfig user "prod"'],
    ['a static token', user({ token: 'not-a-real-token' }), 'token', 'the static token of kubeconfig user "prod"'],
    ['a static token beside an exec plugin: the token wins, as in client-node', user({ token: 't', exec: awsExec }), 'token', 'the static token of kubeconfig user "prod"'],
    ['an auth-provider', user({ authProvider: { name: 'oidc', config: { 'id-token': 'x' } } }), 'auth-provider', 'auth-provider "oidc" of kubeconfig user "prod"'],
    ['basic auth', user({ username: 'admin', password: 'hunter2' }), 'basic', 'the username and password of kubeconfig user "prod"'],
    ['a client certificate', user({ certData: 'LS0t', keyData: 'LS0t' }), 'client-certificate', 'the client certificate of kubeconfig user "prod"'],
    ['nothing', user({}), 'none', 'kubeconfig user "prod", which has no credentials'],
    ['an exec entry without a command', user({ exec: { apiVersion: 'v1' } }), 'none', 'kubeconfig user "prod", which has no credentials'],
  ])('%s', (_name, u, kind, label) => {
    const source = credentialSource(u);
    expect(source).toEqual({ kind, label });
    // A label never carries a value: no token, password, env value or argument.
    expect(source.label).not.toMatch(/not-a-real-token|hunter2|secret-profile|get-token|LS0t/);
  });
});

describe('execConfig', () => {
  it('reads command, args, env and apiVersion; defaults what a kubeconfig may omit', () => {
    expect(execConfig(user({ exec: awsExec }))).toEqual({ command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'], env: [{ name: 'AWS_PROFILE', value: 'secret-profile' }], apiVersion: 'client.authentication.k8s.io/v1beta1' });
    expect(execConfig(user({ exec: { command: '/bin/get-token', env: null } }))).toEqual({ command: '/bin/get-token', args: [], env: [], apiVersion: 'client.authentication.k8s.io/v1beta1' });
    expect(execConfig(user({}))).toBeUndefined();
  });
});

describe('parseExecCredential', () => {
  const credential = (status: Record<string, unknown>) => JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status });

  it.each([
    ['a token with an expiry', credential({ token: 'k8s-aws-v1.abc', expirationTimestamp: '2024-05-01T12:15:00Z' }), { token: 'k8s-aws-v1.abc', expiresAt: Date.parse('2024-05-01T12:15:00Z') }],
    ['a token without an expiry: kept until rejected', credential({ token: 'k8s-aws-v1.abc' }), { token: 'k8s-aws-v1.abc' }],
    ['an expiry that is not a time is no expiry', credential({ token: 't', expirationTimestamp: 'soon' }), { token: 't' }],
    ['a client certificate', credential({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }), { clientCertificateData: 'CERT', clientKeyData: 'KEY' }],
  ])('%s', (_name, stdout, expected) => {
    expect(parseExecCredential(stdout)).toEqual(expected);
  });

  it.each([
    ['not JSON (and not quoted)', 'k8s-aws-v1.secret-token-value', /^printed no ExecCredential JSON on stdout \(29 bytes\)$/],
    ['no status', JSON.stringify({ kind: 'ExecCredential' }), /^printed an ExecCredential without status$/],
    ['an empty token', credential({ token: '' }), /^printed an ExecCredential with neither status\.token nor status\.clientCertificateData$/],
  ])('refuses %s', (_name, stdout, message) => {
    expect(() => parseExecCredential(stdout)).toThrow(message);
  });
});

describe('credentialFresh', () => {
  it.each([
    [{ token: 't', expiresAt: 1_000 }, 999, true],
    [{ token: 't', expiresAt: 1_000 }, 1_000, false],
    [{ token: 't' }, Number.MAX_SAFE_INTEGER, true],
  ])('%j at %i → %s', (credential, now, fresh) => {
    expect(credentialFresh(credential, now)).toBe(fresh);
  });
});
