// `karp-drift status` end to end: one read, and `--watch` following a rollout with watches instead of re-listing
// the cluster (one NDJSON document per change with -o json), ended by Ctrl-C with exit 0.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAIN, karpDrift, scenario } from './cli-sandbox.js';
import { checkContract } from './contracts.js';

interface StatusDoc {
  kubernetesVersion: string;
  nodePools: Array<{ name: string; nodes: number; byKubeletVersion: Record<string, number>; drifted: number }>;
  holds: Array<Record<string, unknown>>;
}

describe('karp-drift status', () => {
  it('prints each NodePool once, by kubelet version and AMI', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as StatusDoc;
    expect(doc.nodePools.map((p) => [p.name, p.nodes])).toEqual([
      ['arm', 3],
      ['general', 6],
      ['system', 3],
    ]);
    expect(doc.nodePools.every((p) => Object.keys(p.byKubeletVersion).every((v) => v.startsWith('v1.29.')))).toBe(true);
  });

  it('shows the hold pause put on a NodePool, and none once resume released it', async () => {
    const sandbox = await scenario('default');
    const paused = await karpDrift(sandbox, ['pause', '--nodepool', 'general']);
    expect(paused.code, paused.stderr).toBe(0);
    const annotation = (
      sandbox.kube.store.get('nodepools.karpenter.sh', 'general') as unknown as {
        metadata: { annotations: Record<string, string> };
      }
    ).metadata.annotations['karp-drift.io/drift-hold']!;
    const { runId, since } = JSON.parse(annotation) as { runId: string; since: string };

    const text = await karpDrift(sandbox, ['status']);
    expect(text.code, text.stderr).toBe(0);
    const section = text.stdout.slice(text.stdout.indexOf('Drift held by karp-drift:'));
    expect(section.split('\n').slice(0, 4)).toEqual([
      'Drift held by karp-drift:',
      expect.stringMatching(/^NODEPOOL +HOLD +AGE +RUN$/),
      expect.stringMatching(new RegExp(`^general +budget \\(Drifted: 0 more\\) +(<1m|\\d+m) +${runId.slice(0, 8)}…$`)),
      'karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on',
    ]);
    expect(
      text.stdout
        .split('\n')
        .filter((l) => !/^ {2}|^STALL-/.test(l))
        .every((l) => l.length <= 80),
    ).toBe(true);

    const json = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as StatusDoc).holds).toEqual([
      { nodePool: 'general', mechanism: 'budget', since, runId, allowance: 0, budgets: [{ nodes: '20%' }], state: 'paused' },
    ]);

    expect((await karpDrift(sandbox, ['resume'])).code).toBe(0);
    const after = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect((JSON.parse(after.stdout) as StatusDoc).holds).toEqual([]);
    expect((await karpDrift(sandbox, ['status'])).stdout).not.toContain('Drift held');
  });

  it('--watch follows a rollout through watches, one document per change, and ends on Ctrl-C with exit 0', async () => {
    const sandbox = await scenario('default');
    const child = spawn(process.execPath, [MAIN, 'status', '--watch', '-o', 'json'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const docs: StatusDoc[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      buffered += c.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line !== '') docs.push(JSON.parse(line) as StatusDoc);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 60_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await until('the first document', () => docs.length > 0);
      const upgrade = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
      expect(upgrade.code, upgrade.stderr).toBe(0);
      const afterUpgrade = sandbox.kube.requests.length;
      const onTarget = (d: StatusDoc) =>
        d.nodePools.every(
          (p) => p.drifted === 0 && Object.keys(p.byKubeletVersion).every((v) => v.startsWith('v1.30.')),
        );
      await until('a document with every node on 1.30', () => docs.some(onTarget));
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(0);

      for (const d of docs) checkContract('status', 'status --watch -o json', d);
      // It saw the rollout move, not only its two ends.
      expect(docs.some((d) => d.nodePools.some((p) => p.drifted > 0))).toBe(true);
      expect(new Set(docs.map((d) => JSON.stringify(d))).size).toBe(docs.length); // printed on change only
      // Everything since the upgrade came from the watches: no list of pods or nodes was repeated.
      const since = sandbox.kube.requests.slice(afterUpgrade);
      expect(
        since.filter((r) => r.verb === 'list' && ['pods', 'nodes', 'nodeclaims'].includes(r.resource ?? '')),
      ).toEqual([]);
      expect(sandbox.kube.requests.filter((r) => r.verb === 'watch').length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
