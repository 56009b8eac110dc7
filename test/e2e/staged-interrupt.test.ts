// A staged rollout interrupted (Ctrl-C mid-wave, during a hold write, before the apply) or raced by a second run: it
// stays paused and consistent, and the same command, or resume, goes on from where the cluster stands.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, follow, heldNodes, STAGED } from './staged.js';

describe('staged rollout interrupted, and its lock', () => {
  it('interrupted mid-wave stays paused (exit 130, both ways on); the same command resumes where the cluster stands', async () => {
    const sandbox = await scenario('staged', 180);
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
    const sandbox = await scenario('staged', 180);
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
    const sandbox = await scenario('staged', 180);
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

  it('SIGTERM as the follow begins, before its first turn: left paused, and the run still ends with its done', async () => {
    // Seen in a whole run (upgrade-cronjob): a follow stopped before it had computed any progress printed no `done`.
    const sandbox = await scenario('staged', 180);
    const run = follow(sandbox, STAGED);
    sandbox.kube.faults.beforeNext({ verbs: ['watch'], resources: ['nodeclaims'] }, () => void run.child.kill('SIGTERM'));
    expect(await run.exited, run.stderr()).toBe(130);
    expect(run.events.at(-1), run.stderr()).toMatchObject({ type: 'done', result: 'paused', cause: 'interrupted' });
  }, 60_000);

  it('Ctrl-C while a node hold is on its way to the API server: that node is let go too', async () => {
    // batch's budgets are Argo CD's, so it is held node by node: the signal comes as the first node patch arrives,
    // which the API server still applies while the run, interrupted, may never read its answer.
    const sandbox = await scenario('staged', 180);
    const run = follow(sandbox, STAGED);
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodes'] }, () => run.child.kill('SIGINT'));
    expect(await run.exited, run.stderr()).toBe(130);
    expect(heldNodes(sandbox)).toEqual([]);
  }, 60_000);

  it('refuses a second run while the first holds the lock (exit 3, naming it), and pause too', async () => {
    const sandbox = await scenario('staged', 180);
    const first = follow(sandbox, [...STAGED, '--soak', '30s']);
    await first.until((e) => e.type === 'soak');
    // Another staged run would write holds: it must not pace the same cluster at once.
    const second = await karpDrift(sandbox, [...STAGED, '--soak', '30s']);
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr).toMatch(
      /another karp-drift run holds the lock on this cluster: .*upgrade --to 1\.30 --canary canary/,
    );
    // Every command that sees the holds says they are a live run's, names it, and offers only what works.
    expect(second.stdout + second.stderr).toMatch(/nodepool\/general: karp-drift holds its Drifted disruption: paced by the live run .*\(karp-drift upgrade --to 1\.30 --canary canary/);
    expect(second.stdout + second.stderr).not.toMatch(/\(paused\)|until karp-drift resume/);
    const status = await karpDrift(sandbox, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Paced by a live run, lease renewed \d+s ago \(30s lease\):\n {2}.*\(run .*\): karp-drift upgrade --to 1\.30 --canary canary/m);
    expect(status.stdout.split('\n').filter((l) => !/^ {2}|^STALL-/.test(l)).every((l) => l.length <= 80)).toBe(true);
    expect(status.stdout).toContain('follow it with: karp-drift wait');
    expect(status.stdout).not.toMatch(/\(paused\)|resume \[--nodepool/);
    const json = await karpDrift(sandbox, ['status', '-o', 'json']);
    const holds = (JSON.parse(json.stdout) as { holds: Array<{ state: string; pacedBy?: string }> }).holds;
    expect(holds.length).toBeGreaterThan(0);
    expect(holds.every((h) => h.state === 'paced' && /\(run /.test(h.pacedBy ?? ''))).toBe(true);
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

  it('status after the run was interrupted: paused, resume offered', async () => {
    const sandbox = await scenario('staged', 180);
    const first = follow(sandbox, [...STAGED, '--soak', '30s']);
    await first.until((e) => e.type === 'soak');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    const status = await karpDrift(sandbox, ['status']);
    expect(status.stdout).toContain('karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on');
    expect(status.stdout).not.toContain('Paced by');
    const json = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect((JSON.parse(json.stdout) as { holds: Array<{ state: string }> }).holds.map((h) => h.state)).toContain('paused');
  }, 120_000);
});
