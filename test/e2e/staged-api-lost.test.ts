// The API server goes away mid-wave and does not come back within the follow's retries: a staged run ends with the
// retryable exit 1, names the API server, says what the cluster is left with, and gives the command that goes on;
// never "internal error" (exit 70). The stopped API server refuses connections at once, so the run ends within
// seconds (a server that hangs instead is given the follow's 120 s of retries).
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { follow } from './staged.js';

describe('a staged run that loses its API server', () => {
  it('exits 1 with the API server named, what is left held, and the command that goes on', async () => {
    const sandbox = await scenario('staged', 30);
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,100%', '--soak', '1h', '--yes', '-o', 'json']);
    await run.until((e) => e.type === 'soak', 60_000);
    await sandbox.kube.stop();
    const code = await run.exited;
    expect(code, run.stderr()).toBe(1);
    expect(run.stderr()).not.toContain('internal error');
    const server = sandbox.kube.url.replace(/\/$/, '');
    expect(run.stderr()).toMatch(
      new RegExp(`^error: cannot reach the Kubernetes API at ${server.replace(/[.]/g, '\\.')} \\(context "[^"]+"\\): .*; karp-drift could not write its holds, so they stay as its last write left them: each NodePool it holds with a budget holds Drifted disruption at 0 by itself within 3 minutes \\(its dead man's switch\\), and node holds stay$`, 'm'),
    );
    expect(run.stderr()).toMatch(/^ {2}next: when the API server answers again, run the same command: .*karp-drift upgrade --to 1\.30 --canary canary --waves 1,100% --soak 1h --yes/m);
    // The done event carries that message, not a stale progress line.
    const done = run.events.at(-1)!;
    expect(done).toMatchObject({ type: 'done', result: 'failed' });
    expect(done.message as string).toMatch(/^cannot reach the Kubernetes API at /);
  }, 200_000);
});
