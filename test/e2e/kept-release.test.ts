// A staged rollout under way keeps the AMIs it started with (plan/kept-releases.ts), as the CronJob meets it: the built
// CLI against the sandbox, `upgrade --to 1.30 --min-age 7d --canary canary`. The newest AL2023 1.30 release was
// registered here three days ago, so the first run pins the one before it (X) and is cut off mid-rollout (SIGTERM, as
// a window's end or a pod's eviction would), leaving it held. Then the newest comes of age (re-dated ten days back):
// the re-run keeps X (the plan has nothing to change on the class, the log says what the policy would pin now and how
// to take it), and finishes; once the holds are released, the next run takes the newest.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { seriesReleases } from '../../src/sandbox/aws/lookup.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { karpDrift } from './cli-sandbox.js';
import { follow } from './staged.js';

const DAY_MS = 86_400_000;
const NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const UPGRADE = ['upgrade', '--to', '1.30', '--min-age', '7d', '--canary', 'canary', '--waves', '1,100%', '--yes', '-o', 'json'];
const PLAN = ['plan', '--to', '1.30', '--min-age', '7d', '--canary', 'canary', '--waves', '1,100%', '-o', 'json'];

/** One AL2023 class on 1.29, amd64 only: canary (2 nodes, with pods) and general (4), both held with budgets. */
async function cluster(): Promise<Sandbox> {
  const base = loadScenario('staged');
  const [canary, general] = base.nodePools;
  const sandbox = await startSandbox({
    scenario: {
      ...base,
      nodeClasses: [base.nodeClasses[0]!],
      nodePools: [
        { ...canary!, nodes: 2, fieldManager: 'kubectl' as const },
        { ...general!, nodes: 4, arch: ['amd64'], fieldManager: 'kubectl' as const },
      ],
      // The canary must run pods to prove anything (CANARY-EMPTY otherwise).
      workloads: base.workloads.filter((w) => w.nodePool === 'canary'),
    },
    speed: 300,
  });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** Dates the newest AL2023 1.30 release's image (amd64) `daysAgo` days back: what --min-age 7d judges it by. */
function registerNewest(sandbox: Sandbox, daysAgo: number) {
  const { catalog } = sandbox.aws;
  const releases = seriesReleases(catalog, { family: 'al2023', arch: 'amd64', variant: 'standard', kubernetesVersion: '1.30' });
  const newest = releases.at(-1)!;
  catalog.images.set(newest.imageId, { ...catalog.images.get(newest.imageId)!, creationDate: new Date(Date.now() - daysAgo * DAY_MS).toISOString() });
  return { newest, before: releases.at(-2)! };
}

const termsOf = (sandbox: Sandbox) =>
  (sandbox.kube.store.get(NODECLASSES, 'default')!.spec as { amiSelectorTerms: Array<{ id?: string }> }).amiSelectorTerms;
const holds = (sandbox: Sandbox) =>
  sandbox.kube.store.list('nodepools.karpenter.sh').filter((p) => p.metadata.annotations?.[HOLD_ANNOTATION] !== undefined);

interface PlanDoc {
  source: { policy?: { families: Array<{ family: string; release: string }> }; kept?: unknown };
  nodeClasses: Array<{ name: string; changed: boolean; targets: Array<{ release: string; id: string }> }>;
}

describe('a staged rollout under way keeps the AMIs it started with', () => {
  it('the re-run after a newer release came of age keeps them; the run after the rollout takes the newer one', async () => {
    const sandbox = await cluster();
    const { newest, before: x } = registerNewest(sandbox, 3);

    // The first run pins X (the newest is too young) and is cut off once a replacement has started.
    const first = follow(sandbox, UPGRADE);
    for (let waited = 0; sandbox.simulator.disruptions.entries().length === 0; waited += 50) {
      if (waited > 30_000 || first.child.exitCode != null) throw new Error(`no replacement started; stderr:\n${first.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGTERM');
    expect(await first.exited, first.stderr()).toBe(ExitCode.Interrupted);
    expect(termsOf(sandbox)).toEqual([{ id: x.imageId }]);
    expect(holds(sandbox).length).toBeGreaterThan(0);

    // The newest comes of age: the policy alone would now pin it.
    registerNewest(sandbox, 10);
    const plan = await karpDrift(sandbox, PLAN);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as PlanDoc;
    expect(doc.source.kept).toEqual([{ family: 'al2023', release: x.release, nodeClasses: ['default'], newer: newest.release }]);
    expect(doc.source.policy?.families).toEqual([]);
    expect(doc.nodeClasses.map((c) => [c.name, c.changed, c.targets.map((t) => t.id)])).toEqual([['default', false, [x.imageId]]]);
    const said = `The staged rollout to 1.30 under way keeps its AMIs: al2023 ${x.release} (ec2nodeclass/default); --release latest --min-age 7d now chooses ${newest.release}, which the next upgrade after this rollout takes (to move this rollout to it now, name it: --release ${newest.release})`;
    expect(plan.stderr).toContain(said);

    // The re-run goes on where the cluster stands, on X, to the end.
    const applies = () => sandbox.kube.requests.filter((r) => r.verb === 'patch' && r.resource === 'ec2nodeclasses').length;
    const appliedBefore = applies();
    const rerun = await karpDrift(sandbox, UPGRADE, 120_000);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(said);
    const resolved = rerun.events.find((e) => e.type === 'resolved') as unknown as { source: PlanDoc['source']; amis: Array<{ id: string }> };
    expect(resolved.source.kept).toEqual(doc.source.kept);
    expect(resolved.amis.map((a) => a.id)).toEqual([x.imageId]);
    expect(rerun.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(applies()).toBe(appliedBefore);
    expect(termsOf(sandbox)).toEqual([{ id: x.imageId }]);
    expect(holds(sandbox)).toEqual([]);

    // The rollout is done: the next one takes the newer release.
    const next = await karpDrift(sandbox, PLAN);
    expect(next.code, next.stderr).toBe(0);
    const nextDoc = JSON.parse(next.stdout) as PlanDoc;
    expect(nextDoc.source.kept).toBeUndefined();
    expect(nextDoc.nodeClasses.map((c) => [c.name, c.changed, c.targets.map((t) => t.id)])).toEqual([['default', true, [newest.imageId]]]);
    expect(next.stderr).not.toContain('keeps its AMIs');
  }, 120_000);
});
