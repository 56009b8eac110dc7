// `karp-drift sandbox`: start the simulated cluster, print how to reach it, serve until SIGINT/SIGTERM, shut down.
import { writeFile } from 'node:fs/promises';
import type { CommandContext } from '../cli.js';
import { RuntimeFailure } from '../errors.js';
import { logger } from '../io.js';
import type { SandboxCommandOptions } from '../options.js';
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
