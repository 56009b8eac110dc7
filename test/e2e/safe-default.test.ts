// Safe by default (issue 33): `upgrade --to 1.30 --yes` with no other flag tests each target AMI on one node, gated,
// before anything else moves, and a bad AMI of every shape the sandbox knows is stopped there: exit 6, at most one
// old node per target AMI taken, every NodePool held at 0, the failing replacement named with its evidence. Counted
// from the simulated Karpenter's own record of the drift commands it started and the objects in its store.
import { describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { parseScenario } from '../../src/sandbox/scenarios/schema.js';
import { PAUSE_ANNOTATION, decodePauseRecord } from '../../src/apis/pause-record.js';
import { onTestFinished } from 'vitest';
import { httpWrites, karpDrift } from './cli-sandbox.js';
import { claims, findingsOf, gates, imagesByPool, nodePools } from './gates.js';

const UPGRADE = ['upgrade', '--to', '1.30', '--yes', '-o', 'json'];

async function sandboxOf(name: string): Promise<Sandbox> {
  const sandbox = await startSandbox({ scenario: loadScenario(name), speed: 120 });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** The arch of every NodeClaim there is now: the old ones, before the run replaces them. */
const archOf = (sandbox: Sandbox) =>
  new Map(claims(sandbox).map((c) => [c.metadata.name ?? '', c.metadata.labels?.['kubernetes.io/arch'] ?? '']));

/** Old nodes Karpenter started a drift command on, by arch (a command it gave up and retried on the same node counts once). */
function disruptedByArch(sandbox: Sandbox, arch: Map<string, string>): Record<string, number> {
  const old = new Set(sandbox.simulator.disruptions.entries().map((d) => d.nodeClaim));
  const out: Record<string, number> = {};
  for (const name of old) out[arch.get(name) ?? '?'] = (out[arch.get(name) ?? '?'] ?? 0) + 1;
  return out;
}

/** Drift commands that failed (the replacement gone or never initialized), by the old node's arch. */
function failedByArch(sandbox: Sandbox, arch: Map<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of sandbox.simulator.disruptions.entries()) if (d.failed !== undefined) out[arch.get(d.nodeClaim) ?? '?'] = (out[arch.get(d.nodeClaim) ?? '?'] ?? 0) + 1;
  return out;
}

function expectHeldByTheGate(sandbox: Sandbox): void {
  for (const [pool, held] of Object.entries(nodePools(sandbox))) {
    expect(held.hold, pool).toBeDefined();
    expect((held.budgets as unknown[]).at(-1), pool).toEqual({ nodes: '0', reasons: ['Drifted'] });
    const record = decodePauseRecord(sandbox.kube.store.get('nodepools.karpenter.sh', pool)!.metadata.annotations?.[PAUSE_ANNOTATION]);
    expect(record, pool).toMatchObject({ by: 'gate', command: 'upgrade --to 1.30 --yes -o json' });
  }
}

describe('upgrade --to 1.30 --yes, no other flag, on a bad AMI (issue 33)', () => {
  // bad-ami: 17 nodes (canary 3 amd64; general 14 over amd64 and arm64), two target AMIs (al2023 amd64, arm64).
  it.each<[string, RegExp]>([
    ['bad-ami', /POD-FAILING/],
    ['bad-ami-not-ready', /NODE-NOT-READY|POD-FAILING|POD-NOT-READY/],
    ['bad-ami-never-registers', /COMMAND-FAILED|REPLACEMENT-DELETED|REPLACEMENT-NOT-INITIALIZED/],
    ['bad-ami-never-ready', /COMMAND-FAILED|REPLACEMENT-DELETED|REPLACEMENT-NOT-INITIALIZED|NODE-NOT-READY/],
    ['bad-ami-launch-fails', /COMMAND-FAILED|REPLACEMENT-DELETED/],
  ])('%s: halted on the first node per target AMI, every NodePool held (exit 6)', async (name, codes) => {
    const sandbox = await sandboxOf(name);
    const arch = archOf(sandbox);
    const run = await karpDrift(sandbox, UPGRADE, 120_000);
    expect(run.code, run.stderr).toBe(6);
    // The plan said what the default does, and the first wave named one node per AMI.
    const plan = run.events.find((e) => e.type === 'plan')!.plan as { staged: { default: boolean; waveSteps: string[] } };
    expect(plan.staged).toMatchObject({ default: true, waveSteps: ['1/ami', '100%'] });
    const wave = run.events.find((e) => e.type === 'wave')!;
    expect((wave.picks as Array<{ amiLabel: string }>).map((p) => p.amiLabel).sort()).toEqual(['al2023 amd64 standard', 'al2023 arm64 standard']);
    // At most one old node per target AMI was taken before the halt, and one more only where a command failed: a
    // failed command is a completion, after which Karpenter's next pass may start another before the hold lands (the
    // race of one node per completion, DOMAIN.md §2.6: 10 s on a cluster, 83 ms at this sandbox's 120×).
    const taken = disruptedByArch(sandbox, arch);
    const gaveUp = failedByArch(sandbox, arch);
    for (const [a, n] of Object.entries(taken))
      expect(n, `${a}: ${JSON.stringify({ taken, gaveUp })}`).toBeLessThanOrEqual(Math.min(2, 1 + (gaveUp[a] ?? 0)));
    // The failing replacement, named with its evidence, in the gate event and in the message.
    const failed = gates(run).find((g) => g.result === 'failed')!;
    const findings = findingsOf(failed);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.map((f) => f.code).join(' ')).toMatch(codes);
    expect(findings.every((f) => f.evidence.length > 0)).toBe(true);
    expect(run.stderr).toMatch(new RegExp(`error: halted by a health gate: (${codes.source}) `));
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    expectHeldByTheGate(sandbox);
  }, 150_000);

  it('with --on-failure rollback: the classes and the nodes come back, the holds are released', async () => {
    const sandbox = await sandboxOf('bad-ami');
    const terms = (sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms;
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const before = nodePools(sandbox);
    const run = await karpDrift(sandbox, [...UPGRADE, '--on-failure', 'rollback'], 150_000);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/error: halted by a health gate: POD-FAILING .*; rolled back: ec2nodeclass\/default restored/);
    expect((sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms).toEqual(terms);
    expect(Object.values(imagesByPool(sandbox)).flat().every((i) => old.has(i))).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);
});

describe('nothing resumes without consent (issue 33)', () => {
  it('a gate-halted rollout: the same command exits 6 and writes nothing; --resume-halted is the word, and still asks', async () => {
    const sandbox = await sandboxOf('bad-ami');
    expect((await karpDrift(sandbox, UPGRADE, 120_000)).code).toBe(6);
    const writes = httpWrites(sandbox);
    const again = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
    expect(again.code, again.stderr).toBe(6);
    expect(again.stdout).toContain('This rollout is held: karp-drift holds Drifted disruption on nodepool/canary, nodepool/general.');
    expect(again.stdout).toMatch(/It was halted by a health gate at .* \(run \w+, [^:]+: karp-drift upgrade --to 1\.30 --yes -o json\): POD-FAILING/);
    expect(again.stdout).toMatch(/Going on resumes it at stage 1\/1 \(rollout\) wave 2\/2: 2 of 17 old nodes replaced or under way\./);
    expect(again.stderr).toMatch(/error: the rollout was halted by a health gate .*; re-running the upgrade does not restart it, and nothing was changed/);
    expect(again.stderr).toContain('go on: karp-drift upgrade --to 1.30 --resume-halted');
    // No terminal and no --yes: asked for, as a first apply is (exit 2), nothing written.
    const unasked = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--resume-halted']);
    expect(unasked.code, unasked.stderr).toBe(2);
    expect(unasked.stderr).toContain('there is no terminal to confirm on');
    const json = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(json.code).toBe(6);
    const plan = json.events.find((e) => e.type === 'plan')!.plan as { staged: { resume: Record<string, unknown> } };
    expect(plan.staged.resume).toMatchObject({ halted: true, pausedBy: { by: 'gate', gate: { code: 'POD-FAILING' } }, at: { wave: 2, waves: 2 } });
    expect(httpWrites(sandbox)).toBe(writes);
  }, 150_000);

  it('held first, applied with --no-wait, then the staged upgrade from another job: it asks (exit 2 without --yes), then resumes paced and gated', async () => {
    const sandbox = await sandboxOf('default');
    expect((await karpDrift(sandbox, ['pause'])).code).toBe(0);
    const applied = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('warning: --no-wait: nothing follows this rollout, so it is unpaced and ungated');
    // Held at 0 by the pause: nothing drifts meanwhile.
    await new Promise((r) => setTimeout(r, 2000));
    expect(sandbox.simulator.disruptions.entries()).toEqual([]);
    const writes = httpWrites(sandbox);
    const unasked = await karpDrift(sandbox, ['upgrade', '--to', '1.30']);
    expect(unasked.code, unasked.stderr).toBe(2);
    expect(unasked.stdout).toMatch(/It was paused with karp-drift pause at .*: karp-drift pause by /);
    expect(httpWrites(sandbox)).toBe(writes);
    const resumed = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json'], 120_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.filter((e) => e.type === 'applied')).toEqual([]);
    expect(resumed.events.filter((e) => e.type === 'gate' && e.result === 'passed').length).toBeGreaterThan(0);
    expect(resumed.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    for (const p of sandbox.kube.store.list('nodepools.karpenter.sh')) expect(p.metadata.annotations?.[PAUSE_ANNOTATION]).toBeUndefined();
  }, 150_000);
});

describe('the default rollout writes its NodePools a few times, not once per replacement', () => {
  it('a 40-node NodePool: the second wave takes every old node left, so its hold stays as written while they go', async () => {
    const yaml = [
      'name: one-pool',
      'controlPlaneVersion: "1.30"',
      'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
      'nodePools: [{ name: general, nodeClass: default, nodes: 40, arch: [amd64], budgets: [{ nodes: "25%" }] }]',
      'workloads: [{ name: web, nodePool: general, replicas: 80 }]',
    ].join('\n');
    const sandbox = await startSandbox({ scenario: parseScenario(yaml, 'inline'), speed: 300 });
    onTestFinished(() => sandbox.stop());
    const run = await karpDrift(sandbox, UPGRADE, 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.simulator.disruptions.entries().length).toBeGreaterThanOrEqual(40);
    // Each write bumps the NodePool's generation (and resets Karpenter's NodeRegistrationHealthy): the holds of the
    // first wave, its close, the second wave's one hold, the dead man's switch moved ahead every 2 minutes while it starts, the release.
    const writes = sandbox.kube.requests.filter((r) => r.verb === 'patch' && r.resource === 'nodepools' && r.query.dryRun !== 'All');
    expect(writes.length, writes.map((w) => w.path).join('\n')).toBeLessThanOrEqual(8);
  }, 150_000);
});
