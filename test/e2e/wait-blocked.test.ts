// `karp-drift wait` on a rollout that cannot finish: stalled by the cluster (exit 4), or halted by a health gate of a
// staged upgrade in another process (exit 6). The checks read the sandbox's store, not karp-drift's account.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { karpDrift, MAIN, scenario } from './cli-sandbox.js';

describe('karp-drift wait on a rollout that cannot finish', () => {
  it('a rollout that cannot progress: exit 4 with the diagnosis', async () => {
    const sandbox = await scenario('budget-blocked', 120);
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait'])).code).toBe(0);
    const run = await karpDrift(sandbox, ['wait', '--stall-timeout', '10s'], 120_000);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('STALL-BUDGET');
    expect(run.stderr).toMatch(/frozen/);
  });

  it('a staged upgrade halted by a health gate while wait follows it: exit 6 with the run’s reason, and again at once', async () => {
    const sandbox = await scenario('bad-ami', 60);
    const upgrade = spawn(
      process.execPath,
      [MAIN, 'upgrade', '--to', '1.30', '--canary', 'canary', '--yes', '-o', 'json'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
        stdio: 'ignore',
      },
    );
    const upgraded = new Promise<number | null>((resolve) => upgrade.on('exit', resolve));
    // Once the staged run holds the lock and its holds are on, the holds pace the rollout: wait follows.
    for (let i = 0; i < 200 && !sandbox.kube.store.get('leases.coordination.k8s.io', 'karp-drift', 'kube-system'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const run = await karpDrift(sandbox, ['wait'], 120_000);
    expect(await upgraded).toBe(6);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/paced by \S+@\S+ \(run [0-9a-f-]+\) \(karp-drift upgrade --to 1\.30 --canary canary/);
    expect(run.stderr).toContain(
      'error: the rollout is paused: karp-drift holds Drifted disruption on nodepool/canary, nodepool/general',
    );
    expect(run.stderr).toContain('the run said: a health gate stopped it: POD-FAILING');

    const again = await karpDrift(sandbox, ['wait', '-o', 'json']);
    expect(again.code).toBe(6);
    expect(again.events.at(-1)).toMatchObject({
      type: 'done',
      result: 'paused',
      cause: 'held',
      paused: ['canary', 'general'],
    });
  }, 120_000);
});
