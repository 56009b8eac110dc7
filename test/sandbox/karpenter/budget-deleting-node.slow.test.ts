// A Node deleted while its NodeClaim is not uses up no disruption budget in the simulated Karpenter, as in Karpenter's
// (kubernetes-sigs/karpenter v1.14.1 statenode.go `Deleted()`: a Node's deletion counts only for a Node without a
// NodeClaim; helpers.go `BuildDisruptionBudgetMapping` skips those). The sandbox leaves such a Node deleting with its
// NodeClaim as it is (its finalizer stays), which is the moment Karpenter's termination controller takes to delete the
// NodeClaim in turn, held open. Counted here by src/karpenter/budget-mapping.ts, the CLI's own rule.
import { describe, expect, it, onTestFinished } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { claimsOf, customObjects, manualSandbox, pinToControlPlane, run } from './harness.js';

describe('a Node deleted while its NodeClaim is not', () => {
  it('uses up no budget while it is Ready: a budget of 1 still lets a drift command start', async () => {
    const sandbox = await manualSandbox('staged');
    onTestFinished(() => sandbox.stop());
    await customObjects(sandbox).patchClusterCustomObject(
      {
        group: 'karpenter.sh',
        version: 'v1',
        plural: 'nodepools',
        name: 'canary',
        body: { spec: { disruption: { budgets: [{ nodes: '1', reasons: ['Drifted'] }] } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const gone = (claimsOf(sandbox, 'canary')[0]!.status as { nodeName: string }).nodeName;
    sandbox.kube.store.delete('nodes', gone);
    const node = sandbox.kube.store.get('nodes', gone);
    expect(node?.metadata.deletionTimestamp).toBeDefined(); // its termination finalizer keeps it
    expect(claimsOf(sandbox, 'canary').every((c) => c.metadata.deletionTimestamp === undefined)).toBe(true);

    await pinToControlPlane(sandbox, 'default');
    const started = () => sandbox.simulator.disruptions.entries().filter((r) => r.nodePool === 'canary');
    for (let s = 0; s < 120 && started().length === 0; s++) run(sandbox, 1);
    // Counted as disrupting, the deleting Node would leave 1 − 1 = 0 and nothing would start.
    expect(started().length).toBeGreaterThan(0);
    expect(started()[0]).toMatchObject({ budgetAllowed: 1 });
    expect(started()[0]!.node).not.toBe(gone);
  });
});
