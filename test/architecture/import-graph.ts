// The relative-import graph of src/, as ../shared/tools/import-cycles.mjs reads it: static imports and re-exports
// (type-only ones too: a type a room needs from a higher one is still a dependency), and lazy `import()`s. Pure: files
// in, edges and circles out; the test beside it reads src/.
import { dirname, posix } from 'node:path';

/** file -> the files it imports (paths as given, `.js` specifiers mapped to the `.ts` sources). */
export type ImportGraph = Map<string, Set<string>>;

const STATIC = /^\s*(?:import|export)\s+(?:type\s+)?[^'";]*?\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const LAZY = /import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function importGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [file, text] of sources) {
    const targets = new Set<string>();
    for (const m of [...text.matchAll(STATIC), ...text.matchAll(LAZY)]) {
      const target = posix.join(dirname(file), m[1]!).replace(/\.js$/, '.ts');
      if (sources.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

const STATIC_PACKAGE = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s*from\s*)?['"]([^.'"][^'"]*)['"]/gm;
const LAZY_PACKAGE = /import\(\s*['"]([^.'"][^'"]*)['"]\s*\)/g;

/** file -> the packages it imports (`node:fs`, `zod`, `@aws-sdk/client-ssm`), type-only imports included. */
export function packageImports(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [file, text] of sources) {
    out.set(file, [...new Set([...text.matchAll(STATIC_PACKAGE), ...text.matchAll(LAZY_PACKAGE)].map((m) => m[1]!))]);
  }
  return out;
}

/** Groups of files that import each other in a circle (Tarjan's strongly connected components), each sorted. */
export function importCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
