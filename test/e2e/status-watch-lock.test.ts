// `status --watch` beside a live staged run (issue 33 item 6): every frame that shows the run's holds says they are
// paced by it, from the first. It used to read the cluster lock once and then every 30 s: a watch started before the
// run showed the run's first holds (node holds come through watches at once) as paused, "resume releases them", for
// up to 30 s. That the lease age never makes the run look expired, over more than its 30 s, is the wall-clock proof
// status-watch-lock.clock.test.ts.
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { follow, STAGED } from './staged.js';
import { PACED, watching } from './status-watch.js';

describe('status --watch beside a live staged run', () => {
  it('says "paced by a live run" in every frame with its holds: started before the run, and beside it from its first frame', async () => {
    const sandbox = await scenario('staged', 60);
    const before = watching(sandbox);
    await before.started(); // on screen before the run takes the lock
    const run = follow(sandbox, [...STAGED, '--soak', '5s']);
    await run.until((e) => e.type === 'soak');
    const beside = watching(sandbox);
    const first = await beside.first();
    // Started beside the live run: its first frame already says so, in the holds' lines and in the diagnosis.
    expect(first).toMatch(PACED);
    expect(first).toContain('(paced by a live run)');
    expect((await beside.stop()).code).toBe(0);
    await run.until((e) => e.type === 'stage' && e.stage === 2, 60_000);
    const { code, frames } = await before.stop();
    expect(code).toBe(0);
    run.child.kill('SIGINT'); // the rest of the rollout is not this test's
    expect(await run.exited, run.stderr()).toBe(130);
    const held = frames.filter((f) => f.includes('Drift held by karp-drift:'));
    expect(held.length).toBeGreaterThan(3);
    for (const frame of held) {
      expect(frame).toMatch(PACED);
      expect(frame).not.toMatch(/releases them|\(paused\)|Whether a run is live/);
    }
  });
});
