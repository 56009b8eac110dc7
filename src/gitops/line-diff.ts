// The lines two versions of a file differ in, as unified-diff hunks with three lines of context (GNU diff -u's
// default; `git apply` and `patch -p1` read what report/pin.ts prints from them). Computed here, printed there
// (STYLE.md "Diffs are computed and rendered apart"). Pure.

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  /** 1-based first line and count in the old and the new file (a count of 0 names the line before). */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** Ends the text of a file's last line when the file does not end in a newline (diff's "\ No newline at end of file"). */
export const NO_NEWLINE = '\0';

const CONTEXT = 3;

// A last line without its newline differs from the same text with one, as diff sees it.
const linesOf = (text: string) => (text === '' ? [] : (text.endsWith('\n') ? text.slice(0, -1) : `${text}${NO_NEWLINE}`).split('\n'));

export function lineDiff(before: string, after: string): Hunk[] {
  return hunks(editScript(linesOf(before), linesOf(after)));
}

// The common head and tail are cut first (an edit changes a few lines of a file); the middle by longest common
// subsequence, which is exact and cheap at the size of a manifest.
function editScript(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const middle: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ op: ' ', text: x[i]! });
      i++;
      j++;
    } else if (j < y.length && (i === x.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) middle.push({ op: '+', text: y[j++]! });
    else middle.push({ op: '-', text: x[i++]! });
  }
  // Within a run of changes, removals before additions, as diff prints them.
  const ordered: DiffLine[] = [];
  for (let k = 0; k < middle.length; ) {
    if (middle[k]!.op === ' ') {
      ordered.push(middle[k++]!);
      continue;
    }
    const run: DiffLine[] = [];
    while (k < middle.length && middle[k]!.op !== ' ') run.push(middle[k++]!);
    ordered.push(...run.filter((l) => l.op === '-'), ...run.filter((l) => l.op === '+'));
  }
  const same = (lines: readonly string[]) => lines.map((text): DiffLine => ({ op: ' ', text }));
  return [...same(a.slice(0, head)), ...ordered, ...same(a.slice(a.length - tail))];
}

function hunks(script: readonly DiffLine[]): Hunk[] {
  const changed = script.flatMap((l, k) => (l.op === ' ' ? [] : [k]));
  const out: Hunk[] = [];
  let k = 0;
  while (k < changed.length) {
    const from = Math.max(0, changed[k]! - CONTEXT);
    let last = changed[k]!;
    // Changes closer than twice the context share a hunk.
    while (k + 1 < changed.length && changed[k + 1]! - last <= 2 * CONTEXT) last = changed[++k]!;
    k++;
    const to = Math.min(script.length, last + CONTEXT + 1);
    const before = script.slice(0, from);
    const lines = script.slice(from, to);
    const oldBefore = before.filter((l) => l.op !== '+').length;
    const newBefore = before.filter((l) => l.op !== '-').length;
    const oldLines = lines.filter((l) => l.op !== '+').length;
    const newLines = lines.filter((l) => l.op !== '-').length;
    out.push({ oldStart: oldLines === 0 ? oldBefore : oldBefore + 1, oldLines, newStart: newLines === 0 ? newBefore : newBefore + 1, newLines, lines });
  }
  return out;
}
