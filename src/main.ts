#!/usr/bin/env node
// The bin entry: the only place that touches process.exit semantics. It sets process.exitCode so output flushes.
import { basename } from 'node:path';
import { runCli } from './cli.js';

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
  },
  env: process.env,
  stdoutIsTTY: Boolean(process.stdout.isTTY),
  signal: controller.signal,
  invokedAs: basename(process.argv[1] ?? ''),
});
// Commands close their sockets; anything left (a keep-alive agent) must not hold the process open.
process.removeListener('SIGINT', onSignal);
process.removeListener('SIGTERM', onSignal);
