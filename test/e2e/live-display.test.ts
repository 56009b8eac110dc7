// The live display in a real terminal: `karp-drift demo` runs in a pseudo-terminal of a given size, its output goes
// into a headless xterm of the same size, and the assertions read the screen a person would see, scrollback included.
// A string comparison cannot tell a frame that wraps, or a redraw that moves up by lines instead of screen rows; a
// terminal can: half-redrawn frames stay behind as repeated headers.
import type * as NodePty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { MAIN } from './cli-sandbox.js';

type Pty = typeof NodePty;
let pty: Pty | undefined;
let why = '';
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

/** Runs the CLI in a pty of `columns`×`rows`; `resizeTo` resizes it once the live frame is on screen. */
async function inTerminal(
  args: string[],
  columns: number,
  rows: number,
  resizeTo?: { columns: number; rows: number },
): Promise<Screen> {
  const term = new xterm.Terminal({ cols: columns, rows, scrollback: 5000, allowProposedApi: true });
  const child = pty!.spawn(process.execPath, [MAIN, ...args], {
    cols: columns,
    rows,
    name: 'xterm-256color',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', NO_COLOR: '1' },
  });
  let seen = '';
  let resized = false;
  const writes: Array<Promise<void>> = [];
  child.onData((data) => {
    writes.push(new Promise((resolve) => term.write(data, resolve)));
    seen += data;
    if (resizeTo && !resized && seen.includes('Drift to Kubernetes')) {
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
function liveLines(s: Screen): string[] {
  const first = s.lines.findIndex((l) => l.startsWith('Drift to Kubernetes'));
  const summary = s.lines.findIndex((l) => l.startsWith('Rollout complete'));
  return first < 0 ? [] : s.lines.slice(first, summary < 0 ? undefined : summary);
}

describe.skipIf(pty === undefined)(`live display in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  it.each([
    [80, 24],
    [200, 50],
  ])('demo at %d×%d: one frame, no wrapped line, the final state on screen', async (columns, rows) => {
    const screen = await inTerminal(['demo'], columns, rows);
    expect(screen.exitCode).toBe(0);
    const live = liveLines(screen);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    // The frame's lines fit: none of them was wrapped by the terminal.
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    for (const pool of ['arm', 'general', 'system'])
      expect(live.some((l) => new RegExp(`^${pool} +\\[█+\\] +\\d+/\\d+ replaced +done$`).test(l))).toBe(true);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });

  it('a staged rollout at 80×24: the stage line in the frame, and log lines longer than the screen printed whole above it', async () => {
    const screen = await inTerminal(
      ['demo', '--scenario', 'staged', '--canary', 'canary', '--waves', '1,100%', '--soak', '2s'],
      80,
      24,
    );
    expect(screen.exitCode).toBe(0);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    // A soak line is wider than 80 columns: it takes two rows, and its second row is its own end, not the end of
    // the frame line it was written over.
    const soaks = screen.lines.flatMap((l, i) =>
      /^\[\d+s\] stage 1\/2 \(canary\) wave 1 done; soaking/.test(l) ? [`${l}${screen.lines[i + 1] ?? ''}`] : [],
    );
    expect(soaks).toHaveLength(1);
    expect(soaks[0]).toMatch(/soaking \d+s until \S+Z before wave 2$/);
    expect(screen.lines.some((l) => /ETA|started/.test(l) && /soaking/.test(l))).toBe(false);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });

  it('a gated staged rollout at 80×24: the stage line says what the gates wait on, cut to the width', async () => {
    const screen = await inTerminal(
      ['demo', '--scenario', 'staged', '--canary', 'canary', '--waves', '1,100%', '--gate-cmd', 'sleep 2; echo ok'],
      80,
      24,
    );
    expect(screen.exitCode).toBe(0);
    // Drawn over since, so read from what was written: the frame's stage line while the command ran.
    expect(screen.raw).toMatch(/Stage 1\/2 canary, wave 1\/2: gates at wave end: --gate-cmd for \d+s/);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    const live = liveLines(screen);
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    expect(screen.lines.some((l) => /health gates passed at the end of stage 1\/2 \(canary\) wave 1/.test(l))).toBe(
      true,
    );
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });

  it('demo --scenario bad-ami at 80×24: the canary caught, its evidence above the frame, rolled back (exit 6)', async () => {
    const screen = await inTerminal(['demo', '--scenario', 'bad-ami'], 80, 24);
    expect(screen.exitCode).toBe(6);
    const text = screen.lines.join('\n');
    expect(text).toContain('Health gate failed while the rollout runs');
    expect(text).toMatch(/POD-FAILING pod \S+ on replaced node/);
    expect(text).toContain('--on-failure rollback: restoring ec2nodeclass/');
    // The rollback's own follow draws a second frame, below the first: each drawn once.
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes 1.30'))).toHaveLength(1);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes 1.29'))).toHaveLength(1);
    expect(screen.lines.join('').replace(/\s+/g, ' ')).toMatch(/rolled back: .* back on the previous AMIs/);
  });

  it('redraws in place after the window narrows mid-rollout', async () => {
    const screen = await inTerminal(['demo', '--speed', '20'], 200, 50, { columns: 80, rows: 24 });
    expect(screen.exitCode).toBe(0);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    const live = liveLines(screen);
    expect(live.length).toBeGreaterThan(1);
    expect(live.every((l) => l.length <= 80)).toBe(true);
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });
});
