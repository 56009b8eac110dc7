// Runs shell lines as a user pastes them: bash, with `karp-drift` on PATH as the built CLI, in a folder of the test's
// own. The sandboxes it detaches are found by their log, under the folder's TMPDIR, and stopped by process id.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const BIN = new URL('../../dist/bin.cjs', import.meta.url).pathname;

export interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** TMPDIR of the lines run in `dir`: where detached sandboxes keep their kubeconfig and log. */
export const tmpOf = (dir: string) => `${dir}.tmp`;

/** `lines` in `bash -c` with cwd `dir`; killed (SIGKILL to its process group) after `timeoutMs`, or on `stop`. */
export async function bashIn(dir: string, lines: string[], timeoutMs = 60_000, stop?: (child: { kill(): void }, out: () => string) => void): Promise<ShellRun> {
  const tmp = tmpOf(dir);
  const shims = join(tmp, 'bin');
  await mkdir(shims, { recursive: true });
  await writeFile(join(shims, 'karp-drift'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  await chmod(join(shims, 'karp-drift'), 0o755);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', lines.join('\n')], {
      cwd: dir,
      detached: true, // its own process group, so a timeout kills what it started in the foreground too
      env: { PATH: `${shims}:${process.env.PATH ?? ''}`, HOME: dir, TMPDIR: tmp, TERM: 'dumb' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup('SIGKILL'), timeoutMs);
    stop?.({ kill: () => killGroup('SIGINT') }, () => stdout + stderr);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The process ids of the sandboxes detached by lines run in `dir` (their --detached-log is under its TMPDIR). */
export function sandboxesUnder(dir: string): number[] {
  const tmp = tmpOf(dir);
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').some((arg) => arg.startsWith(`${tmp}/`));
      } catch {
        return false;
      }
    })
    .map(Number);
}

export async function processGone(pid: number, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); existsSync(`/proc/${pid}`) && Date.now() - started < timeoutMs; ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  // A zombie (exited, not yet reaped by its parent) has a /proc entry but is gone.
  if (existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) {
    throw new Error(`process ${pid} still runs ${timeoutMs} ms after it was told to stop`);
  }
}

export async function stopSandboxesUnder(dir: string): Promise<void> {
  const pids = sandboxesUnder(dir);
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  await Promise.all(pids.map((pid) => processGone(pid)));
}

/**
 * `lines` pasted into an interactive bash in a pseudo-terminal, as a person pastes an example: job control on, the
 * lines read as typed. A failing command is caught by an ERR trap; `interruptAt` is answered with a Ctrl-C, as a
 * person stops a sandbox serving in the foreground (the rest is typed after it, since a Ctrl-C discards type-ahead).
 */
export async function interactiveBashIn(dir: string, lines: string[], interruptAt?: string, timeoutMs = 60_000): Promise<{ output: string; failed: string[] }> {
  const pty = await import('@lydell/node-pty');
  const tmp = tmpOf(dir);
  const shims = join(tmp, 'bin');
  await mkdir(shims, { recursive: true });
  await writeFile(join(shims, 'karp-drift'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  await chmod(join(shims, 'karp-drift'), 0o755);
  const shell = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
    cols: 200,
    rows: 50,
    cwd: dir,
    env: { PATH: `${shims}:${process.env.PATH ?? ''}`, HOME: dir, TMPDIR: tmp, TERM: 'dumb', PS1: '$ ', NO_COLOR: '1' },
  });
  let output = '';
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} within ${timeoutMs} ms; the terminal showed:\n${output}`)), timeoutMs);
      const check = () => {
        if (!output.includes(text)) return;
        clearTimeout(timer);
        listener.dispose();
        resolve();
      };
      const listener = shell.onData(check);
      check();
    });
  shell.onData((data) => (output += data));
  const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
  try {
    await seen('$ ');
    // Quoted apart, so the typed line (echoed back) never reads as the marker it prints.
    shell.write(`trap 'echo "__FAI""LED__ $BASH_COMMAND"' ERR\r`);
    shell.write(`${lines.join('\r')}\r`);
    if (interruptAt !== undefined) {
      await seen(interruptAt);
      shell.write('\x03');
    }
    shell.write('echo "__EN""D__"\r');
    await seen('__END__');
    shell.write('exit\r');
    await exited;
  } finally {
    shell.kill('SIGKILL');
  }
  return { output, failed: [...output.matchAll(/__FAILED__ (.*)/g)].map((m) => m[1]!.trim()) };
}
