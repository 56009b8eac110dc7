// A table fitted to a terminal's width: the same kubectl-style columns when they fit, then closer, then narrower cells
// cut with '…', then a block per row; never a header cut.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { columns, fitColumns } from '../../src/text/table.js';

const headers = ['NODEPOOL', 'NODECLASS', 'NODES', 'DRIFTED'];
const rows = [
  ['general', 'bottlerocket-arm64', '24', '3'],
  ['gpu', 'default', '2', '0'],
];

describe('fitColumns', () => {
  it.each<[string, number, string[]]>([
    [
      'three spaces apart when that fits, as columns() prints it',
      80,
      [
        'NODEPOOL   NODECLASS            NODES   DRIFTED',
        'general    bottlerocket-arm64   24      3',
        'gpu        default              2       0',
      ],
    ],
    [
      'two spaces apart before any cell is cut',
      44,
      [
        'NODEPOOL  NODECLASS           NODES  DRIFTED',
        'general   bottlerocket-arm64  24     3',
        'gpu       default             2      0',
      ],
    ],
    [
      'the widest column narrowed, its cells cut, its header whole',
      38,
      [
        'NODEPOOL  NODECLASS     NODES  DRIFTED',
        'general   bottlerocke…  24     3',
        'gpu       default       2      0',
      ],
    ],
    [
      'no column narrower than its header',
      35,
      ['NODEPOOL  NODECLASS  NODES  DRIFTED', 'general   bottlero…  24     3', 'gpu       default    2      0'],
    ],
    [
      'headers too wide side by side: a block per row, each header beside its value',
      30,
      [
        'NODEPOOL: general',
        '  NODECLASS: bottlerocket-arm…',
        '  NODES: 24  DRIFTED: 3',
        'NODEPOOL: gpu',
        '  NODECLASS: default  NODES: 2',
        '  DRIFTED: 0',
      ],
    ],
    ['a pair wider than the screen is cut', 16, [
        'NODEPOOL: gener…',
        '  NODECLASS: bo…',
        '  NODES: 24',
        '  DRIFTED: 3',
        'NODEPOOL: gpu',
        '  NODECLASS: de…',
        '  NODES: 2',
        '  DRIFTED: 0',
      ],],
  ])('%s (%d columns)', (_name, width, expected) => {
    const lines = fitColumns(headers, rows, width);
    expect(lines).toEqual(expected);
    expect(lines.filter((l) => stringWidth(l) > width)).toEqual([]);
  });

  it('unbounded, it is columns() line by line', () => {
    expect(fitColumns(headers, rows, Infinity).map((l) => `${l}\n`).join('')).toBe(columns(headers, rows));
  });

  it('counts display columns: a wide cell is cut to what it shows', () => {
    // 8 columns for the note: 日本語の… would be 9.
    expect(fitColumns(['NAME', 'NOTE'], [['a', '日本語のテキスト']], 14)).toEqual(['NAME  NOTE', 'a     日本語…']);
  });
});
