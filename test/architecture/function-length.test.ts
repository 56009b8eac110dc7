// The commands read as short recipes (STYLE.md): no function in src/commands/ over MAX_LINES, so the follow loop
// stays a controller that calls named steps (observe, decide, act, report) rather than one long body.
import { describe, expect, it } from 'vitest';
import { functionSpans } from './function-length.js';
import { sourcesUnder } from './sources.js';

const MAX_LINES = 80;

describe('function length', () => {
  it.each<[string, string, { name: string; lines: number }[]]>([
    ['a declaration, to its closing brace', 'export function a(): number {\n  const x = 1;\n  return x;\n}\n', [{ name: 'a', lines: 4 }]],
    [
      'a closure counts toward the function it is in',
      'export async function outer() {\n  const inner = () => {\n    return 1;\n  };\n  return inner();\n}\n',
      [{ name: 'outer', lines: 6 }],
    ],
    [
      'arrow functions and methods at the top level',
      'const f = (a: number) =>\n  a + 1;\nexport const o = {\n  m() {\n    return 2;\n  },\n};\n',
      [
        { name: 'f', lines: 2 },
        { name: 'm', lines: 3 },
      ],
    ],
    ['signatures without a body are not functions', 'export function g(a: string): void;\ninterface I { h(): void }\n', []],
  ])('%s', (_name, text, expected) => {
    expect(functionSpans('x.ts', text)).toEqual(expected);
  });

  it(`no function in src/commands/ is over ${MAX_LINES} lines`, () => {
    const sources = sourcesUnder('src/commands');
    expect(sources.size).toBeGreaterThan(10);
    const long = [...sources].flatMap(([file, text]) =>
      functionSpans(file, text)
        .filter((f) => f.lines > MAX_LINES)
        .map((f) => `${file} ${f.name}: ${f.lines} lines`),
    );
    expect(long).toEqual([]);
  });
});
