// Help and the version as printed ahead of time. A help-only command line (help-only.ts) prints the same text every
// time it is run into a pipe or a file: commander formats it for 80 columns without colour then, and nothing else
// about the run changes it. scripts/build.mjs has commander print each one (cli/help.ts helpTexts) into
// dist/help/<bin>/, and bin.ts prints the file instead of loading commander and the command definitions, which cost
// Node 20 more than its own start-up does to print them (`--help` 1.2× `node -e 0` that way, 1.0× this way).
// A terminal (its width and colours), FORCE_COLOR or CLICOLOR_FORCE (commander's colours), or a file missing goes
// the long way, to dist/help.cjs.
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Where the text of `argv` is, under the folder of help files, for a bin invoked as `invokedAs`. */
export function helpFile(invokedAs: string, argv: readonly string[]): string {
  return join(invokedAs === 'kubectl-karp_drift' ? 'kubectl-karp_drift' : 'karp-drift', `${encodeURIComponent(argv.join(' '))}.txt`);
}

/** Prints the help of a help-only `argv` from `dir`; false when it is not to be printed that way (nothing printed). */
export function printPrinted(dir: string, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined || env.CLICOLOR_FORCE !== undefined) return false;
  let text: Buffer;
  try {
    const stdout = fstatSync(1);
    if (!stdout.isFIFO() && !stdout.isFile() && !stdout.isSocket()) return false; // a terminal, or /dev/null
    text = readFileSync(join(dir, helpFile(basename(process.argv[1] ?? ''), argv)));
  } catch {
    return false;
  }
  let written = 0;
  try {
    while (written < text.length) written += writeSync(1, text, written);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // `karp-drift --help | head`: the reader went away; nothing is lost (process-run.ts exitQuietlyOnEpipe).
    if (code === 'EPIPE') return true;
    if (code !== 'EAGAIN') throw err;
    // A non-blocking pipe that is full: the stream waits for the reader.
    process.stdout.write(text.subarray(written));
  }
  return true;
}
