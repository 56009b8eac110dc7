// `karp-drift sandbox --detach` and `--context` as a user's shell meets them: a command substitution that returns once
// the sandbox serves, a kill that stops it and leaves nothing behind, and two sandboxes that a merged kubeconfig
// (KUBECONFIG=a:b, where the first entry of a name wins) keeps apart.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bashIn, processGone, sandboxesUnder, stopSandboxesUnder, tmpOf } from './sandbox-shell.js';

const BIN = new URL('../../dist/bin.cjs', import.meta.url).pathname;

async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-detach-'));
  onTestFinished(async () => {
    await stopSandboxesUnder(dir);
    await Promise.all([rm(dir, { recursive: true, force: true }), rm(tmpOf(dir), { recursive: true, force: true })]);
  });
  return dir;
}

function exportsOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/^export ([A-Z_0-9]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('karp-drift sandbox --detach', () => {
  it('returns from eval "$(…)" once the sandbox serves, in a script, and stops on kill leaving nothing behind', async () => {
    const dir = await workDir();
    const started = Date.now();
    const run = await bashIn(dir, [
      'set -e',
      'eval "$(karp-drift sandbox --detach)"',
      // No wait, no poll: the sandbox answers at once.
      'karp-drift status -o json > status.json',
      'echo "pid=$KARP_DRIFT_SANDBOX_PID kubeconfig=$KUBECONFIG"',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.stderr).toMatch(/^sandbox "default": EKS cluster sandbox .* 12 nodes; kubeconfig context karp-drift-sandbox-default-\d+$/m);
    const [, pid, kubeconfig] = /pid=(\d+) kubeconfig=(\S+)/.exec(run.stdout) ?? [];
    expect(run.stderr).toMatch(new RegExp(`^Serving in the background as process ${pid}, its log in \\S+; stop it with: kill ${pid}$`, 'm'));
    const status = JSON.parse(await readFile(join(dir, 'status.json'), 'utf8')) as { cluster: { context: string; server: string } };
    expect(status.cluster.context).toBe(`karp-drift-sandbox-default-${new URL(status.cluster.server).port}`);

    // The background process holds none of the caller's streams and is its own process group (Ctrl-C in the
    // terminal does not reach it); it serves until killed, then removes its kubeconfig and its log.
    const log = /its log in (\S+);/.exec(run.stderr)![1]!;
    expect(existsSync(log)).toBe(true);
    process.kill(Number(pid), 'SIGTERM');
    await processGone(Number(pid));
    expect(existsSync(kubeconfig!)).toBe(false);
    expect(existsSync(join(log, '..'))).toBe(false);
  });

  it('keeps two default sandboxes apart in a merged kubeconfig, and names a context with --context', async () => {
    const dir = await workDir();
    const run = await bashIn(dir, [
      'set -e',
      'karp-drift sandbox --detach > a.env',
      'karp-drift sandbox --detach > b.env',
      'karp-drift sandbox --detach --context staging --kubeconfig staging.yaml -o json > staging.json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const a = exportsOf(await readFile(join(dir, 'a.env'), 'utf8'));
    const b = exportsOf(await readFile(join(dir, 'b.env'), 'utf8'));
    const staging = JSON.parse(await readFile(join(dir, 'staging.json'), 'utf8')) as { context: string; server: string; pid: number };
    expect(staging.context).toBe('staging');
    expect(load(await readFile(join(dir, 'staging.yaml'), 'utf8'))).toMatchObject({
      clusters: [{ name: 'staging', cluster: { server: staging.server } }],
      users: [{ name: 'staging-admin' }],
      contexts: [{ name: 'staging', context: { cluster: 'staging', user: 'staging-admin' } }],
      'current-context': 'staging',
    });

    // Each context of the merged kubeconfig reaches its own sandbox (with the other's name, the second would reach
    // the first's server, or be refused its token).
    const merged = [a.KUBECONFIG, b.KUBECONFIG, join(dir, 'staging.yaml')].join(':');
    const servers: string[] = [];
    for (const env of [a, b]) {
      const context = await statusOf(dir, merged, `karp-drift-sandbox-default-${portOf(env)}`);
      servers.push(context.server);
      expect(context.server).toBe(`https://127.0.0.1:${portOf(env)}`);
    }
    expect(new Set(servers).size).toBe(2);
    expect((await statusOf(dir, merged, 'staging')).server).toBe(staging.server);
  });

  it('says the background process\'s error as its own, with its exit code, and leaves no process or log', async () => {
    const dir = await workDir();
    const foreground = await bashIn(dir, ['karp-drift sandbox --scenario no-such-scenario']);
    const detached = await bashIn(dir, ['karp-drift sandbox --detach --scenario no-such-scenario --env-out e.env']);
    expect(detached.code).toBe(2);
    expect(detached.stderr).toBe(foreground.stderr);
    expect(detached.stderr).toMatch(/^error: no built-in scenario named "no-such-scenario"/);
    expect(detached.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops the background process when interrupted before the sandbox serves: exit 130, nothing left', async () => {
    const dir = await workDir();
    await mkdir(tmpOf(dir), { recursive: true });
    // `large` takes seconds to build: the window in which a person gives up and presses Ctrl-C.
    const child = spawn(process.execPath, [BIN, 'sandbox', '--detach', '--scenario', 'large'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, TMPDIR: tmpOf(dir) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 200 && sandboxesUnder(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const [background] = sandboxesUnder(dir);
    expect(background).toBeDefined();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toBe('error: interrupted before the sandbox was ready; its background process was stopped\n');
    await processGone(background!, 30_000);
    expect(readdirSync(tmpOf(dir)).filter((f) => f.startsWith('karp-drift-sandbox-'))).toEqual([]);
  });

  it('writes --env-out whole, mode 0600, over a file an earlier sandbox left', async () => {
    const dir = await workDir();
    await writeFile(join(dir, 'sandbox.env'), "export KUBECONFIG='/gone/kubeconfig'\n");
    const run = await bashIn(dir, ['karp-drift sandbox --detach --env-out sandbox.env > stdout.env', '. ./sandbox.env', 'karp-drift status -q > /dev/null']);
    expect(run.code, run.stderr).toBe(0);
    const text = await readFile(join(dir, 'sandbox.env'), 'utf8');
    expect(text).toBe(await readFile(join(dir, 'stdout.env'), 'utf8'));
    expect(Object.keys(exportsOf(text))).toContain('KARP_DRIFT_SANDBOX_PID');
    expect(statSync(join(dir, 'sandbox.env')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['sandbox.env', 'stdout.env']); // no temp file left
    // Stopped, the sandbox takes its --env-out with it: sourced later, it would point at a sandbox that is gone.
    const pid = Number(exportsOf(text).KARP_DRIFT_SANDBOX_PID);
    process.kill(pid, 'SIGTERM');
    await processGone(pid, 30_000);
    expect(readdirSync(dir).sort()).toEqual(['stdout.env']);
  });
});

/** The API server's port, from the kubeconfig the sandbox wrote. */
function portOf(env: Record<string, string>): string {
  return /server: https:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(env.KUBECONFIG!, 'utf8'))![1]!;
}

function statusOf(dir: string, kubeconfig: string, context: string): Promise<{ context: string; server: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, 'status', '--context', context, '-o', 'json'], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve((JSON.parse(stdout) as { cluster: { context: string; server: string } }).cluster);
    });
  });
}
