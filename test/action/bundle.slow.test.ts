// The committed action bundle (action/dist/) is what the runner runs: it must be exactly what the source builds to,
// as JavaScript actions check in CI. Rebuilt into a temporary folder and compared file by file.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const normalize = (text: string) => text.replace(/([a-z-]+)-[A-Z0-9]{8}\.js/g, '$1-*.js');

async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(relative(dir, path), await readFile(path));
  }
  return out;
}

describe('action/dist', () => {
  it('is what the source builds to (run `npm run build:action` and commit action/dist when this fails)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-action-'));
    try {
      await promisify(execFile)(process.execPath, [join(root, 'scripts/build-action.mjs'), dir], { cwd: root });
      const built = await files(dir);
      const committed = await files(join(root, 'action/dist'));
      // The build is byte-identical from one run to the next (scripts/cli-build-options.mjs says what once made it
      // race). The code is compared with the hashed chunk names normalized, file by file in a stable order, so that a
      // failure names the module that changed rather than every chunk whose hash moved with it.
      const code = (m: Map<string, Buffer>) =>
        [...m].map(([name, bytes]) => `${normalize(name)}\n${normalize(bytes.toString('utf8'))}`).sort();
      expect(committed.size).toBe(built.size);
      const expected = new Set(code(committed));
      const stale = code(built)
        .filter((c) => !expected.has(c))
        .map((c) => c.split('\n')[0]);
      expect(stale, 'files in action/dist whose code differs from a fresh build').toEqual([]);
      expect(built.has('main.js') && built.has('post.js') && built.has('cli/main.js')).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
