// Staged rollouts end to end: the built CLI paces the `staged` sandbox (canary 3 nodes; general 24 with its own
// budgets; batch 6 whose budgets Argo CD owns, so it is held with do-not-disrupt on its nodes), and the checks read
// the simulated Karpenter's own record of the drift commands it started, not karp-drift's account of them.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { HOLD_ANNOTATION } from '../../src/stages/budget-hold.js';
import { NODE_HOLD_ANNOTATION } from '../../src/stages/node-hold.js';
import { httpWrites, karpDrift, MAIN, scenario, type CliRun } from './cli-sandbox.js';

type Ev = CliRun['events'][number];

const STAGED = ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,10%,100%', '--yes', '-o', 'json'];
const STAGE_POOLS: Record<number, string[]> = { 1: ['canary'], 2: ['batch', 'general'] };

function budgetsOf(sandbox: Sandbox): Record<string, unknown> {
  return Object.fromEntries<unknown>(
    sandbox.kube.store.list('nodepools.karpenter.sh').map((p) => [
      p.metadata.name ?? '',
      {
        budgets: (p.spec as { disruption?: { budgets?: unknown } }).disruption?.budgets,
        hold: p.metadata.annotations?.[HOLD_ANNOTATION],
      },
    ]),
  );
}

const heldNodes = (sandbox: Sandbox) =>
  sandbox.kube.store.list('nodes').filter((n) => n.metadata.annotations?.[NODE_HOLD_ANNOTATION] !== undefined);

/** The CLI as a child, with its NDJSON events as they come, so a test can act at a given step. */
function follow(sandbox: Sandbox, args: string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Ev[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const l of lines) if (l.trim() !== '') events.push(JSON.parse(l) as Ev);
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    child,
    events,
    stderr: () => stderr,
    exited,
    async until(pred: (e: Ev) => boolean, timeoutMs = 60_000): Promise<Ev> {
      for (let waited = 0; waited < timeoutMs; waited += 25) {
        const found = events.find(pred);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no such event within ${timeoutMs} ms; stderr:\n${stderr}`);
    },
  };
}

describe('staged rollout (upgrade --canary --waves --soak)', () => {
  it('goes canary first, then three waves, never starting more than a wave allows, soaking between, and puts every budget back', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const run = await karpDrift(sandbox, [...STAGED, '--soak', '3s'], 150_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });

    const waves = run.events.filter((e) => e.type === 'wave');
    expect(waves.map((w) => `${String(w.stage)}.${String(w.wave)}→${String(w.target)}`)).toEqual([
      '1.1→1',
      '1.2→3',
      '2.1→1',
      '2.2→3',
      '2.3→30',
    ]);
    const soaks = run.events.filter((e) => e.type === 'soak');
    expect(soaks).toHaveLength(4); // after every wave but the last

    // The simulated Karpenter's record: at each soak exactly the wave's target has started in the stage's
    // NodePools, and nothing starts while it soaks.
    const started = sandbox.simulator.disruptions.entries();
    const startsIn = (stage: number, from: string, to = '9999') =>
      started.filter((d) => STAGE_POOLS[stage]!.includes(d.nodePool) && d.time >= from && d.time < to).length;
    for (const soak of soaks) {
      const wave = waves.find((w) => w.stage === soak.stage && w.wave === soak.wave)!;
      expect(
        startsIn(soak.stage as number, '0', soak.time as string),
        `stage ${String(soak.stage)} wave ${String(soak.wave)}`,
      ).toBe(wave.target);
      expect(startsIn(soak.stage as number, soak.time as string, soak.until as string)).toBe(0);
      // The soak is observed: the next wave opens only after it.
      const next = waves.find((w) => (w.time as string) > (soak.time as string))!;
      expect(new Date(next.time as string).getTime()).toBeGreaterThanOrEqual(new Date(soak.until as string).getTime());
    }
    // Nothing of the rollout stage starts before the canary stage has finished and soaked.
    const canaryDone = soaks.find((s) => s.stage === 1 && s.stageDone === true)!;
    expect(started.filter((d) => d.nodePool !== 'canary' && d.time < (canaryDone.until as string))).toEqual([]);
    expect(started).toHaveLength(33);

    // batch's budgets are Argo CD's: held with do-not-disrupt on its nodes, and none of it left behind.
    expect(
      run.events.filter((e) => e.type === 'hold' && e.nodePool === 'batch').every((e) => e.mechanism === 'node'),
    ).toBe(true);
    expect(heldNodes(sandbox)).toEqual([]);
    expect(
      sandbox.kube.store
        .list('nodes')
        .filter((n) => n.metadata.annotations?.['karpenter.sh/do-not-disrupt'] !== undefined),
    ).toEqual([]);
    expect(budgetsOf(sandbox)).toEqual(before);

    // What a teammate sees with kubectl get events.
    const reasons = new Set(
      sandbox.kube.store
        .list('events', 'default')
        .filter((e) => (e as { source?: { component?: string } }).source?.component === 'karp-drift')
        .map((e) => (e as { reason?: string }).reason),
    );
    expect([...reasons].sort()).toEqual([
      'StagedRolloutCompleted',
      'StagedRolloutSoak',
      'StagedRolloutStage',
      'StagedRolloutWave',
    ]);
  }, 180_000);

  it('interrupted mid-wave stays paused (exit 130, both ways on); the same command resumes where the cluster stands', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const first = follow(sandbox, [...STAGED, '--soak', '2s']);
    await first.until((e) => e.type === 'wave' && e.stage === 2 && e.wave === 2);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    const stopped = new Date().toISOString();
    expect(first.stderr()).toContain(
      'the staged rollout is paused: karp-drift holds Drifted disruption on nodepool/batch, nodepool/general',
    );
    expect(first.stderr()).toContain('karp-drift upgrade --to 1.30 --canary canary --waves 1,10%,100% --soak 2s --yes');
    expect(first.stderr()).toContain('karp-drift resume');
    expect(first.events.at(-1)).toMatchObject({
      type: 'done',
      result: 'paused',
      cause: 'interrupted',
      paused: ['batch', 'general'],
    });

    // Paused: general holds its budget at 0, batch's old nodes are all held, and Karpenter starts nothing more.
    const general = budgetsOf(sandbox).general as {
      budgets: Array<{ nodes: string; reasons?: string[] }>;
      hold?: string;
    };
    expect(general.budgets.at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
    expect(general.hold).toBeDefined();
    expect(heldNodes(sandbox).length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 2000));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.time > stopped)).toEqual([]);

    const second = await karpDrift(sandbox, [...STAGED, '--soak', '2s'], 150_000);
    expect(second.code, second.stderr).toBe(0);
    expect(second.events.filter((e) => e.type === 'applied')).toEqual([]); // the AMIs were applied by the first run
    // Counted from the cluster: the canary stage is done, so the re-run goes on in stage 2.
    expect(second.events.filter((e) => e.type === 'wave').every((w) => w.stage === 2)).toBe(true);
    expect(second.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(budgetsOf(sandbox)).toEqual(before);
    expect(heldNodes(sandbox)).toEqual([]);
  }, 240_000);

  it('Ctrl-C during a hold write: exit 130, left paused and consistent; resume puts back exactly what was there', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const run = follow(sandbox, [...STAGED, '--soak', '2s']);
    await run.until((e) => e.type === 'soak');
    // The next NodePool write opens wave 2: the signal arrives while it is on the wire.
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodepools'] }, () => run.child.kill('SIGINT'));
    expect(await run.exited, run.stderr()).toBe(130);
    expect(run.stderr()).toContain('the staged rollout is paused');
    const paused = budgetsOf(sandbox) as Record<string, { budgets: Array<{ nodes: string }>; hold?: string }>;
    for (const pool of ['canary', 'general']) {
      expect(paused[pool]!.budgets.at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
      expect(paused[pool]!.hold).toBeDefined();
    }
    const resume = await karpDrift(sandbox, ['resume']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
    expect(heldNodes(sandbox)).toEqual([]);
  }, 120_000);

  it('Ctrl-C while the holds go on, before the apply: exit 130, the holds taken off again, nothing changed', async () => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const generations = () =>
      sandbox.kube.store.list('ec2nodeclasses.karpenter.k8s.aws').map((c) => c.metadata.generation);
    const classes = generations();
    const run = follow(sandbox, STAGED);
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodepools'] }, () => run.child.kill('SIGINT'));
    expect(await run.exited, run.stderr()).toBe(130);
    expect(run.stderr()).toContain(
      "interrupted before the EC2NodeClass apply; karp-drift's holds were taken off again; nothing was changed",
    );
    expect(budgetsOf(sandbox)).toEqual(before);
    expect(heldNodes(sandbox)).toEqual([]);
    expect(generations()).toEqual(classes);
  }, 60_000);

  it('a stall (a PDB) exits 4 with the PDB blamed, never its own holds, and stays paused', async () => {
    const sandbox = await scenario('pdb-blocked', 60);
    const run = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--waves',
      '1,100%',
      '--stall-timeout',
      '10s',
      '--yes',
      '-o',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(4);
    const blamed = new Set(run.events.filter((e) => e.type === 'blocked').map((e) => e.code));
    expect(blamed.has('STALL-PDB')).toBe(true);
    expect(blamed.has('STALL-HELD')).toBe(false);
    expect(blamed.has('STALL-BUDGET')).toBe(false);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'stalled', paused: ['general'] });
    expect(run.stderr).toContain(
      'the staged rollout is paused: karp-drift holds Drifted disruption on nodepool/general',
    );
    // Now somebody else's view of it: status says karp-drift holds it, and how to go on.
    const status = await karpDrift(sandbox, ['status']);
    expect(status.stdout + status.stderr).toContain('STALL-HELD');
  }, 90_000);

  it('a NodePool whose budgets change under the run keeps the new ones: re-read, never clobbered', async () => {
    const sandbox = await scenario('staged', 60);
    const run = follow(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--canary',
      'canary',
      '--waves',
      '100%',
      '--soak',
      '3s',
      '--yes',
      '-o',
      'json',
    ]);
    await run.until((e) => e.type === 'soak');
    // While general is held at 0, its owner changes its budgets (kubectl edit): the hold's next write answers 409.
    const live = sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!;
    const spec = live.spec as { disruption: { budgets: Array<Record<string, unknown>> } };
    // A scheduled budget that is not active while the test runs (12 hours from now): an active `nodes: "0"` would
    // hold general's drift, as Karpenter does, and the run would never finish.
    const offHour = (new Date().getUTCHours() + 12) % 24;
    const mine = [{ nodes: '5' }, { nodes: '0', schedule: `0 ${offHour} * * *`, duration: '1h' }];
    const held = spec.disruption.budgets.at(-1);
    sandbox.kube.store.update(
      'nodepools.karpenter.sh',
      { ...live, spec: { ...spec, disruption: { ...spec.disruption, budgets: [...mine, held!] } } },
      { manager: 'kubectl-edit' },
    );
    expect(await run.exited).toBe(0);
    const after = sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!;
    expect((after.spec as typeof spec).disruption.budgets).toEqual(mine);
    expect(after.metadata.annotations?.[HOLD_ANNOTATION]).toBeUndefined();
  }, 120_000);

  it('refuses a second run while the first holds the lock (exit 3, naming it), and pause too', async () => {
    const sandbox = await scenario('staged', 60);
    const first = follow(sandbox, [...STAGED, '--soak', '30s']);
    await first.until((e) => e.type === 'soak');
    // Another staged run would write holds: it must not pace the same cluster at once.
    const second = await karpDrift(sandbox, [...STAGED, '--soak', '30s']);
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr).toMatch(
      /another karp-drift run holds the lock on this cluster: .*upgrade --to 1\.30 --canary canary/,
    );
    const pause = await karpDrift(sandbox, ['pause']);
    expect(pause.code).toBe(3);
    first.child.kill('SIGINT'); // during a soak
    expect(await first.exited).toBe(130);
    expect(first.stderr()).toContain('the staged rollout is paused');
    // The first run released its lock on the way out: resume may go now, and puts everything back.
    const resume = await karpDrift(sandbox, ['resume']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(heldNodes(sandbox)).toEqual([]);
  }, 120_000);

  it.each<[string, number, RegExp, string[]]>([
    ['--waves garbage', 2, /--waves: wave "ten" is neither a node count/, ['--waves', 'ten']],
    ['--waves not increasing', 2, /--waves: waves are cumulative and must increase/, ['--waves', '10%,5%']],
    ['--waves 0', 2, /--waves: wave "0" replaces no node/, ['--waves', '0']],
    ['--waves over 100 %', 2, /--waves: wave "150%" is over 100%/, ['--waves', '1,150%']],
    ['--soak not a duration', 2, /--soak "soon" is not a duration/, ['--waves', '1,100%', '--soak', 'soon']],
    ['--soak alone', 2, /--soak paces a staged rollout, and there is none/, ['--soak', '5m']],
    [
      '--canary not in scope',
      2,
      /--canary "nope": not a NodePool of the EC2NodeClasses in scope/,
      ['--canary', 'nope'],
    ],
    [
      '--templates',
      2,
      /--canary\/--waves cannot go with --templates/,
      ['--waves', '1,100%', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox'],
    ],
    ['--no-wait', 2, /--no-wait cannot go with a staged rollout/, ['--waves', '1,100%', '--no-wait']],
    [
      '--hold-with budget on a GitOps-owned NodePool',
      3,
      /spec.disruption.budgets of nodepool\/batch is owned by Argo CD/,
      ['--waves', '1,100%', '--hold-with', 'budget'],
    ],
  ])('%s: a clear error, exit %i, nothing changed', async (_name, code, message, flags) => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', ...flags]);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(httpWrites(sandbox)).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
  });
});
