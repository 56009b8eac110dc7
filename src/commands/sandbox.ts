// `karp-drift sandbox`: start the simulated cluster, print how to reach it, serve until SIGINT/SIGTERM, shut down.
import { writeFile } from 'node:fs/promises';
import { logger, type CommandContext } from './context.js';
import { RuntimeFailure, UsageError } from '../errors.js';
import type { SandboxCommandOptions } from './options.js';
import { startSandbox } from '../sandbox/sandbox.js';

/** Single-quoted for POSIX shells, so paths with spaces survive `eval` and `source`. */
function exportLine(name: string, value: string): string {
  return `export ${name}='${value.replaceAll("'", "'\\''")}'`;
}

export async function sandbox(options: SandboxCommandOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  const running = await startSandbox({
    scenario: options.scenario,
    speed: options.speed,
    port: options.port,
    kubeconfig: options.kubeconfig,
    log: ctx.globals.verbose ? (line) => ctx.io.err(`karpenter: ${line}\n`) : undefined,
  }).catch((err: unknown) => {
    throw portError(err, options.port) ?? err;
  });
  try {
    const lines = Object.entries(running.env).map(([k, v]) => exportLine(k, v));
    if (options.envOut) {
      try {
        await writeFile(options.envOut, `${lines.join('\n')}\n`, { mode: 0o600 });
      } catch (err) {
        throw new RuntimeFailure(`writing --env-out ${options.envOut}: ${(err as Error).message}`, { cause: err, hint: 'pick a writable path' });
      }
    }
    if (ctx.globals.output === 'json') {
      ctx.io.out(`${JSON.stringify({ scenario: running.scenario.name, server: running.kube.url, env: running.env, summary: running.summary })}\n`);
    } else {
      ctx.io.out(`${lines.join('\n')}\n`);
    }
    log.info(running.summary);
    if (running.scenario.description) log.info(running.scenario.description);
    log.info('Serving until interrupted (Ctrl-C).');
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info('Shutting down the sandbox.');
  } finally {
    await running.stop();
  }
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
