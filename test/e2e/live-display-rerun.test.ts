// A staged upgrade run again once it is done, in a real terminal (terminal.ts): each NodePool's line says where its
// nodes stand. It said `canary  [████████████████████]  0/0 replaced  done`, which reads as if nothing had been done.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { pty, why, inTerminal, liveLines } from './terminal.js';

describe.skipIf(pty === undefined)(`a re-run in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  it('a finished staged upgrade run again at 80×24: "3/3 already on target", never "0/0 replaced"', async () => {
    const sandbox = await scenario('staged', 600);
    const args = ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,100%', '--yes'];
    // The rollout to re-run, without gates: at speed 600 an event loop stalled a second under CI load is 10 simulated
    // minutes, long enough for a replacement's registration to time out and a gate to halt this setup run.
    const first = await karpDrift(sandbox, [...args, '--no-gates']);
    expect(first.code, first.stderr).toBe(0);
    const completed = () =>
      sandbox.kube.store.list('events', 'default').filter((e) => (e as { reason?: string }).reason === 'StagedRolloutCompleted').length;
    expect(completed()).toBe(3); // one per NodePool
    const again = await inTerminal(args, 80, 24, undefined, { env: sandbox.env });
    expect(again.exitCode).toBe(0);
    // Nothing held, nothing released: a re-run (a scheduler's tick after the end) records no Event on the NodePools.
    expect(completed()).toBe(3);
    const live = liveLines(again);
    expect(live.join('\n')).not.toMatch(/0\/0 replaced/);
    for (const [pool, nodes] of [['batch', 6], ['canary', 3], ['general', 24]] as const)
      expect(live.some((l) => new RegExp(`^${pool} +\\[█+\\] +${nodes}/${nodes} already on target +done$`).test(l)), live.join('\n')).toBe(true);
  });
});
