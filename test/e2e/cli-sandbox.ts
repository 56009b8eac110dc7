// Runs the built CLI against a sandbox started in the test process, as a user's shell would: the sandbox's kubeconfig
// and AWS endpoint variables in the environment, nothing else.
import { spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { checkRunOutput } from './contracts.js';

export const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as NDJSON (for -o json runs). */
  events: Array<Record<string, unknown> & { type: string }>;
}

export async function scenario(name: string, speed = 300): Promise<Sandbox> {
  const sandbox = await startSandbox({ scenario: name, speed });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** `env` adds to or overrides the sandbox's variables, e.g. an endpoint variable pointing elsewhere. */
/** `main`: another copy of the CLI (the container image's files). */
export function karpDrift(sandbox: Sandbox, args: string[], timeoutMs = 90_000, env: Record<string, string> = {}, main = MAIN): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // NDJSON lines; a pretty-printed document (plan -o json) is not an event stream and yields none.
      const events = stdout.split('\n').flatMap((l): CliRun['events'] => {
        try {
          const v = JSON.parse(l) as CliRun['events'][number] | null;
          return v != null && typeof v === 'object' && typeof v.type === 'string' ? [v] : [];
        } catch {
          return [];
        }
      });
      try {
        checkRunOutput(args, stdout);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      resolve({ code, stdout, stderr, events });
    });
  });
}

/**
 * Writes that reached the API server over HTTP (the simulated Karpenter writes in process, so these are the CLI's).
 * A SelfSubjectAccessReview or SelfSubjectReview is a question, not a write: it stores nothing; nor does a write sent
 * with dryRun=All.
 */
export function httpWrites(sandbox: Sandbox): number {
  return sandbox.kube.requests.filter(
    (r) =>
      ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb) &&
      r.resource !== 'selfsubjectaccessreviews' &&
      // Who the run is (a SelfSubjectReview): a question too.
      r.resource !== 'selfsubjectreviews' &&
      r.query.dryRun !== 'All',
  ).length;
}
