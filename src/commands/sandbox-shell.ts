// What `karp-drift sandbox` hands a shell, as pure text: the export lines a shell evaluates or sources, the default
// context name, the command line of the background process of --detach, and the failure it left in its log.
import { resolve } from 'node:path';
import type { GlobalOptions } from './context.js';
import type { SandboxCommandOptions } from './options.js';

/** The variable that names the process serving the sandbox, so a script can stop it: kill "$KARP_DRIFT_SANDBOX_PID". */
export const PID_VARIABLE = 'KARP_DRIFT_SANDBOX_PID';

/** Single-quoted for POSIX shells, so paths with spaces survive `eval` and `source`. */
export function exportLines(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'\n`)
    .join('');
}

/**
 * Two sandboxes must not write the same context, cluster and user names: kubectl (and karp-drift) take the first
 * entry of a name across KUBECONFIG=a:b, so the second sandbox would be reached through the first one's server with
 * the second one's token, or not at all. The port tells two running sandboxes apart and reads back from the server
 * URL.
 */
export function defaultContextName(scenario: string, port: number): string {
  return `karp-drift-sandbox-${scenario}-${port}`;
}

/**
 * The background process of --detach: the same sandbox, with its options spelt out (not the caller's argv, which
 * may say --env-out=/dev/stdout or --detach in any form), reporting readiness and logging to `log`. The caller writes
 * --env-out itself: its /dev/stdout is the user's, the background process's is the log.
 */
export function detachedArgs(options: SandboxCommandOptions, globals: Pick<GlobalOptions, 'verbose'>, log: string): string[] {
  return [
    'sandbox',
    '--scenario',
    options.scenario,
    ...(options.speed !== undefined ? ['--speed', String(options.speed)] : []),
    ...(options.port !== undefined ? ['--port', String(options.port)] : []),
    ...(options.kubeconfig !== undefined ? ['--kubeconfig', options.kubeconfig] : []),
    ...(options.context !== undefined ? ['--context', options.context] : []),
    // The background process removes the file at its stop (the caller writes it once it serves).
    ...(options.envOut !== undefined ? ['--env-out', resolve(options.envOut)] : []),
    ...(options.gitopsDir !== undefined ? ['--gitops-dir', options.gitopsDir] : []),
    ...(options.gitopsTool !== undefined ? ['--gitops-tool', options.gitopsTool] : []),
    ...(globals.verbose ? ['--verbose'] : []),
    '--detached-log',
    log,
  ];
}

/** The `error:` and `next:` lines a failed karp-drift process printed, to say them again as the caller's own. */
export function reportedFailure(log: string): { message: string; hint?: string } | undefined {
  const message = /^error: (.*)$/m.exec(log)?.[1];
  if (message === undefined) return undefined;
  const hint = /^ {2}next: (.*)$/m.exec(log)?.[1];
  return hint === undefined ? { message } : { message, hint };
}
