// Health gates end to end: the built CLI runs a staged rollout on the `bad-ami` sandbox, whose newest 1.30 release is
// bad (crash-loop by default; not-ready and never-registers set on the scenario object), and the checks read the
// simulated Karpenter's own record of the drift commands it started and the objects in its store, not karp-drift's
// account of them. Deadlines are given in real seconds, as the CLI measures them (the sandbox runs 60× faster).
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import type { ScenarioBadAmi } from '../../src/sandbox/scenarios/schema.js';
import { HOLD_ANNOTATION } from '../../src/stages/budget-hold.js';
import { karpDrift, type CliRun } from './cli-sandbox.js';

type Ev = CliRun['events'][number];
interface Finding {
  code: string;
  nodePool?: string;
  ami?: string;
  message: string;
  evidence: string[];
}

const CANARY = ['upgrade', '--to', '1.30', '--canary', 'canary', '--yes'];
/** An older 1.30 release, good whatever the newest does (the scenario's seed fixes the catalog). */
const GOOD = 'v20260703';

async function badAmi(fault?: ScenarioBadAmi): Promise<Sandbox> {
  const scenario = loadScenario('bad-ami');
  if (fault) scenario.faults.badAmi = fault;
  const sandbox = await startSandbox({ scenario });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

const claims = (sandbox: Sandbox, pool?: string) =>
  sandbox.kube.store
    .list('nodeclaims.karpenter.sh')
    .filter((c) => pool === undefined || c.metadata.labels?.['karpenter.sh/nodepool'] === pool);
const imageOf = (c: KubeObject) => (c.status as { imageID?: string } | undefined)?.imageID;

/** The images each NodeClaim runs now, per NodePool (launched ones only). */
function imagesByPool(sandbox: Sandbox): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of claims(sandbox)) {
    const image = imageOf(c);
    if (image === undefined || c.metadata.deletionTimestamp !== undefined) continue;
    (out[c.metadata.labels?.['karpenter.sh/nodepool'] ?? ''] ??= []).push(image);
  }
  return out;
}

function nodePools(sandbox: Sandbox): Record<string, { budgets: unknown; hold?: string }> {
  return Object.fromEntries(
    sandbox.kube.store.list('nodepools.karpenter.sh').map((p) => [
      p.metadata.name ?? '',
      {
        budgets: (p.spec as { disruption?: { budgets?: unknown } }).disruption?.budgets,
        ...(p.metadata.annotations?.[HOLD_ANNOTATION] !== undefined
          ? { hold: p.metadata.annotations[HOLD_ANNOTATION] }
          : {}),
      },
    ]),
  );
}

const startedIn = (sandbox: Sandbox, pool: string) =>
  sandbox.simulator.disruptions.entries().filter((d) => d.nodePool === pool);
const gates = (run: CliRun) => run.events.filter((e) => e.type === 'gate');
const findingsOf = (e: Ev | undefined) => (e?.findings ?? []) as Finding[];

describe('health gates on a bad AMI (bad-ami sandbox)', () => {
  it('crash-loop: the canary is caught (exit 6), nothing outside it replaced, every NodePool held; rollback lifts the holds and brings the canary back', async () => {
    const sandbox = await badAmi();
    const before = nodePools(sandbox);
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const run = await karpDrift(sandbox, [...CANARY, '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);

    const failed = gates(run).find((g) => g.result === 'failed')!;
    expect(failed).toMatchObject({ gate: 'health', failures: 1, failureLimit: 1 });
    const findings = findingsOf(failed);
    expect(findings.length).toBeGreaterThan(0);
    const newAmis = run.events.find((e) => e.type === 'applied')!.amiSelectorTerms as Array<{ id: string }>;
    for (const f of findings) {
      expect(f.code).toBe('POD-FAILING');
      expect(f.nodePool).toBe('canary');
      expect(newAmis.map((t) => t.id)).toContain(f.ami);
      // The kubelet's own words: the waiting reason and the last termination.
      expect(f.evidence.join('\n')).toMatch(/CrashLoopBackOff: back-off .* restarting failed container/);
      expect(f.evidence.join('\n')).toContain('exit code 139');
    }
    expect(run.events.at(-1)).toMatchObject({
      type: 'done',
      result: 'halted',
      cause: 'gate',
      paused: ['canary', 'general'],
    });
    expect(run.stderr).toContain('error: halted by a health gate: POD-FAILING');

    // Karpenter's record: no drift command ever started in general, whose nodes all still run the old AMIs, and
    // both NodePools are held at 0.
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(startedIn(sandbox, 'canary').length).toBeGreaterThan(0);
    expect(imagesByPool(sandbox).general!.every((i) => old.has(i))).toBe(true);
    for (const pool of ['canary', 'general']) {
      const held = nodePools(sandbox)[pool]!;
      expect(held.hold, pool).toBeDefined();
      expect((held.budgets as unknown[]).at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
    }
    const halted = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1500));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.time > halted)).toEqual([]);

    // A human looked and rolls back: the holds come off once the old AMIs are resolved, and the canary comes back.
    const back = await karpDrift(sandbox, ['rollback', '--yes', '-o', 'json'], 120_000);
    expect(back.code, back.stderr).toBe(0);
    expect(
      back.events
        .filter((e) => e.type === 'release')
        .map((e) => e.nodePool)
        .sort(),
    ).toEqual(['canary', 'general']);
    expect(back.stderr).toContain('the rollback releases the holds once Karpenter has resolved the previous AMIs');
    expect(back.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    const after = imagesByPool(sandbox);
    expect(after.canary!.length).toBeGreaterThan(0);
    expect([...after.canary!, ...after.general!].every((i) => old.has(i))).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);

  it('--on-failure rollback: halted, rolled back and followed back in one run (exit 6 still, plain-text log)', async () => {
    const sandbox = await badAmi();
    const before = nodePools(sandbox);
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const run = await karpDrift(sandbox, [...CANARY, '--on-failure', 'rollback'], 150_000);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain('Health gate failed while the rollout runs');
    expect(run.stderr).toContain('--on-failure rollback: restoring ec2nodeclass/default');
    expect(run.stderr).toMatch(
      /error: halted by a health gate: POD-FAILING .*; rolled back: ec2nodeclass\/default restored, every node of nodepool\/canary, nodepool\/general back on the previous AMIs \(Kubernetes 1\.29\)/,
    );
    expect(run.stderr).toContain('the holds are released');
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(
      Object.values(imagesByPool(sandbox))
        .flat()
        .every((i) => old.has(i)),
    ).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
  }, 180_000);

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
    const passed = gates(run).map((g) => `${String(g.gate)} ${String(g.point)} ${String(g.stage)} ${String(g.result)}`);
    expect(passed).toEqual([
      'health wave-end 1 passed',
      'command wave-end 1 passed',
      'health soak-end 1 passed',
      'command soak-end 1 passed',
      'health wave-end 2 passed',
      'command wave-end 2 passed',
    ]);
    expect((gates(run)[1]!.command as { output: string[] }).output).toEqual(['smoke ok on 3 nodes']);
    expect((gates(run).at(-1)!.command as { output: string[] }).output).toEqual(['smoke ok on 17 nodes']);

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

  it('a failing gate command halts after the canary with its output as the evidence (plain text)', async () => {
    const sandbox = await badAmi();
    const run = await karpDrift(sandbox, [
      ...CANARY,
      '--release',
      GOOD,
      '--gate-cmd',
      'echo "checking p99 latency"; echo "p99 2.31s > 1s" >&2; exit 3',
    ]);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain('GATE-CMD-FAILED the gate command exited 3 after');
    expect(run.stderr).toContain('checking p99 latency');
    expect(run.stderr).toContain('p99 2.31s > 1s');
    // The built-in gates passed at the same checkpoint: only the command stopped it, and never reached general.
    expect(run.stderr).not.toContain('POD-FAILING');
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(nodePools(sandbox).general!.hold).toBeDefined();
  });

  it('a gate command that times out is inconclusive: halted, never passed (-o json)', async () => {
    const sandbox = await badAmi();
    const run = await karpDrift(sandbox, [
      ...CANARY,
      '--release',
      GOOD,
      '--gate-cmd',
      'echo "querying prometheus"; sleep 60',
      '--gate-timeout',
      '1s',
      '-o',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(6);
    const halt = gates(run).at(-1)!;
    expect(halt).toMatchObject({ gate: 'command', point: 'wave-end', result: 'inconclusive' });
    expect(findingsOf(halt)[0]).toMatchObject({ code: 'GATE-CMD-TIMEOUT', evidence: ['querying prometheus'] });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted' });
    expect(startedIn(sandbox, 'general')).toEqual([]);
  });

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

  it('never-registers: replacements that never join fail the replacements gate', async () => {
    const sandbox = await badAmi({ symptom: 'never-registers' });
    const run = await karpDrift(sandbox, [...CANARY, '--init-deadline', '20s', '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    const findings = findingsOf(gates(run).find((g) => g.result === 'failed'));
    expect(findings.length).toBeGreaterThan(0);
    // Whichever comes first: karp-drift's --init-deadline, or Karpenter's own NodeRegistrationHealthy=False.
    for (const f of findings) expect(['REPLACEMENT-NOT-INITIALIZED', 'NODE-REGISTRATION-UNHEALTHY']).toContain(f.code);
    expect(findings.every((f) => f.nodePool === 'canary')).toBe(true);
    expect(startedIn(sandbox, 'general')).toEqual([]);
  });
});
