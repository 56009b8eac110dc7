#!/usr/bin/env node
// The CLI's entry (dist/main.js, an ES module; the bin dist/bin.cjs loads it for every command line but a request for
// help or the version): the only place that touches process.exit semantics. It sets process.exitCode so output
// flushes.
import module from 'node:module';
import { exitQuietlyOnEpipe, processRunEnvironment } from './cli/process-run.js';
import { dropDependencyWarnings } from './cli/warnings.js';

// Node 22.1+ caches compiled code between runs (npm does the same); it must be on before commander and cli.js load,
// hence the dynamic import below. Node 20 has no compile cache and simply skips this.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// The SDK warns on every run under Node 20 that its 2027 releases will need Node 22. karp-drift pins its SDK
// versions and supports Node 20 (docs/getting-started.md), so the warning would only be noise on stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Node 24's url.parse() warning about the bundled node-fetch inside client-node (cli/warnings.ts).
dropDependencyWarnings();
const { runCli } = await import('./cli/program.js');

exitQuietlyOnEpipe();

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals) => {
  interrupts += 1;
  // A second Ctrl-C means "now": the first one lets the command finish its in-flight request and report.
  if (interrupts > 1) process.exit(130);
  controller.abort(new Error(`received ${signal}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runCli(process.argv.slice(2), processRunEnvironment(controller.signal));
// Commands close their sockets; anything left (a keep-alive agent) must not hold the process open.
process.removeListener('SIGINT', onSignal);
process.removeListener('SIGTERM', onSignal);
