// SIGINT while following: it stops at once with exit 130, leaves the (default, staged) rollout paused and says how to
// pick it up; re-running the same upgrade says what it resumes, applies nothing and follows the rollout to the end.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { karpDrift, MAIN, scenario } from './cli-sandbox.js';

describe('interruption and resume', () => {
  it('exits 130 on SIGINT while following, and a re-run resumes without applying again', async () => {
    const sandbox = await scenario('default', 90);
    const child = spawn(process.execPath, [MAIN, 'upgrade', '--to', '1.30', '--yes'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    for (let i = 0; i < 600 && !stderr.includes('Waiting for NodePool'); i++) await new Promise((r) => setTimeout(r, 50));
    const sent = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(stderr).toContain('interrupted while following the rollout');
    expect(stderr).toContain('the staged rollout is paused: karp-drift holds Drifted disruption on nodepool/arm, nodepool/general, nodepool/system');
    expect(stderr).toContain('go on with the same command, which resumes at the wave where the cluster stands: karp-drift upgrade --to 1.30 --yes');

    const resumed = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.filter((e) => e.type === 'applied')).toEqual([]);
    // What it took on, in the plan it printed before it did.
    const plan = resumed.events.find((e) => e.type === 'plan')!.plan as { staged: { resume: Record<string, unknown> } };
    expect(plan.staged.resume).toMatchObject({ halted: false, pausedBy: { by: 'interrupted' } });
    expect(resumed.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
  });
});
