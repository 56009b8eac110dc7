// Each built-in scenario's defining behaviour, end to end: the AMIs are changed through the API, the simulated
// Karpenter runs for simulated minutes, and what Karpenter would show is read back (with kubectl where installed).
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { conditionOf, isTrue } from '../../../src/sandbox/karpenter/objects.js';
import { NODECLAIMS, claimsOf, customObjects, imageOf, kubectl, manualSandbox, pinToControlPlane, run } from './harness.js';

async function started(name: string) {
  const sandbox = await manualSandbox(name);
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

const events = (sandbox: Awaited<ReturnType<typeof started>>, reason: string) =>
  sandbox.simulator.ctx.events.published.filter((e) => e.reason === reason);

describe('built-in scenarios', () => {
  it('pdb-blocked: the node under a PDB with disruptionsAllowed 0 stays on the old AMI, reported as DisruptionBlocked', async () => {
    const sandbox = await started('pdb-blocked');
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 30 * 60);
    const store = sandbox.kube.store;
    const ledger = store.list('pods', 'payments')[0]!;
    const pinnedNode = (ledger.spec as { nodeName: string }).nodeName;
    const claims = claimsOf(sandbox, 'general');
    const old = claims.filter((c) => !target.includes(imageOf(c) ?? ''));
    expect(old.map((c) => (c.status as { nodeName?: string }).nodeName)).toEqual([pinnedNode]);
    expect(conditionOf(old[0]!, 'Drifted')).toMatchObject({ status: 'True', reason: 'AMIDrift' });
    expect(claims.filter((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toHaveLength(3);
    const blocked = events(sandbox, 'DisruptionBlocked').filter((e) => e.name === pinnedNode);
    expect(blocked[0]?.message).toBe('pdb "payments/ledger" prevents pod evictions');
    const out = await kubectl(sandbox, ['get', 'events', '-n', 'default', '--field-selector', `reason=DisruptionBlocked,involvedObject.name=${pinnedNode}`, '-o', 'jsonpath={.items[*].message}']);
    if (out !== undefined) expect(out).toContain('pdb "payments/ledger" prevents pod evictions');
  });

  it('budget-blocked: a Drifted budget of 0 leaves the pool drifted and says so on the NodePool', async () => {
    const sandbox = await started('budget-blocked');
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 30 * 60);
    const frozen = claimsOf(sandbox, 'frozen');
    expect(frozen).toHaveLength(3);
    expect(frozen.every((c) => !target.includes(imageOf(c) ?? '') && conditionOf(c, 'Drifted')?.reason === 'AMIDrift')).toBe(true);
    expect(claimsOf(sandbox, 'general').every((c) => target.includes(imageOf(c) ?? ''))).toBe(true);
    const poolEvents = events(sandbox, 'DisruptionBlocked').filter((e) => e.kind === 'NodePool');
    expect(new Set(poolEvents.map((e) => `${e.name}: ${e.message}`))).toEqual(
      new Set(['frozen: No allowed disruptions for disruption reason Drifted due to blocking budget']),
    );
    const out = await kubectl(sandbox, ['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=NodePool', '-o', 'jsonpath={.items[*].message}']);
    if (out !== undefined) expect(out).toContain('No allowed disruptions for disruption reason Drifted due to blocking budget');
  });

  it('do-not-disrupt: annotated pods and nodes keep their nodes, and Karpenter publishes no event for it', async () => {
    const sandbox = await started('do-not-disrupt');
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 30 * 60);
    const batch = claimsOf(sandbox, 'batch');
    expect(batch.every((c) => !target.includes(imageOf(c) ?? '') && conditionOf(c, 'Drifted')?.status === 'True')).toBe(true);
    const general = claimsOf(sandbox, 'general');
    const oldGeneral = general.filter((c) => !target.includes(imageOf(c) ?? ''));
    expect(oldGeneral).toHaveLength(1);
    const node = sandbox.kube.store.get('nodes', (oldGeneral[0]!.status as { nodeName: string }).nodeName)!;
    expect(node.metadata.annotations?.['karpenter.sh/do-not-disrupt']).toBe('true');
    // Transient PDB blocks happen while web pods move; do-not-disrupt itself is never an event.
    expect(events(sandbox, 'DisruptionBlocked').filter((e) => e.message.includes('do-not-disrupt'))).toEqual([]);
    expect(batch.flatMap((c) => events(sandbox, 'DisruptionBlocked').filter((e) => e.name === c.metadata.name))).toEqual([]);
    expect(events(sandbox, 'DisruptionLaunching')).toHaveLength(3);
  });

  it('launch-failure: two InsufficientCapacityError launches fail the command, then the rollout completes', async () => {
    const sandbox = await started('launch-failure');
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 45 * 60);
    const failures = events(sandbox, 'InsufficientCapacityError');
    expect(failures).toHaveLength(2);
    expect(failures[0]!.message).toMatch(/^NodeClaim general-\w{5} event: creating instance, insufficient capacity/);
    const claims = claimsOf(sandbox, 'general');
    expect(claims).toHaveLength(4);
    expect(claims.every((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(true);
    // Each failed replacement was retried: more launches than nodes.
    expect(events(sandbox, 'DisruptionLaunching')).toHaveLength(6);
  });

  it('ami-not-found: the changed class goes AMIsReady=False/AMINotFound and nothing drifts', async () => {
    const sandbox = await started('ami-not-found');
    await pinToControlPlane(sandbox, 'default');
    run(sandbox, 10 * 60);
    const nodeClass = sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!;
    expect(conditionOf(nodeClass, 'AMIsReady')).toMatchObject({ status: 'False', reason: 'AMINotFound', observedGeneration: nodeClass.metadata.generation });
    expect((nodeClass.status as { amis?: unknown[] }).amis).toBeUndefined();
    expect(sandbox.kube.store.list(NODECLAIMS).some((c) => conditionOf(c, 'Drifted'))).toBe(false);
    expect(events(sandbox, 'DisruptionLaunching')).toEqual([]);
    const out = await kubectl(sandbox, ['get', 'ec2nodeclass', 'default', '-o', 'jsonpath={.status.conditions[?(@.type=="AMIsReady")].reason}']);
    if (out !== undefined) expect(out).toBe('AMINotFound');
  });

  it('flaky-api: clients see 500s while the in-cluster Karpenter still completes the rollout', async () => {
    const sandbox = await started('flaky-api');
    const api = customObjects(sandbox);
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      await api.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' }).catch((err: { code?: number }) => {
        expect(err.code).toBe(500);
        failed += 1;
      });
    }
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(20);
    let target: string[] = [];
    for (let attempt = 0; target.length === 0 && attempt < 10; attempt++) target = await pinToControlPlane(sandbox, 'default').catch(() => []);
    run(sandbox, 45 * 60);
    expect(['general', 'arm'].flatMap((p) => claimsOf(sandbox, p)).every((c) => target.includes(imageOf(c) ?? ''))).toBe(true);
  });

  it('gitops-owned: changing amiSelectorTerms by server-side apply conflicts with argocd-controller', async () => {
    const sandbox = await started('gitops-owned');
    const body = { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default' }, spec: { amiSelectorTerms: [{ alias: 'al2023@latest' }] } };
    const err = await customObjects(sandbox)
      .patchClusterCustomObject(
        { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses', name: 'default', body, fieldManager: 'karp-drift' },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )
      .then(() => undefined, (e: { code?: number; body?: string }) => e);
    expect(err?.code).toBe(409);
    expect(String(err?.body)).toContain('conflict with \\"argocd-controller\\"');
  });
});
