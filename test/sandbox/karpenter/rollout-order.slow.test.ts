// Karpenter's order, observed from outside: a client changes an EC2NodeClass's amiSelectorTerms through the API
// (no karp-drift upgrade code involved) and the simulated Karpenter replaces the drifted nodes. Time is stepped by
// hand, one simulated second per pass, so the run is exact and fast.
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { allowedDisruptions, type Budget } from '../../../src/karpenter/budgets.js';
import { newestRelease } from '../../../src/sandbox/aws/lookup.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { conditionOf, isTrue } from '../../../src/sandbox/karpenter/objects.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';

const NODECLAIMS = 'nodeclaims.karpenter.sh';

async function pinToControlPlane(sandbox: Sandbox, nodeClass: string): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const api = kc.makeApiClient(CustomObjectsApi);
  const built = sandbox.cluster.nodeClasses.find((c) => c.name === nodeClass)!;
  const ids = built.arches.map(
    (arch) => newestRelease(sandbox.aws.catalog, { family: built.family, kubernetesVersion: sandbox.scenario.controlPlaneVersion, arch, variant: 'standard' })!.imageId,
  );
  await api.patchClusterCustomObject(
    {
      group: 'karpenter.k8s.aws',
      version: 'v1',
      plural: 'ec2nodeclasses',
      name: nodeClass,
      body: { spec: { amiSelectorTerms: ids.map((id) => ({ id })) } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return ids;
}

function poolOf(o: KubeObject): string | undefined {
  return o.metadata.labels?.['karpenter.sh/nodepool'];
}

describe('the simulated Karpenter replaces AMI-drifted nodes in Karpenter order', () => {
  it('initializes each replacement before deleting the old NodeClaim, within the NodePool budget at every moment', async () => {
    const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
    const sandbox = await startSandbox({ scenario: 'default', manualClock: clock });
    onTestFinished(() => sandbox.stop());
    const store = sandbox.kube.store;
    const nodeClass = sandbox.cluster.nodeClasses[0]!.name;
    const pools = store.list('nodepools.karpenter.sh').filter((p) => (p.spec as { template: { spec: { nodeClassRef: { name: string } } } }).template.spec.nodeClassRef.name === nodeClass);
    const poolNames = new Set(pools.map((p) => p.metadata.name));
    const original = new Set(store.list(NODECLAIMS).filter((c) => poolNames.has(poolOf(c))).map((c) => c.metadata.name));
    expect(original.size).toBeGreaterThan(1);

    const target = await pinToControlPlane(sandbox, nodeClass);
    const initializedAt = new Map<string, number>();
    const deletedAt = new Map<string, number>();
    const replacementOf = new Map<string, string>();
    let maxOverBudget = 0;
    let seconds = 0;
    for (; seconds < 4 * 3600; seconds++) {
      clock.advance(1000);
      sandbox.simulator.pass();
      const claims = store.list(NODECLAIMS);
      for (const c of claims) {
        if (isTrue(c, 'Initialized') && !initializedAt.has(c.metadata.name!)) initializedAt.set(c.metadata.name!, seconds);
        if (c.metadata.deletionTimestamp && !deletedAt.has(c.metadata.name!)) deletedAt.set(c.metadata.name!, seconds);
      }
      for (const command of sandbox.simulator.ctx.memory.commands.values()) {
        if (command.replacements[0]) replacementOf.set(command.candidate, command.replacements[0]);
      }
      for (const pool of pools) {
        const members = claims.filter((c) => poolOf(c) === pool.metadata.name);
        const initialized = members.filter((c) => isTrue(c, 'Initialized') && !isTrue(c, 'InstanceTerminating'));
        const disrupting = initialized.filter((c) => conditionOf(c, 'DisruptionReason') || c.metadata.deletionTimestamp).length;
        const budgets = (pool.spec as { disruption?: { budgets?: Budget[] } }).disruption?.budgets;
        const { limit } = allowedDisruptions(budgets, { numNodes: initialized.length, disrupting: 0 }, 'Drifted', clock.now());
        maxOverBudget = Math.max(maxOverBudget, disrupting - limit);
      }
      const left = claims.filter((c) => original.has(c.metadata.name));
      const done = left.length === 0 && claims.filter((c) => poolNames.has(poolOf(c))).every((c) => target.includes((c.status as { imageID?: string }).imageID ?? '') && isTrue(c, 'Initialized'));
      if (done) break;
    }
    expect(seconds).toBeLessThan(4 * 3600); // finished
    for (let i = 0; i < 60; i++) {
      clock.advance(1000); // the last evicted pods start
      sandbox.simulator.pass();
    }
    expect(maxOverBudget).toBeLessThanOrEqual(0);

    const events = sandbox.simulator.ctx.events.published;
    const launching = events.filter((e) => e.reason === 'DisruptionLaunching');
    const terminating = events.filter((e) => e.reason === 'DisruptionTerminating' && e.kind === 'NodeClaim');
    expect(terminating.map((e) => e.name).sort()).toEqual([...original].sort());
    // queue.go publishes DisruptionLaunching at every look at a waiting command, deduplicated for 2 minutes: a
    // replacement that takes longer gets it again.
    expect([...new Set(launching.map((e) => e.name))].sort()).toEqual([...replacementOf.values()].sort());
    // Each replacement was Initialized before the NodeClaim it replaced was deleted.
    expect(replacementOf.size).toBeGreaterThan(0);
    for (const [old, replacement] of replacementOf) {
      expect(initializedAt.get(replacement), `replacement ${replacement} of ${old}`).toBeLessThanOrEqual(deletedAt.get(old)!);
    }
    const order = events.filter((e) => ['DisruptionLaunching', 'DisruptionWaitingReadiness', 'DisruptionTerminating'].includes(e.reason)).map((e) => e.reason);
    expect(order[0]).toBe('DisruptionLaunching');
    expect(order.indexOf('DisruptionWaitingReadiness')).toBeLessThan(order.indexOf('DisruptionTerminating'));
    // Every pod of the moved workloads is Running again on a node with the new AMI.
    const newNodes = new Set(store.list(NODECLAIMS).map((c) => (c.status as { nodeName?: string }).nodeName));
    const pods = store.list('pods').filter((p) => !(p.metadata.ownerReferences ?? []).some((r) => r.kind === 'DaemonSet'));
    for (const pod of pods) {
      const nodeName = (pod.spec as { nodeName?: string }).nodeName;
      if (nodeName && !newNodes.has(nodeName)) continue; // pods on other classes' nodes
      expect((pod.status as { phase?: string }).phase, `${pod.metadata.name}`).toBe('Running');
    }
  });
});
