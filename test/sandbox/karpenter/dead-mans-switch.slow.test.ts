// The simulated Karpenter reads a staged run's dead man's switch as karp-drift's readers do (one IsActive:
// src/karpenter/budgets.ts), over a year of simulated time: a dead run's hold that still allows 5 drains until the
// switch's minute, then nothing more starts at 29, 31, 180 and 364 days, replacements start again only in the hour
// its duration leaves before next year's hit, and stop at that hit. Time stepped by hand; budgets written through the
// API as karp-drift writes them.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HOLD_ANNOTATION, switchBudget, switchState } from '../../../src/apis/budget-hold.js';
import type { Budget } from '../../../src/karpenter/budgets.js';
import { customObjects, manualSandbox, pinToControlPlane, run } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("a dead run's switch in the simulated Karpenter", () => {
  it('holds from its minute until a year less its margin, as switchState says, at every checkpoint', async () => {
    const sandbox = await manualSandbox('staged');
    onTestFinished(() => sandbox.stop());
    const armAt = new Date(sandbox.clock.wall().getTime() + 2 * MIN); // 2026-11-23T10:02
    const sw = switchBudget(armAt);
    const budgets: Budget[] = [{ nodes: '50%' }, sw, { nodes: '5', reasons: ['Drifted'] }];
    const record = { runId: 'run-dead', since: sandbox.clock.wall().toISOString(), budgets: [{ nodes: '50%' }] };
    await customObjects(sandbox).patchClusterCustomObject(
      {
        group: 'karpenter.sh',
        version: 'v1',
        plural: 'nodepools',
        name: 'general',
        body: { metadata: { annotations: { [HOLD_ANNOTATION]: JSON.stringify(record) } }, spec: { disruption: { budgets } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await pinToControlPlane(sandbox, 'default');
    const started = () => sandbox.simulator.disruptions.entries().filter((r) => r.nodePool === 'general').length;
    const live = () =>
      (sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!.spec as { disruption: { budgets: Budget[] } }).disruption.budgets;

    // Until its minute the switch is inactive, and the hold the dead run left drains the NodePool.
    run(sandbox, 110);
    expect(switchState(live(), sandbox.clock.wall(), record)).toEqual({ active: false, at: armAt });
    const before = started();
    expect(before).toBeGreaterThan(0);

    // From its minute on, nothing more starts; what was in flight finishes.
    sandbox.clock.advance(armAt.getTime() - sandbox.clock.wall().getTime());
    run(sandbox, 600);
    const fired = started();
    for (const days of [29, 31, 180, 364]) {
      sandbox.clock.advance(armAt.getTime() + days * DAY - sandbox.clock.wall().getTime());
      expect(switchState(live(), sandbox.clock.wall(), record)).toEqual({ active: true, at: armAt });
      run(sandbox, 120);
      expect(started(), `${days} days on`).toBe(fired);
    }

    // Its duration (8759h: 2025-11-23 is 365 days back) over, the hour before next year's hit: Karpenter drains again,
    // and so karp-drift says (status: draining, until that hit).
    expect(sw.duration).toBe('8759h');
    sandbox.clock.advance(armAt.getTime() + 8759 * HOUR - sandbox.clock.wall().getTime());
    const nextYear = new Date(armAt.getTime() + 365 * DAY);
    expect(switchState(live(), sandbox.clock.wall(), record)).toEqual({ active: false, at: nextYear });
    run(sandbox, 30 * 60);
    const lapsed = started();
    expect(lapsed).toBeGreaterThan(fired);

    // At next year's hit it holds again.
    sandbox.clock.advance(nextYear.getTime() - sandbox.clock.wall().getTime());
    expect(switchState(live(), sandbox.clock.wall(), record)).toEqual({ active: true, at: nextYear });
    run(sandbox, 600);
    expect(started()).toBe(lapsed);
  }, 120_000);
});
