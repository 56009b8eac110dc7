// Fitting text to a terminal, for the frames redrawn in place (upgrade's live display, `status --watch`). A redraw
// moves the cursor up over the previous frame, so the frame must know how many screen rows it took: every line is cut
// to the terminal's width (a wrapped line would take two rows and leave half-redrawn frames behind), and a frame is
// never taller than the screen (the cursor cannot move up past the top row). Widths are display columns, not UTF-16
// code units: the frames use '…', '→', '█' and colours, so string-width and cli-truncate count them (ANSI-aware).
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** A terminal's size in display columns and rows. */
export interface Screen {
  columns: number;
  rows: number;
}

/** `line` cut to `columns` display columns, ending in '…' when cut. */
export function fitLine(line: string, columns: number): string {
  return stringWidth(line) <= columns ? line : cliTruncate(line, Math.max(1, columns));
}

/**
 * `line` cut into rows of at most `columns` display columns, where the terminal would wrap it: a log line printed
 * above a frame is written row by row so that each row is erased first (a wrapped row would keep the end of the
 * frame line it overwrote). Plain text only (the log lines carry no colour).
 */
export function wrapRows(line: string, columns: number): string[] {
  const width = Math.max(1, columns);
  if (stringWidth(line) <= width) return [line];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(line)) {
    const w = stringWidth(segment);
    if (used + w > width) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += segment;
    used += w;
  }
  rows.push(row);
  return rows;
}

/** The screen rows `line` takes on a terminal `columns` wide that wraps long lines. */
export function screenRows(line: string, columns: number): number {
  return Math.max(1, Math.ceil(stringWidth(line) / Math.max(1, columns)));
}

/**
 * `lines` fitted to the screen: each cut to its width, and when there are more than fit above the cursor's row, the
 * first ones and `more(hidden)` as the last.
 */
export function fitLines(lines: readonly string[], screen: Screen, more: (hidden: number) => string): string[] {
  const fitted = lines.map((l) => fitLine(l, screen.columns));
  const room = frameRows(screen);
  if (fitted.length <= room) return fitted;
  const shown = Math.max(0, room - 1);
  return [...fitted.slice(0, shown), fitLine(more(fitted.length - shown), screen.columns)];
}

/** The rows a frame may take: one stays free for the cursor, which rests below the frame's last line. */
export function frameRows(screen: Screen): number {
  return Math.max(1, screen.rows - 1);
}

/** What was drawn last, and on how wide a screen. */
export interface Drawn {
  lines: readonly string[];
  columns: number;
}

/**
 * The escape sequence that replaces `previous` with `next`: up over the rows `previous` takes now, then each line over
 * the row it replaces, then clear what is left below. After a resize the terminal has re-wrapped the previous lines to the new width (xterm,
 * VTE, tmux, iTerm2 and Windows Terminal reflow), so its rows are counted at the new width.
 */
export function redrawLines(previous: Drawn | undefined, next: readonly string[], screen: Screen): string {
  const rows = previous === undefined ? 0 : previous.lines.reduce((n, l) => n + screenRows(l, screen.columns), 0);
  const up = Math.min(rows, Math.max(0, screen.rows - 1));
  // Each row is erased before it is written, and the screen below only after the last one: an erase-to-end-of-screen
  // from the top-left corner makes tmux push the whole screen into its scrollback (scroll-on-clear), a copy per redraw.
  return `${up > 0 ? `\u001b[${up}A` : ''}\r${next.map((l) => `\u001b[2K${l}\n`).join('')}\u001b[J`;
}
