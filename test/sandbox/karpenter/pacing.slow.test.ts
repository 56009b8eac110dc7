// What a pacer (karp-drift's staged rollouts) relies on, checked with the simulator's own record of the drift
// commands it started (simulator.disruptions): a NodePool's budgets are read on every disruption pass, so a budget
// of "0" for Drifted stops the next command while those in flight finish, and a Node annotated
// karpenter.sh/do-not-disrupt: "true" is not picked on the next pass (DOMAIN.md §2.5–2.7). Time is stepped by hand.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { conditionOf } from '../../../src/sandbox/karpenter/objects.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { claimsOf, customObjects, imageOf, manualSandbox, pinToControlPlane, run } from './harness.js';

async function staged() {
  const sandbox = await manualSandbox('staged');
  onTestFinished(() => sandbox.stop());
  return sandbox;
}
type Staged = Awaited<ReturnType<typeof staged>>;

const started = (sandbox: Staged, nodePool: string) =>
  sandbox.simulator.disruptions.entries().filter((r) => r.nodePool === nodePool);

/** Runs one pass at a time until `done`, at most `seconds`; the simulated seconds it took. */
function runUntil(sandbox: Staged, done: () => boolean, seconds: number): number {
  for (let s = 0; s < seconds; s++) {
    if (done()) return s;
    run(sandbox, 1);
  }
  throw new Error(`not done after ${seconds} simulated seconds`);
}

async function setBudgets(sandbox: Staged, nodePool: string, budgets: unknown[]): Promise<void> {
  await customObjects(sandbox).patchClusterCustomObject(
    {
      group: 'karpenter.sh',
      version: 'v1',
      plural: 'nodepools',
      name: nodePool,
      body: { spec: { disruption: { budgets } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function annotateNode(sandbox: Staged, node: string, value: string | undefined): Promise<void> {
  const store = sandbox.kube.store;
  const live = store.get('nodes', node)!;
  const { 'karpenter.sh/do-not-disrupt': _old, ...others } = live.metadata.annotations ?? {};
  const annotations = value === undefined ? others : { ...others, 'karpenter.sh/do-not-disrupt': value };
  store.update('nodes', { ...live, metadata: { ...live.metadata, annotations } }, { manager: 'karp-drift' });
  await Promise.resolve();
}

describe('pacing a drift rollout from outside, as the simulator records it', () => {
  it('records every command of a plain rollout with its allowance and end, never more in flight than the budget', async () => {
    const sandbox = await staged();
    const target = new Set([
      ...(await pinToControlPlane(sandbox, 'default')),
      ...(await pinToControlPlane(sandbox, 'bottlerocket')),
    ]);
    const all = () => ['canary', 'general', 'batch'].flatMap((p) => claimsOf(sandbox, p));
    const seconds = runUntil(
      sandbox,
      () =>
        all().length === 33 &&
        all().every((c) => target.has(imageOf(c) ?? '') && !c.metadata.deletionTimestamp) &&
        sandbox.simulator.disruptions.inFlight().size === 0,
      90 * 60,
    );
    // Launch 60 s, registration 30–90 s, initialization 10 s: Karpenter refuses a candidate whose pods would land on a
    // replacement still initializing, so each pool mostly has one command in flight, far under its budget, and the 33
    // nodes take about 40 minutes, not the 7 their budgets would allow.
    expect(seconds).toBeGreaterThan(20 * 60);

    const log = sandbox.simulator.disruptions;
    const records = log.entries();
    expect(new Set(records.map((r) => r.nodeClaim)).size).toBe(33);
    for (const r of records) {
      expect(r.finished! > r.time).toBe(true);
      expect(r.failed).toBeUndefined();
      for (const replacement of r.replacements) expect(replacement).toMatch(new RegExp(`^${r.nodePool}-\\w{5}$`));
      expect(r.budgetAllowed).toBeGreaterThanOrEqual(1);
    }
    // The NodePools' own budgets: canary 100% of 3, general 50% of 24, batch 50% of 6, as the first command of each
    // saw them; never more in flight than that (general may reach 50% of 24 + 12, batch 50% of 6 + 3: a percentage is
    // of the initialized nodes, replacements included, counted again on every pass).
    expect(['canary', 'general', 'batch'].map((p) => started(sandbox, p)[0]!.budgetAllowed)).toEqual([3, 12, 3]);
    const most = log.maxInFlight();
    expect(most.get('canary')).toBeLessThanOrEqual(3);
    expect(most.get('batch')).toBeLessThanOrEqual(5);
    expect(most.get('general')).toBeLessThanOrEqual(18);
    expect(most.get('general')).toBeLessThan(12);
    const refused = sandbox.simulator.ctx.events.published.filter(
      (e) => e.reason === 'DisruptionBlocked' && / => would schedule against uninitialized nodeclaim\//.test(e.message),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(log.inFlight()).toEqual(new Map());
  });

  it('a node gone NotReady between two passes uses up budget at once: the counts are built on every pass', async () => {
    // Eight nodes of one pod each under a budget of 2, the same rollout twice: left alone, a second command starts a
    // second after the first (Karpenter requeues a second after a command); with a node gone NotReady in between,
    // none does (2 allowed − 1 in flight − 1 NotReady).
    async function rollout(notReady: boolean): Promise<number> {
      const sandbox = await manualSandbox(
        parseScenario(
          [
            'name: pacing',
            'controlPlaneVersion: "1.30"',
            'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
            'nodePools: [{ name: general, nodeClass: default, nodes: 8, arch: [amd64], budgets: [{ nodes: "2" }] }]',
            'workloads: [{ name: web, nodePool: general, replicas: 8 }]',
          ].join('\n'),
          'inline',
        ),
      );
      onTestFinished(() => sandbox.stop());
      await pinToControlPlane(sandbox, 'default');
      const log = sandbox.simulator.disruptions;
      runUntil(sandbox, () => log.entries().length === 1, 5 * 60);
      if (notReady) {
        // A node no command has picked goes NotReady (do-not-disrupt keeps it from being picked itself);
        // helpers.go counts it as disrupting on the very next pass.
        const picked = new Set(log.entries().map((r) => r.node));
        const store = sandbox.kube.store;
        const node = store.list('nodes').find((n) => !picked.has(n.metadata.name ?? ''))!;
        const status = node.status as { conditions: { type: string; status: string }[] };
        const held = store.update('nodes', {
          ...node,
          metadata: { ...node.metadata, annotations: { ...node.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' } },
        });
        store.update(
          'nodes',
          { ...held, status: { ...status, conditions: status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } },
          { subresource: 'status', manager: 'kubelet' },
        );
      }
      run(sandbox, 1);
      return log.entries().length;
    }
    expect(await rollout(false)).toBe(2);
    expect(await rollout(true)).toBe(1);
  });

  it('a Drifted budget of "0" stops new commands on the next pass; the commands in flight finish', async () => {
    const sandbox = await staged();
    await pinToControlPlane(sandbox, 'default');
    runUntil(sandbox, () => started(sandbox, 'general').length >= 2, 5 * 60);
    // Karpenter requeues at once after each command, so the next would start within a pass or two: 12 are allowed.
    const before = started(sandbox, 'general').length;
    expect(before).toBeLessThan(12);
    await setBudgets(sandbox, 'general', [{ nodes: '50%' }, { nodes: '0', reasons: ['Drifted'] }]);
    run(sandbox, 1);
    const held = started(sandbox, 'general').length;
    expect(held).toBe(before);
    run(sandbox, 15 * 60);
    expect(started(sandbox, 'general')).toHaveLength(held);
    const log = sandbox.simulator.disruptions;
    expect(log.inFlight().get('general')).toBeUndefined();
    expect(started(sandbox, 'general').every((r) => r.finished !== undefined)).toBe(true);
    const old = claimsOf(sandbox, 'general').filter((c) => conditionOf(c, 'Drifted')?.status === 'True');
    expect(old).toHaveLength(24 - held);
    const blocked = sandbox.simulator.ctx.events.published.filter(
      (e) => e.reason === 'DisruptionBlocked' && e.kind === 'NodePool',
    );
    expect(blocked.map((e) => `${e.name}: ${e.message}`)).toContain(
      'general: No allowed disruptions for disruption reason Drifted due to blocking budget',
    );

    // Lifting it lets the rest go.
    await setBudgets(sandbox, 'general', [{ nodes: '50%' }]);
    runUntil(sandbox, () => new Set(started(sandbox, 'general').map((r) => r.nodeClaim)).size === 24, 90 * 60);
  });

  it('a Node annotated karpenter.sh/do-not-disrupt: "true" is not picked on the next pass, and is once it is removed', async () => {
    const sandbox = await staged();
    await pinToControlPlane(sandbox, 'default');
    runUntil(sandbox, () => started(sandbox, 'general').length >= 1, 5 * 60);
    // Hold every old general node not yet in a command, as karp-drift's node hold does.
    const inCommand = new Set(started(sandbox, 'general').map((r) => r.node));
    const waiting = claimsOf(sandbox, 'general')
      .filter((c) => conditionOf(c, 'Drifted')?.status === 'True')
      .map((c) => (c.status as { nodeName: string }).nodeName)
      .filter((n) => !inCommand.has(n));
    for (const node of waiting) await annotateNode(sandbox, node, 'true');
    const before = started(sandbox, 'general').length;
    run(sandbox, 15 * 60);
    expect(started(sandbox, 'general')).toHaveLength(before);
    expect(started(sandbox, 'general').every((r) => r.finished !== undefined)).toBe(true);
    const blocked = sandbox.simulator.ctx.events.published.filter(
      (e) => e.reason === 'DisruptionBlocked' && e.kind === 'Node' && waiting.includes(e.name),
    );
    expect(blocked.map((e) => e.message)).toContain(
      'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
    );

    // Released one at a time: only the released node goes.
    const released = waiting[0]!;
    await annotateNode(sandbox, released, undefined);
    run(sandbox, 15);
    expect(
      started(sandbox, 'general')
        .slice(before)
        .map((r) => r.node),
    ).toEqual([released]);
  });
});
