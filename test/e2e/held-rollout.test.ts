// Every command reads a rollout karp-drift holds the same way (issue 33 item 6). An upgrade that paces nothing
// (--templates; the default upgrade is staged, and asks before it resumes: safe-default.test.ts) that finds the
// rollout paused ends at once with the hold's story, exit 6, as `wait` does, instead of following it until
// --stall-timeout; a live run's holds a staged upgrade leaves to that run (the cluster lock), naming `wait`. And neither `wait` nor such an
// upgrade calls a rollout done while karp-drift's holds are left on its NodePools. The checks read the sandbox's
// store and its request log, not karp-drift's account. A run killed after its last replacement, whose lease `wait` must
// see lapse, is the wall-clock proof held-rollout.clock.test.ts.
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, follow } from './staged.js';

/** The CLI's writes since request `from`, as `verb resource`, each once. */
const writesSince = (sandbox: Sandbox, from: number): string[] => [
  ...new Set(
    sandbox.kube.requests
      .slice(from)
      .filter((r) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb) && !['selfsubjectaccessreviews', 'selfsubjectreviews'].includes(r.resource ?? ''))
      .map((r) => `${r.verb} ${r.resource}`),
  ),
].sort();

/** `pause` created the lock's Lease: a run takes and releases it with updates; and it records its run (history). */
const LOCK_WRITES = ['update leases', 'create configmaps', 'update configmaps'];
const TEMPLATES = ['--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox', '--allow-create'];

describe('an upgrade that paces nothing, on a rollout karp-drift holds', () => {
  it.each<[string, string[], string[], RegExp]>([
    ['upgrade --templates', TEMPLATES, ['patch ec2nodeclasses', 'patch nodepools'], /this run applied ec2nodeclass\/default and nodepool\/default, which Karpenter rolls out/],
  ])('%s: paused (pause) → exit 6 at once with the hold story, only its documented applies written, nothing disrupted', async (_name, flags, applies, applied) => {
    const sandbox = await scenario('default', 60);
    expect((await karpDrift(sandbox, ['pause'])).code).toBe(0);
    const held = budgetsOf(sandbox);
    const from = sandbox.kube.requests.length;
    const started = Date.now();
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--stall-timeout', '10m', '-o', 'json', ...flags], 120_000);
    const took = Date.now() - started;
    expect(run.code, run.stderr).toBe(6);
    // At once: nowhere near --stall-timeout (10 minutes), where it used to end (exit 4, STALL-HELD).
    expect(took).toBeLessThan(60_000);
    expect(run.events.map((e) => e.type)).not.toContain('progress');
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'held', paused: expect.arrayContaining(['general']) as unknown });
    expect(run.stderr).toMatch(/^error: the rollout is paused: karp-drift holds Drifted disruption on nodepool\/\S+(, nodepool\/\S+)* since \S+ \(run [0-9a-f-]+\), and no karp-drift run holds the cluster lock/m);
    expect(run.stderr).toMatch(applied);
    expect(run.stderr).toContain('release the holds (karp-drift resume)');
    // From the API: the applies upgrade documents, under its lock, and nothing else; the holds as pause left them.
    expect(writesSince(sandbox, from)).toEqual([...applies, ...LOCK_WRITES].sort());
    const after = budgetsOf(sandbox);
    for (const pool of Object.keys(held)) expect(after[pool]).toEqual(held[pool]);
    expect(sandbox.simulator.disruptions.entries()).toEqual([]);
  }, 150_000);

  it('a live staged run pacing the rollout: a second (staged) upgrade is refused at its lock, naming the run and wait, writing nothing', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    // The canary, a 10 s soak (the second upgrade starts in it), then the rest in one wave.
    const staged = follow(sandbox, ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '100%', '--soak', '10s', '--yes', '-o', 'json']);
    await staged.until((e) => e.type === 'soak');
    const from = sandbox.kube.requests.length;
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes'], 150_000);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/karp-drift upgrade --to 1\.30 --canary canary/);
    expect(run.stderr).toContain('karp-drift wait');
    // The live run writes its holds, Events and lease meanwhile (the same user here): the refused run applied nothing.
    expect(writesSince(sandbox, from)).not.toContain('patch ec2nodeclasses');
    expect(await staged.exited, staged.stderr()).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
  }, 150_000);
});

describe('wait never reports success while karp-drift holds the NodePools', () => {
  it('`pause` after the rollout is done: exit 6, what is left, and the resume that clears it; then done', async () => {
    const sandbox = await scenario('default', 300);
    const before = budgetsOf(sandbox);
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes'], 120_000)).code).toBe(0);
    expect((await karpDrift(sandbox, ['pause'])).code).toBe(0);
    const from = sandbox.kube.requests.length;
    const run = await karpDrift(sandbox, ['wait', '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'holds-left', paused: ['arm', 'general', 'system'] });
    expect(run.stderr).toMatch(
      /^error: every node runs the target AMIs, but karp-drift's holds are left by run [0-9a-f-]+: nodepool\/arm: a budget holding Drifted disruption at 0; nodepool\/general: a budget holding Drifted disruption at 0; nodepool\/system: a budget holding Drifted disruption at 0; until they are released/m,
    );
    const next = /next: release them, each NodePool's own budgets put back exactly: (karp-drift resume .*)$/m.exec(run.stderr)?.[1];
    expect(next).toBe('karp-drift resume --nodepool arm --nodepool general --nodepool system');
    expect(writesSince(sandbox, from)).toEqual([]); // wait writes nothing
    // The command it named clears it all: the budgets as they were, and wait is done.
    expect((await karpDrift(sandbox, next!.split(' ').slice(1))).code).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
    const done = await karpDrift(sandbox, ['wait']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^Rollout complete/);
  }, 150_000);
});
