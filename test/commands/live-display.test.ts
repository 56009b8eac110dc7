// The full-screen display `status --watch` draws with: on the alternate screen from its top-left corner, drawn
// again at the new size on a resize, and back on the normal screen at the end with the last frame printed there.
import { describe, expect, it } from 'vitest';
import { fullScreenDisplay } from '../../src/commands/live-display.js';
import type { Io } from '../../src/commands/context.js';
import type { Screen } from '../../src/report/screen.js';

function terminal(size: Screen | undefined) {
  const written: string[] = [];
  let listener: (() => void) | undefined;
  const io: Io = {
    out: (t) => void written.push(t),
    err: () => undefined,
    interactive: size !== undefined,
    screen: () => size,
    onResize: (l) => {
      listener = l;
      return () => (listener = undefined);
    },
  };
  return {
    io,
    written,
    resize(next: Screen) {
      size = next;
      listener?.();
    },
    listening: () => listener !== undefined,
  };
}

describe('fullScreenDisplay', () => {
  it('is not for a pipe', () => {
    expect(fullScreenDisplay(terminal(undefined).io, 'out')).toBeUndefined();
  });

  it('draws on the alternate screen from the top, again on a resize, and prints the last frame when it ends', () => {
    const t = terminal({ columns: 80, rows: 24 });
    const display = fullScreenDisplay(t.io, 'out')!;
    display.show((screen) => [`${screen.columns} columns`, 'b']);
    t.resize({ columns: 50, rows: 24 });
    display.end();
    t.resize({ columns: 60, rows: 24 });
    expect(t.written).toEqual([
      '\u001b[?1049h',
      '\u001b[H\u001b[2K80 columns\n\u001b[2Kb\n\u001b[J',
      '\u001b[H\u001b[2K50 columns\n\u001b[2Kb\n\u001b[J',
      '\u001b[?1049l50 columns\nb\n',
    ]);
    expect(t.listening()).toBe(false);
  });

  it('leaves the screen alone when nothing was drawn', () => {
    const t = terminal({ columns: 80, rows: 24 });
    fullScreenDisplay(t.io, 'out')!.end();
    expect(t.written).toEqual([]);
  });
});
