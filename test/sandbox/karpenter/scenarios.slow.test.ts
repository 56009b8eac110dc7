// Each built-in scenario's defining behaviour, end to end: the AMIs are changed through the API, the simulated
// Karpenter runs for simulated minutes, and what Karpenter would show is read back (with kubectl where installed).
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { conditionOf, isTrue } from '../../../src/sandbox/karpenter/objects.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import {
  NODECLAIMS,
  claimsOf,
  customObjects,
  imageOf,
  kubectl,
  manualSandbox,
  pinToControlPlane,
  run,
  runUntil,
  settled,
} from './harness.js';

/** The DisruptionBlocked messages on a node, as kubectl reads them (undefined without kubectl). */
function blockedMessages(sandbox: Parameters<typeof kubectl>[0], node: string): Promise<string | undefined> {
  return kubectl(sandbox, [
    'get',
    'events',
    '-n',
    'default',
    '--field-selector',
    `reason=DisruptionBlocked,involvedObject.name=${node}`,
    '-o',
    'jsonpath={.items[*].message}',
  ]);
}

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
    runUntil(sandbox, () => settled(sandbox, ['general'], target, 1), 30 * 60, 'the drift');
    run(sandbox, 5 * 60); // and the held node stays
    const store = sandbox.kube.store;
    const ledger = store.list('pods', 'payments')[0]!;
    const pinnedNode = (ledger.spec as { nodeName: string }).nodeName;
    const claims = claimsOf(sandbox, 'general');
    const old = claims.filter((c) => !target.includes(imageOf(c) ?? ''));
    expect(old.map((c) => (c.status as { nodeName?: string }).nodeName)).toEqual([pinnedNode]);
    expect(conditionOf(old[0]!, 'Drifted')).toMatchObject({ status: 'True', reason: 'AMIDrift' });
    // The three other nodes went: two replaced, one deleted without a replacement, its two pods fitting where the
    // pinned node's extra pod leaves the others room (Karpenter's scheduling simulation; the pool is one node smaller).
    expect(claims.filter((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toHaveLength(2);
    expect(sandbox.simulator.disruptions.entries().map((e) => e.replacements.length).sort()).toEqual([0, 1, 1]);
    const blocked = events(sandbox, 'DisruptionBlocked').filter((e) => e.name === pinnedNode);
    expect(blocked[0]?.message).toBe('Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])');
    const out = await blockedMessages(sandbox, pinnedNode);
    if (out !== undefined) expect(out).toContain('Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])');
  });

  it('unschedulable: the node of a bare pod pinned by hostname stays on the old AMI despite its terminationGracePeriod, reported as "Not all pods would schedule"', async () => {
    const sandbox = await started('unschedulable');
    const target = await pinToControlPlane(sandbox, 'default');
    const seconds = runUntil(sandbox, () => settled(sandbox, ['general'], target, 1), 30 * 60, 'the drift');
    run(sandbox, 30 * 60 - seconds);
    const store = sandbox.kube.store;
    const agent = store.list('pods', 'mirrord')[0]!;
    const pinnedNode = (agent.spec as { nodeName: string }).nodeName;
    const hostname = store.get('nodes', pinnedNode)!.metadata.labels!['kubernetes.io/hostname']!;
    expect(agent.metadata.ownerReferences).toBeUndefined();
    expect((agent.spec as { nodeSelector: unknown }).nodeSelector).toEqual({ 'kubernetes.io/hostname': hostname });
    const claims = claimsOf(sandbox, 'general');
    const old = claims.filter((c) => !target.includes(imageOf(c) ?? ''));
    expect(old.map((c) => (c.status as { nodeName?: string }).nodeName)).toEqual([pinnedNode]);
    expect((old[0]!.spec as { terminationGracePeriod?: string }).terminationGracePeriod).toBe('24h');
    expect(isTrue(old[0]!, 'DisruptionReason')).toBe(false);
    // The others went, one of them deleted without a replacement (its pods fit in the room the pinned pod's node
    // leaves the others): the pool is one node smaller.
    expect(claims.filter((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toHaveLength(2);
    const blocked = events(sandbox, 'DisruptionBlocked').filter(
      (e) => e.name === pinnedNode || e.name === old[0]!.metadata.name,
    );
    // Every pass, deduplicated to one event per object every 2 minutes: about 15 each in 30 minutes.
    expect(blocked.filter((e) => e.kind === 'Node').length).toBeGreaterThan(10);
    expect(new Set(blocked.map((e) => e.kind))).toEqual(new Set(['Node', 'NodeClaim']));
    expect(blocked[0]!.message).toMatch(
      new RegExp(
        `^Not all pods would schedule, mirrord/${agent.metadata.name} => incompatible with nodepool "general", daemonset overhead=\\{"cpu":"100m","memory":"128Mi","pods":"1"\\}, incompatible requirements, key kubernetes\\.io/hostname, kubernetes\\.io/hostname In \\[${hostname}\\] not in kubernetes\\.io/hostname In \\[hostname-placeholder-\\d{4}\\] $`,
      ),
    );
    const out = await blockedMessages(sandbox, pinnedNode);
    if (out !== undefined) expect(out).toContain(`Not all pods would schedule, mirrord/${agent.metadata.name} => `);
  });

  it('budget-blocked: a Drifted budget of 0 leaves the pool drifted and says so on the NodePool', async () => {
    const sandbox = await started('budget-blocked');
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 30 * 60);
    const frozen = claimsOf(sandbox, 'frozen');
    expect(frozen).toHaveLength(3);
    expect(
      frozen.every((c) => !target.includes(imageOf(c) ?? '') && conditionOf(c, 'Drifted')?.reason === 'AMIDrift'),
    ).toBe(true);
    expect(claimsOf(sandbox, 'general').every((c) => target.includes(imageOf(c) ?? ''))).toBe(true);
    const poolEvents = events(sandbox, 'DisruptionBlocked').filter((e) => e.kind === 'NodePool');
    expect(new Set(poolEvents.map((e) => `${e.name}: ${e.message}`))).toEqual(
      new Set(['frozen: No allowed disruptions for disruption reason Drifted due to blocking budget']),
    );
    const out = await kubectl(sandbox, [
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      'involvedObject.kind=NodePool',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    if (out !== undefined)
      expect(out).toContain('No allowed disruptions for disruption reason Drifted due to blocking budget');
  });

  it('do-not-disrupt: annotated pods and nodes keep their nodes, reported as DisruptionBlocked on the Node and NodeClaim', async () => {
    const sandbox = await started('do-not-disrupt');
    const target = await pinToControlPlane(sandbox, 'default');
    runUntil(sandbox, () => settled(sandbox, ['general', 'batch'], target, 4), 30 * 60, 'the drift');
    run(sandbox, 5 * 60);
    const batch = claimsOf(sandbox, 'batch');
    expect(batch.every((c) => !target.includes(imageOf(c) ?? '') && conditionOf(c, 'Drifted')?.status === 'True')).toBe(
      true,
    );
    const general = claimsOf(sandbox, 'general');
    const oldGeneral = general.filter((c) => !target.includes(imageOf(c) ?? ''));
    expect(oldGeneral).toHaveLength(1);
    const node = sandbox.kube.store.get('nodes', (oldGeneral[0]!.status as { nodeName: string }).nodeName)!;
    expect(node.metadata.annotations?.['karpenter.sh/do-not-disrupt']).toBe('true');
    const blocked = events(sandbox, 'DisruptionBlocked');
    expect(blocked.filter((e) => e.name === node.metadata.name).map((e) => e.message)).toContain(
      'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
    );
    for (const claim of batch) {
      const nodeName = (claim.status as { nodeName: string }).nodeName;
      const training = sandbox.kube.store
        .list('pods', 'ml')
        .find((p) => (p.spec as { nodeName?: string }).nodeName === nodeName)!;
      const message = `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ml/${training.metadata.name})`;
      // Every pass, deduplicated to one event per object every 2 minutes.
      expect(new Set(blocked.filter((e) => e.message === message).map((e) => `${e.kind}/${e.name}`))).toEqual(
        new Set([`Node/${nodeName}`, `NodeClaim/${claim.metadata.name}`]),
      );
    }
    const out = await kubectl(sandbox, [
      'get',
      'events',
      '-A',
      '--field-selector',
      'reason=DisruptionBlocked',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    if (out !== undefined) expect(out).toContain('Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ml/');
    expect(new Set(events(sandbox, 'DisruptionLaunching').map((e) => e.name)).size).toBe(3);
  });

  it('launch-failure: two InsufficientCapacityError launches fail the command, then the rollout completes', async () => {
    const sandbox = await started('launch-failure');
    const target = await pinToControlPlane(sandbox, 'default');
    runUntil(sandbox, () => settled(sandbox, ['general'], target), 45 * 60, 'the drift');
    const failures = events(sandbox, 'InsufficientCapacityError');
    expect(failures).toHaveLength(2);
    expect(failures[0]!.message).toMatch(/^NodeClaim general-\w{5} event: creating instance, insufficient capacity/);
    const claims = claimsOf(sandbox, 'general');
    expect(claims).toHaveLength(4);
    expect(claims.every((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(true);
    // Each failed replacement was retried: more launches than nodes.
    expect(new Set(events(sandbox, 'DisruptionLaunching').map((e) => e.name)).size).toBe(6);
  });

  it('ami-not-found: the changed class goes AMIsReady=False/AMINotFound and nothing drifts', async () => {
    const sandbox = await started('ami-not-found');
    await pinToControlPlane(sandbox, 'default');
    run(sandbox, 10 * 60);
    const nodeClass = sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!;
    expect(conditionOf(nodeClass, 'AMIsReady')).toMatchObject({
      status: 'False',
      reason: 'AMINotFound',
      observedGeneration: nodeClass.metadata.generation,
    });
    expect((nodeClass.status as { amis?: unknown[] }).amis).toBeUndefined();
    expect(sandbox.kube.store.list(NODECLAIMS).some((c) => conditionOf(c, 'Drifted'))).toBe(false);
    expect(events(sandbox, 'DisruptionLaunching')).toEqual([]);
    const out = await kubectl(sandbox, [
      'get',
      'ec2nodeclass',
      'default',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="AMIsReady")].reason}',
    ]);
    if (out !== undefined) expect(out).toBe('AMINotFound');
  });

  it('flaky-api: clients see 500s while the in-cluster Karpenter still completes the rollout', async () => {
    const sandbox = await started('flaky-api');
    const api = customObjects(sandbox);
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      await api
        .listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })
        .catch((err: { code?: number }) => {
          expect(err.code).toBe(500);
          failed += 1;
        });
    }
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(20);
    let target: string[] = [];
    for (let attempt = 0; target.length === 0 && attempt < 10; attempt++)
      target = await pinToControlPlane(sandbox, 'default').catch(() => []);
    runUntil(sandbox, () => settled(sandbox, ['general', 'arm'], target), 60 * 60, 'the drift');
    expect(
      ['general', 'arm'].flatMap((p) => claimsOf(sandbox, p)).every((c) => target.includes(imageOf(c) ?? '')),
    ).toBe(true);
  });

  it('gitops-owned: changing amiSelectorTerms by server-side apply conflicts with argocd-controller', async () => {
    const sandbox = await started('gitops-owned');
    const body = {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: { amiSelectorTerms: [{ alias: 'al2023@latest' }] },
    };
    const err = await customObjects(sandbox)
      .patchClusterCustomObject(
        {
          group: 'karpenter.k8s.aws',
          version: 'v1',
          plural: 'ec2nodeclasses',
          name: 'default',
          body,
          fieldManager: 'karp-drift',
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )
      .then(
        () => undefined,
        (e: { code?: number; body?: string }) => e,
      );
    expect(err?.code).toBe(409);
    expect(String(err?.body)).toContain('conflict with \\"argocd-controller\\"');
  });

  it('staged: Argo CD owns the budgets of NodePool batch, so a budget written by server-side apply conflicts; a plain rollout completes', async () => {
    const sandbox = await started('staged');
    const body = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'batch' },
      spec: { disruption: { budgets: [{ nodes: '50%' }, { nodes: '0', reasons: ['Drifted'] }] } },
    };
    const err = await customObjects(sandbox)
      .patchClusterCustomObject(
        { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'batch', body, fieldManager: 'karp-drift' },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )
      .then(
        () => undefined,
        (e: { code?: number; body?: string }) => e,
      );
    expect(err?.code).toBe(409);
    expect(String(err?.body)).toContain('conflict with \\"argocd-controller\\"');
    const out = await kubectl(sandbox, [
      'get',
      'nodepool',
      'batch',
      '-o',
      'jsonpath={range .metadata.managedFields[*]}{.manager}/{.subresource}{" "}{end}',
    ]);
    // Argo CD owns the spec; Karpenter writes the static-drift hash annotations and the status subresource (counts and
    // readiness).
    if (out !== undefined) expect(out.trim().split(' ').sort()).toEqual(['argocd-controller/', 'karpenter/', 'karpenter/status']);

    const target = [
      ...(await pinToControlPlane(sandbox, 'default')),
      ...(await pinToControlPlane(sandbox, 'bottlerocket')),
    ];
    // Karpenter refuses a candidate whose pods would land on a replacement still initializing, so a pool rarely has
    // more than one or two commands in flight: the 33 nodes take about 40 simulated minutes, not the budgets' 7.
    const seconds = runUntil(sandbox, () => settled(sandbox, ['canary', 'general', 'batch'], target), 90 * 60, 'the rollout');
    expect(seconds).toBeGreaterThan(20 * 60);
    for (const pool of ['canary', 'general', 'batch']) {
      const claims = claimsOf(sandbox, pool);
      expect(claims.every((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(true);
    }
    // Every old node went; a node deleted without a replacement leaves its pods Pending until the provisioner's
    // NodeClaim comes up, so the pools keep their sizes.
    expect(new Set(sandbox.simulator.disruptions.entries().map((e) => e.nodeClaim)).size).toBe(33);
    expect(['canary', 'general', 'batch'].map((p) => claimsOf(sandbox, p).length)).toEqual([3, 24, 6]);
  });

  it('bad-ami: pods on the nodes of the newest 1.30 release crash-loop while the nodes look healthy; an older 1.30 release rolls out with every pod Ready', async () => {
    const sandbox = await started('bad-ami');
    const bad = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 10 * 60);
    const store = sandbox.kube.store;
    const canary = claimsOf(sandbox, 'canary').filter((c) => bad.includes(imageOf(c) ?? ''));
    expect(canary.length).toBeGreaterThanOrEqual(1);
    expect(canary.every((c) => isTrue(c, 'Initialized'))).toBe(true);
    const nodes = canary.map((c) => store.get('nodes', (c.status as { nodeName: string }).nodeName)!);
    expect(nodes.every((n) => isTrue(n, 'Ready'))).toBe(true);
    const pods = nodes.flatMap((n) => store.objects.podsOnNode(n.metadata.name!));
    expect(pods.length).toBeGreaterThanOrEqual(2);
    expect(pods.every((p) => conditionOf(p, 'Ready')?.reason === 'ContainersNotReady')).toBe(true);
    // The pods moved there count as unhealthy under their PDBs, which then allow no eviction of a healthy pod: the
    // canary's other nodes are held (Karpenter took them one at a time, each refused while the first replacement
    // initialized), or their drains wait.
    const held = events(sandbox, 'DisruptionBlocked').some((e) => e.message === 'Pdb prevents pod evictions (PodDisruptionBudget=[shop/edge])');
    expect(held || events(sandbox, 'FailedDraining').length > 0).toBe(true);
    const out = await kubectl(sandbox, ['get', 'pods', '-n', 'monitoring', '-l', 'app=node-agent', '--no-headers']);
    if (out !== undefined) expect(out.match(/CrashLoopBackOff/g)).toHaveLength(canary.length);

    const good = await started('bad-ami');
    const series = { family: 'al2023', kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' } as const;
    const older = seriesReleases(good.aws.catalog, series).at(-2)!.release;
    const target = await pinToControlPlane(good, 'default', older);
    runUntil(good, () => settled(good, ['canary', 'general'], target), 90 * 60, 'the rollout');
    for (const pool of ['canary', 'general'])
      expect(claimsOf(good, pool).every((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(
        true,
      );
    expect(good.kube.store.list('pods').every((p) => isTrue(p, 'Ready'))).toBe(true);
  });

  it('a v1beta1 install (Karpenter 0.37): the class without amiSelectorTerms follows the control plane, with the v1beta1 taint', async () => {
    const scenario = parseScenario(
      [
        'name: old-karpenter',
        'controlPlaneVersion: "1.29"',
        'karpenterVersion: "0.37.8"',
        'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.28" }]',
        'nodePools: [{ name: general, nodeClass: default, nodes: 3, arch: [amd64] }]',
        'workloads: [{ name: web, nodePool: general, replicas: 6, pdb: { maxUnavailable: 1 } }]',
      ].join('\n'),
      'inline',
    );
    const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
    const sandbox = Object.assign(await startSandbox({ scenario, manualClock: clock }), { clock });
    onTestFinished(() => sandbox.stop());
    const store = sandbox.kube.store;
    const nodeClass = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!;
    expect(nodeClass.apiVersion).toBe('karpenter.k8s.aws/v1beta1');
    // Drop the pin: v1beta1 then resolves the family's recommended AMI for the 1.29 control plane.
    const { amiSelectorTerms: _pin, ...unpinned } = nodeClass.spec as Record<string, unknown>;
    store.update('ec2nodeclasses.karpenter.k8s.aws', { ...nodeClass, spec: unpinned }, { manager: 'kubectl-edit' });
    const taints = new Set<string>();
    for (let i = 0; i < 30 * 60; i++) {
      run(sandbox, 1);
      for (const node of store.list('nodes'))
        for (const t of (node.spec as { taints?: Array<{ key: string; value?: string; effect: string }> }).taints ?? [])
          taints.add(`${t.key}=${t.value ?? ''}:${t.effect}`);
    }
    // The v1beta1 disruption taint, and the kubelet's not-ready taint a new Node registers with (v1beta1 Karpenter had
    // no karpenter.sh/unregistered taint).
    expect(taints).toEqual(new Set(['karpenter.sh/disruption=disrupting:NoSchedule', 'node.kubernetes.io/not-ready=:NoSchedule']));
    const claims = claimsOf(sandbox, 'general');
    expect(claims).toHaveLength(3);
    expect(
      claims.every(
        (c) =>
          c.apiVersion === 'karpenter.sh/v1beta1' &&
          /-1\.29-/.test(sandbox.aws.catalog.images.get(imageOf(c) ?? '')?.name ?? ''),
      ),
    ).toBe(true);
  });

  it('an AMI whose nodes never register: the command times out and retries; liveness deletes each replacement 15 minutes after its creation, and the NodePool reports NodeRegistrationHealthy=False at the second', async () => {
    const scenario = parseScenario(
      [
        'name: bad-ami',
        'controlPlaneVersion: "1.30"',
        'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
        'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64] }]',
        'workloads: [{ name: web, nodePool: general, replicas: 4, pdb: { maxUnavailable: 1 } }]',
        'faults: { neverRegisters: { nodePool: general } }',
      ].join('\n'),
      'inline',
    );
    const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
    const sandbox = Object.assign(await startSandbox({ scenario, manualClock: clock }), { clock });
    onTestFinished(() => sandbox.stop());
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 5 * 60);
    const store = sandbox.kube.store;
    const tainted = () => store.list('nodes').filter((n) => (n.spec as { taints?: unknown[] }).taints?.length);
    const replacement = claimsOf(sandbox, 'general').find((c) => target.includes(imageOf(c) ?? ''))!;
    const name = replacement.metadata.name!;
    expect(conditionOf(replacement, 'Launched')?.status).toBe('True');
    expect(conditionOf(replacement, 'Registered')).toMatchObject({ status: 'Unknown', reason: 'NodeNotFound' });
    expect(store.list('nodes')).toHaveLength(2);
    expect(tainted()).toHaveLength(1);
    // The queue gives up after its 10 minutes: the old node is untainted, the replacement is left alone.
    let waited = 5 * 60;
    for (; tainted().length > 0 && waited < 20 * 60; waited++) run(sandbox, 1);
    expect(waited).toBeGreaterThanOrEqual(10 * 60);
    expect(waited).toBeLessThan(11 * 60);
    expect(store.list(NODECLAIMS).some((c) => conditionOf(c, 'DisruptionReason'))).toBe(false);
    expect(store.get(NODECLAIMS, name)).toBeDefined();
    const pool = () => conditionOf(store.get('nodepools.karpenter.sh', 'general')!, 'NodeRegistrationHealthy');
    expect(pool()?.status).not.toBe('False');
    // Liveness: 15 minutes after its creation (not after its launch, a minute later) the replacement is deleted. One
    // failure of the NodePool's last launches is not enough for NodeRegistrationHealthy=False (2 of 4 are).
    const created = Date.parse(replacement.metadata.creationTimestamp!);
    while (store.get(NODECLAIMS, name) && !store.get(NODECLAIMS, name)!.metadata.deletionTimestamp) run(sandbox, 1);
    expect(sandbox.clock.now().getTime() - created).toBe(15 * 60_000);
    // Its instance is looked at again 5 s after its deletion was asked for: then it is gone.
    while (store.get(NODECLAIMS, name)) run(sandbox, 1);
    expect(sandbox.clock.now().getTime() - created).toBe(15 * 60_000 + 5000);
    expect(pool()).toMatchObject({ status: 'Unknown', reason: 'AwaitingReconciliation' });
    // The command retried at once (no back-off): its replacement is deleted 15 minutes after its own creation.
    const second = claimsOf(sandbox, 'general').find((c) => !imageOf(c) || target.includes(imageOf(c)!))!;
    expect(second.metadata.name).not.toBe(name);
    while (store.get(NODECLAIMS, second.metadata.name!) && !store.get(NODECLAIMS, second.metadata.name!)!.metadata.deletionTimestamp) run(sandbox, 1);
    expect(sandbox.clock.now().getTime() - Date.parse(second.metadata.creationTimestamp!)).toBe(15 * 60_000);
    expect(pool()).toMatchObject({ status: 'False', reason: 'RegistrationFailed', message: 'Failed to register node' });
    expect(events(sandbox, 'DisruptionLaunching').length).toBeGreaterThanOrEqual(2);
  });

  it('a slow drain under a NodeClaim terminationGracePeriod: pods blocked by do-not-disrupt are evicted once it elapses', async () => {
    const scenario = parseScenario(
      [
        'name: tgp',
        'controlPlaneVersion: "1.30"',
        'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
        'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64], terminationGracePeriod: 30m }]',
        'workloads: [{ name: batch, nodePool: general, replicas: 2, doNotDisrupt: true }]',
        'faults: { slowDrain: { podTerminationSeconds: 60 } }',
      ].join('\n'),
      'inline',
    );
    const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
    const sandbox = Object.assign(await startSandbox({ scenario, manualClock: clock }), { clock });
    onTestFinished(() => sandbox.stop());
    const target = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 10 * 60);
    // Drift ignored the do-not-disrupt pods (the claims have a TGP), but the drain waits on them.
    const deleting = sandbox.kube.store.list(NODECLAIMS).filter((c) => c.metadata.deletionTimestamp);
    expect(deleting.length).toBeGreaterThan(0);
    expect(deleting[0]!.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp']).toMatch(
      /^2026-11-23T10:\d\d:\d\dZ$/,
    );
    expect(events(sandbox, 'FailedDraining')[0]?.message).toBe(
      'Failed to drain node, 1 pods are waiting to be evicted',
    );
    run(sandbox, 60 * 60);
    const claims = claimsOf(sandbox, 'general');
    expect(claims.every((c) => target.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(true);
    // Each blocked pod was deleted its own 30 s grace period before the 30m deadline, not at it.
    const disrupted = events(sandbox, 'Disrupted');
    expect(disrupted).toHaveLength(2);
    expect(disrupted[0]!.message).toMatch(
      /^Deleting the pod to accommodate the terminationTime 2026-11-23 10:\d\d:\d\d \+0000 UTC of the node\. The pod was granted 30 seconds of grace-period of its 30 terminationGracePeriodSeconds\. This bypasses the PDB of the pod and the do-not-disrupt annotation\.$/,
    );
  });
});
