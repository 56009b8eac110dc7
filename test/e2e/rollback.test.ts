// `karp-drift rollback` end to end: after an upgrade, the recorded selection comes back, the nodes drift back to the
// previous AMIs, and the bookkeeping goes with it; with nothing recorded it refuses with exit 2.
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

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
    expect(back.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
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
});
