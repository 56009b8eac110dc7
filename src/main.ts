#!/usr/bin/env node
// The bin entry: the only place that touches process.exit semantics. It sets process.exitCode so output flushes.
import module from 'node:module';
import { basename } from 'node:path';

// Node 22.1+ caches compiled code between runs (npm does the same); it must be on before commander and cli.js load,
// hence the dynamic import below. Node 20 has no compile cache and simply skips this.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// The SDK warns on every run under Node 20 that its 2027 releases will need Node 22. karp-drift pins its SDK
// versions and supports Node 20 (README "Requirements"), so the warning would only be noise on stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { runCli } = await import('./cli.js');

// `karp-drift upgrade --help | head`: the reader went away. Stop as a shell tool stopped by SIGPIPE does, without a
// stack; nothing is lost, since nobody reads the rest.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

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

process.exitCode = await runCli(process.argv.slice(2), {
  io: {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
    interactive: Boolean(process.stdout.isTTY && process.stdin.isTTY),
    screen: (stream) => {
      const tty = stream === 'out' ? process.stdout : process.stderr;
      return tty.isTTY && tty.columns > 0 ? { columns: tty.columns, rows: tty.rows } : undefined;
    },
    onResize: (listener) => {
      // Node refreshes a terminal stream's columns/rows on SIGWINCH and then emits 'resize' on it; one stream is enough.
      const tty = process.stdout.isTTY ? process.stdout : process.stderr.isTTY ? process.stderr : undefined;
      tty?.on('resize', listener);
      return () => void tty?.off('resize', listener);
    },
    canPrompt: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  },
  env: process.env,
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  signal: controller.signal,
  invokedAs: basename(process.argv[1] ?? ''),
});
// Commands close their sockets; anything left (a keep-alive agent) must not hold the process open.
process.removeListener('SIGINT', onSignal);
process.removeListener('SIGTERM', onSignal);
