// The TypeScript sources under a directory of the repository, by path relative to its root: what the architecture
// checks read.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

export function sourcesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.ts$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(relative(ROOT, path), readFileSync(path, 'utf8'));
  }
  return out;
}
