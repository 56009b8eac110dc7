// Credentials: an exec plugin run once for concurrent requests, its token reused until it expires, and run again
// after a 401 at most once for a burst of them. The plugin is a function here; test/e2e/credentials.test.ts runs a
// real one through the built CLI.
import type { RequestOptions } from 'node:https';
import type { User } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ExecConfig } from '../../src/cluster/credential-source.js';
import { Credentials } from '../../src/cluster/credentials.js';
import { CredentialsError } from '../../src/cluster/request.js';

const execUser = { name: 'prod', exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_PROFILE', value: 'prod' }] } } as unknown as User;
const printed = (token: string, expiresAt?: number) =>
  JSON.stringify({ kind: 'ExecCredential', status: { token, ...(expiresAt === undefined ? {} : { expirationTimestamp: new Date(expiresAt).toISOString() }) } });

/** A plugin that prints token-1, token-2, … (each valid for `validMs`, or without expiry), counting its runs. */
function plugin(validMs?: number) {
  const clock = { now: 1_000_000 };
  const runs: Array<{ exec: ExecConfig; env: NodeJS.ProcessEnv }> = [];
  const pending: Array<() => void> = [];
  let hold = false;
  const run = (exec: ExecConfig, env: NodeJS.ProcessEnv) => {
    runs.push({ exec, env });
    const out = printed(`token-${runs.length}`, validMs === undefined ? undefined : clock.now + validMs);
    if (!hold) return Promise.resolve(out);
    return new Promise<string>((resolve) => pending.push(() => resolve(out)));
  };
  const credentials = new Credentials(execUser, { run, now: () => clock.now, env: { PATH: '/usr/bin' } });
  return {
    clock,
    runs,
    credentials,
    /** Keep plugin runs pending until release(), so requests overlap as they do on the wire. */
    holdRuns: () => void (hold = true),
    release: () => {
      hold = false;
      for (const p of pending.splice(0)) p();
    },
  };
}

async function header(credentials: Credentials): Promise<string | undefined> {
  const opts: RequestOptions = {};
  await credentials.applyAuthentication(execUser, opts);
  return (opts.headers as Record<string, string> | undefined)?.Authorization;
}

describe('Credentials', () => {
  it('runs the plugin in the environment kubectl gives it, and reuses the token until it expires', async () => {
    const p = plugin(15 * 60_000);
    expect(await header(p.credentials)).toBe('Bearer token-1');
    expect(await header(p.credentials)).toBe('Bearer token-1');
    p.clock.now += 15 * 60_000;
    expect(await header(p.credentials)).toBe('Bearer token-2');
    expect(p.runs[0]?.env).toEqual({
      PATH: '/usr/bin',
      AWS_PROFILE: 'prod',
      KUBERNETES_EXEC_INFO: '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{"interactive":false}}',
    });
  });

  it('runs the plugin once for requests that need a token at the same time', async () => {
    const p = plugin(60_000);
    p.holdRuns();
    const headers = Promise.all([header(p.credentials), header(p.credentials), header(p.credentials)]);
    p.release();
    expect(await headers).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-1']);
    expect(p.runs).toHaveLength(1);
  });

  it('keeps a token without expiry until a 401, then runs the plugin again', async () => {
    const p = plugin();
    const sent = await header(p.credentials);
    p.clock.now += 24 * 3600_000;
    expect(await header(p.credentials)).toBe('Bearer token-1');
    expect(await p.credentials.refresh(sent)).toBe(true);
    expect(await header(p.credentials)).toBe('Bearer token-2');
    expect(p.runs).toHaveLength(2);
  });

  it('runs the plugin once for a burst of 401s, and not at all for a 401 to a token already replaced', async () => {
    const p = plugin(15 * 60_000);
    const sent = await header(p.credentials);
    p.holdRuns();
    const burst = Promise.all([p.credentials.refresh(sent), p.credentials.refresh(sent), p.credentials.refresh(sent)]);
    p.release();
    expect(await burst).toEqual([true, true, true]);
    expect(p.runs).toHaveLength(2);
    // A slow request sent with token-1 answered 401 after token-2 arrived: retry with token-2, no new run.
    expect(await p.credentials.refresh(sent)).toBe(true);
    expect(await header(p.credentials)).toBe('Bearer token-2');
    expect(p.runs).toHaveLength(2);
  });

  it('does not run the plugin again for a 401 to the token a 401 got before any answer accepted it; once accepted, does', async () => {
    const p = plugin();
    const first = await header(p.credentials);
    expect(await p.credentials.refresh(first)).toBe(true);
    const second = await header(p.credentials);
    expect(second).toBe('Bearer token-2');
    // Another read, started with token-2 while the first was retried, is rejected too: the credentials are bad.
    expect(await p.credentials.refresh(second)).toBe(false);
    expect(p.runs).toHaveLength(2);
    // Accepted, then revoked (a session ended): a 401 is news again.
    p.credentials.accepted(second);
    expect(await p.credentials.refresh(second)).toBe(true);
    expect(await header(p.credentials)).toBe('Bearer token-3');
  });

  it('has nothing to refresh for a static token, and claims no user', async () => {
    const credentials = new Credentials({ name: 'prod', token: 'static' }, { run: () => Promise.reject(new Error('never run')) });
    expect(credentials.refreshable).toBe(false);
    expect(credentials.isAuthProvider({ name: 'prod', token: 'static' })).toBe(false);
    expect(await credentials.refresh('Bearer static')).toBe(false);
  });

  it('fails with a CredentialsError naming the plugin, and runs it again on the next request', async () => {
    let runs = 0;
    const credentials = new Credentials(execUser, {
      run: () => (++runs === 1 ? Promise.reject(new Error('exited with code 255: Error loading SSO Token: Token for sso-session prod has expired')) : Promise.resolve('k8s-aws-v1.not-json')),
    });
    await expect(header(credentials)).rejects.toThrow(new CredentialsError('exec plugin "aws" exited with code 255: Error loading SSO Token: Token for sso-session prod has expired'));
    const second = header(credentials);
    await expect(second).rejects.toBeInstanceOf(CredentialsError);
    await expect(second).rejects.toThrow('exec plugin "aws" printed no ExecCredential JSON on stdout (19 bytes)');
    expect(runs).toBe(2);
  });
});
