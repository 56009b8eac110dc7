// A frame redrawn in place on a terminal (upgrade's live display, `status --watch`): the edge that owns the escape
// sequences and the resize subscription. The frame itself is a pure `(screen) => lines` (report/progress.ts,
// report/status.ts) fitted to the screen (report/screen.ts); on a resize the last one is drawn again at the new size.
import type { Screen } from '../report/screen.js';
import type { Io } from './context.js';
import { redrawLines, wrapRows, type Drawn } from '../report/screen.js';

export interface LiveDisplay {
  /** Draws the frame `render` gives for the screen now, over the previous one; a resize calls it again. */
  show(render: (screen: Screen) => string[]): void;
  /** Prints `text` above the frame (a log line written under it would push a copy of the frame up the screen). */
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
  const draw = () => {
    const screen = size();
    if (screen === undefined || last === undefined) return;
    const lines = last(screen);
    write(redrawLines(drawn, lines, screen));
    drawn = { lines, columns: screen.columns };
  };
  const unsubscribe = io.onResize?.(draw);
  return {
    show(render) {
      last = render;
      draw();
    },
    log(text) {
      const screen = size();
      if (screen === undefined || drawn === undefined || last === undefined) return write(text);
      const lines = last(screen);
      const logged = text
        .replace(/\n$/, '')
        .split('\n')
        .flatMap((l) => wrapRows(l, screen.columns));
      write(redrawLines(drawn, [...logged, ...lines], screen));
      drawn = { lines, columns: screen.columns };
    },
    end() {
      unsubscribe?.();
    },
  };
}
