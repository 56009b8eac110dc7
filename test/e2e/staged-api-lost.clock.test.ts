// The API server goes away mid-run and does not come back while the run's cluster lock holds: a staged run rides the
// outage out for the lock's 30 s (test/e2e/staged-api-blip.test.ts: a 5-s one changes nothing), then must stop, for
// another run may take the lock: it ends with the retryable exit 1 within those 30 s, names the API server, says what
// the cluster is left with (its holds as last written: it writes nothing once its lock has lapsed, not even its pause)
// and gives the command that goes on; never "internal error" (exit 70), never "interrupted" (130), never the runtime's
// "The operation was aborted". Both ways a cluster goes away: a closed port (refused at once) and a frozen server (the
// port open, nothing answered: a SIGSTOP'd kube-apiserver). The sandbox keeps its objects through the outage, so the
// same command, re-run once it is back, resumes where the cluster stands.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { follow } from './staged.js';

const STAGED_SOAK = ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,100%', '--soak', '1h', '--yes', '-o', 'json'];
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const LIBRARY_TEXT = /operation was aborted|AbortError|DOMException|TimeoutError|internal error|interrupted/i;

describe('a staged run that loses its API server', () => {
  it('refused: exits 1 once its lock lapses, with the API server named, what is left held, and the command that goes on; a re-run resumes to exit 0', async () => {
    const sandbox = await scenario('staged', 120);
    const run = follow(sandbox, [...STAGED_SOAK.slice(0, -4), '20s', '--yes', '-o', 'json']);
    await run.until((e) => e.type === 'soak', 60_000);
    const from = Date.now();
    await sandbox.kube.outage('refuse');
    const code = await run.exited;
    const after = Date.now() - from;
    expect(code, run.stderr()).toBe(1);
    // The lock is renewed every 10 s and valid 30 s from its last renewal: 20–30 s into the outage.
    expect(after).toBeGreaterThanOrEqual(19_000);
    expect(after).toBeLessThan(33_000);
    expect(run.stderr()).not.toMatch(LIBRARY_TEXT);
    expect(run.stderr()).not.toContain('warning: could not leave the staged rollout paused');
    const server = sandbox.kube.url.replace(/\/$/, '');
    expect(run.stderr()).toMatch(
      new RegExp(`^error: cannot reach the Kubernetes API at ${escaped(server)} \\(context "[^"]+"\\): .*; karp-drift could not write its holds, so they stay as its last write left them: each NodePool it holds with a budget holds Drifted disruption at 0 by itself within 3 minutes \\(its dead man's switch\\), and node holds stay$`, 'm'),
    );
    expect(run.stderr()).toMatch(/^ {2}next: when the API server answers again, run the same command: .*karp-drift upgrade --to 1\.30 --canary canary --waves 1,100% --soak 20s --yes/m);
    // The done event carries that message, not a stale progress line.
    const done = run.events.at(-1)!;
    expect(done).toMatchObject({ type: 'done', result: 'failed' });
    expect(done.message as string).toMatch(/^cannot reach the Kubernetes API at /);
    // Back: the same command goes on from where the cluster stands (the dead run's lease is taken once seen silent).
    await sandbox.kube.restore();
    const again = await karpDrift(sandbox, [...STAGED_SOAK.slice(0, -4), '20s', '--yes', '-o', 'json'], 180_000);
    expect(again.code, again.stderr).toBe(0);
    const events = again.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: string });
    expect(events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
  }, 300_000);

  it('frozen (nothing answered): the lock lapses, said in karp-drift\'s words as the API server\'s failure: exit 1, not 130', async () => {
    const sandbox = await scenario('staged', 30);
    const run = follow(sandbox, ['--request-timeout', '5s', ...STAGED_SOAK]);
    await run.until((e) => e.type === 'soak', 60_000);
    const from = Date.now();
    await sandbox.kube.outage('hang');
    const code = await run.exited;
    const after = Date.now() - from;
    await sandbox.kube.restore();
    expect(code, run.stderr()).toBe(1);
    expect(after).toBeLessThan(33_000);
    expect(run.stderr()).not.toMatch(LIBRARY_TEXT);
    expect(run.stderr()).not.toContain('nothing more was changed');
    expect(run.stderr()).toMatch(
      new RegExp(`^error: cannot reach the Kubernetes API at ${escaped(sandbox.kube.url.replace(/\/$/, ''))} \\(context "[^"]+"\\): no answer from .*; karp-drift could not write its holds, so they stay as its last write left them: .*dead man's switch`, 'm'),
    );
    expect(run.stderr()).toMatch(/^ {2}next: when the API server answers again, run the same command: /m);
  }, 300_000);
});
