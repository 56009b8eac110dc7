// Fitting text to a terminal, for the frames redrawn in place (upgrade's live display, `status --watch`). A redraw
// moves the cursor up over the previous frame, so the frame must know how many screen rows it took: every row fits
// the terminal's width (one the terminal wrapped would take two rows and leave half-redrawn frames behind), data cut
// with '…', prose and commands wrapped into rows of their own; and a frame is never taller than the screen (the
// cursor cannot move up past the top row). Widths are display columns, not UTF-16 code units: the frames use '…',
// '→', '█' and colours, so string-width and cli-truncate count them (ANSI-aware; text/width.ts).
import { cutTo, displayWidth } from '../text/width.js';

/** A terminal's size in display columns and rows. */
export interface Screen {
  columns: number;
  rows: number;
}

/**
 * Printed text (a plan, a log line) for a terminal `columns` wide: each line wider than the terminal wrapped at spaces
 * (wrapText) instead of broken mid-word by the terminal. Colours are kept (widths are ANSI-aware, and an escape has no
 * space to break at); only a coloured line with a word wider than a row, which wrapText would break inside, is left
 * to the terminal.
 */
export function wrapLines(text: string, columns: number): string {
  return text
    .split('\n')
    .map((line) =>
      line.includes('\u001b') && line.split(' ').some((w) => displayWidth(w) > columns) ? line : wrapText(line, columns).join('\n'),
    )
    .join('\n');
}

/** `line` cut to `columns` display columns, ending in '…' when cut. */
export function fitLine(line: string, columns: number): string {
  return cutTo(line, columns);
}

/**
 * `line` wrapped at spaces into rows of at most `columns` display columns, as a person would break it: for the
 * frames' prose (a blocker, its evidence, its `next:`), where a command cut with '…' could not be copied. The rows
 * after the first hang under the text after the line's indent and its `- ` or `next: `, so they read as one item; a
 * command is kept on one row when it fits one; a word wider than a row (a long node name) is broken where the row
 * ends. Plain text only.
 */
export function wrapText(line: string, columns: number): string[] {
  const width = Math.max(1, columns);
  if (displayWidth(line) <= width) return [line];
  const lead = /^( *)(- |next: )?/.exec(line)!;
  const hangWidth = lead[0].length + (lead[2] === undefined ? 2 : 0);
  // A hang that leaves less than half the row reads worse than none.
  const hang = ' '.repeat(hangWidth <= width / 2 ? hangWidth : 0);
  const rows: string[] = [];
  let row = lead[0];
  let empty = true; // nothing but the lead or the hang on the row yet
  // The spaces between words are kept where the words stay on one row: a table's row (a staged plan's NodePool, its
  // columns padded) keeps its columns on the row it starts; only a break drops them.
  const parts = line.slice(lead[0].length).split(/( +)/);
  const words = parts.filter((_, i) => i % 2 === 0);
  const gapBefore = (i: number) => (i === 0 ? ' ' : parts[2 * i - 1]!);
  const units = commandUnits(words);
  for (let unit = units.shift(); unit !== undefined; unit = units.shift()) {
    const word = unit.map((i, k) => (k === 0 ? words[i]! : `${gapBefore(i)}${words[i]!}`)).join('');
    const joined = empty ? `${row}${word}` : `${row}${gapBefore(unit[0]!)}${word}`;
    if (unit.length > 1 && displayWidth(joined) > width && displayWidth(hang) + displayWidth(word) > width) {
      units.unshift(...unit.map((i) => [i])); // a command wider than any row: word by word after all
      continue;
    }
    if (displayWidth(joined) <= width) row = joined;
    else {
      // The word goes to the next row, hung; only a word too wide for that too starts beside the lead, broken.
      const alone = displayWidth(hang) + displayWidth(word) <= width;
      let prefix = empty && !alone && displayWidth(row) < width ? row : hang;
      if (prefix === hang && row.trim() !== '') rows.push(row.trimEnd());
      let rest = word;
      while (displayWidth(prefix) + displayWidth(rest) > width) {
        const [head, tail] = splitAt(rest, width - displayWidth(prefix));
        rows.push(`${prefix}${head}`);
        [prefix, rest] = [hang, tail];
      }
      row = `${prefix}${rest}`;
    }
    empty = false;
  }
  rows.push(row);
  return rows;
}

/** A command's first word: what follows it, up to the end of the command, is kept on one row when it fits. */
const COMMAND = /^(karp-drift|kubectl|aws)$/;

/**
 * `words` grouped (by index) into what wraps as one: a command (from its first word to a word that ends in ';', ',' or ')', or
 * to a word opening a '(' aside, or to the end) stays on one row, as a copied row pasted in a shell would otherwise
 * run half a command; every other word alone.
 */
function commandUnits(words: readonly string[]): number[][] {
  const units: number[][] = [];
  let command: number[] | undefined;
  for (const [i, word] of words.entries()) {
    if (command !== undefined && word.startsWith('(')) command = undefined;
    if (command === undefined && COMMAND.test(word)) units.push((command = []));
    if (command === undefined) units.push([i]);
    else command.push(i);
    if (/[;,)]$/.test(word)) command = undefined;
  }
  return units;
}

/** `text` split after its first `columns` display columns (at least one character, so a split always moves on). */
function splitAt(text: string, columns: number): [string, string] {
  let head = '';
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    if (head !== '' && displayWidth(head + segment) > columns) break;
    head += segment;
  }
  return [head, text.slice(head.length)];
}

/**
 * Lines fitted to the screen's height, each line given as the rows it was wrapped into: whole lines while they fit,
 * so a command is on screen whole or not at all, then `more(hidden)` for the rows left out.
 */
export function fitWrapped(lines: readonly (readonly string[])[], screen: Screen, more: (hidden: number) => string): string[] {
  const all = lines.flat();
  const room = frameRows(screen);
  if (all.length <= room) return all;
  const shown: string[] = [];
  for (const rows of lines) {
    if (shown.length + rows.length > room - 1) break;
    shown.push(...rows);
  }
  return [...shown, fitLine(more(all.length - shown.length), screen.columns)];
}

/** The screen rows `line` takes on a terminal `columns` wide that wraps long lines. */
export function screenRows(line: string, columns: number): number {
  return Math.max(1, Math.ceil(displayWidth(line) / Math.max(1, columns)));
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
