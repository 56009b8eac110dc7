// A staged run killed outright (kill -9: no chance to clean up) must not leave Karpenter draining the NodePools it
// paced: the dead man's switch it kept moving ahead fires within SWITCH_AHEAD_MS of its last write, and Karpenter
// itself starts nothing more. Read from the simulated Karpenter's record and its NodePools, at real speed (the switch
// runs on the wall clock, as Karpenter's budget schedules do), so this file takes about four minutes.
import { describe, expect, it } from 'vitest';
import { switchState } from '../../src/apis/budget-hold.js';
import { allowedDisruptions, isBudgetActive, type Budget } from '../../src/karpenter/budgets.js';
import { SWITCH_AHEAD_MS } from '../../src/commands/pacer-holds.js';
import { scenario } from './cli-sandbox.js';
import { follow } from './staged.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a staged run that dies', () => {
  it('kill -9 mid-wave: within minutes Karpenter by itself starts no further replacement', async () => {
    const sandbox = await scenario('staged', 1);
    const budgets = (pool: string) =>
      (sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.spec as { disruption: { budgets: Budget[] } }).disruption
        .budgets;
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--canary', 'general', '--waves', '6,100%', '--yes', '-o', 'json']);
    await run.until((e) => e.type === 'hold' && e.nodePool === 'general' && (e.allowance as number) > 0, 60_000);
    // Killed as the first replacements start: nothing runs its cleanup, the holds and the switch stay as written.
    for (let waited = 0; sandbox.simulator.disruptions.entries().length === 0; waited += 100) {
      if (waited > 120_000) throw new Error('no replacement started');
      await sleep(100);
    }
    run.child.kill('SIGKILL');
    await run.exited;
    const died = Date.now();
    // Not fired yet (the run armed it ahead of the API server's clock, the sandbox's): when it will.
    const fires = switchState(budgets('general'), new Date())!.at!;
    expect(fires.getTime() - died).toBeLessThanOrEqual(SWITCH_AHEAD_MS);

    // Karpenter reads schedules to the minute and polls every 10 s: past that, nothing more starts, in any paced pool.
    await sleep(Math.max(0, fires.getTime() - Date.now()) + 15_000);
    const settled = sandbox.simulator.disruptions.entries().length;
    await sleep(45_000);
    expect(sandbox.simulator.disruptions.entries().length).toBe(settled);
    // What holds it is the switch, active now, that nobody moved: Karpenter's own schedule, not karp-drift.
    const list = budgets('general');
    expect(isBudgetActive(list.at(-2)!, new Date())).toMatchObject({ active: true });
    expect(allowedDisruptions(list, { numNodes: 24, disrupting: 0 }, 'Drifted', new Date()).allowed).toBe(0);
    // general still has old nodes: held, not drained.
    expect(settled).toBeLessThan(24);
  }, 330_000);
});
