// A staged rollback end to end: `rollback --waves` takes the nodes back to the previous AMIs as a staged upgrade takes
// them forward, wave by wave behind karp-drift's holds, and the checks read the simulated Karpenter's own record of the
// drift commands it started (sandbox.simulator.disruptions), not karp-drift's account of them.
import { describe, expect, it } from 'vitest';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { CANARY, GOOD, badAmi, findingsOf, gates, imagesByPool, nodePools } from './gates.js';
import { budgetsOf, follow, heldNodes } from './staged.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const RECORD = 'karp-drift.io/previous-ami-selector-terms';

describe('rollback --waves: a staged rollback', () => {
  it('takes the nodes back in two waves, the first starting one replacement, and releases every hold at the end', async () => {
    const sandbox = await scenario('staged', 240);
    const store = sandbox.kube.store;
    const budgets = budgetsOf(sandbox);
    const previous = new Set(store.list('nodeclaims.karpenter.sh').map((c) => (c.status as { imageID: string }).imageID));
    const up = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '60s'], 150_000);
    expect(up.code, up.stderr).toBe(0);
    const upgraded = sandbox.simulator.disruptions.entries().length;

    const back = await karpDrift(sandbox, ['rollback', '--waves', '1,100%', '--yes', '-o', 'json', '--stall-timeout', '60s'], 150_000);
    expect(back.code, back.stderr).toBe(0);
    expect(back.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // The plan says how it goes back: one stage of every NodePool, in two waves.
    const plan = back.events.find((e) => e.type === 'plan')!.plan as { staged: { stages: Array<{ name: string; waves: number[] }> } };
    expect(plan.staged.stages.map((s) => [s.name, s.waves])).toEqual([['rollout', [1, 33]]]);

    const waves = back.events.filter((e) => e.type === 'wave');
    expect(waves.map((w) => `${String(w.stage)}.${String(w.wave)}→${String(w.target)}`)).toEqual(['1.1→1', '1.2→33']);
    // Karpenter's own record: by the end of wave 1 (its gate passed; wave 2's holds are written, and its event
    // reported, only after), exactly one drift command had started back.
    const started = sandbox.simulator.disruptions.entries().slice(upgraded);
    const cleared = back.events.find((e) => e.type === 'gate' && e.result === 'passed' && e.wave === 1)!.time as string;
    expect(started.filter((d) => d.time < cleared)).toHaveLength(1);
    expect(started).toHaveLength(33);

    // Every node back on the previous AMIs, every budget and hold as before the upgrade, the records gone.
    for (const claim of store.list('nodeclaims.karpenter.sh')) expect(previous).toContain((claim.status as { imageID: string }).imageID);
    expect(budgetsOf(sandbox)).toEqual(budgets);
    expect(heldNodes(sandbox)).toEqual([]);
    for (const p of store.list('nodepools.karpenter.sh')) expect(p.metadata.annotations?.[HOLD_ANNOTATION]).toBeUndefined();
    expect(store.get(EC2NODECLASSES, 'default')!.metadata.annotations?.[RECORD]).toBeUndefined();
    // A second rollback finds nothing, as after a rollback that was not staged.
    expect((await karpDrift(sandbox, ['rollback', '--waves', '1,100%', '--yes'])).code).toBe(2);
  }, 300_000);

  it('interrupted between waves stays paused with its records kept; the same rollback goes on from the wave where the cluster stands', async () => {
    const sandbox = await scenario('staged', 240);
    const store = sandbox.kube.store;
    const budgets = budgetsOf(sandbox);
    const up = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--stall-timeout', '60s'], 150_000);
    expect(up.code, up.stderr).toBe(0);
    const ROLLBACK = ['rollback', '--waves', '1,10%,100%', '--soak', '2s', '--yes', '-o', 'json'];

    const first = follow(sandbox, ROLLBACK);
    await first.until((e) => e.type === 'soak');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(first.stderr()).toContain('the staged rollout is paused: karp-drift holds Drifted disruption on');
    expect(first.stderr()).toContain('karp-drift rollback --waves 1,10%,100% --soak 2s --yes');
    expect(first.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'interrupted' });
    // The record stays on the class: the restore is done, the rollback is not.
    expect(store.get(EC2NODECLASSES, 'default')!.metadata.annotations?.[RECORD]).toBeDefined();
    const paused = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1500));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.time > paused)).toEqual([]);

    const second = await karpDrift(sandbox, ROLLBACK, 150_000);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('the rollback under way drifts the 32 nodes of nodepool/batch, nodepool/canary, nodepool/general not yet on the previous AMIs back to them (the other 1 node is back already)');
    expect(second.events.filter((e) => e.type === 'applied')).toEqual([]);
    // Counted from the cluster and the holds' records: wave 1 is done, so the re-run opens wave 2 (after the soak).
    const waves = second.events.filter((e) => e.type === 'wave');
    expect(waves[0]).toMatchObject({ stage: 1, wave: 2 });
    expect(second.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(budgetsOf(sandbox)).toEqual(budgets);
    expect(heldNodes(sandbox)).toEqual([]);
    expect(store.get(EC2NODECLASSES, 'default')!.metadata.annotations?.[RECORD]).toBeUndefined();
  }, 300_000);

  it('onto previous AMIs that went bad: halted after its first wave (exit 6), one node moved, every NodePool held', async () => {
    // bad-ami with the bad release moved back: the older 1.30 release GOOD crash-loops, the newest is good.
    const sandbox = await badAmi({ symptom: 'crash-loop', release: GOOD });
    const store = sandbox.kube.store;
    // The class is pinned to the (now bad) older release while nothing drifts, then moved on to the newest: no node
    // ever launched from the older one, and it is the selection rollback restores.
    for (const args of [['pause'], ['upgrade', '--to', '1.30', '--release', GOOD, '--yes', '--no-wait'], ['upgrade', '--to', '1.30', '--waves', '100%', '--yes']]) {
      const run = await karpDrift(sandbox, args, 150_000);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const newest = new Set(Object.values(imagesByPool(sandbox)).flat());
    const before = sandbox.simulator.disruptions.entries().length;

    const back = await karpDrift(sandbox, ['rollback', '--waves', '1,100%', '--yes', '-o', 'json'], 150_000);
    expect(back.code, back.stderr).toBe(6);
    const failed = gates(back).find((g) => g.result === 'failed')!;
    const restored = back.events.find((e) => e.type === 'applied')!.amiSelectorTerms as Array<{ id: string }>;
    for (const f of findingsOf(failed)) {
      expect(f.code).toBe('POD-FAILING');
      expect(restored.map((t) => t.id)).toContain(f.ami);
    }
    expect(back.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    expect(back.stderr).toContain('the previous AMIs failed the gates too');
    expect(back.stderr).toContain('karp-drift rollback --waves 1,100% --resume-halted --yes');

    // Karpenter's record: the rollback started one drift command, and nothing since the halt; every NodePool is held.
    expect(sandbox.simulator.disruptions.entries().slice(before)).toHaveLength(1);
    for (const [pool, held] of Object.entries(nodePools(sandbox))) {
      expect(held.hold, pool).toBeDefined();
      expect((held.budgets as unknown[]).at(-1), pool).toEqual({ nodes: '0', reasons: ['Drifted'] });
    }
    const halted = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 1500));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.time > halted)).toEqual([]);
    expect(Object.values(imagesByPool(sandbox)).flat().filter((i) => !newest.has(i))).toHaveLength(1);
    // The records stay, so the same rollback (or a plain one) can still go on, but not without the user's word.
    expect(store.get(EC2NODECLASSES, 'default')!.metadata.annotations?.[RECORD]).toBeDefined();
    const writes = httpWrites(sandbox);
    for (const args of [['rollback', '--waves', '1,100%', '--yes'], ['rollback', '--yes']]) {
      const again = await karpDrift(sandbox, args);
      expect(again.code, again.stderr).toBe(6);
      expect(again.stderr).toContain('error: the rollback was halted by a health gate');
      expect(again.stderr).toContain('running it again does not restart it, and nothing was changed');
      expect(again.stderr).toContain(`go on: karp-drift rollback${args.includes('--waves') ? ' --waves 1,100%' : ''} --resume-halted`);
    }
    expect(httpWrites(sandbox)).toBe(writes);
    // With it, the rollback goes on, and the gates judge the node on the failing AMI again: halted again.
    const resumed = await karpDrift(sandbox, ['rollback', '--waves', '1,100%', '--yes', '--resume-halted'], 150_000);
    expect(resumed.code, resumed.stderr).toBe(6);
    expect(resumed.stderr).toContain('error: halted by a health gate: POD-FAILING');
  }, 300_000);

  it('upgrade --on-failure rollback --rollback-waves: the halted canary goes back in gated waves, in the same run', async () => {
    const sandbox = await badAmi();
    const before = nodePools(sandbox);
    const old = new Set(Object.values(imagesByPool(sandbox)).flat());
    const run = await karpDrift(sandbox, [...CANARY, '--on-failure', 'rollback', '--rollback-waves', '1,100%', '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(6);
    // One run, one `done`: halted by the gate, the staged rollback's outcome in it.
    const dones = run.events.filter((e) => e.type === 'done');
    expect(dones).toHaveLength(1);
    expect(dones[0]).toMatchObject({ result: 'halted', cause: 'gate', rollback: { result: 'succeeded' }, paused: [] });

    // The rollback's waves come after the halt: a first wave of one, gated before the rest opened. Karpenter's record
    // says it did not go all at once: some of its commands started only after the second wave opened. (A budget hold
    // counts the upgrade's commands still in flight, which the rollback's first deletions end; in that instant one more
    // may start: DOMAIN.md §2.6. So the first wave's exact count is asserted on the staged sandbox above, not here.)
    const halt = run.events.findIndex((e) => e.type === 'gate' && e.result === 'failed');
    const back = run.events.slice(halt);
    const waves = back.filter((e) => e.type === 'wave');
    expect(waves.map((w) => [w.stage, w.wave])).toEqual([[1, 1], [1, 2]]);
    expect(waves[0]).toMatchObject({ target: 1 });
    const cleared = back.find((e) => e.type === 'gate' && e.result === 'passed' && e.wave === 1)!;
    expect(cleared.time as string <= (waves[1]!.time as string)).toBe(true);
    const rolledBack = sandbox.simulator.disruptions.entries().filter((d) => d.time >= (waves[0]!.time as string));
    expect(rolledBack.filter((d) => d.time >= (waves[1]!.time as string)).length).toBeGreaterThan(0);
    expect(rolledBack.every((d) => d.nodePool === 'canary')).toBe(true);

    expect(Object.values(imagesByPool(sandbox)).flat().every((i) => old.has(i))).toBe(true);
    expect(nodePools(sandbox)).toEqual(before);
    expect(sandbox.kube.store.get(EC2NODECLASSES, 'default')!.metadata.annotations?.[RECORD]).toBeUndefined();
  }, 300_000);
});
