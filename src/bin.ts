#!/usr/bin/env node
// The bin (package.json "bin": karp-drift and kubectl-karp_drift), built to dist/bin.cjs. It is CommonJS so that help
// and the version are printed without Node's ES module loader, which costs Node 20 about a fifth of what `--help`
// adds to Node's own start: from the text printed at build time (dist/help/) into a pipe or a file, else by commander
// (dist/help.cjs). Every other command line loads the CLI, dist/main.js, an ES module.
import module from 'node:module';
import { join } from 'node:path';
import { isHelpOnly } from './cli/help-only.js';
import { printPrinted } from './cli/help-printed.js';
import type { printHelp } from './cli/help.js';

// Node 22.1+ caches compiled code between runs, as main.ts says; on before anything else loads.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const argv = process.argv.slice(2);
if (isHelpOnly(argv)) {
  // Into a pipe or a file, the text printed at build time (cli/help-printed.ts); else commander prints it.
  if (!printPrinted(join(__dirname, 'help'), argv)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a sibling file of the build, loaded only here
    void (require('./help.cjs') as { printHelp: typeof printHelp }).printHelp(argv);
  }
} else {
  void import('./main.js');
}
