// `status --watch` in a real terminal (terminal.ts), on a staged rollout stopped after its canary's first wave: three
// NodePools held, each with a STALL-HELD blocker whose `next:` names a command. At 80, 50 and 200 columns every
// command is on screen whole (wrapped, never cut with '…'), the table headers fit, and a window resized 80 → 50 → 80
// → 200 shows what a program started at that size shows, with nothing of an old frame left, in the scrollback either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift } from './cli-sandbox.js';
import { pty, why, terminalSession, writtenRows, type TerminalSession } from './terminal.js';

/** The whole frame is written: a blocker, then the line that says how many more there are, or three `next:`s. */
const FRAME = /STALL-HELD[^]*more lines|next:[^]*next:[^]*next:/;

interface Blocker {
  code: string;
  message: string;
  next: string;
}

describe.skipIf(pty === undefined)(`status --watch in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  let sandbox: Sandbox;
  let blockers: Blocker[];
  // One stopped rollout for every test: each only reads it.
  beforeAll(async () => {
    sandbox = await startSandbox({ scenario: 'staged', speed: 300 });
    const upgrade = terminalSession(
      ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,10%,100%', '--soak', '5m', '--yes'],
      200,
      50,
      sandbox.env,
    );
    await upgrade.waitFor(/wave 1 done; soaking/);
    expect(await upgrade.interrupt()).toBe(130);
    const json = await karpDrift(sandbox, ['status', '-o', 'json']);
    blockers = (JSON.parse(json.stdout) as { nodePools: Array<{ blockers: Blocker[] }> }).nodePools.flatMap((p) => p.blockers);
    expect(blockers.map((b) => b.code)).toEqual(['STALL-HELD', 'STALL-HELD', 'STALL-HELD']);
  }, 90_000);
  afterAll(() => sandbox?.stop());

  /** `status --watch` started at a size, its first frame on screen. */
  const watching = async (columns: number, rows: number): Promise<TerminalSession> => {
    const session = terminalSession(['status', '--watch'], columns, rows, sandbox.env);
    await session.waitFor(/Drift held by karp-drift/);
    await session.waitFor(FRAME);
    await new Promise((r) => setTimeout(r, 300));
    return session;
  };

  /** The `next:` lines on screen, each with the rows it was wrapped into joined again. */
  const nextLines = (screen: string[]): string[] =>
    screen.flatMap((row, i) => {
      if (!/^ {2}next: /.test(row)) return [];
      const rest = screen.slice(i + 1);
      const end = rest.findIndex((r) => !/^ {8}\S/.test(r));
      return [[row, ...rest.slice(0, end < 0 ? undefined : end)].map((r) => r.trim()).join(' ').replace(/^next: /, '')];
    });

  it.each([
    [80, 24, 1],
    [50, 40, 1],
    [200, 24, 1],
  ])('at %d×%d: every row fits, the headers are whole, and each next: on screen is its command whole', async (columns, rows, nexts) => {
    const session = await watching(columns, rows);
    const screen = await session.viewport();
    expect(await session.interrupt()).toBe(0);
    expect(writtenRows({ raw: session.raw() }).filter((r) => r.length > columns)).toEqual([]);
    expect(screen.filter((r) => /^NODEPOOL +HOLD +AGE +RUN$/.test(r))).toHaveLength(1);
    if (columns >= 80)
      expect(screen.filter((r) => /^NODEPOOL +NODECLASS +NODES +UP-TO-DATE +DRIFTED +DISRUPTING +LAUNCHING$/.test(r))).toHaveLength(1);
    // Too narrow for the table's headers side by side: a block per NodePool, each header whole beside its value.
    else
      for (const pool of ['batch', 'canary', 'general']) {
        const at = screen.indexOf(`NODEPOOL: ${pool}`);
        expect(at, screen.join('\n')).toBeGreaterThanOrEqual(0);
        const block = screen.slice(at + 1, at + 4).join(' ');
        for (const header of ['NODECLASS', 'NODES', 'UP-TO-DATE', 'DRIFTED', 'DISRUPTING', 'LAUNCHING'])
          expect(block).toMatch(new RegExp(`\\b${header}: \\S+`));
      }
    const shown = nextLines(screen);
    expect(shown.length, screen.join('\n')).toBeGreaterThanOrEqual(nexts);
    for (const next of shown) expect(blockers.map((b) => b.next)).toContain(next);
    expect(shown.every((n) => /: karp-drift resume --nodepool \w+$/.test(n))).toBe(true);
    // The holds' own line names commands too: whole, at any width.
    expect(screen.join(' ').replace(/ +/g, ' ')).toContain('karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on');
  });

  it('resized 80 → 50 → 80 → 200: each time the screen a start at that size shows, and one frame left at the end', async () => {
    // AGE counts minutes, and a slow machine may see one go by between two screens.
    const steady = (screen: string[]) => screen.map((r) => r.replace(/ (<1m|\d+m) /, ' AGE '));
    const fresh = async (columns: number, rows: number) => {
      const session = await watching(columns, rows);
      const screen = await session.viewport();
      expect(await session.interrupt()).toBe(0);
      return steady(screen);
    };
    const session = await watching(80, 24);
    const seen: Array<[number, string[]]> = [];
    for (const [columns, rows] of [
      [50, 24],
      [80, 24],
      [200, 24],
    ] as const) {
      await session.resize(columns, rows);
      seen.push([columns, steady(await session.viewport())]);
    }
    expect(await session.interrupt()).toBe(0);
    const all = await session.lines();
    for (const [columns, screen] of seen) expect(screen, `at ${columns} columns`).toEqual(await fresh(columns, 24));
    // The alternate screen is gone with the program, and the last frame (200 columns) is printed where it ran, once:
    // the whole buffer, scrollback included, is that frame.
    expect(all.filter((r) => r.startsWith('NODEPOOL   NODECLASS')), all.join('\n')).toHaveLength(1);
    expect(steady(all).join('\n').trim()).toBe(seen[2]![1].join('\n').trim());
  });
});
