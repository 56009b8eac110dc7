// `status --watch` beside a live staged run for longer than its lease's 30 s (issue 33 item 6): the lease age it
// shows never makes the healthy run look expired. It used to read the Lease every 30 s and count the age on from that
// read: "lease renewed 29s ago", then the holds shown as paused ("resume releases them") until the next read.
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { follow, STAGED } from './staged.js';
import { PACED, watching } from './status-watch.js';

describe('status --watch beside a live staged run, past its lease duration', () => {
  it('every frame says paced, with a lease age below its 30 s duration', async () => {
    const sandbox = await scenario('staged', 60);
    const run = follow(sandbox, [...STAGED, '--soak', '45s']);
    await run.until((e) => e.type === 'soak');
    const watch = watching(sandbox);
    // Watched through the soak: 45 s, past the lease's duration and the old re-read's period.
    await run.until((e) => e.type === 'stage' && e.stage === 2, 120_000);
    const { code, frames } = await watch.stop();
    expect(code).toBe(0);
    run.child.kill('SIGINT');
    expect(await run.exited, run.stderr()).toBe(130);
    const held = frames.filter((f) => f.includes('Drift held by karp-drift:'));
    expect(held.length).toBeGreaterThan(35); // a frame a second: the age changes every second
    for (const frame of held) {
      expect(frame).toMatch(PACED);
      expect(frame).not.toMatch(/releases them|\(paused\)|Whether a run is live/);
      // Renewed every 10 s: a healthy run's lease is never shown as old as its duration.
      expect(Number(PACED.exec(frame)![1])).toBeLessThan(30);
    }
  }, 240_000);
});
