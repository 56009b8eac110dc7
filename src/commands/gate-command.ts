// --gate-cmd: the team's own check (a PromQL query, a smoke test), run through the shell with the run's facts in its
// environment. Exit 0 passes, any other exit fails, and a command still running at --gate-timeout is killed (its
// whole process group: a shell's children too) and the gate is inconclusive. Its last lines of output, stdout and
// stderr interleaved as written, are the evidence; nothing of it is printed while it runs.
import { spawn } from 'node:child_process';
import type { GateCommandResult } from '../gates/tally.js';

export const OUTPUT_LINES = 20;
/** Bytes of output kept while it runs: enough for OUTPUT_LINES long lines, bounded however much it writes. */
const KEEP_BYTES = 64 * 1024;
/** After SIGTERM at the timeout, this long before SIGKILL. */
const KILL_GRACE_MS = 5_000;

export function runGateCommand(
  command: string,
  env: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<GateCommandResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-KEEP_BYTES);
    };
    const child = spawn(command, {
      shell: true,
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let why: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (reason: string) => {
      if (why !== undefined || child.exitCode != null) return;
      why = reason;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(
      () => kill(`still running after --gate-timeout ${Math.round(timeoutMs / 1000)}s`),
      timeoutMs,
    );
    const onAbort = () => kill('interrupted');
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (r: Omit<GateCommandResult, 'durationMs' | 'output'>) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ ...r, durationMs: Math.round(performance.now() - started), output: lastLines(tail) });
    };
    child.on('error', (e) => done({ result: 'inconclusive', why: `could not start: ${e.message}` }));
    child.on('close', (code, sig) => {
      if (why !== undefined) return done({ result: 'inconclusive', why, ...(sig ? { signal: sig } : {}) });
      if (code === 0) return done({ result: 'passed', exitCode: 0 });
      done({ result: 'failed', ...(code != null ? { exitCode: code } : {}), ...(sig ? { signal: sig } : {}) });
    });
  });
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, sig);
  } catch {
    // Already gone.
  }
}

export function lastLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.slice(-OUTPUT_LINES);
}
