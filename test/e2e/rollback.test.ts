// `karp-drift rollback` end to end: after an upgrade, the recorded selection comes back, the nodes drift back to the
// previous AMIs, and the bookkeeping goes with it; with nothing recorded it refuses with exit 2.
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const NODEPOOLS = 'nodepools.karpenter.sh';
const TEMPLATES = ['--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox'];
const annotations = (o: { metadata: { annotations?: Record<string, string> } } | undefined) => o?.metadata.annotations ?? {};

describe('karp-drift rollback', () => {
  it('restores the previous terms and follows the nodes back to them', async () => {
    const sandbox = await scenario('default');
    const store = sandbox.kube.store;
    const original = structuredClone((store.get(EC2NODECLASSES, 'default')!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms);
    const originalImages = new Set(store.list('nodeclaims.karpenter.sh').map((c) => (c.status as { imageID: string }).imageID));
    const up = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '20s']);
    expect(up.code, up.stderr).toBe(0);

    const back = await karpDrift(sandbox, ['rollback', '--yes', '-o', 'json', '--stall-timeout', '20s']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/rolling back drifts the \d+ nodes of nodepool\/.* that run the AMIs pinned now back to the previous AMIs: they were replaced once already and are replaced again/);
    const nc = store.get(EC2NODECLASSES, 'default')!;
    expect((nc.spec as { amiSelectorTerms: unknown }).amiSelectorTerms).toEqual(original);
    expect(nc.metadata.annotations?.['karp-drift.io/previous-ami-selector-terms']).toBeUndefined();
    for (const claim of store.list('nodeclaims.karpenter.sh')) expect(originalImages.has((claim.status as { imageID: string }).imageID)).toBe(true);
    // It says what was rolled back, not "Rollout complete … on the target AMIs" as an upgrade does.
    expect(back.events.at(-1)).toMatchObject({
      type: 'done',
      result: 'succeeded',
      message: expect.stringMatching(/^Rollback complete: 3 NodePools, \d+ nodes back on the previous AMIs with kubelet 1\.29$/) as unknown,
    });
    // One `plan` event, shaped as upgrade's: the whole document under `plan`.
    const plans = back.events.filter((e) => e.type === 'plan');
    const upPlan = up.events.find((e) => e.type === 'plan')!.plan as Record<string, unknown>;
    expect(plans).toHaveLength(1);
    const doc = plans[0]!.plan as Record<string, unknown> & { nodeClasses: Array<Record<string, unknown>> };
    for (const key of Object.keys(doc)) expect(Object.keys(upPlan)).toContain(key);
    expect(doc).toMatchObject({ cluster: upPlan.cluster, checks: [], blocked: false });
    expect(doc.nodeClasses.map((c) => c.name).sort()).toEqual(['bottlerocket', 'default']);
    expect(doc.nodeClasses.find((c) => c.name === 'default')).toMatchObject({ after: { amiSelectorTerms: original }, changed: true });

    // Nothing recorded any more: exit 2, no write.
    const writes = httpWrites(sandbox);
    const again = await karpDrift(sandbox, ['rollback', '--yes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('nothing to roll back');
    expect(httpWrites(sandbox)).toBe(writes);
  });

  it('undoes an upgrade --templates: the replaced selection restored with the templates\' other fields kept, the NodePool it created deleted', async () => {
    const sandbox = await scenario('default');
    const store = sandbox.kube.store;
    const before = structuredClone(store.get(EC2NODECLASSES, 'default')!.spec as Record<string, unknown>);
    const up = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--allow-create', ...TEMPLATES, '--stall-timeout', '20s']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain('  + nodepool/default (created): a new NodePool beside nodepool/arm and nodepool/general; Karpenter may launch nodes from it for any pending pod it fits, and it sets no limits (spec.limits). karp-drift rollback deletes it again.');
    // The last line names the NodePools whose nodes were replaced, not the one rendered.
    expect(up.stdout.trim().split('\n').at(-1)).toMatch(
      /^Rollout complete in \S+: nodepool\/arm and nodepool\/general run Kubernetes 1\.30 AMIs \(arm: 3 nodes replaced; general: 6 nodes replaced\)\. nodepool\/default \(created\) has no nodes\.$/,
    );
    const recorded = annotations(store.get(EC2NODECLASSES, 'default'));
    expect(JSON.parse(recorded['karp-drift.io/previous-ami-selector-terms']!)).toEqual(before.amiSelectorTerms);
    expect(recorded['karp-drift.io/previous-ami-family']).toBe('AL2023');
    expect(annotations(store.get(NODEPOOLS, 'default'))['karp-drift.io/created-by-run']).toBe(recorded['karp-drift.io/run-id']);

    // The same templates again change no AMI selection: the records of the run that did stay.
    const again = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', ...TEMPLATES, '--no-wait']);
    expect(again.code, again.stderr).toBe(0);
    expect(annotations(store.get(EC2NODECLASSES, 'default'))).toMatchObject(recorded);

    const back = await karpDrift(sandbox, ['rollback', '--yes', '--stall-timeout', '20s']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('- nodepool/default (created by karp-drift upgrade --templates): deleted; it has no nodes');
    expect(back.stdout.trim().split('\n').at(-1)).toBe(
      'Rollback complete: nodepool/arm, nodepool/general back on the previous AMIs (Kubernetes 1.29); deleted nodepool/default.',
    );
    expect(store.get(NODEPOOLS, 'default')).toBeUndefined();
    const after = store.get(EC2NODECLASSES, 'default')!;
    // The selection as it was; what else the templates set (a description) stays, karp-drift's records go.
    expect(after.spec).toEqual(before);
    expect(annotations(after)['kubernetes.io/description']).toBe('EC2NodeClass whose AMIs karp-drift pins');
    expect(Object.keys(annotations(after)).filter((k) => k.startsWith('karp-drift.io/'))).toEqual([]);
    expect((await karpDrift(sandbox, ['rollback', '--yes'])).code).toBe(2);
  });

  it('deletes an EC2NodeClass and NodePool the templates created, and nothing a later upgrade did not create', async () => {
    const sandbox = await scenario('default');
    const store = sandbox.kube.store;
    const created = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--allow-create', ...TEMPLATES, '--name', 'fresh', '--no-wait']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Plan: create ec2nodeclass/fresh and nodepool/fresh (server-side apply, field manager karp-drift):');
    const back = await karpDrift(sandbox, ['rollback', '--yes', '-o', 'json']);
    expect(back.code, back.stderr).toBe(0);
    const plan = back.events.find((e) => e.type === 'plan')!.plan as { deletes: unknown };
    expect(plan.deletes).toEqual([
      { kind: 'NodePool', name: 'fresh', nodes: 0 },
      { kind: 'EC2NodeClass', name: 'fresh', nodes: 0 },
    ]);
    expect(back.events.filter((e) => e.type === 'deleted').map((e) => [e.kind, e.name])).toEqual([
      ['NodePool', 'fresh'],
      ['EC2NodeClass', 'fresh'],
    ]);
    expect(store.get(NODEPOOLS, 'fresh')).toBeUndefined();

    // A NodePool the templates created, then a pin-path upgrade of its class: rolling that back restores the class
    // and leaves the NodePool, which the upgrade rolled back did not create.
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--allow-create', ...TEMPLATES, '--no-wait'])).code).toBe(0);
    const templated = structuredClone((store.get(EC2NODECLASSES, 'default')!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms);
    const pinned = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--nodeclass', 'default', '--pin', 'alias', '--yes', '--no-wait']);
    expect(pinned.code, pinned.stderr).toBe(0);
    // The pin kept what the templates applied beside the AMI selection.
    expect(annotations(store.get(EC2NODECLASSES, 'default'))['kubernetes.io/description']).toBe('EC2NodeClass whose AMIs karp-drift pins');
    const undo = await karpDrift(sandbox, ['rollback', '--yes', '--no-wait']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).not.toContain('nodepool/default (created');
    expect(store.get(NODEPOOLS, 'default')).toBeDefined();
    expect((store.get(EC2NODECLASSES, 'default')!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms).toEqual(templated);
  });
});
