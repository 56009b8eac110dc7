// kubectl-style columns: left-aligned, three spaces apart, no trailing blanks; and the same table fitted to a
// terminal's width for the frames redrawn in place (`status --watch`), where a line wider than the screen is cut.
import { cutTo, displayWidth } from './width.js';

export function columns(headers: readonly string[], rows: readonly string[][]): string {
  return aligned(headers, rows, naturalWidths(headers, rows), 3)
    .map((l) => `${l}\n`)
    .join('');
}

/** The narrowest the space between two columns gets before cells are cut: one space reads as one cell. */
const MIN_GAP = 2;

/**
 * The table as lines of at most `width` display columns, each header whole: three spaces apart when that fits, then
 * two; then the widest columns narrowed (their cells cut with '…', never below their header's width); and when even
 * the headers do not fit side by side, one block per row: its first cell under its header's name, then the other
 * cells as `HEADER: value`, two spaces apart, as many to a line as fit (a pair wider than the screen is cut).
 */
export function fitColumns(headers: readonly string[], rows: readonly string[][], width: number): string[] {
  const natural = naturalWidths(headers, rows);
  for (const gap of [3, MIN_GAP]) if (total(natural, gap) <= width) return aligned(headers, rows, natural, gap);
  const floor = headers.map((h) => displayWidth(h));
  if (total(floor, MIN_GAP) > width) return records(headers, rows, width);
  const widths = [...natural];
  while (total(widths, MIN_GAP) > width) {
    const widest = widths.reduce((w, n, i) => (n - floor[i]! > widths[w]! - floor[w]! ? i : w), 0);
    widths[widest]!--;
  }
  return aligned(headers, rows, widths, MIN_GAP);
}

function naturalWidths(headers: readonly string[], rows: readonly string[][]): number[] {
  return headers.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i]!))));
}

const total = (widths: readonly number[], gap: number) => widths.reduce((n, w) => n + w, 0) + gap * (widths.length - 1);

function aligned(headers: readonly string[], rows: readonly string[][], widths: readonly number[], gap: number): string[] {
  return [headers, ...rows].map((cells) =>
    cells
      .map((c, i) => pad(cutTo(c, widths[i]!), widths[i]!))
      .join(' '.repeat(gap))
      .trimEnd(),
  );
}

const pad = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - displayWidth(cell)));

function records(headers: readonly string[], rows: readonly string[][], width: number): string[] {
  return rows.flatMap((cells) => {
    const lines = [cutTo(`${headers[0]}: ${cells[0]}`, width)];
    let line = '';
    for (const pair of cells.slice(1).map((c, i) => `${headers[i + 1]}: ${c}`)) {
      const joined = line === '' ? `  ${pair}` : `${line}  ${pair}`;
      if (line === '' || displayWidth(joined) <= width) line = joined;
      else {
        lines.push(cutTo(line, width));
        line = `  ${pair}`;
      }
    }
    if (line !== '') lines.push(cutTo(line, width));
    return lines;
  });
}
