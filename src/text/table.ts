// kubectl-style columns: left-aligned, three spaces apart, no trailing blanks.
export function columns(headers: readonly string[], rows: readonly string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [headers, ...rows].map((cells) => `${cells.map((c, i) => c.padEnd(widths[i]!)).join('   ').trimEnd()}\n`).join('');
}
