// `karp-drift sandbox`: start the simulated cluster, print how to reach it, serve until SIGINT/SIGTERM, shut down.
// With --detach, sandbox-detach.ts runs this in a background process and returns once it serves.
import { rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { logger, type CommandContext } from './context.js';
import { RuntimeFailure, UsageError } from '../errors.js';
import type { SandboxCommandOptions } from './options.js';
import { startSandbox } from '../sandbox/sandbox.js';
import { removeOwnEnvFile, removeStaleEnvFile, writeEnvFile } from './sandbox-env-file.js';
import { defaultContextName, exportLines, PID_VARIABLE } from './sandbox-shell.js';

/** What a started sandbox tells its user, and what the background process of --detach reports to its caller. */
export interface SandboxReady {
  scenario: string;
  server: string;
  context: string;
  pid: number;
  env: Record<string, string>;
  summary: string;
  description: string;
}

export async function sandbox(options: SandboxCommandOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  // This process is a server that holds a cluster for as long as it runs (a 5,000-node one keeps 300–400 MB). On a
  // machine with much memory V8 lets the old generation grow to about four times what survives a collection before
  // it collects, so a `large` sandbox sat at 1–1.5 GB; favouring size keeps it near what it holds, for some more time
  // in the collector (src/sandbox/README.md, Performance). Only V8's heap policy changes, and only in this process.
  setFlagsFromString('--optimize-for-size');
  if (options.envOut) await removeStaleEnvFile(options.envOut);
  const running = await startSandbox({
    scenario: options.scenario,
    speed: options.speed,
    port: options.port,
    kubeconfig: options.kubeconfig,
    context: options.context ?? (({ scenario, port }) => defaultContextName(scenario, port)),
    ...(options.gitopsDir !== undefined ? { gitopsDir: options.gitopsDir } : {}),
    ...(options.gitopsTool !== undefined ? { gitopsTool: options.gitopsTool } : {}),
    log: ctx.globals.verbose ? (line) => ctx.io.err(`karpenter: ${line}\n`) : undefined,
  }).catch((err: unknown) => {
    throw portError(err, options.port) ?? err;
  });
  try {
    const ready: SandboxReady = {
      scenario: running.scenario.name,
      server: running.kube.url,
      context: running.context,
      pid: process.pid,
      env: { ...running.env, [PID_VARIABLE]: String(process.pid) },
      summary: running.summary,
      description: running.scenario.description,
    };
    if (options.detachedLog !== undefined) {
      // The caller of --detach prints and writes --env-out; it waits for this message only. Gone (killed while it
      // waited), nobody would know of this sandbox: stop.
      if (!process.connected || !process.send) throw new RuntimeFailure('the karp-drift sandbox --detach that started this sandbox is gone');
      process.send(ready);
      process.disconnect();
    } else {
      if (options.envOut) await writeEnvFile(options.envOut, exportLines(ready.env));
      printReady(ready, ctx);
    }
    log.info('Serving until interrupted (Ctrl-C).');
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info('Shutting down the sandbox.');
  } finally {
    await running.stop();
    if (options.envOut) await removeOwnEnvFile(options.envOut, process.pid);
  }
  // A clean stop leaves nothing behind; a crash keeps the log for whoever looks. The log and then its folder, which
  // only goes if empty: the path came on a command line.
  if (options.detachedLog !== undefined) {
    await rm(options.detachedLog, { force: true });
    await rmdir(dirname(options.detachedLog)).catch(() => undefined);
  }
}

/** The export lines on stdout (or one JSON document), the summary and the scenario's description on stderr. */
export function printReady(ready: SandboxReady, ctx: CommandContext): void {
  const { scenario, server, context, pid, env, summary } = ready;
  if (ctx.globals.output === 'json') ctx.io.out(`${JSON.stringify({ scenario, server, context, pid, env, summary })}\n`);
  else ctx.io.out(exportLines(env));
  const log = logger(ctx.io, ctx.globals);
  log.info(`${summary}; kubeconfig context ${context}`);
  if (ready.description) log.info(ready.description);
}

/** --port taken or not allowed: the user's choice, so exit 2 with the port and what to do, not a stack. */
function portError(err: unknown, port: number | undefined): UsageError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (port === undefined || (code !== 'EADDRINUSE' && code !== 'EACCES')) return undefined;
  const why = code === 'EADDRINUSE' ? 'is already in use (another sandbox?)' : 'may not be opened by this user (ports below 1024 need privileges)';
  return new UsageError(`--port ${port}: 127.0.0.1:${port} ${why}`, {
    cause: err,
    hint: `pick another port, or leave --port out for a free one${code === 'EADDRINUSE' ? ` (see what holds it: ss -ltnp 'sport = :${port}')` : ''}`,
  });
}
