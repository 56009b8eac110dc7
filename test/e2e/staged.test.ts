// Staged rollouts end to end: the built CLI paces the `staged` sandbox (staged.ts), and the checks read the simulated
// Karpenter's own record of the drift commands it started, not karp-drift's account of them.
import { describe, expect, it } from 'vitest';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import { karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf, follow, heldNodes, managedFieldsOf, STAGE_POOLS, STAGED } from './staged.js';

describe('staged rollout (upgrade --canary --waves --soak)', () => {
  it('goes canary first, then three waves, never starting more than a wave allows, soaking between, and puts every budget back', async () => {
    const sandbox = await scenario('staged', 180);
    const before = budgetsOf(sandbox);
    const owners = managedFieldsOf(sandbox);
    // What a teammate watching `kubectl get events -w` sees: an Event lives an hour of the cluster's clock, so at 180×
    // the first ones are gone by the end of this simulated rollout of hours, as on a real cluster.
    const reasons = new Set<string>();
    const unsubscribe = sandbox.kube.store.objects.subscribe((change) => {
      const e = change.object as { reason?: string; source?: { component?: string } };
      if (change.groupResource === 'events' && change.type !== 'DELETED' && e.source?.component === 'karp-drift')
        reasons.add(e.reason ?? '');
    });
    const run = await karpDrift(sandbox, [...STAGED, '--soak', '3s'], 150_000);
    unsubscribe();
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
    expectEtaAsPlanned(run.events);

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
    // And to their owners (kubectl's for canary and general, Argo CD's for batch): karp-drift owns none of them.
    expect(managedFieldsOf(sandbox)).toEqual(owners);

    expect([...reasons].sort()).toEqual([
      'StagedRolloutCompleted',
      'StagedRolloutSoak',
      'StagedRolloutStage',
      'StagedRolloutWave',
    ]);
  }, 180_000);

  it('a NodePool whose budgets change under the run keeps the new ones: re-read, never clobbered', async () => {
    const sandbox = await scenario('staged', 180);
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
});

/**
 * The plan's estimate and the live ETA are one model (stages/eta.ts). The plan (its `plan` event) gives each wave's
 * rounds of replacements and assumes a replacement time; once wave 1 is done, the follow has measured that time
 * (`replacementSeconds`) and nothing else. Right after wave 1, when wave 2 has opened, the live ETA is the plan's
 * rounds for the waves left at that time plus a soak before each wave after wave 2, less the part of wave 2 already
 * run: between the model with wave 2 done and with wave 2 not begun, give or take a second of rounding.
 */
function expectEtaAsPlanned(events: Array<Record<string, unknown>>): void {
  const planned = (events.find((e) => e.type === 'plan')!.plan as { staged: Record<string, unknown> }).staged as {
    stages: Array<{ rounds: number[] }>;
    soaks: number;
    soakSeconds: number;
    estimateSeconds: number;
    assumedReplacementSeconds: number;
  };
  const rounds = planned.stages.flatMap((s) => s.rounds); // every wave, in order
  expect(rounds).toEqual([1, 1, 1, 1, 2]);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  expect(planned.estimateSeconds).toBe(
    sum(rounds) * planned.assumedReplacementSeconds + planned.soaks * planned.soakSeconds,
  );
  const progress = events.find(
    (e) =>
      e.type === 'progress' &&
      (e.stage as { stage?: number; wave?: number } | undefined)?.stage === 1 &&
      (e.stage as { wave?: number }).wave === 2 &&
      e.etaSeconds != null,
  )!;
  expect(progress, 'a progress event of stage 1 wave 2').toBeDefined();
  const r = progress.replacementSeconds as number;
  expect(r).toBeGreaterThan(0);
  const later = rounds.slice(2); // the waves after wave 2 of stage 1
  const waveDone = sum(later) * r + later.length * planned.soakSeconds;
  const eta = progress.etaSeconds as number;
  expect(eta, `ETA ${eta}s, replacement ${r}s`).toBeGreaterThanOrEqual(waveDone - 1);
  expect(eta, `ETA ${eta}s, replacement ${r}s`).toBeLessThanOrEqual(waveDone + rounds[1]! * r + 1);
}
