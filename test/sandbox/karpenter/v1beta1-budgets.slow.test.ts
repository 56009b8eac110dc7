// Disruption budgets as a v1beta1 release has them (src/sandbox/scenarios/versions.ts BudgetSupport): v0.34–v0.37
// budgets have no reasons, so the one allowance holds every method; v0.32–v0.33 have no budgets, and one drift
// command at a time runs in the whole cluster. Through the API, as a client writes them; time stepped by hand.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Budget } from '../../../src/karpenter/budgets.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { claimsOf, controlPlaneAmis, customObjects, imageOf, run } from './harness.js';

async function v1beta1(karpenterVersion: string, controlPlaneVersion: string, nodes: string) {
  const scenario = parseScenario(
    [
      'name: old-karpenter',
      `controlPlaneVersion: "${controlPlaneVersion}"`,
      `karpenterVersion: "${karpenterVersion}"`,
      `nodeClasses: [{ name: default, family: al2, ${nodes} }]`,
      'nodePools:',
      '  - { name: general, nodeClass: default, nodes: 4, arch: [amd64] }',
      '  - { name: batch, nodeClass: default, nodes: 3, arch: [amd64] }',
      'workloads:',
      '  - { name: web, nodePool: general, replicas: 8, pdb: { maxUnavailable: 1 } }',
      '  - { name: jobs, nodePool: batch, replicas: 6 }',
    ].join('\n'),
    'inline',
  );
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const sandbox = Object.assign(await startSandbox({ scenario, manualClock: clock }), { clock });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}
type Old = Awaited<ReturnType<typeof v1beta1>>;

async function patchV1beta1(sandbox: Old, group: string, plural: string, name: string, spec: object): Promise<object> {
  return customObjects(sandbox).patchClusterCustomObject(
    { group, version: 'v1beta1', plural, name, body: { spec } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  ) as Promise<object>;
}

const pin = (sandbox: Old) =>
  patchV1beta1(sandbox, 'karpenter.k8s.aws', 'ec2nodeclasses', 'default', {
    amiSelectorTerms: controlPlaneAmis(sandbox, 'default').map((id) => ({ id })),
  });

const poolEvents = (sandbox: Old) =>
  sandbox.kube.store
    .list('events')
    .filter((e) => (e as { involvedObject?: { kind?: string } }).involvedObject?.kind === 'NodePool')
    .map((e) => `${(e as { reason?: string }).reason}: ${(e as { message?: string }).message}`);

describe('budgets on Karpenter v1beta1', () => {
  it('v0.36: a Drifted hold written with reasons is stored without them, and holds the NodePool', async () => {
    const sandbox = await v1beta1('0.36.2', '1.29', 'kubernetesVersion: "1.28"');
    const written = await patchV1beta1(sandbox, 'karpenter.sh', 'nodepools', 'general', {
      disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] },
    });
    const kept: Budget[] = [{ nodes: '10%' }, { nodes: '0' }];
    expect((written as { spec: { disruption: { budgets: Budget[] } } }).spec.disruption.budgets).toEqual(kept);
    await pin(sandbox);
    run(sandbox, 15 * 60);
    const log = sandbox.simulator.disruptions.entries();
    expect(log.filter((r) => r.nodePool === 'general')).toEqual([]);
    const target = controlPlaneAmis(sandbox, 'default');
    expect(claimsOf(sandbox, 'batch').every((c) => target.includes(imageOf(c)!))).toBe(true);
    // v1beta1's events.go NodePoolBlocked names no reason.
    expect(new Set(poolEvents(sandbox))).toEqual(
      new Set(['DisruptionBlocked: No allowed disruptions due to blocking budget']),
    );
  });

  it('v0.33: no budgets; one drift command at a time in the whole cluster, no NodePool budget-blocked', async () => {
    const sandbox = await v1beta1('0.33.5', '1.28', 'kubernetesVersion: "1.28", release: v20251107');
    const pool = sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!;
    expect((pool.spec as { disruption: object }).disruption).not.toHaveProperty('budgets');
    await pin(sandbox);
    const target = new Set(controlPlaneAmis(sandbox, 'default'));
    const all = () => [...claimsOf(sandbox, 'general'), ...claimsOf(sandbox, 'batch')];
    // A command is in Karpenter's orchestration queue from the taint until it deletes the old NodeClaim (once the
    // replacement initialized); controller.go starts no command while the queue holds one, whichever NodePool.
    const queued = () => {
      const deleting = new Set(
        all()
          .filter((c) => c.metadata.deletionTimestamp)
          .map((c) => (c.status as { nodeName?: string }).nodeName),
      );
      return sandbox.kube.store
        .list('nodes')
        .filter((n) => !deleting.has(n.metadata.name) && JSON.stringify(n.spec).includes('karpenter.sh/disruption'));
    };
    let most = 0;
    let seconds = 0;
    while (!(all().length === 7 && all().every((c) => target.has(imageOf(c) ?? '')))) {
      if (++seconds > 60 * 60) throw new Error('not done in an hour');
      run(sandbox, 1);
      most = Math.max(most, queued().length);
    }
    expect(most).toBe(1);
    const records = sandbox.simulator.disruptions.entries();
    expect(records).toHaveLength(7);
    expect(new Set(records.map((r) => r.nodePool))).toEqual(new Set(['general', 'batch']));
    expect(poolEvents(sandbox).filter((e) => e.startsWith('DisruptionBlocked'))).toEqual([]);
  });
});
