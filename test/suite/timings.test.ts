import { describe, expect, it } from 'vitest';
import { longestFirst, timingLines, updateRecorded, type FileTiming } from './timings.js';

const file = (name: string, seconds: number, tests = 1, project = 'slow'): FileTiming => ({
  file: `test/e2e/${name}.test.ts`,
  project,
  seconds,
  tests,
});

describe('longestFirst', () => {
  it.each<[string, string[], Record<string, number>, string[]]>([
    ['longest recorded first', ['a', 'b', 'c'], { a: 1, b: 30, c: 5 }, ['b', 'c', 'a']],
    ['a file never recorded goes first (it could be long)', ['a', 'new', 'b'], { a: 9, b: 3 }, ['new', 'a', 'b']],
    ['ties and unknowns by name, so the order is the same on every machine', ['d', 'c', 'b', 'a'], { a: 2, b: 2 }, ['c', 'd', 'a', 'b']],
    ['nothing recorded: by name', ['b', 'a'], {}, ['a', 'b']],
  ])('%s', (_name, files, recorded, expected) => {
    expect(longestFirst(files, (f) => f, recorded)).toEqual(expected);
  });
});

describe('updateRecorded', () => {
  it("keeps the files this run did not take, updates the others to 0.1 s, and sorts the keys", () => {
    const next = updateRecorded({ 'test/e2e/z.test.ts': 4, 'test/e2e/a.test.ts': 1 }, [file('a', 12.345), file('m', 0.04)]);
    expect(Object.entries(next)).toEqual([
      ['test/e2e/a.test.ts', 12.3],
      ['test/e2e/m.test.ts', 0],
      ['test/e2e/z.test.ts', 4],
    ]);
  });
});

describe('timingLines', () => {
  it('a headline with the files run side by side, then the slowest with their share and their drift from the record', () => {
    const files = [file('wait', 20, 5), file('staged', 60, 2), file('bundle', 10, 21, 'unit'), file('new', 10, 1), file('same', 5)];
    expect(timingLines(files, 50, { 'test/e2e/staged.test.ts': 48, 'test/e2e/wait.test.ts': 21.5, 'test/e2e/same.test.ts': 5.04 }, 3)).toEqual([
      'Where the time went: 30 tests in 5 files, 105 s inside files in 50 s',
      'of wall time (2.1 at a time). The 3 slowest files, ± their recorded time:',
      '   60.0 s  57.1 %  +12.0 s  slow  test/e2e/staged.test.ts (2 tests)',
      '   20.0 s  19.0 %   −1.5 s  slow  test/e2e/wait.test.ts (5 tests)',
      '   10.0 s   9.5 %      new  unit  test/e2e/bundle.test.ts (21 tests)',
    ]);
  });

  it('a file within 0.05 s of its record is ±0.0 s, never −0.0', () => {
    expect(timingLines([file('same', 5)], 5, { 'test/e2e/same.test.ts': 5.04 }).at(-1)).toBe(
      '    5.0 s 100.0 %   ±0.0 s  slow  test/e2e/same.test.ts (1 test)',
    );
  });

  it('every file when there are no more than asked for; nothing at all for a run of no file', () => {
    expect(timingLines([file('one', 1.25)], 1, {})).toEqual([
      'Where the time went: 1 test in 1 file, 1 s inside files in 1 s',
      'of wall time (1.3 at a time). Every file, slowest first, ± their recorded time:',
      '    1.3 s 100.0 %      new  slow  test/e2e/one.test.ts (1 test)',
    ]);
    expect(timingLines([], 3, {})).toEqual([]);
  });
});
