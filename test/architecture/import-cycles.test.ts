// No two files under src/ import each other in a circle (STYLE.md: a type or helper both sides need belongs one room
// below). The same reading as ../shared/tools/import-cycles.mjs, kept in the suite so a circle fails the day it lands.
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from './import-graph.js';
import { sourcesUnder } from './sources.js';

describe('the import graph', () => {
  it.each<[string, Record<string, string>, string[][]]>([
    ['no circle', { 'a.ts': "import { b } from './b.js';", 'b.ts': 'export const b = 1;' }, []],
    [
      'a type-only import closes a circle too',
      { 'r/a.ts': "import { b } from './b.js';", 'r/b.ts': "import type { A } from './a.js';" },
      [['r/a.ts', 'r/b.ts']],
    ],
    [
      'a re-export and a lazy import, across rooms',
      {
        'x/a.ts': "export { b } from '../y/b.js';",
        'y/b.ts': "const c = await import('./c.js');",
        'y/c.ts': "import type { A } from '../x/a.js';",
        'y/d.ts': "import { a } from '../x/a.js';",
      },
      [['x/a.ts', 'y/b.ts', 'y/c.ts']],
    ],
    [
      'imports of packages and of files outside the tree are not edges',
      { 'a.ts': "import { z } from 'zod';\nimport { x } from '../elsewhere.js';", 'b.ts': "import { a } from './a.js';" },
      [],
    ],
  ])('%s', (_name, files, expected) => {
    expect(importCircles(importGraph(new Map(Object.entries(files))))).toEqual(expected);
  });

  it('src/ has no import circle', () => {
    const sources = sourcesUnder('src');
    expect(sources.size).toBeGreaterThan(100);
    expect(importCircles(importGraph(sources))).toEqual([]);
  });
});
