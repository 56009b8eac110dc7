// The CLI in a real terminal, for live-display*.test.ts: `karp-drift demo` runs in a pseudo-terminal of a given size,
// its output goes into a headless xterm of the same size, and the assertions read the screen a person would see,
// scrollback included. A string comparison cannot tell a frame that wraps, or a redraw that moves up by lines instead
// of screen rows; a terminal can: half-redrawn frames stay behind as repeated headers.
import type * as NodePty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { MAIN } from './cli-sandbox.js';

type Pty = typeof NodePty;
export let pty: Pty | undefined;
export let why = '';
try {
  pty = await import('@lydell/node-pty');
} catch (e) {
  why = e instanceof Error ? e.message : String(e);
  console.warn(`SKIPPED live display tests: the pseudo-terminal module @lydell/node-pty did not load (${why})`);
}

interface Screen {
  /** Every line of the buffer, scrollback first, right-trimmed. */
  lines: string[];
  /** Lines the terminal wrapped because they were wider than the screen. */
  wrapped: string[];
  exitCode: number;
  /** Everything the program wrote, escape sequences included: the frames that were drawn over since. */
  raw: string;
}

/**
 * What a run may add: the sandbox's variables (`upgrade` against a sandbox of the test's), when to resize (default:
 * once the live frame is on screen), and a Ctrl-C once `interruptAt` is written.
 */
interface RunOptions {
  env?: Record<string, string>;
  resizeAt?: RegExp;
  interruptAt?: RegExp;
}

/** Runs the CLI in a pty of `columns`×`rows`; `resizeTo` resizes it at `options.resizeAt`. */
export async function inTerminal(
  args: string[],
  columns: number,
  rows: number,
  resizeTo?: { columns: number; rows: number },
  options: RunOptions = {},
): Promise<Screen> {
  const term = new xterm.Terminal({ cols: columns, rows, scrollback: 5000, allowProposedApi: true });
  const child = pty!.spawn(process.execPath, [MAIN, ...args], {
    cols: columns,
    rows,
    name: 'xterm-256color',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      NO_COLOR: '1',
      ...options.env,
    },
  });
  let seen = '';
  let resized = false;
  let interrupted = false;
  const writes: Array<Promise<void>> = [];
  child.onData((data) => {
    writes.push(new Promise((resolve) => term.write(data, resolve)));
    seen += data;
    if (options.interruptAt && !interrupted && options.interruptAt.test(seen)) {
      interrupted = true;
      child.kill('SIGINT');
    }
    if (resizeTo && !resized && (options.resizeAt ?? /Drift to Kubernetes/).test(seen)) {
      resized = true;
      // The terminal is resized first, as a window is; the program hears SIGWINCH after.
      term.resize(resizeTo.columns, resizeTo.rows);
      child.resize(resizeTo.columns, resizeTo.rows);
    }
  });
  const exitCode = await new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  await Promise.all(writes);
  const buffer = term.buffer.active;
  const lines: string[] = [];
  const wrapped: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i)!;
    const text = line.translateToString(true);
    lines.push(text);
    if (line.isWrapped) wrapped.push(`${lines[i - 1] ?? ''}⏎${text}`);
  }
  term.dispose();
  return { lines, wrapped, exitCode, raw: seen };
}

/** The last frame of the live display, as the screen shows it: from its header to the summary printed after it. */
export function liveLines(s: Screen): string[] {
  const first = s.lines.findIndex((l) => l.startsWith('Drift to Kubernetes'));
  const summary = s.lines.findIndex((l) => l.startsWith('Rollout complete'));
  return first < 0 ? [] : s.lines.slice(first, summary < 0 ? undefined : summary);
}

/** Each row the program wrote, in order, drawn over since or not: every frame, as it was on screen for a moment. */
export function writtenRows(s: Pick<Screen, 'raw'>): string[] {
  // eslint-disable-next-line no-control-regex
  return s.raw.split(/\u001b\[2K|\n/).map((r) => r.replace(/\u001b\[[0-9;?]*[A-Za-z]|\r/g, '')).filter((r) => r !== '');
}

/** A CLI run in a pty that a test drives step by step: wait for output, resize the window, read the screen. */
export interface TerminalSession {
  /** Resolves once the program has written something matching `pattern` (since `from`, an offset in `raw()`). */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  /** Resizes the window, as a person does (the terminal first, the program hears SIGWINCH after), and resolves once
   * the program has redrawn: it wrote something since and then nothing for `quietMs`. */
  resize(columns: number, rows: number, quietMs?: number): Promise<void>;
  /** The viewport, row by row, right-trimmed, to the window's width: what a person sees now. */
  viewport(): Promise<string[]>;
  /** Every line of the buffer, scrollback first, right-trimmed, to the window's width. */
  lines(): Promise<string[]>;
  /** Everything the program wrote so far, escape sequences included. */
  raw(): string;
  /** Ctrl-C, then its exit code. */
  interrupt(): Promise<number>;
}

export function terminalSession(args: string[], columns: number, rows: number, env: Record<string, string> = {}): TerminalSession {
  const term = new xterm.Terminal({ cols: columns, rows, scrollback: 5000, allowProposedApi: true });
  const child = pty!.spawn(process.execPath, [MAIN, ...args], {
    cols: columns,
    rows,
    name: 'xterm-256color',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', NO_COLOR: '1', ...env },
  });
  let seen = '';
  let lastWriteAt = Date.now();
  let written: Promise<void> = Promise.resolve();
  child.onData((data) => {
    seen += data;
    lastWriteAt = Date.now();
    written = written.then(() => new Promise((resolve) => term.write(data, resolve)));
  });
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  let exitCode: number | undefined;
  void exited.then((code) => (exitCode = code));
  const until = async (what: string, ok: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!ok()) {
      if (exitCode !== undefined) throw new Error(`exited with ${exitCode} while waiting for ${what}:\n${seen}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${seen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const read = async (from: 'viewport' | 'all') => {
    await written;
    const buffer = term.buffer.active;
    const start = from === 'viewport' ? buffer.viewportY : 0;
    const end = from === 'viewport' ? buffer.viewportY + term.rows : buffer.length;
    const out: string[] = [];
    // Only the columns on screen: a terminal keeps what a narrowed window hides, and `\u001b[2K` erases to its width.
    for (let i = start; i < end; i++) out.push((buffer.getLine(i)?.translateToString(true, 0, term.cols) ?? '').trimEnd());
    return out;
  };
  return {
    waitFor: (pattern, from = 0) => until(String(pattern), () => pattern.test(seen.slice(from))),
    async resize(c, r, quietMs = 400) {
      const before = seen.length;
      term.resize(c, r);
      child.resize(c, r);
      await until(`a redraw at ${c}×${r}`, () => seen.length > before && Date.now() - lastWriteAt >= quietMs);
    },
    viewport: () => read('viewport'),
    lines: () => read('all'),
    raw: () => seen,
    async interrupt() {
      child.kill('SIGINT');
      const code = await exited;
      await written;
      return code;
    },
  };
}
