// A CI runner whose clock is off the cluster's (issue 35 item 2): the sandbox's whole clock — its API server's Date,
// the times it writes, the budget schedules its Karpenter reads — runs 3 minutes ahead of or behind this machine's
// (startSandbox `clockSkewMs`), so the built CLI meets exactly what a skewed runner meets. The dead man's switch must
// still fire 2–3 minutes after the run's last write by the cluster's clock, the upgrade window must be open or closed
// by the cluster's clock, and the run says once how far off its clock is.
import { describe, expect, it, onTestFinished } from 'vitest';
import { switchState } from '../../src/apis/budget-hold.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift } from './cli-sandbox.js';
import { follow } from './staged.js';

const MIN = 60_000;

async function skewedSandbox(skewMs: number): Promise<Sandbox> {
  const sandbox = await startSandbox({ scenario: 'staged', speed: 240, clockSkewMs: skewMs });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

const budgetsOf = (sandbox: Sandbox, pool: string) =>
  (sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.spec as { disruption: { budgets: Budget[] } }).disruption.budgets;

describe('a runner whose clock is off the API server’s', () => {
  it.each<[string, number, RegExp]>([
    // Before: armed at the runner's now + 3 min = the cluster's now: active at once, drift held at 0 the whole run.
    ['3 minutes behind: the switch is armed ahead of the cluster’s minute, not at it', 3 * MIN, /this machine's clock is 3m behind the API server's/],
    // Before: armed 6 minutes ahead by the cluster's clock: a dead run drained twice as long.
    ['3 minutes ahead: the switch fires 3 minutes after the last write, not 6', -3 * MIN, /this machine's clock is 3m ahead of the API server's/],
  ])('%s', async (_name, skewMs, warning) => {
    const sandbox = await skewedSandbox(skewMs);
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--canary', 'general', '--waves', '6,100%', '--yes', '-o', 'json']);
    await run.until((e) => e.type === 'hold' && e.nodePool === 'general' && (e.allowance as number) > 0, 60_000);
    // Read as Karpenter reads it, at the cluster's time: not fired, and due within the bound.
    const clusterNow = sandbox.clock.wall();
    const sw = switchState(budgetsOf(sandbox, 'general'), clusterNow);
    expect(sw?.active).toBe(false);
    const ahead = sw!.at!.getTime() - clusterNow.getTime();
    expect(ahead).toBeGreaterThan(MIN); // 2–3 minutes when written; some of it may have passed since
    expect(ahead).toBeLessThanOrEqual(3 * MIN);
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // Said once, on stderr, with how far and which way.
    expect(run.stderr().match(/^warning: this machine's clock is /gm)).toHaveLength(1);
    expect(run.stderr()).toMatch(warning);
  }, 120_000);

  it('an upgrade window open by the cluster’s clock, not yet by the runner’s (3 minutes behind): the run goes on in it', async () => {
    const skewMs = 3 * MIN;
    const sandbox = await skewedSandbox(skewMs);
    // Opens at least a minute after the runner's now and at least a minute before the cluster's, for 15 minutes.
    const opens = new Date(Math.ceil((Date.now() + MIN) / MIN) * MIN);
    const flag = `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * */15m`;
    const run = await karpDrift(
      sandbox,
      ['upgrade', '--to', '1.30', '--window', flag, '--hold-with', 'budget', '--force-conflicts', '--yes', '-o', 'json'],
      110_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.find((e) => e.type === 'window')).toMatchObject({ event: 'opened' });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(run.stderr).toMatch(/^warning: this machine's clock is 3m behind the API server's/m);
  }, 120_000);
});
