// dist/help.cjs: the command definitions (cli/program.ts) built as CommonJS, for bin.ts to answer `--help`, `<command> --help`,
// `help [command]` and `--version` without Node's ES module loader. The same code as dist/main.js runs, so the output
// is the same; no command's action runs here (isHelpOnly), so the modules actions import are left out of this build.
import { runCli } from './program.js';
import { exitQuietlyOnEpipe, processRunEnvironment } from './process-run.js';

export async function printHelp(argv: readonly string[]): Promise<void> {
  exitQuietlyOnEpipe();
  process.exitCode = await runCli([...argv], processRunEnvironment(new AbortController().signal));
}
