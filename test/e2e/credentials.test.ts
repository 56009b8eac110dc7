// An exec credential plugin's token rejected mid-run, as an `aws eks get-token` token is when its session is revoked
// or the clocks disagree: karp-drift runs the plugin again once and carries on; a new token rejected too ends the
// run with exit 1, a message naming the plugin and what to do, no token printed, and nothing written.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

interface Plugin {
  kubeconfig: string;
  script: string;
  /** Every token the plugin has printed or will print next: none may appear in any output. */
  tokens: string[];
  /** How many times karp-drift ran it. */
  runs(): number;
  /** The plugin prints a new token from now on; the API server stops accepting the old one, and accepts the new one if `accepted`. */
  rotate(accepted: boolean): void;
}

/** A `#!/bin/sh` exec plugin printing the token in its token file, with an expiry 15 minutes ahead, as EKS's do. */
async function execPlugin(sandbox: Sandbox, accepted = true): Promise<Plugin> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-credentials-'));
  const [tokenFile, calls, script, kubeconfig] = ['token', 'calls', 'get-token', 'kubeconfig'].map((f) => join(dir, f)) as [string, string, string, string];
  const expiry = new Date(Date.now() + 15 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      `echo run >> "${calls}"`,
      `printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"${expiry}"}}\\n' "$(cat "${tokenFile}")"`,
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: eks, cluster: { server: "${sandbox.kube.url}", certificate-authority-data: "${Buffer.from(sandbox.kube.caData).toString('base64')}" } }]`,
      `users: [{ name: eks-user, user: { exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: "${script}", args: [eks, get-token], interactiveMode: Never } } }]`,
      'contexts: [{ name: eks, context: { cluster: eks, user: eks-user } }]',
      'current-context: eks',
    ].join('\n') + '\n',
  );
  const tokens: string[] = [];
  const next = (ok: boolean) => {
    const token = `k8s-aws-v1.${randomBytes(24).toString('hex')}`;
    tokens.push(token);
    writeFileSync(tokenFile, token);
    if (ok) sandbox.kube.auth.accept(token);
  };
  next(accepted);
  appendFileSync(calls, '');
  return {
    kubeconfig,
    script,
    tokens,
    runs: () => readFileSync(calls, 'utf8').split('\n').filter((l) => l === 'run').length,
    rotate: (ok) => {
      sandbox.kube.auth.revoke(tokens.at(-1)!);
      next(ok);
    },
  };
}

const unauthorized = (sandbox: Sandbox, verb: string) => sandbox.kube.requests.filter((r) => r.code === 401 && r.verb === verb).length;

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('an exec plugin token rejected mid-run', () => {
  it('is replaced by running the plugin again, once per burst of 401s: at the apply, and when every watch reconnects', async () => {
    const sandbox = await scenario('default', 120);
    const plugin = await execPlugin(sandbox);
    // The first apply is served with the first token; then only the second one is honoured, so the next apply is
    // answered 401 until the plugin has run again.
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['ec2nodeclasses'] }, () => plugin.rotate(true));
    let finished = false;
    const running = karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--kubeconfig', plugin.kubeconfig, '-o', 'json', '-v']).finally(() => (finished = true));

    // Following: revoke that token and cut every watch, as an API server restart after a revocation does. Every
    // stream reconnects at once and gets 401; one plugin run serves them all.
    const watching = () => sandbox.kube.requests.filter((r) => r.verb === 'watch' && r.code === 200).length;
    await until(() => finished || watching() >= 4, 'the follow to open its watches');
    expect(finished, 'the rollout ended before the watches were cut').toBe(false);
    plugin.rotate(true);
    const cut = sandbox.kube.requests.length;
    sandbox.kube.faults.dropWatches();

    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(run.events.filter((e) => e.type === 'applied')).toHaveLength(2);
    // The second class's apply first reads what karp-drift owns on it (cluster/apply.ts), and that read meets the 401.
    const atApply = sandbox.kube.requests.filter((r) => r.code === 401 && r.resource === 'ec2nodeclasses' && ['get', 'patch'].includes(r.verb));
    expect(atApply.map((r) => r.verb)).toEqual(['get']);
    // After the cut: the watches reconnecting, or a staged run's lease renewal or hold write, whichever asks first.
    expect(sandbox.kube.requests.slice(cut).filter((r) => r.code === 401).length).toBeGreaterThanOrEqual(1);
    // The first token, one after the apply's 401, one after the watches' 401s.
    expect(plugin.runs()).toBe(3);
    expect(run.stderr).toContain(`running exec plugin "${plugin.script}" of kubeconfig user "eks-user" again for a new token`);
    for (const token of plugin.tokens) expect(`${run.stdout}${run.stderr}`).not.toContain(token);
  });
});

describe('an exec plugin whose new token is rejected too', () => {
  it.each([[[]], [['-v']], [['-o', 'json']]])('before any request succeeds: exit 1 naming the plugin and what next, the plugin run twice, no token printed (%j)', async (flags) => {
    const sandbox = await scenario('default');
    const plugin = await execPlugin(sandbox, false);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--kubeconfig', plugin.kubeconfig, ...flags]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`(context "eks") rejected the token from exec plugin "${plugin.script}" of kubeconfig user "eks-user" (401 Unauthorized)`);
    expect(run.stderr).toContain('and again after the plugin was run for a new one');
    expect(run.stderr).toMatch(/next: aws sts get-caller-identity .*\(aws sso login if its session expired\)/);
    // One run for the first request, one after its 401: never a loop on a plugin that keeps printing rejected tokens.
    expect(plugin.runs()).toBe(2);
    for (const token of plugin.tokens) expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('at the RBAC preflight (a generated client): exit 1 before the apply, one plugin run for every rejected review', async () => {
    const sandbox = await scenario('default');
    const plugin = await execPlugin(sandbox);
    sandbox.kube.faults.beforeNext({ verbs: ['create'], resources: ['selfsubjectaccessreviews'] }, () => plugin.rotate(false));
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--kubeconfig', plugin.kubeconfig, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/rejected the token from exec plugin ".*" of kubeconfig user "eks-user" \(401 Unauthorized\) while sending POST \/apis\/authorization\.k8s\.io\/v1\/selfsubjectaccessreviews, and again after/);
    expect(unauthorized(sandbox, 'create')).toBeGreaterThanOrEqual(2);
    expect(plugin.runs()).toBe(2);
    for (const token of plugin.tokens) expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    expect(httpWrites(sandbox)).toBe(0);
    expect(sandbox.kube.requests.filter((r) => r.verb === 'patch')).toEqual([]);
  });

  it('a static token rejected: exit 1, not refreshable, what next', async () => {
    const sandbox = await scenario('default');
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-credentials-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{ name: eks, cluster: { server: "${sandbox.kube.url}", insecure-skip-tls-verify: true } }]`,
        'users: [{ name: u, user: { token: not-a-real-token } }]',
        'contexts: [{ name: eks, context: { cluster: eks, user: u } }]',
        'current-context: eks',
      ].join('\n') + '\n',
    );
    const run = await karpDrift(sandbox, ['status', '--kubeconfig', kubeconfig, '-v']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('rejected the static token of kubeconfig user "u" (401 Unauthorized)');
    expect(run.stderr).toContain('a static token cannot be refreshed');
    expect(run.stderr).toContain('next: replace the token, or run aws eks update-kubeconfig --name <cluster>');
    expect(`${run.stdout}${run.stderr}`).not.toContain('not-a-real-token');
  });
});
