// A frame redrawn in place on a terminal (upgrade's live display, `status --watch`): the edge that owns the escape
// sequences and the resize subscription. The frame itself is a pure `(screen) => lines` (report/progress.ts,
// report/status.ts) fitted to the screen (report/screen.ts); on a resize the last one is drawn again at the new size.
import type { Screen } from '../report/screen.js';
import type { Io } from './context.js';
import { redrawLines, wrapText, type Drawn } from '../report/screen.js';

export interface LiveDisplay {
  /** Draws the frame `render` gives for the screen now, over the previous one; a resize calls it again. */
  show(render: (screen: Screen) => string[]): void;
  /**
   * Asks the last `render` again and draws it where it changed (a render that reads the clock: the elapsed time,
   * the soak left): the frame keeps its clock while the turn that would show the next one waits on the cluster.
   */
  redraw(): void;
  /**
   * Prints `text` above the frame (a log line written under it would push a copy of the frame up the screen), each
   * line wrapped at spaces into rows the width of the screen (a command on a row of its own when it fits one).
   */
  log(text: string): void;
  /** Stops following resizes; the last frame stays on screen. */
  end(): void;
}

/** A live display on `stream`, or undefined when that stream is not a terminal (write lines to it instead). */
export function liveDisplay(io: Io, stream: 'out' | 'err'): LiveDisplay | undefined {
  const size = () => io.screen?.(stream);
  if (size() === undefined) return undefined;
  const write = (text: string) => (stream === 'out' ? io.out(text) : io.err(text));
  let drawn: Drawn | undefined;
  let last: ((screen: Screen) => string[]) | undefined;
  const draw = (onlyChanged = false) => {
    const screen = size();
    if (screen === undefined || last === undefined) return;
    const lines = last(screen);
    if (onlyChanged && drawn?.columns === screen.columns && sameLines(drawn.lines, lines)) return;
    write(redrawLines(drawn, lines, screen));
    drawn = { lines, columns: screen.columns };
  };
  const unsubscribe = io.onResize?.(() => draw());
  return {
    show(render) {
      last = render;
      draw();
    },
    redraw() {
      draw(true);
    },
    log(text) {
      const screen = size();
      if (screen === undefined) return write(text);
      const logged = text
        .replace(/\n$/, '')
        .split('\n')
        .flatMap((l) => wrapText(l, screen.columns));
      // Before the first frame: the lines alone, wrapped all the same.
      if (drawn === undefined || last === undefined) return write(`${logged.join('\n')}\n`);
      const lines = last(screen);
      write(redrawLines(drawn, [...logged, ...lines], screen));
      drawn = { lines, columns: screen.columns };
    },
    end() {
      unsubscribe?.();
    },
  };
}

const sameLines = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((l, i) => l === b[i]);

/** A frame that fills the screen (`status --watch`): nothing is printed above it. */
export interface FullScreenDisplay {
  /** Draws the frame `render` gives for the screen now, from its top row; a resize calls it again. */
  show(render: (screen: Screen) => string[]): void;
  /** Goes back to the screen the program started on and prints the last frame there, so it stays. */
  end(): void;
}

/**
 * A frame on the terminal's alternate screen, where `less` and `top` draw, or undefined when `stream` is not a
 * terminal. The alternate screen has no scrollback and is not re-wrapped by a resize (a frame redrawn in the
 * normal screen is: a narrowed window pushes the top of the old frame's re-wrapped rows into the scrollback, where
 * no redraw reaches, and they stay above the live frame), so each redraw starts from the top-left corner and a
 * resize leaves nothing of an old frame.
 */
export function fullScreenDisplay(io: Io, stream: 'out' | 'err'): FullScreenDisplay | undefined {
  const size = () => io.screen?.(stream);
  if (size() === undefined) return undefined;
  const write = (text: string) => (stream === 'out' ? io.out(text) : io.err(text));
  let last: ((screen: Screen) => string[]) | undefined;
  let drawn: readonly string[] | undefined;
  const draw = () => {
    const screen = size();
    if (screen === undefined || last === undefined) return;
    if (drawn === undefined) write(ALTERNATE_SCREEN);
    drawn = last(screen);
    // Each row erased as it is written, the rest of the screen after: no whole-screen erase, which tmux copies into
    // its scrollback (scroll-on-clear).
    write(`\u001b[H${drawn.map((l) => `\u001b[2K${l}\n`).join('')}\u001b[J`);
  };
  const unsubscribe = io.onResize?.(draw);
  return {
    show(render) {
      last = render;
      draw();
    },
    end() {
      unsubscribe?.();
      if (drawn !== undefined) write(`${NORMAL_SCREEN}${drawn.map((l) => `${l}\n`).join('')}`);
    },
  };
}

const ALTERNATE_SCREEN = '\u001b[?1049h';
const NORMAL_SCREEN = '\u001b[?1049l';
