// The CLI's run environment taken from this process: its streams, terminal, environment and signals. Shared by the
// two entries, dist/main.js (every command) and dist/help.cjs (help and version only, see bin.ts).
import { basename } from 'node:path';
import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { RunEnvironment } from './program.js';

/**
 * `karp-drift upgrade --help | head`: the reader went away. Stop as a shell tool stopped by SIGPIPE does, without a
 * stack; nothing is lost, since nobody reads the rest.
 */
export function exitQuietlyOnEpipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

/** This process has a controlling terminal it may write to (/dev/tty opens): a session, not a daemon or a CI job. */
function controllingTerminal(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'w'));
    return true;
  } catch {
    return false;
  }
}

export function processRunEnvironment(signal: AbortSignal): RunEnvironment {
  // Which streams are terminals, from their file descriptors: process.stdin is a stream made on first use (about
  // 4 ms of fs streams), which only a prompt needs.
  const [stdin, stdout, stderr] = [isatty(0), isatty(1), isatty(2)];
  const tty = stdin && !stderr && controllingTerminal();
  return {
    io: {
      out: (s) => void process.stdout.write(s),
      err: (s) => void process.stderr.write(s),
      interactive: stdout && stdin,
      screen: (stream) => {
        const tty = stream === 'out' ? process.stdout : process.stderr;
        return tty.isTTY && tty.columns > 0 ? { columns: tty.columns, rows: tty.rows } : undefined;
      },
      onResize: (listener) => {
        // Node refreshes a terminal stream's columns/rows on SIGWINCH and then emits 'resize' on it; one stream is enough.
        const tty = process.stdout.isTTY ? process.stdout : process.stderr.isTTY ? process.stderr : undefined;
        tty?.on('resize', listener);
        return () => void tty?.off('resize', listener);
      },
      canPrompt: stdin && (stderr || tty),
      promptOn: stderr ? 'stderr' : 'tty',
    },
    env: process.env,
    stdoutIsTTY: stdout,
    signal,
    invokedAs: basename(process.argv[1] ?? ''),
  };
}
