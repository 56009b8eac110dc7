// `wait` on a staged run killed (kill -9) after its last replacement (issue 33 item 6): its lease is still fresh, so
// `wait` takes the run for live and follows it; every node is on target, so it waits for the run to release its holds;
// the lease lapses (30 s) and nobody did: exit 6, what is left, and the resume that clears it. It used to report the
// rollout complete (exit 0) with the holds still on the NodePools.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, follow, heldNodes, STAGED } from './staged.js';

describe('wait on a staged run killed after its last replacement', () => {
  it('a staged run killed after its last replacement: wait follows its lock until it lapses, then exit 6 naming resume', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-held-'));
    const marker = join(dir, 'stage-2-gate');
    // The gate at the end of stage 2's last wave: every replacement is done. It says so and its shell's pid, then waits.
    const gate = `if [ "$KARP_DRIFT_STAGE" = 2 ] && [ "$KARP_DRIFT_WAVE" = 3 ] && [ "$KARP_DRIFT_GATE_POINT" = wave-end ]; then echo $$ > ${marker}; sleep 120; fi`;
    const run = follow(sandbox, [...STAGED, '--soak', '2s', '--gate-cmd', gate, '--gate-timeout', '5m']);
    for (let waited = 0; !existsSync(marker) || readFileSync(marker, 'utf8').trim() === ''; waited += 100) {
      if (waited > 120_000) throw new Error(`the stage-2 gate never ran; stderr:\n${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    run.child.kill('SIGKILL');
    await run.exited;
    process.kill(-Number(readFileSync(marker, 'utf8').trim()), 'SIGKILL'); // the gate command's own process group
    // Its lease is still fresh: wait takes the run for live, follows, and once every node is on target waits for the
    // run to release its holds; the lease lapses (30 s) and nobody did.
    const wait = await karpDrift(sandbox, ['wait', '-o', 'json'], 120_000);
    expect(wait.code, wait.stderr).toBe(6);
    expect(wait.stderr).toMatch(/Every node runs the target AMIs; waiting for the live run \S+ \(run [0-9a-f-]+\) \(karp-drift upgrade --to 1\.30 --canary canary/);
    expect(wait.stderr).toMatch(/^error: every node runs the target AMIs, but karp-drift's holds are left by run [0-9a-f-]+: nodepool\/general: a budget/m);
    expect(wait.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'holds-left', paused: expect.arrayContaining(['general']) as unknown });
    expect((wait.events.at(-1)!.nodePools as Array<{ done: boolean }>).every((p) => p.done)).toBe(true);
    const next = /next: release them, each NodePool's own budgets put back exactly: (karp-drift resume .*)$/m.exec(wait.stderr)?.[1];
    expect(next).toMatch(/^karp-drift resume( --nodepool \S+)+$/);
    expect((await karpDrift(sandbox, next!.split(' ').slice(1))).code).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
    expect(heldNodes(sandbox)).toEqual([]);
  }, 240_000);
});
