// Text in display columns (string-width: '…', '█' and CJK as they show; colours take none), and cut to a terminal's
// width.
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/**
 * Printable ASCII only: one column per character, which is what string-width says of such text. Most of what
 * karp-drift prints is such text (names, versions, counts), and string-width segments every string into graphemes and
 * tests each against Unicode property classes; `status` and `plan` measure every cell of their tables.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The columns `text` takes on a terminal (ANSI-aware). */
export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

/** `text` cut to at most `columns` display columns, ending in '…' when cut. */
export function cutTo(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  const width = Math.max(1, columns);
  const cut = cliTruncate(text, width);
  // cli-truncate 5 overshoots by one where a two-column character meets the '…' (8 columns of 日本語のテキスト
  // come back as 日本語の…, 9): one column less then.
  return displayWidth(cut) <= width ? cut : cliTruncate(text, width - 1);
}
