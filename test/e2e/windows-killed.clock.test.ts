// Upgrade windows (--window) end to end: the built CLI against the sandbox, sampled from the simulated Karpenter's own
// record of the drift commands it started. The sandbox reads budget schedules on the wall clock, as Karpenter does
// (sandbox/karpenter/clock.ts `wall`, disruption-controller.ts `allowance`), so the windows here open on real minutes
// a little after the test starts, and this file takes about three minutes. windows-resume.clock.test.ts: the re-run.
import { describe, expect, it } from 'vitest';
import { allowedDisruptions, isBudgetActive, type Budget } from '../../src/karpenter/budgets.js';
import { ExitCode } from '../../src/errors.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, follow, managedFieldsOf } from './staged.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MINUTE = 60_000;
// Karpenter polls for disruption every 10 simulated seconds; at the slowest speed here that is 5 real seconds.
const POLL_SLACK_MS = 15_000;

/** The first whole minute at least 20 s away: time to run the command before it opens. */
function nextMinute(): Date {
  return new Date(Math.ceil((Date.now() + 20_000) / MINUTE) * MINUTE);
}
/** A one-minute window at `at`, daily, in Karpenter's form. */
const windowAt = (at: Date) => `${at.getUTCMinutes()} ${at.getUTCHours()} * * */1m`;
const untilTime = (t: Date) => sleep(Math.max(0, t.getTime() - Date.now()));

const budgetsIn = (sandbox: Sandbox, pool: string) =>
  (sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.spec as { disruption: { budgets: Budget[] } }).disruption
    .budgets;
const started = (sandbox: Sandbox) => sandbox.simulator.disruptions.entries().map((d) => new Date(d.time));
const amiTerms = (sandbox: Sandbox) =>
  sandbox.kube.store.list('ec2nodeclasses.karpenter.k8s.aws').map((c) => JSON.stringify((c.spec as { amiSelectorTerms: unknown }).amiSelectorTerms));
// batch's budgets are Argo CD's: windows are budgets, so every NodePool is held with one.
const UPGRADE = ['upgrade', '--to', '1.30', '--hold-with', 'budget', '--force-conflicts', '--yes', '-o', 'json'];

describe('upgrade windows, with no run alive', () => {
  it('outside the window nothing starts; inside it Karpenter drifts; killed, Karpenter itself stops when it closes', async () => {
    const sandbox = await scenario('staged', 2);
    const [budgets, owners, terms] = [budgetsOf(sandbox), managedFieldsOf(sandbox), amiTerms(sandbox)];
    const opens = nextMinute();
    const args = [...UPGRADE, '--window', windowAt(opens)];

    const early = await karpDrift(sandbox, args);
    expect(early.code, early.stderr).toBe(ExitCode.PausedByWindow);
    const opensText = `${opens.toUTCString().slice(0, 3)} ${opens.toISOString().slice(11, 16)} UTC`;
    expect(early.stderr).toMatch(new RegExp(`^paused by the window, next window opens ${opensText} \\(in [0-9ms]+\\): nothing was applied`, 'm'));
    expect(early.events.find((e) => e.type === 'window')).toMatchObject({ event: 'waiting', opensAt: opens.toISOString().replace('.000', '') });
    expect(amiTerms(sandbox)).toEqual(terms); // nothing applied
    for (const pool of ['canary', 'general', 'batch']) {
      // The windows' budget (Drifted at 0 from the window's end to its next start) sits before the switch and hold.
      expect(budgetsIn(sandbox, pool).at(-3)).toMatchObject({ nodes: '0', reasons: ['Drifted'], duration: '23h59m' });
    }

    // Until the window opens: not one command.
    while (Date.now() < opens.getTime()) {
      expect(started(sandbox)).toEqual([]);
      await sleep(1000);
    }

    const run = follow(sandbox, args);
    await run.until((e) => e.type === 'window' && e.event === 'opened', 60_000);
    for (let waited = 0; started(sandbox).length === 0; waited += 100) {
      if (waited > 40_000) throw new Error(`no replacement started inside the window; stderr:\n${run.stderr()}`);
      await sleep(100);
    }
    // Killed outright inside the window: its hold stays at what the wave allowed, its switch fires minutes later.
    run.child.kill('SIGKILL');
    await run.exited;
    expect(Math.min(...started(sandbox).map((t) => t.getTime()))).toBeGreaterThanOrEqual(opens.getTime());

    // The window closes: from Karpenter's next pass on, nothing more starts, though nodes are left to drift and the
    // switch has not fired: what holds them is the windows' budget, Karpenter's own schedule.
    const closes = new Date(opens.getTime() + MINUTE);
    await untilTime(new Date(closes.getTime() + POLL_SLACK_MS));
    const settled = started(sandbox).length;
    expect(started(sandbox).every((t) => t.getTime() < closes.getTime() + POLL_SLACK_MS)).toBe(true);
    const list = budgetsIn(sandbox, 'general');
    expect(isBudgetActive(list.at(-2)!, new Date())).toMatchObject({ active: false }); // the switch
    expect(isBudgetActive(list.at(-3)!, new Date())).toMatchObject({ active: true }); // the window's
    expect(allowedDisruptions(list, { numNodes: 24, disrupting: 0 }, 'Drifted', new Date()).allowed).toBe(0);
    await sleep(30_000);
    expect(started(sandbox).length).toBe(settled);
    expect(settled).toBeLessThan(33);
    // Not for want of room: replacements finished after the close, and without the windows' budget general's own
    // budget and the dead run's hold would let Karpenter start more of its old nodes now.
    const records = sandbox.simulator.disruptions.entries();
    expect(records.some((d) => d.finished !== undefined && new Date(d.finished).getTime() > closes.getTime())).toBe(true);
    const inFlight = records.filter((d) => d.nodePool === 'general' && d.finished === undefined && d.failed === undefined).length;
    const withoutWindows = budgetsIn(sandbox, 'general').filter((_, i, all) => i !== all.length - 3);
    expect(allowedDisruptions(withoutWindows, { numNodes: 24, disrupting: inFlight }, 'Drifted', new Date()).allowed).toBeGreaterThan(0);
    expect(records.filter((d) => d.nodePool === 'general').length).toBeLessThan(24);

    // resume gives every NodePool its own budgets and their owners back, windows and all gone.
    const resumed = await karpDrift(sandbox, ['resume', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(budgets);
    expect(managedFieldsOf(sandbox)).toEqual(owners);
  }, 330_000);
});
