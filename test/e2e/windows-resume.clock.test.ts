// Upgrade windows (--window) end to end: the built CLI against the sandbox, sampled from the simulated Karpenter's own
// record of the drift commands it started. The sandbox reads budget schedules on the wall clock, as Karpenter does
// (sandbox/karpenter/clock.ts `wall`, disruption-controller.ts `allowance`), so the windows here open on real minutes
// a little after the test starts, and this file takes about three minutes. windows-killed.clock.test.ts: a run killed.
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, managedFieldsOf } from './staged.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MINUTE = 60_000;

/** The first whole minute at least 20 s away: time to run the command before it opens. */
function nextMinute(): Date {
  return new Date(Math.ceil((Date.now() + 20_000) / MINUTE) * MINUTE);
}
/** A one-minute window at `at`, daily, in Karpenter's form. */
const windowAt = (at: Date) => `${at.getUTCMinutes()} ${at.getUTCHours()} * * */1m`;
const untilTime = (t: Date) => sleep(Math.max(0, t.getTime() - Date.now()));

const started = (sandbox: Sandbox) => sandbox.simulator.disruptions.entries().map((d) => new Date(d.time));
// batch's budgets are Argo CD's: windows are budgets, so every NodePool is held with one.
const UPGRADE = ['upgrade', '--to', '1.30', '--hold-with', 'budget', '--force-conflicts', '--yes', '-o', 'json'];

describe('upgrade windows, run again', () => {
  it('a window that closes mid-rollout leaves it held (exit 7); the same command in the next window finishes it', async () => {
    const sandbox = await scenario('staged', 300);
    const [budgets, owners] = [budgetsOf(sandbox), managedFieldsOf(sandbox)];
    const first = nextMinute();
    const second = new Date(first.getTime() + 2 * MINUTE);
    // The canary's soak outlasts the first window: it spans the closed minute between them.
    const args = [...UPGRADE, '--canary', 'canary', '--soak', '100s', '--window', windowAt(first), '--window', windowAt(second)];
    await untilTime(first);

    const running = karpDrift(sandbox, args, 120_000);
    // `wait` beside the run, once it has applied (replacements started): it follows the paced rollout, and when the
    // window closes and the run leaves it held, it ends as the run does, paused by the window (exit 7), not exit 6.
    while (started(sandbox).length === 0) await sleep(200);
    const following = karpDrift(sandbox, ['wait', '-o', 'json'], 120_000);
    const [paused, waited] = await Promise.all([running, following]);
    expect(waited.code, waited.stderr).toBe(ExitCode.PausedByWindow);
    expect(waited.stderr).toMatch(/^paused by the window: waiting for the window that opens in [0-9ms]+ \(\w{3} \d\d:\d\d UTC\)/m);
    expect(waited.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'window', paused: ['batch', 'canary', 'general'] });
    expect(paused.code, paused.stderr).toBe(ExitCode.PausedByWindow);
    expect(paused.stderr).toMatch(/^paused by the window, next window opens \w{3} \d\d:\d\d UTC \(in [0-9ms]+\); the staged rollout is paused/m);
    expect(paused.events.find((e) => e.type === 'window' && e.event === 'closed')).toMatchObject({
      opensAt: second.toISOString().replace('.000', ''),
    });
    expect(paused.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'window' });
    // Its progress said when the window would close, beside its ETA.
    const closes = new Date(first.getTime() + MINUTE).toISOString().replace('.000', '');
    const said = paused.events.filter((e) => e.type === 'progress' && 'stage' in e).map((e) => e.windowClosesAt);
    expect(said.length).toBeGreaterThan(0);
    expect(new Set(said)).toEqual(new Set([closes]));
    const canaryDone = started(sandbox).length;
    expect(canaryDone).toBe(3); // the canary, and nothing of the next stage

    // Between the windows: status and wait say when the next one opens; wait ends at once (nothing moves till then).
    const between = await karpDrift(sandbox, ['status', '-o', 'json']);
    const holds = (JSON.parse(between.stdout) as { holds: Array<Record<string, unknown>> }).holds;
    expect(holds.map((h) => [h.nodePool, h.state, h.opensAt])).toEqual(
      ['batch', 'canary', 'general'].map((p) => [p, 'windowed', second.toISOString().replace('.000', '')]),
    );
    const text = await karpDrift(sandbox, ['status']);
    expect(text.stdout).toMatch(/^Paused by the window: waiting for the window that opens in [0-9ms]+ \(\w{3} \d\d:\d\d UTC\)$/m);
    const waitBetween = await karpDrift(sandbox, ['wait']);
    expect(waitBetween.code, waitBetween.stderr).toBe(ExitCode.PausedByWindow);

    await untilTime(second);
    const finished = await karpDrift(sandbox, args, 120_000);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // The rest started inside the second window, after the soak the first run recorded.
    const rest = started(sandbox).slice(canaryDone);
    expect(rest.length).toBe(30);
    expect(rest.every((t) => t.getTime() >= second.getTime() && t.getTime() < second.getTime() + MINUTE)).toBe(true);
    expect(budgetsOf(sandbox)).toEqual(budgets);
    expect(managedFieldsOf(sandbox)).toEqual(owners);
  }, 330_000);
});
