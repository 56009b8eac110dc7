// `karp-drift sandbox` as a user runs it: the built CLI in a child process, its export lines on stdout, a cluster
// and AWS endpoints reachable through them, and a clean shutdown on SIGINT.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';

const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^export ([A-Z_0-9]+)='([^']*)'$/gm)) env[m[1]!] = m[2]!;
  return env;
}

describe('karp-drift sandbox', () => {
  it('prints the environment, serves the default scenario to client-node and the AWS SDK, and stops cleanly on SIGINT', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-e2e-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const envOut = join(dir, 'sandbox.env');
    const child = spawn(process.execPath, [MAIN, 'sandbox', '--env-out', envOut], { stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 200 && !stderr.includes('Serving until interrupted'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stderr).toMatch(/sandbox "default": EKS cluster sandbox \(1\.30, us-west-2\) at https:\/\/127\.0\.0\.1:\d+, Karpenter 1\.14\.1 \(v1\).* 12 nodes/);
    // What the scenario is, from its description:
    expect(stderr).toContain('Control plane 1.30, 12 nodes on 1.29 AMIs (AL2023 and Bottlerocket, pinned by id); PDBs allow progress\n');

    const env = parseExports(stdout);
    expect(Object.keys(env).sort()).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_ENDPOINT_URL_EC2', 'AWS_ENDPOINT_URL_EKS', 'AWS_ENDPOINT_URL_SSM', 'AWS_REGION', 'AWS_SECRET_ACCESS_KEY', 'KARP_DRIFT_SANDBOX_PID', 'KUBECONFIG']);
    expect(env.KARP_DRIFT_SANDBOX_PID).toBe(String(child.pid));
    expect(await readFile(envOut, 'utf8')).toBe(stdout);

    const kc = new KubeConfig();
    kc.loadFromFile(env.KUBECONFIG!);
    // Named apart from any other sandbox by its port, which the summary line names too.
    const port = new URL(kc.getCurrentCluster()!.server).port;
    expect(kc.getCurrentContext()).toBe(`karp-drift-sandbox-default-${port}`);
    expect(stderr).toContain(`; kubeconfig context karp-drift-sandbox-default-${port}\n`);
    const nodes = await kc.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items).toHaveLength(12);

    // karp-drift amis reaches the sandbox's SSM and EC2 only through the SDK's endpoint variables.
    const { stdout: json } = await promisify(execFile)(process.execPath, [MAIN, 'amis', '--to', '1.30', '-o', 'json'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    });
    const amis = JSON.parse(json) as { region: string; amis: Array<{ id: string; name: string; state: string }> };
    expect(amis.region).toBe('us-west-2');
    expect(amis.amis.map((a) => a.name)).toEqual([
      expect.stringMatching(/^amazon-eks-node-al2023-x86_64-standard-1\.30-v\d{8}$/),
      expect.stringMatching(/^amazon-eks-node-al2023-arm64-standard-1\.30-v\d{8}$/),
    ]);

    // The exports are enough for --expect-cluster: EKS DescribeCluster through AWS_ENDPOINT_URL_EKS names the
    // summary's cluster, at the kubeconfig's server with its CA.
    const status = await promisify(execFile)(process.execPath, [MAIN, 'status', '--expect-cluster', 'sandbox'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    });
    expect(status.stdout).toContain('NODEPOOL');

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('Shutting down the sandbox.');
    expect(existsSync(env.KUBECONFIG!)).toBe(false); // its temp folder is removed
    expect(existsSync(envOut)).toBe(false); // and its --env-out, which would point a script at a sandbox that is gone
  });

  it('refuses an unknown scenario with exit 2, naming the built-ins', async () => {
    const result = await promisify(execFile)(process.execPath, [MAIN, 'sandbox', '--scenario', 'no-such-scenario']).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no-such-scenario');
    expect(result.stderr).toContain('pdb-blocked');
  });
});
