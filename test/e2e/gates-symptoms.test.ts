// Health gates end to end, one bad-AMI symptom at a time (gates.ts): a good release passes every gate, and
// replacements that go NotReady, never register or cannot launch are caught, with the default gate flags: Karpenter
// gives the drift command up or deletes the replacement, and the gate counts that as it happens. Deadlines are given
// in real seconds, as the CLI measures them (the sandbox runs 60× faster).
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { karpDrift } from './cli-sandbox.js';
import { CANARY, GOOD, badAmi, claims, imagesByPool, nodePools, startedIn, gates, findingsOf } from './gates.js';

describe('health gates on a bad AMI (bad-ami sandbox)', () => {
  it('a good release passes every gate at every checkpoint, the gate command with the run facts in its environment', async () => {
    const sandbox = await badAmi();
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-gate-'));
    const cmd = `env | grep ^KARP_DRIFT_ | sort > "${dir}/$KARP_DRIFT_GATE_POINT-$KARP_DRIFT_STAGE.env"; echo "smoke ok on $(echo $KARP_DRIFT_REPLACED_NODES | wc -w) nodes"`;
    const run = await karpDrift(
      sandbox,
      [...CANARY, '--release', GOOD, '--soak', '2s', '--gate-cmd', cmd, '-o', 'json'],
      150_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // The built-in gates and the command run side by side at each checkpoint: either may report first.
    const passed = (gate: string) =>
      gates(run)
        .filter((g) => g.gate === gate)
        .map((g) => `${String(g.point)} ${String(g.stage)} ${String(g.result)}`);
    for (const gate of ['health', 'command'])
      expect(passed(gate), gate).toEqual(['wave-end 1 passed', 'soak-end 1 passed', 'wave-end 2 passed']);
    const commands = gates(run).filter((g) => g.gate === 'command');
    expect((commands[0]!.command as { output: string[] }).output).toEqual(['smoke ok on 3 nodes']);
    expect((commands.at(-1)!.command as { output: string[] }).output).toEqual(['smoke ok on 17 nodes']);

    const facts = Object.fromEntries(
      readFileSync(join(dir, 'wave-end-1.env'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(/=(.*)/s).slice(0, 2)),
    );
    const canaryNodes = claims(sandbox, 'canary').map((c) => (c.status as { nodeName: string }).nodeName);
    expect(facts).toMatchObject({
      KARP_DRIFT_TARGET: '1.30',
      KARP_DRIFT_GATE_POINT: 'wave-end',
      KARP_DRIFT_STAGE: '1',
      KARP_DRIFT_STAGE_NAME: 'canary',
      KARP_DRIFT_WAVE: '1',
      KARP_DRIFT_NODEPOOLS: 'canary',
      KARP_DRIFT_ALL_NODEPOOLS: 'canary,general',
      KARP_DRIFT_CONTEXT: 'karp-drift-sandbox-bad-ami',
      KARP_DRIFT_REPLACED_NODES: canaryNodes.sort().join(' '),
    });
    expect(facts.KARP_DRIFT_AMIS!.split(',').sort()).toEqual(
      [...new Set(Object.values(imagesByPool(sandbox)).flat())].sort(),
    );
    expect(facts.KARP_DRIFT_RUN_ID).toMatch(/^[0-9a-f-]{36}$/);
  }, 180_000);

  it('not-ready: replacements that go NotReady are caught with the kubelet’s words', async () => {
    const sandbox = await badAmi({ symptom: 'not-ready', afterSeconds: 30 });
    const run = await karpDrift(sandbox, [...CANARY, '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    const findings = findingsOf(gates(run).find((g) => g.result === 'failed'));
    const notReady = findings.filter((f) => f.code === 'NODE-NOT-READY');
    expect(notReady.length).toBeGreaterThan(0);
    expect(notReady[0]!.evidence.join('\n')).toContain('cni plugin not initialized');
    expect(notReady[0]!.nodePool).toBe('canary');
    expect(startedIn(sandbox, 'general')).toEqual([]);
  });

  it('never-registers, default gate flags: the failed drift command halts the canary at once, naming its replacement with Karpenter’s event', async () => {
    const sandbox = await badAmi({ symptom: 'never-registers' });
    const run = await karpDrift(sandbox, [...CANARY, '--waves', '1,100%', '--soak', '10s', '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    const failed = gates(run).find((g) => g.result === 'failed')!;
    // Counted as it happened, mid-wave: Karpenter's queue gave the command up (a replacement not Initialized in
    // time) or liveness deleted the replacement, whichever the gate saw first; NodeRegistrationHealthy is no gate.
    expect(failed).toMatchObject({ gate: 'health', point: 'continuous', failures: 1, failureLimit: 1 });
    const findings = findingsOf(failed);
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(['COMMAND-FAILED', 'REPLACEMENT-DELETED']).toContain(f.code);
      expect(f.nodePool).toBe('canary');
      const evidence = f.evidence.join('\n');
      expect(evidence).toMatch(/nodeclaim\/canary-\w+ \(AMI ami-\w+\)/);
      expect(evidence).toMatch(/Registered=Unknown NodeNotFound/);
      expect(evidence).toMatch(/event DisruptionWaitingReadiness on NodeClaim\/canary-\w+ .*"Waiting on readiness to continue disruption"/);
    }
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    // Karpenter's record: the canary's command, and at most one more (Karpenter re-picks the old node at once, with no
    // back-off, and the wave's hold of 1 allows it until the halt writes 0: on a loaded machine that race is won);
    // nothing outside the canary touched, every NodePool held at 0.
    expect(startedIn(sandbox, 'canary').length).toBeGreaterThanOrEqual(1);
    expect(startedIn(sandbox, 'canary').length).toBeLessThanOrEqual(2);
    expect(startedIn(sandbox, 'general')).toEqual([]);
    for (const pool of ['canary', 'general']) {
      const held = nodePools(sandbox)[pool]!;
      expect(held.hold, pool).toBeDefined();
      expect((held.budgets as unknown[]).at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
    }
  });

  // The other ways a real bad AMI fails (the sandbox's bad-ami variants), each with default gate flags: the canary
  // halts (exit 6), nothing outside it is touched, every NodePool is held at 0, and the NDJSON names the replacement.
  it.each<[string, 'never-ready' | 'launch-fails', RegExp]>([
    ['never-ready: registers, never Ready, never Initialized', 'never-ready', /NODE-NOT-READY|REPLACEMENT-NOT-INITIALIZED|COMMAND-FAILED|REPLACEMENT-DELETED/],
    ['launch-fails: EC2 refuses the AMI, the replacement never launches', 'launch-fails', /COMMAND-FAILED|REPLACEMENT-DELETED/],
  ])('%s, default gate flags: halted in the canary, nothing else touched', async (_name, symptom, codes) => {
    const sandbox = await badAmi({ symptom });
    const run = await karpDrift(sandbox, [...CANARY, '--waves', '1,100%', '--soak', '10s', '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(6);
    const failed = gates(run).find((g) => g.result === 'failed')!;
    const findings = findingsOf(failed);
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.code).toMatch(codes);
      expect(f.nodePool).toBe('canary');
      expect(`${(f as { subject?: string }).subject ?? ''}\n${f.evidence.join('\n')}`).toMatch(/nodeclaim\/canary-\w+|node\/\S+/);
    }
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    expect(startedIn(sandbox, 'general')).toEqual([]);
    for (const pool of ['canary', 'general']) expect((nodePools(sandbox)[pool]!.budgets as unknown[]).at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
  }, 180_000);

  it('never-registers with --on-failure rollback: halted at the failed command, the classes restored and the nodes followed back', async () => {
    const sandbox = await badAmi({ symptom: 'never-registers' });
    const before = nodePools(sandbox);
    const terms = sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!.spec as { amiSelectorTerms: unknown };
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const run = await karpDrift(sandbox, [...CANARY, '--waves', '1,100%', '--soak', '10s', '--on-failure', 'rollback'], 150_000);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/error: halted by a health gate: (COMMAND-FAILED|REPLACEMENT-DELETED) .*; rolled back: ec2nodeclass\/default restored/);
    expect(startedIn(sandbox, 'general')).toEqual([]);
    const restored = sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!.spec as { amiSelectorTerms: unknown };
    expect(restored.amiSelectorTerms).toEqual(terms.amiSelectorTerms);
    expect(Object.values(imagesByPool(sandbox)).flat().every((i) => old.has(i))).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);

  it('a launch into insufficient capacity on a good release: not a failure; the rollout rides through, the refusal noted with Karpenter’s event', async () => {
    const scenario = loadScenario('bad-ami');
    scenario.faults.launchFailures = { nodePool: 'canary', count: 1, reason: 'InsufficientCapacityError' };
    const sandbox = await startSandbox({ scenario });
    onTestFinished(() => sandbox.stop());
    const run = await karpDrift(sandbox, [...CANARY, '--release', GOOD, '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(sandbox.simulator.ctx.events.published.filter((e) => e.reason === 'InsufficientCapacityError')).toHaveLength(1);
    expect(gates(run).filter((g) => g.result === 'failed')).toEqual([]);
    // The refusal goes with the next health report: a note, never counted.
    const noted = gates(run).flatMap((g) => (g.notes ?? []) as Array<{ code: string; subject: string; evidence: string[] }>);
    expect(noted).toHaveLength(1);
    expect(noted[0]!.code).toBe('CAPACITY-REFUSED');
    expect(noted[0]!.evidence.join('\n')).toMatch(/event InsufficientCapacityError on NodeClaim\/canary-\w+ .*"NodeClaim canary-\w+ event: /);
    expect(gates(run).every((g) => g.failures === 0)).toBe(true);
    expect(startedIn(sandbox, 'general').length).toBeGreaterThan(0);
  }, 180_000);

  it('launches refused for capacity that never end: no gate fails, the run stalls with STALL-LAUNCH (exit 4)', async () => {
    const scenario = loadScenario('bad-ami');
    scenario.faults.launchFailures = { nodePool: 'canary', count: 10_000, reason: 'InsufficientCapacityError' };
    const sandbox = await startSandbox({ scenario });
    onTestFinished(() => sandbox.stop());
    const run = await karpDrift(sandbox, [...CANARY, '--release', GOOD, '--stall-timeout', '15s', '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(4);
    expect(sandbox.simulator.ctx.events.published.filter((e) => e.reason === 'InsufficientCapacityError').length).toBeGreaterThan(1);
    expect(gates(run).filter((g) => g.result === 'failed')).toEqual([]);
    const launch = run.events.filter((e) => e.type === 'blocked' && e.code === 'STALL-LAUNCH');
    expect(launch.map((b) => b.nodePool)).toContain('canary');
    expect(launch.find((b) => b.nodePool === 'canary')!.message).toMatch(/Replacements fail to launch: InsufficientCapacityError/);
    // Capacity is no fault of the AMI in the diagnosis either.
    expect(run.events.filter((e) => e.type === 'blocked' && e.code === 'STALL-BAD-AMI')).toEqual([]);
    expect(startedIn(sandbox, 'general')).toEqual([]);
  }, 180_000);
});
