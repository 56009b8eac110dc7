// `karp-drift wait` end to end: one command applies (`upgrade --no-wait`, a staged upgrade in another process, a
// `pause`), `wait` follows what the cluster is doing, read-only, and ends with the documented exit code. The checks
// read the sandbox's store, not karp-drift's account.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, MAIN, scenario } from './cli-sandbox.js';

const writesSince = (sandbox: Sandbox, from: number) =>
  sandbox.kube.requests
    .slice(from)
    .filter((r) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb)).length;

/** Every NodeClaim not being deleted runs an AMI its class resolves now. */
function allOnTarget(sandbox: Sandbox): boolean {
  const amis = new Map(
    sandbox.kube.store
      .list('ec2nodeclasses.karpenter.k8s.aws')
      .map((c) => [c.metadata.name, ((c.status as { amis?: Array<{ id: string }> }).amis ?? []).map((a) => a.id)]),
  );
  const classOf = new Map(
    sandbox.kube.store
      .list('nodepools.karpenter.sh')
      .map((p) => [
        p.metadata.name,
        (p.spec as { template: { spec: { nodeClassRef: { name: string } } } }).template.spec.nodeClassRef.name,
      ]),
  );
  return sandbox.kube.store
    .list('nodeclaims.karpenter.sh')
    .filter((c) => c.metadata.deletionTimestamp === undefined)
    .every((c) =>
      (amis.get(classOf.get(c.metadata.labels?.['karpenter.sh/nodepool']) ?? '') ?? []).includes(
        (c.status as { imageID?: string }).imageID ?? '',
      ),
    );
}

describe('karp-drift wait', () => {
  it('after upgrade --no-wait: follows the drift the apply caused to the end (exit 0), writing nothing', async () => {
    const sandbox = await scenario('default', 120);
    const applied = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Follow with: karp-drift wait');
    expect(allOnTarget(sandbox)).toBe(false);
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
  });

  it('a rollout that cannot progress: exit 4 with the diagnosis', async () => {
    const sandbox = await scenario('budget-blocked', 120);
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait'])).code).toBe(0);
    const run = await karpDrift(sandbox, ['wait', '--stall-timeout', '10s'], 120_000);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('STALL-BUDGET');
    expect(run.stderr).toMatch(/frozen/);
  });

  it('--timeout: exit 5, and waiting again goes on', async () => {
    const sandbox = await scenario('default', 10);
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait'])).code).toBe(0);
    const run = await karpDrift(sandbox, ['wait', '--timeout', '2s']);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('karp-drift wait');
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
