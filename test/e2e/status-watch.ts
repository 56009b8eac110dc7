// `status --watch` printing to a pipe, for status-watch-lock*.test.ts: a frame per change, each from its table's header.
import { spawn } from 'node:child_process';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { MAIN } from './cli-sandbox.js';

/** The holds' lines of a frame whose holds a live run paces, with the lease's age in seconds. */
export const PACED = /^Paced by a live run, lease renewed (\d+)s ago \(30s lease\):$/m;

export function watching(sandbox: Sandbox) {
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
  const until = async (done: () => boolean, what: string) => {
    for (let waited = 0; !done(); waited += 50) {
      if (waited > 30_000) throw new Error(`${what}; stderr:\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    /** Its first frame is out (nothing changes before a run starts: no second one comes). */
    async started(): Promise<void> {
      await until(() => frames().length > 0, 'no frame');
      await new Promise((r) => setTimeout(r, 300));
    },
    /** Its first frame, whole: the next one has begun (a live run's lease age changes it every second). */
    async first(): Promise<string> {
      await until(() => frames().length > 1, 'fewer than 2 frames');
      return frames()[0]!;
    },
    /** Ctrl-C: its exit code, and every frame it printed. */
    async stop(): Promise<{ code: number | null; frames: string[] }> {
      child.kill('SIGINT');
      const code = await exited;
      return { code, frames: frames() };
    },
  };
}
