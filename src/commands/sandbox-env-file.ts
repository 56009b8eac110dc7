// --env-out: the export lines in a file a script sources. Written whole or not at all (a temp file in the same
// folder, renamed over the path), so a script that waits for the file never sources half of it.
import { randomBytes } from 'node:crypto';
import { readFile, rm, stat, writeFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RuntimeFailure } from '../errors.js';
import { PID_VARIABLE } from './sandbox-shell.js';

/**
 * A file left by an earlier sandbox would point a script that waits for the file at a sandbox that is gone: removed
 * before this one starts. Devices and FIFOs (/dev/stdout) are left alone.
 */
export async function removeStaleEnvFile(path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isFile()) await rm(path, { force: true });
}

/**
 * At stop, the file this sandbox wrote goes with it: a script that sources it later would reach a sandbox that is
 * gone. Only while it is still this sandbox's (its PID line): another sandbox may have written the path since.
 */
export async function removeOwnEnvFile(path: string, pid: number): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (!existing?.isFile()) return;
  const text = await readFile(path, 'utf8').catch(() => '');
  if (isOwnEnvFile(text, pid)) await rm(path, { force: true });
}

export function isOwnEnvFile(text: string, pid: number): boolean {
  return text.split('\n').includes(`export ${PID_VARIABLE}='${pid}'`);
}

export async function writeEnvFile(path: string, text: string): Promise<void> {
  try {
    // /dev/stdout, a FIFO or a process substitution cannot be renamed over: they are written as they are.
    const existing = await stat(path).catch(() => undefined);
    if (existing && !existing.isFile()) {
      await writeFile(path, text);
      return;
    }
    const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, text, { mode: 0o600 });
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  } catch (err) {
    throw new RuntimeFailure(`writing --env-out ${path}: ${(err as Error).message}`, { cause: err, hint: 'pick a writable path' });
  }
}
