// dist/help.cjs: the command definitions (cli/program.ts) built as CommonJS, for bin.ts to answer `--help`, `<command> --help`,
// `help [command]` and `--version` without Node's ES module loader. The same code as dist/main.js runs, so the output
// is the same; no command's action runs here (isHelpOnly), so the modules actions import are left out of this build.
import { HELP_ONLY_ARGVS } from './help-only.js';
export { helpFile } from './help-printed.js';
import { runCli } from './program.js';
import { exitQuietlyOnEpipe, processRunEnvironment } from './process-run.js';

export async function printHelp(argv: readonly string[]): Promise<void> {
  exitQuietlyOnEpipe();
  process.exitCode = await runCli([...argv], processRunEnvironment(new AbortController().signal));
}

/** What a help-only command line printed, and its exit code. */
export interface PrintedHelp {
  argv: readonly string[];
  out: string;
  err: string;
  code: number;
}

/**
 * What every help-only command line prints to a stdout that is not a terminal, as `invokedAs` (karp-drift or
 * kubectl-karp_drift): scripts/build.mjs runs it in a process whose stdout is a pipe, so commander formats for 80
 * columns and without colour as it does for a pipe, and writes each to dist/help/ (cli/help-printed.ts).
 */
export async function helpTexts(invokedAs: string): Promise<PrintedHelp[]> {
  const printed: PrintedHelp[] = [];
  for (const argv of HELP_ONLY_ARGVS) {
    let out = '';
    let err = '';
    const code = await runCli([...argv], {
      io: { out: (s) => void (out += s), err: (s) => void (err += s), interactive: false, screen: () => undefined },
      env: process.env,
      stdoutIsTTY: false,
      signal: new AbortController().signal,
      invokedAs,
    });
    printed.push({ argv, out, err, code });
  }
  return printed;
}
