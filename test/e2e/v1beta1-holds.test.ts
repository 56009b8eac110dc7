// Karpenter v0.36 (the v1beta1 API): budgets there have no `reasons`, so a budget hold would be pruned to one that
// also stops consolidation (DOMAIN.md §2.9; the sandbox serves v0.36.2's schema, sandbox/scenarios/karpenter-crds.ts).
// So pause, resume and a staged rollout hold with do-not-disrupt on the nodes, `--hold-with budget` is refused, and
// the NodePools' budgets are never touched; a budget hold an earlier karp-drift wrote there (kept without its
// reasons) is still recognised as karp-drift's, and released.
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { httpWrites, karpDrift } from './cli-sandbox.js';
import { budgetsOf, heldNodes } from './staged.js';

async function v1beta1() {
  const sandbox = await startSandbox({ scenario: { ...loadScenario('default'), karpenterVersion: '0.36.2' }, speed: 300 });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** A JSON merge patch of NodePool `name` through the API, as karp-drift and `kubectl patch --type merge` send it. */
async function patchNodePool(sandbox: Sandbox, name: string, body: object, fieldManager = 'kubectl-patch') {
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const api = kc.makeApiClient(CustomObjectsApi);
  const patch = { group: 'karpenter.sh', version: 'v1beta1', plural: 'nodepools', name };
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  await api.patchClusterCustomObject({ ...patch, body, fieldManager }, merge);
  const read = (await api.getClusterCustomObject(patch)) as { spec: { disruption: { budgets?: Budget[] } } };
  return read.spec.disruption.budgets;
}

describe('holds on Karpenter v1beta1 (v0.36)', () => {
  it('the API server keeps a budget without its reasons, as v0.36 does', async () => {
    const sandbox = await v1beta1();
    const kept = await patchNodePool(sandbox, 'general', {
      spec: { disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] } },
    });
    expect(kept).toEqual([{ nodes: '10%' }, { nodes: '0' }]);
    // Nor is there a karpenter.sh/v1 to write them through: v0.36.0–v0.36.2 serve v1beta1 alone (v0.36.3 added v1,
    // whose conversion webhook drops reasons on the way to v1beta1 storage).
    const kc = new KubeConfig();
    kc.loadFromFile(sandbox.kubeconfigPath);
    const v1 = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'general' };
    await expect(kc.makeApiClient(CustomObjectsApi).getClusterCustomObject(v1)).rejects.toMatchObject({ code: 404 });
  });

  // Before karp-drift held v1beta1 NodePools with do-not-disrupt, `pause` appended `{nodes: "0", reasons: [Drifted]}`
  // there, which the server kept as `{nodes: "0"}`: that hold is still karp-drift's, and resume takes it off.
  it('a budget hold an earlier karp-drift left (reasons pruned): status names it, resume releases it', async () => {
    const sandbox = await v1beta1();
    const before = budgetsOf(sandbox);
    const own = (before.general as { budgets: Budget[] }).budgets;
    const record = { runId: 'old-run-0001', since: new Date().toISOString(), budgets: own };
    const kept = await patchNodePool(
      sandbox,
      'general',
      {
        metadata: { annotations: { [HOLD_ANNOTATION]: JSON.stringify(record) } },
        spec: { disruption: { budgets: [...own, { nodes: '0', reasons: ['Drifted'] }] } },
      },
      'karp-drift',
    );
    expect(kept).toEqual([...own, { nodes: '0' }]);

    const status = await karpDrift(sandbox, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^general +budget \(every reason: 0 more\) /m);

    const resumed = await karpDrift(sandbox, ['resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
  });

  it('a staged rollout takes over the budget hold an earlier karp-drift left, and ends with the old budgets', async () => {
    const sandbox = await v1beta1();
    const before = budgetsOf(sandbox);
    const own = (before.general as { budgets: Budget[] }).budgets;
    const record = { runId: 'old-run-0002', since: new Date().toISOString(), budgets: own };
    await patchNodePool(
      sandbox,
      'general',
      {
        metadata: { annotations: { [HOLD_ANNOTATION]: JSON.stringify(record) } },
        spec: { disruption: { budgets: [...own, { nodes: '0', reasons: ['Drifted'] }] } },
      },
      'karp-drift',
    );
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30']);
    expect(plan.stdout).toContain(
      'budget {nodes: "0"} (kept without its reasons, so it holds consolidation too) added by karp-drift run old-run-0002',
    );
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--waves', '1,100%', '--yes', '-o', 'json'], 150_000);
    expect(run.code, run.stderr).toBe(0);
    const released = run.events.find((e) => e.type === 'release' && e.mechanism === 'budget');
    expect(released).toMatchObject({ nodePool: 'general', budgets: own });
    expect(heldNodes(sandbox)).toEqual([]);
    expect(budgetsOf(sandbox)).toEqual(before);
  }, 180_000);

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
