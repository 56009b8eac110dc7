// A bad AMI release end to end, on the bad-ami scenario: its class is pinned through the API to the newest 1.30
// release (what `karp-drift upgrade --to 1.30` pins by default, and what faults.badAmi makes bad) or to an older one,
// and the cluster is read back as karp-drift's health gates will read it. One simulated second per pass.
import { describe, expect, it, onTestFinished } from 'vitest';
import { allowedDisruptions, type Budget } from '../../../src/karpenter/budgets.js';
import { seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import { CNI_NOT_READY } from '../../../src/sandbox/karpenter/bad-ami.js';
import { reconcileCrashLoops } from '../../../src/sandbox/karpenter/crash-loop.js';
import { conditionOf, isTrue } from '../../../src/sandbox/karpenter/objects.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { loadScenario } from '../../../src/sandbox/scenarios/load.js';
import type { ScenarioBadAmi } from '../../../src/sandbox/scenarios/schema.js';
import { NODECLAIMS, claimsOf, imageOf, kubectl, manualSandbox, pinToControlPlane, run, runUntil, settled } from './harness.js';

type Started = Awaited<ReturnType<typeof manualSandbox>>;

async function started(
  badAmi?: ScenarioBadAmi,
  options: { pdbs?: false; log?: (line: string) => void } = {},
): Promise<Started> {
  const scenario = loadScenario('bad-ami');
  if (badAmi) scenario.faults.badAmi = badAmi;
  if (options.pdbs === false) scenario.workloads = scenario.workloads.map(({ pdb: _pdb, ...w }) => w);
  const sandbox = await manualSandbox(scenario, options.log);
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** The 1.30 AL2023 release before the newest: good, whatever the symptom of the newest. */
function olderRelease(sandbox: Started): string {
  const series = { family: 'al2023', kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' } as const;
  return seriesReleases(sandbox.aws.catalog, series).at(-2)!.release;
}

const nodeNameOf = (claim: KubeObject) => (claim.status as { nodeName?: string }).nodeName ?? '';
const podsOn = (sandbox: Started, nodeName: string) => sandbox.kube.store.objects.podsOnNode(nodeName);
/** The Nodes of a pool's NodeClaims launched from these images. */
const nodesOn = (sandbox: Started, pool: string, images: string[]) =>
  claimsOf(sandbox, pool)
    .filter((c) => images.includes(imageOf(c) ?? ''))
    .map((c) => sandbox.kube.store.get('nodes', nodeNameOf(c)))
    .filter((n): n is KubeObject => n !== undefined);

interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  state: { waiting?: { reason: string; message: string }; running?: unknown };
  lastState?: { terminated?: { exitCode: number; reason: string } };
}
const containerOf = (pod: KubeObject) =>
  (pod.status as { containerStatuses?: ContainerStatus[] }).containerStatuses?.[0];
const owner = (pod: KubeObject) => pod.metadata.ownerReferences?.[0]?.kind;
const events = (sandbox: Started, reason: string) =>
  sandbox.simulator.ctx.events.published.filter((e) => e.reason === reason);

describe('a bad AMI release (faults.badAmi)', () => {
  it('crash-loop: every pod started on a node of the newest 1.30 release crash-loops, DaemonSet pods included, while its nodes stay Ready', async () => {
    const sandbox = await started();
    const bad = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 6 * 60);
    // One canary node at a time (the next candidate's pod would land on the replacement still initializing), and then
    // the crash-looping pod moved there leaves the canary's PDB no eviction for the others' healthy pods.
    const canary = nodesOn(sandbox, 'canary', bad);
    expect(canary.length).toBeGreaterThanOrEqual(1);
    expect(claimsOf(sandbox, 'canary').every((c) => isTrue(c, 'Initialized'))).toBe(true);
    expect(canary.every((n) => isTrue(n, 'Ready'))).toBe(true);
    const badNodes = new Set([...canary, ...nodesOn(sandbox, 'general', bad)].map((n) => n.metadata.name ?? ''));
    const onBad = [...badNodes].flatMap((n) => podsOn(sandbox, n));
    // Each new node got its DaemonSet pod, and the ReplicaSets' replacements of evicted pods landed there too.
    for (const node of canary)
      expect(
        podsOn(sandbox, node.metadata.name!).filter((p) => p.metadata.name?.startsWith('node-agent-')),
      ).toHaveLength(1);
    expect(new Set(onBad.map(owner))).toEqual(new Set(['DaemonSet', 'ReplicaSet']));
    for (const pod of onBad) {
      const c = containerOf(pod)!;
      const { name, namespace, uid } = pod.metadata;
      expect((pod.status as { phase: string }).phase).toBe('Running');
      expect(conditionOf(pod, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'ContainersNotReady',
        message: `containers with unready status: [${c.name}]`,
      });
      expect(c.ready).toBe(false);
      expect(c.restartCount).toBeGreaterThanOrEqual(1);
      expect(c.state.waiting?.reason).toBe('CrashLoopBackOff');
      expect(c.state.waiting?.message).toMatch(
        new RegExp(
          `^back-off (10s|20s|40s|1m20s|2m40s|5m0s) restarting failed container=${c.name} pod=${name}_${namespace}\\(${uid}\\)$`,
        ),
      );
      expect(c.lastState?.terminated).toMatchObject({ exitCode: 139, reason: 'Error' });
    }
    // Pods anywhere else run: the older release's nodes are untouched.
    const elsewhere = sandbox.kube.store
      .list('pods')
      .filter((p) => !badNodes.has((p.spec as { nodeName?: string }).nodeName ?? ''));
    expect(elsewhere.length).toBeGreaterThan(0);
    expect(elsewhere.every((p) => isTrue(p, 'Ready'))).toBe(true);
    const node = canary[0]!.metadata.name!;
    const out = await kubectl(sandbox, [
      'get',
      'pods',
      '-A',
      '--field-selector',
      `spec.nodeName=${node}`,
      '--no-headers',
    ]);
    if (out !== undefined) expect(out).toMatch(/node-agent-\w{5} +0\/1 +CrashLoopBackOff +\d+ \(\d+s ago\)/);
  });

  it("crash-loop: restart counts climb with the kubelet's back-off, 10 s doubling up to 5 minutes, and the message follows it", async () => {
    const sandbox = await started();
    const bad = await pinToControlPlane(sandbox, 'default');
    let pod: KubeObject | undefined;
    for (let waited = 0; !pod && waited < 10 * 60; waited++) {
      run(sandbox, 1);
      pod = nodesOn(sandbox, 'canary', bad)
        .flatMap((n) => podsOn(sandbox, n.metadata.name!))
        .find((p) => containerOf(p)?.restartCount === 1);
    }
    const key = [pod!.metadata.name!, pod!.metadata.namespace] as const;
    const seen: Array<{ second: number; restartCount: number; backOff: string }> = [];
    for (let second = 0; second < 20 * 60; second++) {
      const c = containerOf(sandbox.kube.store.get('pods', ...key)!)!;
      if (seen.at(-1)?.restartCount !== c.restartCount)
        seen.push({
          second,
          restartCount: c.restartCount,
          backOff: /^back-off (\S+) /.exec(c.state.waiting!.message)![1]!,
        });
      run(sandbox, 1);
    }
    expect(seen.map((s) => [s.restartCount, s.backOff])).toEqual([
      [1, '10s'],
      [2, '20s'],
      [3, '40s'],
      [4, '1m20s'],
      [5, '2m40s'],
      [6, '5m0s'],
      [7, '5m0s'],
      [8, '5m0s'],
    ]);
    expect(seen.slice(1).map((s, i) => s.second - seen[i]!.second)).toEqual([10, 20, 40, 80, 160, 300, 300]);
    const backOff = events(sandbox, 'BackOff').filter((e) => e.name === key[0]);
    expect(backOff[0]?.message).toBe(
      `Back-off restarting failed container ${containerOf(pod!)!.name} in pod ${key[0]}_${key[1]}(${pod!.metadata.uid})`,
    );
  });

  it('crash-loop: restarts fall due from a queue and each step restarts no more than the work budget allows', async () => {
    // Without PDBs, so the old nodes drain onto the crashing ones whatever the moved pods' state.
    const sandbox = await started(undefined, { pdbs: false });
    await pinToControlPlane(sandbox, 'default');
    run(sandbox, 20 * 60);
    const { ctx } = sandbox.simulator;
    const looping = ctx.memory.crashLoops.size;
    expect(looping).toBeGreaterThan(20);
    // Everything falls due at once; a budget of 10 writes restarts about five pods (a status and a BackOff event
    // each) per step, and the rest on the steps after.
    sandbox.clock.advance(10 * 60_000);
    ctx.budget.limit = 10;
    let steps = 0;
    for (; steps < 100; steps++) {
      ctx.budget.reset();
      reconcileCrashLoops(ctx);
      expect(ctx.budget.spent()).toBeLessThanOrEqual(ctx.budget.limit + 2);
      if (ctx.budget.spent() === 0) break;
    }
    expect(steps).toBeGreaterThan(2);
    expect(ctx.memory.crashLoops.size).toBe(looping);
  });

  it('not-ready: the nodes initialize and the drift commands complete, then 60 s later each Node goes NotReady (the CNI never came up) and its pods unready, and stays so', async () => {
    const sandbox = await started({ symptom: 'not-ready' });
    const bad = await pinToControlPlane(sandbox, 'default');
    const initializedAt = new Map<string, number>();
    const notReadyAt = new Map<string, number>();
    for (let second = 0; second < 15 * 60; second++) {
      run(sandbox, 1);
      for (const node of nodesOn(sandbox, 'canary', bad)) {
        const name = node.metadata.name!;
        if (node.metadata.labels?.['karpenter.sh/initialized'] === 'true' && !initializedAt.has(name))
          initializedAt.set(name, second);
        if (initializedAt.has(name) && !isTrue(node, 'Ready') && !notReadyAt.has(name)) notReadyAt.set(name, second);
      }
    }
    // One canary node at a time: its pod, moved onto a node that then goes NotReady, is unready, and the canary's
    // PDB then allows no eviction of a healthy pod, so the next drain waits.
    expect(initializedAt.size).toBeGreaterThanOrEqual(1);
    for (const [name, at] of initializedAt) expect(notReadyAt.get(name)! - at).toBe(60);
    const canary = sandbox.simulator.disruptions.entries().filter((e) => e.nodePool === 'canary');
    expect(canary).toHaveLength(initializedAt.size);
    expect(canary[0]!.finished).toBeDefined();
    for (const node of nodesOn(sandbox, 'canary', bad)) {
      expect(conditionOf(node, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'KubeletNotReady',
        message: CNI_NOT_READY,
      });
      const pods = podsOn(sandbox, node.metadata.name!);
      expect(pods.length).toBeGreaterThan(0);
      expect(pods.every((p) => conditionOf(p, 'Ready')?.status === 'False')).toBe(true);
      expect(
        events(sandbox, 'NodeNotReady')
          .filter((e) => e.name === node.metadata.name)
          .map((e) => e.message),
      ).toEqual([`Node ${node.metadata.name} status is now: NodeNotReady`]);
    }
    expect(events(sandbox, 'NodeNotReady').some((e) => e.kind === 'Pod' && e.message === 'Node is not ready')).toBe(
      true,
    );
    // Karpenter sees nothing wrong with the NodeClaims: they launched, registered and initialized.
    expect(claimsOf(sandbox, 'canary').every((c) => isTrue(c, 'Initialized'))).toBe(true);
    expect(
      conditionOf(sandbox.kube.store.get('nodepools.karpenter.sh', 'canary')!, 'NodeRegistrationHealthy')?.status,
    ).toBe('True');
    const out = await kubectl(sandbox, ['get', 'nodes', '-l', 'karpenter.sh/nodepool=canary', '--no-headers']);
    if (out !== undefined) expect(out.match(/ NotReady /g)).toHaveLength(initializedAt.size);
  });

  // Without PDBs, so the old nodes drain whatever the replacements' state: the only nodes disrupting at the end are
  // the NotReady ones. (With them, the pods moved onto NotReady nodes are unready, the PDBs allow no eviction, and
  // the drains wedge too, as they would in a cluster.)
  it('not-ready: NotReady nodes count as disrupting in the budget (DOMAIN.md §2.6), so NodePool general (14 nodes, 50%) stops once its NotReady replacements use it up', async () => {
    const sandbox = await started({ symptom: 'not-ready', afterSeconds: 0 }, { pdbs: false });
    const bad = await pinToControlPlane(sandbox, 'default');
    run(sandbox, 45 * 60);
    const claims = claimsOf(sandbox, 'general');
    expect(claims).toHaveLength(14);
    // One command at a time (each next candidate refused while the last replacement initialized), each replacement
    // NotReady as soon as it is up: once those alone are ceil(50% of 14) = 7, nothing more may start.
    const replaced = nodesOn(sandbox, 'general', bad);
    expect(replaced).toHaveLength(7);
    expect(replaced.every((n) => !isTrue(n, 'Ready'))).toBe(true);
    const old = claims.filter((c) => !bad.includes(imageOf(c) ?? ''));
    expect(old.every((c) => conditionOf(c, 'Drifted')?.status === 'True' && !conditionOf(c, 'DisruptionReason'))).toBe(
      true,
    );
    expect(sandbox.simulator.ctx.memory.commands.size).toBe(0);
    const general = sandbox.simulator.disruptions.entries().filter((e) => e.nodePool === 'general');
    expect(general).toHaveLength(7);
    expect(general.at(-1)!.budgetAllowed).toBe(1);
    expect(general.every((e) => e.finished !== undefined)).toBe(true);
    expect(claims.filter((c) => c.metadata.deletionTimestamp)).toEqual([]);
    // Nothing is being deleted any more: the NotReady nodes alone use up ceil(50% of 14) and hold the other 7.
    const budgets = (
      sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!.spec as { disruption: { budgets: Budget[] } }
    ).disruption.budgets;
    const allowed = (disrupting: number) =>
      allowedDisruptions(budgets, { numNodes: 14, disrupting }, 'Drifted', sandbox.clock.wall()).allowed;
    expect([allowed(7), allowed(6)]).toEqual([0, 1]);
  });

  it('never-registers: the replacements never join; the commands give up after 10 minutes, the node is retried only once liveness has deleted the stale replacement 15 minutes after its creation, and NodeRegistrationHealthy goes False', async () => {
    const sandbox = await started({ symptom: 'never-registers' });
    const bad = await pinToControlPlane(sandbox, 'default');
    const store = sandbox.kube.store;
    run(sandbox, 5 * 60);
    const replacement = claimsOf(sandbox, 'canary').find((c) => bad.includes(imageOf(c) ?? ''))!;
    expect(conditionOf(replacement, 'Launched')?.status).toBe('True');
    expect(conditionOf(replacement, 'Registered')).toMatchObject({ status: 'Unknown', reason: 'NodeNotFound' });
    expect(store.list('nodes')).toHaveLength(17);
    // 10 minutes after they started the commands give up (queue.go minRetryDuration): each fails.
    const canary = () => sandbox.simulator.disruptions.entries().filter((e) => e.nodePool === 'canary');
    for (let s = 0; !canary().some((e) => e.failed !== undefined); s++) {
      if (s > 10 * 60) throw new Error('no command failed within 10 simulated minutes');
      run(sandbox, 1);
    }
    const failed = canary().find((e) => e.failed !== undefined)!;
    const stale = failed.replacements[0]!;
    expect(Date.parse(failed.failed!) - Date.parse(failed.time)).toBe(10 * 60_000 + 1000);
    // No back-off, but the failed command's replacement is still there, launched and empty, and the node's pod would
    // land on it: Karpenter will not decide on a node still initializing, and refuses the node until liveness
    // deletes that replacement, 15 minutes after its creation.
    const created = Date.parse(store.get(NODECLAIMS, stale)!.metadata.creationTimestamp!);
    while (store.get(NODECLAIMS, stale) && !store.get(NODECLAIMS, stale)!.metadata.deletionTimestamp) run(sandbox, 1);
    expect(sandbox.clock.now().getTime() - created).toBe(15 * 60_000);
    expect(canary().filter((e) => e.nodeClaim === failed.nodeClaim)).toHaveLength(1);
    const refused = sandbox.simulator.ctx.events.published.filter(
      (e) => e.reason === 'DisruptionBlocked' && e.name === failed.node && e.message.includes(`would schedule against uninitialized nodeclaim/${stale} `),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.message).toMatch(new RegExp(`^Not all pods would schedule, shop/edge-\\w+-\\w{5} => would schedule against uninitialized nodeclaim/${stale} $`));
    // Its instance gone 5 s later, and the node retried within the next poll.
    run(sandbox, 15);
    const again = canary().filter((e) => e.nodeClaim === failed.nodeClaim);
    expect(again).toHaveLength(2);
    expect(Date.parse(again[1]!.time) - created).toBeLessThanOrEqual(15 * 60_000 + 15_000);
    // Each deletion by liveness is a failed launch; two of the canary's last four make it False.
    run(sandbox, 5);
    expect(conditionOf(store.get('nodepools.karpenter.sh', 'canary')!, 'NodeRegistrationHealthy')).toMatchObject({
      status: 'False',
      reason: 'RegistrationFailed',
      message: 'Failed to register node',
    });
    // The old nodes are retried, and their pods never moved.
    expect(claimsOf(sandbox, 'canary').filter((c) => imageOf(c) !== undefined && !bad.includes(imageOf(c)!))).toHaveLength(3);
    expect(store.list('pods').every((p) => isTrue(p, 'Ready'))).toBe(true);
  });

  it('never-ready: the replacements register but never go Ready; each command times out after 10 minutes, and the NotReady replacements stay and keep the nodes from being tried again', async () => {
    const sandbox = await started({ symptom: 'never-ready' });
    const bad = await pinToControlPlane(sandbox, 'default');
    const store = sandbox.kube.store;
    const canary = () => sandbox.simulator.disruptions.entries().filter((e) => e.nodePool === 'canary');
    run(sandbox, 5 * 60);
    const replacement = store.get(NODECLAIMS, canary()[0]!.replacements[0]!)!;
    expect(isTrue(replacement, 'Registered')).toBe(true);
    expect(conditionOf(replacement, 'Initialized')).toMatchObject({ status: 'Unknown', reason: 'NodeNotReady' });
    const node = store.get('nodes', nodeNameOf(replacement))!;
    expect(conditionOf(node, 'Ready')).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: CNI_NOT_READY });
    expect(node.metadata.labels?.['karpenter.sh/initialized']).toBeUndefined();
    // The DaemonSet put its pod there; with no pod network the kubelet never starts it.
    const agents = podsOn(sandbox, node.metadata.name!);
    expect(agents.map((p) => [owner(p), (p.status as { phase: string }).phase])).toEqual([['DaemonSet', 'Pending']]);
    // Registration succeeded, so Karpenter's own signal says nothing is wrong.
    expect(conditionOf(store.get('nodepools.karpenter.sh', 'canary')!, 'NodeRegistrationHealthy')?.status).toBe('True');

    while (!canary().some((e) => e.failed !== undefined)) run(sandbox, 1);
    const failed = canary().find((e) => e.failed !== undefined)!;
    expect(Date.parse(failed.failed!) - Date.parse(failed.time)).toBe(10 * 60_000 + 1000);
    expect(store.get(NODECLAIMS, failed.replacements[0]!)).toBeDefined();
    const old = store.get(NODECLAIMS, failed.nodeClaim)!;
    expect(old.metadata.deletionTimestamp).toBeUndefined();
    expect(conditionOf(old, 'DisruptionReason')).toBeUndefined();
    // No back-off, but the NotReady replacements are still there, empty, and each canary pod would land on one:
    // Karpenter will not decide on a node that has not initialized, so no canary node is tried again (liveness leaves
    // a registered NodeClaim alone; node repair, which would replace it, is off by default).
    run(sandbox, 30 * 60);
    expect(canary().every((e) => e.failed !== undefined)).toBe(true);
    expect(new Set(canary().map((e) => e.nodeClaim)).size).toBe(canary().length);
    const stale = new Set(canary().flatMap((e) => e.replacements));
    const refused = sandbox.simulator.ctx.events.published.filter(
      (e) => e.reason === 'DisruptionBlocked' && e.name === failed.node && e.message.includes('=> would schedule against uninitialized nodeclaim/'),
    );
    expect(refused.length).toBeGreaterThan(0);
    expect([...stale].some((n) => refused.at(-1)!.message.includes(`nodeclaim/${n}, node/`))).toBe(true);
    const replacements = claimsOf(sandbox, 'canary').filter((c) => bad.includes(imageOf(c) ?? ''));
    expect(replacements.length).toBe(stale.size);
    expect(replacements.every((c) => !c.metadata.deletionTimestamp && !isTrue(c, 'Initialized'))).toBe(true);
    const launched = claimsOf(sandbox, 'canary').filter((c) => imageOf(c) !== undefined);
    expect(launched.filter((c) => !bad.includes(imageOf(c)!))).toHaveLength(3);
    expect(store.list('pods').filter((p) => owner(p) === 'ReplicaSet').every((p) => isTrue(p, 'Ready'))).toBe(true);
  });

  it('launch-fails: EC2 refuses the AMI, so the replacements never launch; liveness deletes each 5 minutes after its creation, the command fails and is retried, and the second deletion sets NodeRegistrationHealthy=False', async () => {
    const logs: string[] = [];
    const sandbox = await started({ symptom: 'launch-fails' }, { log: (l) => logs.push(l) });
    const bad = await pinToControlPlane(sandbox, 'default');
    const store = sandbox.kube.store;
    const canary = () => sandbox.simulator.disruptions.entries().filter((e) => e.nodePool === 'canary');
    run(sandbox, 2 * 60);
    const first = store.get(NODECLAIMS, canary()[0]!.replacements[0]!)!;
    const name = first.metadata.name!;
    expect(conditionOf(first, 'Launched')).toMatchObject({
      status: 'Unknown',
      reason: 'LaunchFailed',
      message: 'Instance launch failed',
      lastTransitionTime: first.metadata.creationTimestamp,
    });
    expect(imageOf(first)).toBeUndefined();
    const ena = `InvalidParameterCombination: Enhanced networking with the Elastic Network Adapter (ENA) is required for the '${first.metadata.labels!['node.kubernetes.io/instance-type']}' instance type. Ensure that you are using an AMI that is enabled for ENA.`;
    expect(logs.filter((l) => l.includes(`nodeclaim ${name}: launching`))).toEqual([
      expect.stringContaining(`reconciler error: nodeclaim ${name}: launching nodeclaim, creating nodeclaim, ${ena}`),
    ]);
    const health = () => conditionOf(store.get('nodepools.karpenter.sh', 'canary')!, 'NodeRegistrationHealthy');
    expect(health()?.status).toBe('Unknown');

    while (store.get(NODECLAIMS, name)) run(sandbox, 1);
    expect(sandbox.clock.now().getTime() - Date.parse(first.metadata.creationTimestamp!)).toBe(5 * 60_000);
    expect(logs.some((l) => l.endsWith(`nodeclaim ${name} (timeout=5m0s, reason=launch_timeout)`))).toBe(true);
    // The canary's three commands started together, so their replacements time out together: two failures of the
    // last four, and NodeRegistrationHealthy=False with the launch's own reason.
    run(sandbox, 1);
    expect(health()).toMatchObject({ status: 'False', reason: 'LaunchFailed', message: 'Instance launch failed' });
    const failed = canary().find((e) => e.replacements.includes(name))!;
    expect(failed.failed).toBeDefined();
    run(sandbox, 10);
    // Retried within the next poll, no back-off: its DisruptionReason was removed, then set again by the new command.
    const again = canary().filter((e) => e.nodeClaim === failed.nodeClaim);
    expect(again).toHaveLength(2);
    expect(Date.parse(again[1]!.time) - Date.parse(failed.failed!)).toBeLessThanOrEqual(10_000);
    const old = store.get(NODECLAIMS, failed.nodeClaim)!;
    expect(Date.parse(conditionOf(old, 'DisruptionReason')!.lastTransitionTime)).toBe(Date.parse(again[1]!.time));
    // Nothing ever launched from the bad AMI: the old nodes are all there, and no Node joined.
    expect(store.list(NODECLAIMS).filter((c) => bad.includes(imageOf(c) ?? ''))).toEqual([]);
    expect(claimsOf(sandbox, 'canary').filter((c) => imageOf(c) !== undefined)).toHaveLength(3);
    expect(store.list('nodes')).toHaveLength(17);
  });

  it.each<ScenarioBadAmi['symptom']>(['crash-loop', 'not-ready', 'never-registers', 'never-ready', 'launch-fails'])(
    '%s: drifting onto an older 1.30 release, which is good, completes with every pod Ready',
    async (symptom) => {
      const sandbox = await started({ symptom });
      const good = await pinToControlPlane(sandbox, 'default', olderRelease(sandbox));
      runUntil(sandbox, () => settled(sandbox, ['canary', 'general'], good), 60 * 60, 'the rollout');
      run(sandbox, 60); // the last evicted pods start
      expectCompleted(sandbox, good);
    },
  );

  it('a release the fault names is the bad one: the newest is then good', async () => {
    const probe = await started();
    const older = olderRelease(probe);
    const sandbox = await started({ symptom: 'crash-loop', release: older });
    const newest = await pinToControlPlane(sandbox, 'default');
    runUntil(sandbox, () => settled(sandbox, ['canary', 'general'], newest), 60 * 60, 'the rollout');
    run(sandbox, 60); // the last evicted pods start
    expectCompleted(sandbox, newest);
  });
});

function expectCompleted(sandbox: Started, images: string[]): void {
  const store = sandbox.kube.store;
  for (const [pool, nodes] of [
    ['canary', 3],
    ['general', 14],
  ] as const) {
    const claims = claimsOf(sandbox, pool);
    expect(claims).toHaveLength(nodes);
    expect(claims.every((c) => images.includes(imageOf(c) ?? '') && isTrue(c, 'Initialized'))).toBe(true);
  }
  expect(sandbox.simulator.disruptions.entries().filter((e) => e.finished !== undefined)).toHaveLength(17);
  expect(store.list('nodes').every((n) => isTrue(n, 'Ready'))).toBe(true);
  const pods = store.list('pods');
  expect(pods.filter((p) => !isTrue(p, 'Ready')).map((p) => p.metadata.name)).toEqual([]);
  expect(pods.every((p) => containerOf(p)?.state.running !== undefined)).toBe(true);
  // A DaemonSet pod on every node, the replacements included.
  expect(pods.filter((p) => p.metadata.name?.startsWith('node-agent-'))).toHaveLength(3);
  expect(pods.filter((p) => p.metadata.name?.startsWith('log-agent-'))).toHaveLength(14);
}
