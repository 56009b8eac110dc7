// `karp-drift wait` end to end: one command applies (`upgrade --no-wait`), `wait` follows what the cluster is doing,
// read-only, and ends with the documented exit code. The checks read the sandbox's store, not karp-drift's account.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { writesSince, allOnTarget, recordedCommands } from './wait.js';

describe('karp-drift wait', () => {
  it('after upgrade --no-wait: follows the drift the apply caused to the end (exit 0), changing nothing but its run record', async () => {
    const sandbox = await scenario('default', 120);
    const applied = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Follow with: karp-drift wait');
    // Something to wait for: nodes still run other AMIs than the ones just pinned.
    expect(allOnTarget(sandbox, 'pinned')).toBe(false);
    const from = sandbox.kube.requests.length;
    const run = await karpDrift(sandbox, ['wait', '-o', 'json'], 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events[0]).toMatchObject({ type: 'wait', targetMinor: '1.30', nodePools: ['arm', 'general', 'system'] });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(allOnTarget(sandbox)).toBe(true);
    // Once done, waiting again is done at once; the result on stdout as upgrade prints it.
    const again = await karpDrift(sandbox, ['wait']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /^Rollout complete: every node runs the Kubernetes 1\.30 AMIs Karpenter resolved \(arm: \d+ on target; general: \d+ on target; system: \d+ on target\)\.\n$/,
    );
    expect(writesSince(sandbox, from)).toBe(0);
    // What it wrote is the record of each run, for `karp-drift history`.
    expect(recordedCommands(sandbox)).toEqual(['upgrade', 'wait', 'wait']);
  });

  it('--timeout: exit 5, and waiting again goes on', async () => {
    const sandbox = await scenario('default', 10);
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait'])).code).toBe(0);
    const run = await karpDrift(sandbox, ['wait', '--timeout', '2s']);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('karp-drift wait');
  });

  it('bad input: an unknown --nodeclass or duration is exit 2', async () => {
    const sandbox = await scenario('default');
    const unknown = await karpDrift(sandbox, ['wait', '--nodeclass', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nope/);
    const zero = await karpDrift(sandbox, ['wait', '--timeout', '0s']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--timeout');
  });
});
