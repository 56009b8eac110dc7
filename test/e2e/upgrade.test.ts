// `karp-drift upgrade` end to end: the built CLI against sandboxes of the built-in scenarios, each ending with the
// verdict and exit code a user would get on a real cluster in that state.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { parseScenario } from '../../src/sandbox/scenarios/schema.js';
import { conditionOf } from '../../src/sandbox/karpenter/objects.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

describe('karp-drift upgrade against the sandbox', () => {
  it('default: pins every class by id, replaces every node, and ends with done/succeeded and exit 0', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const types = run.events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['resolved', 'plan']);
    expect(types.filter((t) => t === 'applied')).toHaveLength(2);
    expect(types.filter((t) => t === 'nodeclass-ready')).toHaveLength(2);
    expect(types).toContain('progress');
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    const store = sandbox.kube.store;
    for (const node of store.list('nodes')) {
      expect((node.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion).toMatch(/^v1\.30\./);
    }
    for (const nc of store.list(EC2NODECLASSES)) {
      const spec = nc.spec as { amiFamily?: string; amiSelectorTerms: Array<{ id?: string }> };
      expect(spec.amiFamily).toMatch(/^(AL2023|Bottlerocket)$/);
      expect(spec.amiSelectorTerms.every((t) => t.id?.startsWith('ami-'))).toBe(true);
      expect(nc.metadata.annotations?.['karp-drift.io/target']).toBe('1.30');
    }
    expect(store.list(NODECLAIMS)).toHaveLength(12);

    // Re-running applies nothing and finds the rollout done.
    const again = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.events.filter((e) => e.type === 'applied')).toEqual([]);
  });

  it('plan changes nothing, and upgrade without a terminal and without --yes refuses with exit 2', async () => {
    const sandbox = await scenario('default');
    const before = sandbox.kube.store.list(EC2NODECLASSES).map((n) => n.metadata.resourceVersion);
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30', '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as { nodeClasses: Array<{ name: string; changed: boolean }>; nodePools: Array<{ toDrift: number }> };
    expect(doc.nodeClasses.map((c) => [c.name, c.changed])).toEqual([
      ['bottlerocket', true],
      ['default', true],
    ]);
    expect(doc.nodePools.reduce((n, p) => n + p.toDrift, 0)).toBe(12);
    const refused = await karpDrift(sandbox, ['upgrade', '--to', '1.30']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(httpWrites(sandbox)).toBe(0);
    expect(sandbox.kube.store.list(EC2NODECLASSES).map((n) => n.metadata.resourceVersion)).toEqual(before);
  });

  it('gitops-owned: refused with exit 3 naming Argo CD, nothing changed', async () => {
    const sandbox = await scenario('gitops-owned');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('FIELD-OWNER-GITOPS');
    expect(run.stdout).toContain('argocd-controller');
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('ami-not-found: stops with exit 1 quoting AMINotFound', async () => {
    const sandbox = await scenario('ami-not-found');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/ec2nodeclass\/default: Karpenter could not resolve the new AMIs: AMIsReady=False, reason AMINotFound/);
    // Loud about what it means now, and about the way back.
    expect(run.stderr).toContain('EC2NodeClass "default" now launches no node at all (Ready=False)');
    expect(run.stderr).toContain('to go back now: karp-drift rollback --nodeclass default');
    const nc = sandbox.kube.store.get(EC2NODECLASSES, 'default')!;
    expect(conditionOf(nc, 'AMIsReady')?.reason).toBe('AMINotFound');
  });

  it('launch-failure: recovers from InsufficientCapacityError and succeeds', async () => {
    const sandbox = await scenario('launch-failure');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '20s']);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.simulator.ctx.events.published.filter((e) => e.reason === 'InsufficientCapacityError')).toHaveLength(2);
    // Gated by default: neither refused launch, nor the drift command given up for it, is a failure; both are noted.
    const gates = run.events.filter((e) => e.type === 'gate');
    expect(gates.filter((g) => g.result !== 'passed')).toEqual([]);
    expect(gates.flatMap((g) => (g.notes ?? []) as Array<{ code: string }>).map((n) => n.code)).toEqual([
      'CAPACITY-REFUSED',
      'CAPACITY-REFUSED',
    ]);
  });

  it('a v1beta1 install (Karpenter 0.37): pins by id through karpenter.k8s.aws/v1beta1 and follows the rollout to the end', async () => {
    const sandbox = await startSandbox({ scenario: { ...loadScenario('default'), karpenterVersion: '0.37.8' }, speed: 300 });
    onTestFinished(() => sandbox.stop());
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // The staged run validates each apply with dryRun=All before its first hold: those change nothing.
    const patches = sandbox.kube.requests.filter((r) => r.verb === 'patch' && r.query.dryRun !== 'All');
    expect(patches.filter((r) => !r.path.startsWith('/api/v1/nodes/')).map((r) => r.path)).toEqual([
      '/apis/karpenter.k8s.aws/v1beta1/ec2nodeclasses/bottlerocket',
      '/apis/karpenter.k8s.aws/v1beta1/ec2nodeclasses/default',
    ]);
    // v1beta1 budgets have no reasons, so the default rollout's first wave holds the other old nodes with
    // do-not-disrupt (never a NodePool budget), and lets them go once each target AMI runs on a node.
    const nodePatches = patches.filter((r) => r.path.startsWith('/api/v1/nodes/'));
    expect(nodePatches.length).toBe(2 * new Set(nodePatches.map((r) => r.path)).size);
    for (const node of sandbox.kube.store.list('nodes')) expect(node.metadata.annotations?.['karpenter.sh/do-not-disrupt']).toBeUndefined();
    for (const node of sandbox.kube.store.list('nodes')) {
      expect((node.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion).toMatch(/^v1\.30\./);
    }
    // The follow saw old nodes being disrupted, not only the end state.
    const disrupting = run.events.filter((e) => e.type === 'progress').flatMap((e) => e.nodePools as Array<{ disrupting: number }>);
    expect(disrupting.some((p) => p.disrupting > 0)).toBe(true);
  });

  it('Karpenter 0.36, whose EC2NodeClass has no conditions: status.amis says the pin was taken, and the rollout ends', async () => {
    const yaml = [
      'name: v036',
      'controlPlaneVersion: "1.29"',
      'karpenterVersion: "0.36.2"',
      'nodeClasses: [{ name: default, family: al2, kubernetesVersion: "1.28" }]',
      'nodePools: [{ name: general, nodeClass: default, nodes: 3, arch: [amd64] }]',
      'workloads: [{ name: web, nodePool: general, replicas: 6 }]',
    ].join('\n');
    const sandbox = await startSandbox({ scenario: parseScenario(yaml, 'inline'), speed: 300 });
    onTestFinished(() => sandbox.stop());
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.29', '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/ec2nodeclass\/default: status\.amis has ami-\S+ \(generation 2; this Karpenter sets no AMIsReady\)/);
    expect(run.stderr).not.toMatch(/STALL-NOT-DRIFTING|has not observed/);
    const status = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect(JSON.parse(status.stdout).nodePools).toMatchObject([{ name: 'general', nodes: 3, upToDate: 3 }]);
  });

  it('flaky-api: 500s and dropped watches still reach the same verdict as default', async () => {
    const sandbox = await scenario('flaky-api');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(sandbox.kube.requests.some((r) => r.code === 500)).toBe(true);
  });
});

describe('karp-drift upgrade --templates', () => {
  it('renders the bundled templates with the pinned AMIs, applies both objects whole, and follows every NodePool of the class', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--allow-create', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.map((e) => e.type).slice(0, 3)).toEqual(['resolved', 'rendered', 'applied']);
    expect(run.events[1]!.creates).toEqual(['nodepool/default']);
    // The live class already has this role and these selectors: the template changes its AMI selection (and adds a
    // description annotation), nothing Karpenter hashes; the NodePool "default" is new.
    const rendered = run.events[1] as unknown as { diff: { nodeClass: { changes: Array<{ path: string; class: string }> }; nodePool: { created: boolean } }; checks: Array<{ code: string; level: string }> };
    expect(rendered.diff.nodeClass.changes.map((c) => [c.path, c.class])).toEqual([
      ['metadata.annotations["kubernetes.io/description"]', 'behavioural'],
      ['spec.amiSelectorTerms', 'ami-selection'],
    ]);
    expect(rendered.diff.nodePool.created).toBe(true);
    expect(rendered.checks.map((c) => [c.code, c.level])).toEqual([['TEMPLATE-CHANGES', 'info']]);
    const store = sandbox.kube.store;
    const pool = store.get('nodepools.karpenter.sh', 'default')!;
    // karp-drift owns the spec it applied; Karpenter writes the static-drift hash annotations and the status
    // subresource (counts and readiness).
    expect(pool.metadata.managedFields?.map((m) => `${m.manager}/${m.subresource ?? ''}`).sort()).toEqual([
      'karp-drift/',
      'karpenter/',
      'karpenter/status',
    ]);
    const nc = store.get(EC2NODECLASSES, 'default')!;
    expect((nc.spec as { amiFamily: string }).amiFamily).toBe('AL2023');
    for (const claim of ['general', 'arm'].flatMap((p) => store.list(NODECLAIMS).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === p))) {
      expect(sandbox.aws.catalog.images.get((claim.status as { imageID: string }).imageID)?.name).toMatch(/-1\.30-v\d{8}$/);
    }
  });

  const hashedFields = new URL('../fixtures/templates/hashed-fields/', import.meta.url).pathname;
  const withHashedFields = ['upgrade', '--to', '1.30', '--yes', '--no-wait', '--templates', hashedFields, '--name', 'default', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-other'];

  it('refuses a template whose role, tags, userData... differ from the live class (TEMPLATE-DRIFT, exit 3, nothing changed)', async () => {
    const sandbox = await scenario('default');
    const before = structuredClone(sandbox.kube.store.get(EC2NODECLASSES, 'default')!.spec);
    const run = await karpDrift(sandbox, withHashedFields);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toContain('[~] spec.role (hashed: NodeClassDrift)');
    expect(run.stdout).toMatch(/TEMPLATE-DRIFT: ec2nodeclass\/default: the templates change spec\.role, .*spec\.tags.*, which Karpenter hashes: every NodeClaim of the class would drift \(NodeClassDrift\): 9 nodes, 0 of them already on the target AMI/);
    expect(run.stdout).toContain('TEMPLATE-SELECTORS: ec2nodeclass/default: the templates change spec.subnetSelectorTerms and spec.securityGroupSelectorTerms');
    expect(run.stderr).toContain('nothing was changed');
    expect(run.stderr).toContain('--accept-template-drift');
    expect(httpWrites(sandbox)).toBe(0);
    expect(sandbox.kube.store.get(EC2NODECLASSES, 'default')!.spec).toEqual(before);
    expect(sandbox.kube.store.get('nodepools.karpenter.sh', 'default')).toBeUndefined();
  });

  it('applies the same template with --accept-template-drift, the finding kept as a warning', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, [...withHashedFields, '--accept-template-drift', '--allow-create', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const rendered = run.events.find((e) => e.type === 'rendered') as unknown as { checks: Array<{ code: string; level: string }> };
    expect(rendered.checks.filter((c) => c.code === 'TEMPLATE-DRIFT').map((c) => c.level)).toEqual(['warning']);
    expect(run.events.map((e) => e.type)).toContain('applied');
    const spec = sandbox.kube.store.get(EC2NODECLASSES, 'default')!.spec as { role: string; tags: Record<string, string> };
    expect(spec.role).toBe('KarpenterNodeRole-other');
    expect(spec.tags).toEqual({ team: 'a', KubernetesVersion: '1.30' });
  });

  it('creating an object is said plainly and needs the prompt, or --allow-create under --yes (exit 3, nothing changed)', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toContain('[+] NodePool default (created)');
    expect(run.stdout).toContain('Plan: apply ec2nodeclass/default whole and create nodepool/default (server-side apply, field manager karp-drift):\n  + nodepool/default (created): a new NodePool beside nodepool/arm and nodepool/general;');
    expect(run.stderr).toContain('error: upgrade --templates would create nodepool/default, and --yes alone does not create objects; nothing was changed\n  next: re-run with --allow-create');
    expect(httpWrites(sandbox)).toBe(0);
    expect(sandbox.kube.store.get('nodepools.karpenter.sh', 'default')).toBeUndefined();
    // A dry run creates nothing, so it needs neither.
    expect((await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--dry-run', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox'])).code).toBe(0);
    expect(sandbox.kube.store.get('nodepools.karpenter.sh', 'default')).toBeUndefined();
  });

  it('needs --role with --cluster-name (exit 2, nothing changed)', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--cluster-name', 'sandbox']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('upgrade --templates needs --cluster-name and --role');
    expect(httpWrites(sandbox)).toBe(0);
  });
});
