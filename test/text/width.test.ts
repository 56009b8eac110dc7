// Display columns: printable ASCII is counted without string-width (one column a character), everything else by it,
// so the two always agree.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { cutTo, displayWidth } from '../../src/text/width.js';

describe('displayWidth', () => {
  it.each<[string, string, number]>([
    ['empty', '', 0],
    ['a name', 'ip-10-0-140-60.us-west-2.compute.internal', 41],
    ['every printable ASCII character', Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(''), 95],
    ['an ellipsis', 'general…', 8],
    ['CJK, two columns each', '日本語', 6],
    ['colours take none', '\u001b[31mred\u001b[0m', 3],
    ['a tab takes none, as string-width counts it', 'a\tb', 2],
    ['an emoji', 'ok 👍', 5],
    ['a bar', '██░░', 4],
  ])('%s', (_, text, width) => {
    expect(displayWidth(text)).toBe(width);
    expect(displayWidth(text)).toBe(stringWidth(text));
  });
});

describe('cutTo', () => {
  it.each<[string, number, string]>([
    ['general-purpose', 20, 'general-purpose'],
    ['general-purpose', 8, 'general…'],
    ['日本語のテキスト', 9, '日本語の…'],
  ])('%j in %i columns', (text, columns, cut) => {
    expect(cutTo(text, columns)).toBe(cut);
    expect(displayWidth(cutTo(text, columns))).toBeLessThanOrEqual(columns);
  });
});
