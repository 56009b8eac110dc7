// The live display in a real terminal (terminal.ts): the demo at two sizes, and a window narrowed mid-rollout.
import { describe, expect, it } from 'vitest';
import { pty, why, inTerminal, liveLines } from './terminal.js';

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

  it('redraws in place after the window narrows mid-rollout', async () => {
    const screen = await inTerminal(['demo', '--speed', '60'], 200, 50, { columns: 80, rows: 24 });
    expect(screen.exitCode).toBe(0);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    const live = liveLines(screen);
    expect(live.length).toBeGreaterThan(1);
    expect(live.every((l) => l.length <= 80)).toBe(true);
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });
});
