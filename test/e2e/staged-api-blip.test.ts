// A staged run whose API server goes away for a moment, mid-wave (issue 35 item 7): it rides the outage out for as
// long as its cluster lock holds (docs/staged-rollouts.md, "When the API server stops answering…"), retrying the hold write or the lock
// renewal the API server refused, and completes. It used to end at the first refused hold write or renewal, about a
// second into the outage. A frozen API server (its port open, nothing answered: a SIGSTOP'd kube-apiserver) never gets
// the runtime's "The operation was aborted" printed, however the run ends. Outages past the lock's 30 s:
// staged-api-lost.clock.test.ts (mid-run) and error-output.test.ts (at each write before the follow).
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { scenario } from './cli-sandbox.js';
import { follow, STAGED } from './staged.js';

const LIBRARY_TEXT = /operation was aborted|AbortError|DOMException|TimeoutError|internal error/i;

/** The first wave of stage 2 (general and batch): holds being rewritten as its replacements start and finish. */
const midWave = (e: { type: string; stage?: unknown; wave?: unknown }) => e.type === 'wave' && e.stage === 2;

/** The API server refuses connections from the next `at` request (`verb:resource`) on, for `ms`. */
function refuseFrom(sandbox: Sandbox, at: string, ms: number): Promise<{ back: number }> {
  const [verb = '', resource = ''] = at.split(':');
  return new Promise((resolve) => {
    sandbox.kube.faults.beforeNext({ verbs: [verb], resources: [resource] }, () => {
      void sandbox.kube.outage('refuse');
      // `back`: the first request served once it answers again.
      setTimeout(() => void sandbox.kube.restore().then(() => resolve({ back: sandbox.kube.requests.length })), ms);
    });
  });
}

/** The Lease's version: every renewal writes it. */
const leaseVersion = (sandbox: Sandbox) =>
  sandbox.kube.store.get('leases.coordination.k8s.io', 'karp-drift', 'kube-system')?.metadata.resourceVersion;

describe('a staged run whose API server goes away mid-wave', () => {
  it.each([
    ['a hold write', 'patch:nodepools'],
    ['a lock renewal', 'update:leases'],
  ])('refused for 5 s from %s: the run rides it out and completes', async (what, at) => {
    const sandbox = await scenario('staged', 120);
    const run = follow(sandbox, STAGED);
    await run.until(midWave, 90_000);
    const { back } = await refuseFrom(sandbox, at, 5_000);
    if (what === 'a lock renewal') {
      // The renewal the API server refused is tried again within a retry period (2 s) of its return, not at the next
      // 10-s renewal: a second outage soon after must find the lock valid for its whole 30 s.
      const version = leaseVersion(sandbox);
      const returned = Date.now();
      while (leaseVersion(sandbox) === version && Date.now() - returned < 10_000) await new Promise((r) => setTimeout(r, 50));
      expect(Date.now() - returned).toBeLessThan(3_000);
    }
    const code = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(run.stderr()).not.toMatch(/^(error|warning):/m);
    // After the API server came back the run wrote its holds again.
    const after = sandbox.kube.requests.slice(back);
    expect(after.some((r) => r.verb === 'patch' && r.resource === 'nodepools')).toBe(true);
  }, 180_000);

  it("frozen, then interrupted: the pause it cannot write is said in karp-drift's words (exit 130)", async () => {
    const sandbox = await scenario('staged', 120);
    const run = follow(sandbox, ['--request-timeout', '5s', ...STAGED]);
    await run.until(midWave, 90_000);
    await sandbox.kube.outage('hang');
    await new Promise((r) => setTimeout(r, 2_000));
    run.child.kill('SIGTERM');
    const code = await run.exited;
    await sandbox.kube.restore();
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toMatch(/^warning: could not leave the staged rollout paused: .*(cannot reach|no answer)/m);
    expect(run.stderr()).toMatch(/^error: interrupted while following the rollout.*karp-drift could not write its holds/m);
    expect(run.stderr()).not.toMatch(LIBRARY_TEXT);
  }, 180_000);
});
