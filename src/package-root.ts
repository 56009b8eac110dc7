// Where karp-drift's own files are: package.json, templates/, scenarios/ and vendor/ sit at the package root. The
// code runs from src/ (vitest) or from dist/, where the build (scripts/build.mjs) bundles modules into entry files
// and shared chunks at depths that have nothing to do with src/'s folders: a path relative to import.meta.url would
// hold in one of them only. The root is the nearest folder above this module with a package.json, wherever the
// bundler put it (a global install's node_modules/karp-drift/ included).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package root, found once (a few stat calls) on first use. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`karp-drift's package.json is in no folder above ${start}`);
  }
}

/** A file or folder of the package, e.g. packagePath('templates'). */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
