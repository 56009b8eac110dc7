// Text cut to a terminal's width, in display columns (string-width: '…', '█' and CJK as they show; colours take
// none).
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** `text` cut to at most `columns` display columns, ending in '…' when cut. */
export function cutTo(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  const width = Math.max(1, columns);
  const cut = cliTruncate(text, width);
  // cli-truncate 5 overshoots by one where a two-column character meets the '…' (8 columns of 日本語のテキスト
  // come back as 日本語の…, 9): one column less then.
  return stringWidth(cut) <= width ? cut : cliTruncate(text, width - 1);
}
