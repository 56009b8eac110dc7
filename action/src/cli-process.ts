// The edge between the action and the CLI: karp-drift runs as a child process with the job's own stdout and stderr,
// so its output reaches the log byte for byte (setup-terraform's stdout wrapper is the known anti-pattern), and the
// action reads the verdict from the result file instead. The bundled CLI sits beside the bundled action
// (action/dist/cli/main.js); the same path holds from action/src/, where @github/local-action runs the source.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/**
 * Runs karp-drift and resolves with its exit code. Text from the cluster (pod and event messages in the evidence)
 * could hold a line that GitHub would read as a workflow command, so the CLI's output is fenced with
 * `::stop-commands::`. On cancellation the runner sends SIGINT, then SIGTERM 7.5 s later: the child is in its own
 * process group and gets exactly one SIGINT from here, since karp-drift takes a second one as "stop now", and the
 * first one lets a staged rollout leave its NodePools held (the post step makes sure of it).
 */
export function runCli(argv: readonly string[], write: (line: string) => void): Promise<number> {
  const token = randomUUID();
  write(`::stop-commands::${token}`);
  const child = spawn(process.execPath, [CLI, ...argv], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
    env: process.env,
  });
  let forwarded = false;
  const forward = () => {
    if (forwarded) return;
    forwarded = true;
    child.kill('SIGINT');
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise<number>((resolve, reject) => {
    child.once('error', (err) => {
      cleanup();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      cleanup();
      // Killed by a signal: as a shell reports it (128 + the signal's number).
      resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2));
    });
  });
  function cleanup() {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
    write(`::${token}::`);
  }
}
