// Fitting frames to a terminal: widths in display columns (not UTF-16 code units, not escape codes), and the redraw
// that moves up over exactly the rows the previous frame takes now.
import { describe, expect, it } from 'vitest';
import { fitLine, fitWrapped, redrawLines, screenRows, wrapLines, wrapText } from '../../src/report/screen.js';

describe('fitLine', () => {
  it.each([
    ['short enough', 'abc', 5, 'abc'],
    ['exactly the width', 'abcde', 5, 'abcde'],
    ['cut with an ellipsis', 'abcdef', 5, 'abcd…'],
    ['wide characters count as they show', '██████', 4, '███…'],
    ['an arrow is one column', 'a → b → c', 9, 'a → b → c'],
    ['East Asian characters are two columns', '日本語のテキスト', 7, '日本語…'],
    ['never wider than the screen where a two-column character meets the cut', '日本語のテキスト', 8, '日本語…'],
    ['colour codes take no room', '\u001b[33mwarning\u001b[0m', 7, '\u001b[33mwarning\u001b[0m'],
    ['a cut keeps the colour closed', '\u001b[33mwarning: long\u001b[0m', 5, '\u001b[33mwarn…\u001b[39m'],
  ])('%s', (_name, line, columns, expected) => {
    expect(fitLine(line, columns)).toBe(expected);
  });
});

describe('screenRows', () => {
  it.each([
    ['', 80, 1],
    ['x'.repeat(80), 80, 1],
    ['x'.repeat(81), 80, 2],
    ['█'.repeat(100), 40, 3],
    ['\u001b[32mdone\u001b[0m', 4, 1],
  ])('%j on %d columns takes %d rows', (line, columns, rows) => {
    expect(screenRows(line, columns)).toBe(rows);
  });
});

describe('fitWrapped', () => {
  const more = (n: number) => `… ${n} more rows`;
  it.each<[string, string[][], { columns: number; rows: number }, string[]]>([
    ['fits as it is', [['a'], ['b', '  b']], { columns: 10, rows: 5 }, ['a', 'b', '  b']],
    ['as tall as fits above the cursor', [['a'], ['b'], ['c', 'c']], { columns: 10, rows: 5 }, ['a', 'b', 'c', 'c']],
    ['taller: whole lines, then how many rows more', [['a'], ['b'], ['c'], ['d'], ['e']], { columns: 20, rows: 5 }, ['a', 'b', 'c', '… 2 more rows']],
    // The command on the second line would fit by half: it is left out whole.
    ['a wrapped line is shown whole or not at all', [['a'], ['b1', 'b2', 'b3'], ['c']], { columns: 20, rows: 4 }, ['a', '… 4 more rows']],
    ['the "more" line is cut to the width', [['a'], ['b'], ['c']], { columns: 8, rows: 3 }, ['a', '… 2 mor…']],
  ])('%s', (_name, lines, screen, expected) => {
    expect(fitWrapped(lines, screen, more)).toEqual(expected);
  });
});

describe('wrapText', () => {
  it.each<[string, string, number, string[]]>([
    ['fits', 'next: karp-drift resume', 80, ['next: karp-drift resume']],
    ['unbounded', 'x '.repeat(200), Infinity, ['x '.repeat(200)]],
    ['at spaces, the rest hanging two columns in', 'STALL-HELD: karp-drift holds Drifted', 20, ['STALL-HELD:', '  karp-drift holds', '  Drifted']],
    [
      'a next: hangs under its text, the command whole',
      '  next: re-run it or release: karp-drift resume --nodepool batch',
      36,
      ['  next: re-run it or release:', '        karp-drift resume --nodepool', '        batch'],
    ],
    [
      'a command kept on one row when it fits one',
      '  next: re-run it, or release the hold: karp-drift resume --nodepool batch (it waits)',
      44,
      ['  next: re-run it, or release the hold:', '        karp-drift resume --nodepool batch', '        (it waits)'],
    ],
    [
      'a command ends at ; , or ) and before a ( aside',
      'stop it now: karp-drift pause --nodepool a; then kubectl get lease x -o yaml (it needs get)',
      34,
      ['stop it now:', '  karp-drift pause --nodepool a;', '  then kubectl get lease x -o yaml', '  (it needs get)'],
    ],
    [
      'a command wider than a row wraps at its spaces',
      'next: karp-drift upgrade --to 1.30 --canary canary --waves 1,10%,100%',
      30,
      ['next: karp-drift upgrade --to', '      1.30 --canary canary', '      --waves 1,10%,100%'],
    ],
    ['evidence hangs under its text', '  - node ip-10-0-1-2 has do-not-disrupt', 24, ['  - node ip-10-0-1-2 has', '    do-not-disrupt']],
    ['a word wider than a row is broken where the row ends', 'run 8bad717d-5f4d-467f-8cc6', 12, ['run', '  8bad717d-5', '  f4d-467f-8', '  cc6']],
    ['wide characters count two columns', '日本語 テキスト です', 8, ['日本語', '  テキス', '  ト', '  です']],
    ['a hang over half the row is dropped', '        next: karp-drift resume --nodepool batch', 20, ['        next:', 'karp-drift resume', '--nodepool batch']],
    [
      "a table's row keeps its padded columns on the rows it is wrapped into (a staged plan's NodePool)",
      '    nodepool/arm     3 old nodes  waves 1, +1, +1  held with budget: no GitOps or IaC tool manages its budgets',
      80,
      ['    nodepool/arm     3 old nodes  waves 1, +1, +1  held with budget: no GitOps', '      or IaC tool manages its budgets'],
    ],
  ])('%s', (_name, line, columns, rows) => {
    expect(wrapText(line, columns)).toEqual(rows);
    for (const r of rows) if (Number.isFinite(columns)) expect(screenRows(r, columns)).toBe(1);
    // Nothing is lost but spaces: no '…', no character dropped.
    expect(rows.join('').replace(/ /g, '')).toBe(line.replace(/ /g, ''));
  });
});

describe('redrawLines', () => {
  const screen = { columns: 80, rows: 24 };
  it.each([
    ['the first frame', undefined, ['x'], screen, '\r\u001b[2Kx\n\u001b[J'],
    ['up over the previous lines', { lines: ['a', 'b', 'c'], columns: 80 }, ['x'], screen, '\u001b[3A\r\u001b[2Kx\n\u001b[J'],
    // After a resize to 40 columns the terminal re-wrapped the 60-column line over two rows.
    ['up over the rows they take after a resize', { lines: ['a', 'y'.repeat(60)], columns: 80 }, ['x'], { columns: 40, rows: 24 }, '\u001b[3A\r\u001b[2Kx\n\u001b[J'],
    ['never above the top row', { lines: Array.from({ length: 30 }, () => 'a'), columns: 80 }, ['x'], { columns: 80, rows: 10 }, '\u001b[9A\r\u001b[2Kx\n\u001b[J'],
  ])('%s', (_name, previous, next, size, expected) => {
    expect(redrawLines(previous, next, size)).toBe(expected);
  });
});

describe('wrapLines (printed text on a terminal: a plan, log lines)', () => {
  it.each<[string, string, number, string]>([
    ['short lines stay as they are, the last newline too', 'a b\nc\n', 80, 'a b\nc\n'],
    [
      'a long line wraps at spaces, hung under its indent',
      '  FIELD-OWNER-KUBECTL: spec.amiSelectorTerms of ec2nodeclass/default was last set by hand\n',
      40,
      '  FIELD-OWNER-KUBECTL:\n    spec.amiSelectorTerms of\n    ec2nodeclass/default was last set by\n    hand\n',
    ],
    ['coloured words wrap as plain ones (widths without the escapes)', '\u001b[33mwarn\u001b[0m one two three', 12, '\u001b[33mwarn\u001b[0m one two\n  three'],
    ['a coloured line with a word wider than a row is left to the terminal', '\u001b[33mx\u001b[0m abcdefghijklmnop', 10, '\u001b[33mx\u001b[0m abcdefghijklmnop'],
  ])('%s', (_name, text, columns, wrapped) => {
    expect(wrapLines(text, columns)).toBe(wrapped);
  });
});
