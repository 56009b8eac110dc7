// Karpenter v0.36 (the v1beta1 API): budgets there have no `reasons`, so a budget hold would be pruned to one that
// also stops consolidation, and karp-drift would no longer recognise its own entry (DOMAIN.md §2.9). So pause, resume
// and a staged rollout hold with do-not-disrupt on the nodes, `--hold-with budget` is refused, and the NodePools'
// budgets are never touched.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { httpWrites, karpDrift } from './cli-sandbox.js';
import { budgetsOf, heldNodes } from './staged.js';

async function v1beta1() {
  const sandbox = await startSandbox({ scenario: { ...loadScenario('default'), karpenterVersion: '0.36.2' }, speed: 300 });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

describe('holds on Karpenter v1beta1 (v0.36)', () => {
  it('pause and resume hold the nodes, never the budgets; --hold-with budget is refused and changes nothing', async () => {
    const sandbox = await v1beta1();
    const before = budgetsOf(sandbox);
    const writes = httpWrites(sandbox);
    const refused = await karpDrift(sandbox, ['pause', '--hold-with', 'budget']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^error: --hold-with budget: Karpenter's v1beta1 API \(v0\.32–v0\.37\) has budgets without `reasons`/m);
    expect(httpWrites(sandbox)).toBe(writes);

    const paused = await karpDrift(sandbox, ['pause']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(heldNodes(sandbox).length).toBeGreaterThan(0);
    expect(budgetsOf(sandbox)).toEqual(before);

    const resumed = await karpDrift(sandbox, ['resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(heldNodes(sandbox)).toEqual([]);
    expect(budgetsOf(sandbox)).toEqual(before);
  });

  it('a staged rollout paces with node holds and leaves the budgets as they were', async () => {
    const sandbox = await v1beta1();
    const before = budgetsOf(sandbox);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--waves', '1,100%', '--yes', '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(0);
    const holds = run.events.filter((e) => e.type === 'hold');
    expect(holds.length).toBeGreaterThan(0);
    expect(holds.every((e) => e.mechanism === 'node')).toBe(true);
    expect(heldNodes(sandbox)).toEqual([]);
    expect(budgetsOf(sandbox)).toEqual(before);
  }, 180_000);
});
