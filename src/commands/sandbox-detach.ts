// `karp-drift sandbox --detach`: the sandbox serves from a background process, and this command returns as soon as
// it serves, with the same export lines, so `eval "$(karp-drift sandbox --detach)"` and scripts need no polling.
// The background process holds none of the caller's streams (a command substitution waits for every writer of its
// pipe to close it): its stdout and stderr go to a log file, and readiness comes back over an IPC channel that is
// closed once said. It is its own process group, so the terminal's Ctrl-C does not reach it; `kill <pid>` stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logger, type CommandContext } from './context.js';
import { InterruptedError, KarpDriftError, RuntimeFailure, type ExitCode } from '../errors.js';
import type { SandboxCommandOptions } from './options.js';
import { packagePath } from '../package-root.js';
import { printReady, type SandboxReady } from './sandbox.js';
import { removeStaleEnvFile, writeEnvFile } from './sandbox-env-file.js';
import { detachedArgs, exportLines, reportedFailure } from './sandbox-shell.js';

/** The `large` scenario (5,000 nodes, 50,000 pods) served 6.4 s after the start on 2 cores at load average 7.6. */
const READY_TIMEOUT_MS = 120_000;

/** A failure the background process printed before it served, said again with its own exit code. */
class BackgroundFailure extends KarpDriftError {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    hint?: string,
  ) {
    super(message, hint === undefined ? {} : { hint });
  }
}

type Outcome = { ready: SandboxReady } | { exited: number | null; signal: NodeJS.Signals | null } | { timedOut: true } | { aborted: true };

export async function detachSandbox(options: SandboxCommandOptions, ctx: CommandContext): Promise<void> {
  if (options.envOut) await removeStaleEnvFile(options.envOut);
  const logDir = await mkdtemp(join(tmpdir(), 'karp-drift-sandbox-log-'));
  const logFile = join(logDir, 'sandbox.log');
  const fd = openSync(logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [packagePath('dist', 'main.js'), ...detachedArgs(options, ctx.globals, logFile)], {
      detached: true,
      stdio: ['ignore', fd, fd, 'ipc'],
      env: ctx.env,
    });
  } finally {
    closeSync(fd);
  }
  const outcome = await firstOutcome(child, ctx.signal);
  if (!('ready' in outcome)) {
    if (!('exited' in outcome)) child.kill('SIGTERM');
    throw await notReady(outcome, logFile, logDir);
  }
  const { ready } = outcome;
  if (options.envOut) {
    // Nobody would know of a sandbox left serving by a command that failed.
    await writeEnvFile(options.envOut, exportLines(ready.env)).catch((err: unknown) => {
      child.kill('SIGTERM');
      throw err;
    });
  }
  child.disconnect();
  child.unref();
  printReady(ready, ctx);
  logger(ctx.io, ctx.globals).info(
    `Serving in the background as process ${ready.pid}, its log in ${logFile}; stop it with: kill ${ready.pid}`,
  );
}

function firstOutcome(child: ChildProcess, signal: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    const settle = (outcome: Outcome) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ timedOut: true }), READY_TIMEOUT_MS);
    const onAbort = () => settle({ aborted: true });
    // Ctrl-C before the background process was even started.
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('message', (message) => settle({ ready: message as SandboxReady }));
    child.once('exit', (exited, sig) => settle({ exited, signal: sig }));
    child.once('error', () => settle({ exited: null, signal: null }));
  });
}

/** Why the background process never served: its own `error:` (exit 2 for a bad --scenario, as in the foreground). */
async function notReady(outcome: Exclude<Outcome, { ready: SandboxReady }>, logFile: string, logDir: string): Promise<KarpDriftError> {
  if ('aborted' in outcome) {
    await rm(logDir, { recursive: true, force: true });
    return new InterruptedError('interrupted before the sandbox was ready; its background process was stopped');
  }
  if ('timedOut' in outcome) {
    return new RuntimeFailure(`the sandbox was not ready after ${READY_TIMEOUT_MS / 1000}s; its background process was stopped`, {
      hint: `see its log: ${logFile}`,
    });
  }
  const log = await readFile(logFile, 'utf8').catch(() => '');
  const failure = reportedFailure(log);
  if (failure && outcome.exited != null && outcome.exited !== 0) {
    await rm(logDir, { recursive: true, force: true });
    return new BackgroundFailure(outcome.exited as ExitCode, failure.message, failure.hint);
  }
  const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exited ?? 'unknown'}`;
  return new RuntimeFailure(`the sandbox's background process ${how} before it was ready`, { hint: `see its log: ${logFile}` });
}
