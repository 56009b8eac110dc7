// `status --watch` beside a live staged run (issue 33 item 6): every frame that shows the run's holds says they are
// paced by it, from the first, and the lease age it shows never makes that healthy run look expired. It used to read
// the cluster lock once and then every 30 s, counting the age on from that read: a frame said "lease renewed 29s
// ago", then that the holds were paused ("resume releases them") until the next read; and a watch started before the
// run showed its first holds as paused for up to 30 s.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { MAIN, scenario } from './cli-sandbox.js';
import { follow, STAGED } from './staged.js';

/** `status --watch` printing to a pipe: a frame per change, each from its table's header. */
function watching(sandbox: Sandbox) {
  const child = spawn(process.execPath, [MAIN, 'status', '--watch'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const frames = () => out.split(/^(?=NODEPOOL +NODECLASS)/m).filter((f) => f.trim() !== '');
  return {
    frames,
    /** Waits until `n` frames are whole (the next one has begun). */
    async whole(n: number): Promise<string[]> {
      for (let waited = 0; frames().length <= n; waited += 50) {
        if (waited > 30_000) throw new Error(`fewer than ${n + 1} frames; stderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return frames().slice(0, n);
    },
    /** Its first frame is out (nothing changes before the run: no second one comes). */
    async started(): Promise<void> {
      for (let waited = 0; frames().length === 0; waited += 50) {
        if (waited > 30_000) throw new Error(`no frame; stderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
    },
    async stop(): Promise<{ code: number | null; frames: string[] }> {
      child.kill('SIGINT');
      const code = await exited;
      return { code, frames: frames() };
    },
  };
}

const PACED = /^Paced by a live run, lease renewed (\d+)s ago \(30s lease\):$/m;

describe('status --watch beside a live staged run', () => {
  it('says "paced by a live run" in every frame with its holds, from the first, and never shows its lease expired', async () => {
    const sandbox = await scenario('staged', 60);
    const before = watching(sandbox);
    await before.started(); // on screen before the run takes the lock
    const run = follow(sandbox, [...STAGED, '--soak', '30s']);
    await run.until((e) => e.type === 'soak');
    const beside = watching(sandbox);
    const [first] = await beside.whole(1);
    // Started beside the live run: its first frame already says so, in the holds' lines and in the diagnosis.
    expect(first).toMatch(PACED);
    expect(first).toContain('(paced by a live run)');
    expect((await beside.stop()).code).toBe(0);
    // Watched past the soak (30 s, the lease's duration, and the old re-read's period) into the next stage.
    await run.until((e) => e.type === 'stage' && e.stage === 2, 90_000);
    await new Promise((r) => setTimeout(r, 3000));
    const { code, frames } = await before.stop();
    expect(code).toBe(0);
    run.child.kill('SIGINT'); // the rest of the rollout is not this test's
    expect(await run.exited, run.stderr()).toBe(130);
    const held = frames.filter((f) => f.includes('Drift held by karp-drift:'));
    expect(held.length).toBeGreaterThan(30);
    for (const frame of held) {
      expect(frame).toMatch(PACED);
      expect(frame).not.toMatch(/releases them|\(paused\)|Whether a run is live/);
      // Renewed every 10 s: a healthy run's lease is never shown as old as its duration.
      expect(Number(PACED.exec(frame)![1])).toBeLessThan(30);
    }
  }, 180_000);
});
