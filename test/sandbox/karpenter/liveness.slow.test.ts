// The simulated Karpenter's NodeClaim liveness and what hangs on it, rule by rule against kubernetes-sigs/karpenter
// v1.14.1 (DOMAIN.md §1.3, §1.4, §2.5 step 6): the lifecycle conditions stamped at the NodeClaim's creation, liveness
// counting from there (launch 5 minutes, registration 15), a disruption command failing when its replacement is gone,
// and the NodePool's NodeRegistrationHealthy with its 2-of-4 buffer and its reset on every generation change. One
// simulated second per pass; times are compared in simulated time (the ManualClock's wall is its simulated clock).
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { conditionOf, isTrue } from '../../../src/sandbox/karpenter/objects.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { NODECLAIMS, claimsOf, customObjects, pinToControlPlane, run } from './harness.js';

const NODEPOOLS = 'nodepools.karpenter.sh';
/** Every launch of NodePool general fails with a create error that is not about capacity. */
const LAUNCH_FAILS = '{ launchFailures: { nodePool: general, count: 99, reason: LaunchFailed } }';

/** Two amd64 nodes on 1.29 in NodePool general (the default budget, 10%: one command at a time), with these faults. */
async function started(faults: string, karpenterVersion = '1.14.1') {
  const scenario = parseScenario(
    [
      'name: liveness',
      'controlPlaneVersion: "1.30"',
      `karpenterVersion: "${karpenterVersion}"`,
      'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
      'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64] }]',
      'workloads: [{ name: web, nodePool: general, replicas: 4, pdb: { maxUnavailable: 1 } }]',
      `faults: ${faults}`,
    ].join('\n'),
    'inline',
  );
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const logs: string[] = [];
  const sandbox = Object.assign(await startSandbox({ scenario, manualClock: clock, log: (l) => logs.push(l) }), {
    clock,
    logs,
  });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}
type Started = Awaited<ReturnType<typeof started>>;

const created = (claim: KubeObject) => Date.parse(claim.metadata.creationTimestamp!);
const now = (sandbox: Started) => sandbox.clock.now().getTime();
/** The NodeClaims the drift commands created, in order. */
const replacements = (sandbox: Started) =>
  sandbox.simulator.disruptions
    .entries()
    .flatMap((e) => e.replacements);
const get = (sandbox: Started, name: string) => sandbox.kube.store.get(NODECLAIMS, name);
const health = (sandbox: Started) =>
  conditionOf(sandbox.kube.store.get(NODEPOOLS, 'general')!, 'NodeRegistrationHealthy');

/** Runs until the nth replacement exists (1-based), and returns it as first written. */
function untilReplacement(sandbox: Started, n: number): KubeObject {
  for (let s = 0; replacements(sandbox).length < n; s++) {
    if (s > 30 * 60) throw new Error(`no replacement ${n} within 30 simulated minutes`);
    run(sandbox, 1);
  }
  return get(sandbox, replacements(sandbox)[n - 1]!)!;
}

/** Runs until the NodeClaim is being deleted (or gone); the simulated time its deletion started. */
function untilDeleting(sandbox: Started, name: string): number {
  for (let s = 0; get(sandbox, name) && !get(sandbox, name)!.metadata.deletionTimestamp; s++) {
    if (s > 30 * 60) throw new Error(`${name} not deleted after 30 simulated minutes`);
    run(sandbox, 1);
  }
  return now(sandbox);
}

/** Runs until the NodeClaim is gone from the API; the simulated time it went. */
function untilGone(sandbox: Started, name: string): number {
  for (let s = 0; get(sandbox, name); s++) {
    if (s > 30 * 60) throw new Error(`${name} still there after 30 simulated minutes`);
    run(sandbox, 1);
  }
  return now(sandbox);
}

async function patchBudgets(sandbox: Started, nodes: string): Promise<void> {
  await customObjects(sandbox).patchClusterCustomObject(
    {
      group: 'karpenter.sh',
      version: 'v1',
      plural: 'nodepools',
      name: 'general',
      body: { spec: { disruption: { budgets: [{ nodes }] } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

describe('NodeClaim lifecycle conditions (operatorpkg condition_set.go For/Set; lifecycle/controller.go)', () => {
  it('stamps Launched, Registered, Initialized and Ready Unknown with the creationTimestamp at the first reconcile, and Registered keeps it after the launch', async () => {
    const sandbox = await started('{}');
    await pinToControlPlane(sandbox, 'default');
    untilReplacement(sandbox, 1);
    run(sandbox, 1);
    const claim = get(sandbox, replacements(sandbox)[0]!)!;
    const at = claim.metadata.creationTimestamp;
    expect(isTrue(claim, 'Launched')).toBe(false);
    expect(conditionOf(claim, 'Launched')).toMatchObject({
      status: 'Unknown',
      reason: 'AwaitingReconciliation',
      message: 'object is awaiting reconciliation',
      lastTransitionTime: at,
    });
    expect(conditionOf(claim, 'Registered')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeNotFound',
      message: 'Node not registered with cluster',
      lastTransitionTime: at,
    });
    expect(conditionOf(claim, 'Initialized')).toMatchObject({ status: 'Unknown', lastTransitionTime: at });
    expect(conditionOf(claim, 'Ready')).toMatchObject({ status: 'Unknown', lastTransitionTime: at });

    while (!isTrue(get(sandbox, claim.metadata.name!)!, 'Launched')) run(sandbox, 1);
    const launched = get(sandbox, claim.metadata.name!)!;
    expect(Date.parse(conditionOf(launched, 'Launched')!.lastTransitionTime)).toBe(now(sandbox));
    expect(now(sandbox)).toBeGreaterThan(created(claim));
    // Registered and Ready are still Unknown: their transition time is the creation's, which liveness counts from.
    expect(conditionOf(launched, 'Registered')).toMatchObject({ status: 'Unknown', lastTransitionTime: at });
    expect(conditionOf(launched, 'Ready')).toMatchObject({ status: 'Unknown', lastTransitionTime: at });
  });
});

describe('liveness (lifecycle/liveness.go)', () => {
  it('deletes a NodeClaim not registered 15 minutes after its creation, with its debug log line and no event; its instance is gone 5 s later', async () => {
    const sandbox = await started('{ neverRegisters: { nodePool: general } }');
    await pinToControlPlane(sandbox, 'default');
    const claim = untilReplacement(sandbox, 1);
    const name = claim.metadata.name!;
    run(sandbox, 5 * 60);
    expect(isTrue(get(sandbox, name)!, 'Launched')).toBe(true);
    expect(untilDeleting(sandbox, name) - created(claim)).toBe(15 * 60_000);
    expect(sandbox.logs.filter((l) => l.includes('terminating due to timeout'))).toEqual([
      `${sandbox.clock.wall().toISOString()} terminating due to timeout: nodeclaim ${name} (timeout=15m0s, reason=registration_timeout)`,
    ]);
    // lifecycle finalize, termination.EnsureTerminated: the instance's deletion is asked for, and found done when
    // looked at again 5 s later; then the finalizer goes.
    expect(isTrue(get(sandbox, name)!, 'InstanceTerminating')).toBe(true);
    expect(untilGone(sandbox, name) - created(claim)).toBe(15 * 60_000 + 5000);
    const reasons = sandbox.simulator.ctx.events.published.filter((e) => e.name === name).map((e) => e.reason);
    // Karpenter's own (and operatorpkg's transition event for Launched, Unknown -> True, and Finalized).
    expect(new Set(reasons)).toEqual(new Set(['DisruptionLaunching', 'DisruptionWaitingReadiness', 'DisruptionBlocked', 'Launched', 'Finalized']));
    // Every disruption pass validates it (statenode.go ValidateNodeDisruptable): published every 2 minutes, 8 times
    // in its 15 unregistered minutes.
    const blocked = sandbox.simulator.ctx.events.published.filter((e) => e.name === name && e.reason === 'DisruptionBlocked');
    expect(new Set(blocked.map((e) => e.message))).toEqual(new Set(['Nodeclaim does not have an associated node']));
    expect(blocked).toHaveLength(8);
  });

  it('deletes a NodeClaim whose launch keeps failing 5 minutes after its creation (not after its first attempt)', async () => {
    const sandbox = await started(LAUNCH_FAILS);
    await pinToControlPlane(sandbox, 'default');
    const claim = untilReplacement(sandbox, 1);
    const name = claim.metadata.name!;
    run(sandbox, 2 * 60);
    expect(conditionOf(get(sandbox, name)!, 'Launched')).toMatchObject({
      status: 'Unknown',
      reason: 'LaunchFailed',
      lastTransitionTime: claim.metadata.creationTimestamp,
    });
    expect(untilGone(sandbox, name) - created(claim)).toBe(5 * 60_000);
    expect(sandbox.logs.some((l) => l.endsWith(`nodeclaim ${name} (timeout=5m0s, reason=launch_timeout)`))).toBe(true);
  });
});

describe('NodeClaims gone', () => {
  it('leave nothing in the simulator’s memory: one refused with InsufficientCapacityError is forgotten with its deletion', async () => {
    const sandbox = await started('{ launchFailures: { nodePool: general, count: 1, reason: InsufficientCapacityError } }');
    await pinToControlPlane(sandbox, 'default');
    const name = untilReplacement(sandbox, 1).metadata.name!;
    untilGone(sandbox, name);
    const memory = sandbox.simulator.ctx.memory;
    expect([memory.lifecycle.has(name), memory.nominatedUntil.has(name), memory.createdAt.has(name)]).toEqual([false, false, false]);
  });
});

describe('passes far apart (a fast clock, a busy machine)', () => {
  it('launches a NodeClaim whose launch fell due before its launch deadline, and registers one due before its registration deadline, when one pass sees both due', async () => {
    const sandbox = await started('{}');
    await pinToControlPlane(sandbox, 'default');
    const name = untilReplacement(sandbox, 1).metadata.name!;
    // The next pass comes 6 minutes later: the launch (due 60 s after the creation) before liveness's 5 minutes.
    sandbox.clock.advance(6 * 60_000);
    sandbox.simulator.pass();
    expect(isTrue(get(sandbox, name)!, 'Launched')).toBe(true);
    // And 10 minutes later: the registration (30–90 s after the launch) before the 15 minutes since the creation.
    sandbox.clock.advance(10 * 60_000);
    sandbox.simulator.pass();
    expect(isTrue(get(sandbox, name)!, 'Registered')).toBe(true);
    expect(sandbox.logs.filter((l) => l.includes('terminating due to timeout'))).toEqual([]);
  });

  it('still deletes one not launched by its deadline, when the pass that sees it comes later', async () => {
    const sandbox = await started(LAUNCH_FAILS);
    await pinToControlPlane(sandbox, 'default');
    const name = untilReplacement(sandbox, 1).metadata.name!;
    sandbox.clock.advance(6 * 60_000);
    sandbox.simulator.pass();
    expect(get(sandbox, name)?.metadata.deletionTimestamp ?? 'gone').toBeTruthy();
    expect(sandbox.logs.some((l) => l.endsWith(`nodeclaim ${name} (timeout=5m0s, reason=launch_timeout)`))).toBe(true);
  });
});

describe('a failed disruption command (disruption/queue.go waitOrTerminate, Reconcile)', () => {
  it('fails once the replacement is gone: the old NodeClaim loses its taint and DisruptionReason, stays, and the next poll picks it again without back-off', async () => {
    const sandbox = await started(LAUNCH_FAILS);
    await pinToControlPlane(sandbox, 'default');
    const store = sandbox.kube.store;
    const first = untilReplacement(sandbox, 1);
    run(sandbox, 1);
    const [entry] = sandbox.simulator.disruptions.entries();
    const old = () => get(sandbox, entry!.nodeClaim)!;
    const node = () => store.get('nodes', entry!.node)!;
    const tainted = () => ((node().spec as { taints?: Array<{ key: string }> }).taints ?? []).map((t) => t.key);
    expect(conditionOf(old(), 'DisruptionReason')).toMatchObject({ status: 'True', reason: 'Drifted', message: 'Drifted' });
    expect(tainted()).toEqual(['karpenter.sh/disrupted']);

    // A replacement deleted but still held by a finalizer is found, so waited on: the command stands.
    const name = first.metadata.name!;
    while (!get(sandbox, name)!.metadata.deletionTimestamp) {
      const c = get(sandbox, name)!;
      if (!c.metadata.finalizers?.includes('example.com/hold'))
        store.update(NODECLAIMS, { ...c, metadata: { ...c.metadata, finalizers: [...c.metadata.finalizers!, 'example.com/hold'] } });
      run(sandbox, 1);
    }
    run(sandbox, 30);
    expect(sandbox.simulator.disruptions.entries()[0]!.failed).toBeUndefined();
    expect(conditionOf(old(), 'DisruptionReason')?.status).toBe('True');

    // Gone: the command fails at the queue's next look, a second later at most: the taint and DisruptionReason are
    // removed (a disruption pass due in that same second may pick the node again at once: watch the writes).
    const writes: KubeObject[] = [];
    const unsubscribe = store.objects.subscribe((change) => {
      if (change.object.metadata.name === entry!.nodeClaim || change.object.metadata.name === entry!.node) writes.push(change.object);
    });
    const c = get(sandbox, name)!;
    store.update(NODECLAIMS, { ...c, metadata: { ...c.metadata, finalizers: [] } });
    expect(get(sandbox, name)).toBeUndefined();
    run(sandbox, 1);
    unsubscribe();
    const failedAt = now(sandbox);
    expect(Date.parse(sandbox.simulator.disruptions.entries()[0]!.failed!)).toBe(failedAt);
    expect(sandbox.logs).toContainEqual(
      `${new Date(failedAt).toISOString()} failed terminating nodes while executing a disruption command: replacement was deleted, nodeclaims.karpenter.sh "${name}" not found`,
    );
    expect(writes.some((o) => o.kind === 'NodeClaim' && !conditionOf(o, 'DisruptionReason'))).toBe(true);
    expect(writes.some((o) => o.kind === 'Node' && ((o.spec as { taints?: unknown[] }).taints ?? []).length === 0)).toBe(true);
    expect(old().metadata.deletionTimestamp).toBeUndefined();
    expect(conditionOf(old(), 'Drifted')?.status).toBe('True');

    // The next disruption poll (every 10 s) takes the same node first, its drift being the oldest: no back-off.
    const second = untilReplacement(sandbox, 2);
    expect(now(sandbox) - failedAt).toBeLessThanOrEqual(10_000);
    expect(sandbox.simulator.disruptions.entries()[1]!.nodeClaim).toBe(entry!.nodeClaim);
    expect(second.metadata.name).not.toBe(name);
    expect(conditionOf(old(), 'DisruptionReason')?.status).toBe('True');
  });
});

describe('NodeRegistrationHealthy (state/nodepoolhealth, nodepool/registrationhealth)', () => {
  it('goes False at the second failed launch of the last 4, not the first; a NodePool write resets it to Unknown and clears the buffer', async () => {
    const sandbox = await started(LAUNCH_FAILS);
    const store = sandbox.kube.store;
    run(sandbox, 1);
    // The first reconcile of a NodePool without the condition, whose nodes registered before: True, with its class's
    // generation recorded.
    expect(health(sandbox)).toMatchObject({ status: 'True', reason: 'NodeRegistrationHealthy' });
    expect((store.get(NODEPOOLS, 'general')!.status as { nodeClassObservedGeneration?: number }).nodeClassObservedGeneration).toBe(1);
    await pinToControlPlane(sandbox, 'default');
    run(sandbox, 1);
    const generation = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!.metadata.generation;
    expect(generation).toBe(2);
    expect((store.get(NODEPOOLS, 'general')!.status as { nodeClassObservedGeneration?: number }).nodeClassObservedGeneration).toBe(2);

    untilGone(sandbox, untilReplacement(sandbox, 1).metadata.name!);
    expect(health(sandbox)).toMatchObject({ status: 'Unknown', reason: 'AwaitingReconciliation' });
    untilGone(sandbox, untilReplacement(sandbox, 2).metadata.name!);
    // liveness.go: the failed launch's own reason and message.
    expect(health(sandbox)).toMatchObject({
      status: 'False',
      reason: 'LaunchFailed',
      message: 'creating instance, LaunchFailed',
    });

    // A budget write (what a pacer does) bumps the NodePool's generation: Unknown again, and the buffer empty, so the
    // next failure alone does not make it False.
    await patchBudgets(sandbox, '1');
    run(sandbox, 1);
    expect(health(sandbox)).toMatchObject({
      status: 'Unknown',
      reason: 'AwaitingReconciliation',
      observedGeneration: store.get(NODEPOOLS, 'general')!.metadata.generation,
    });
    untilGone(sandbox, untilReplacement(sandbox, 3).metadata.name!);
    expect(health(sandbox)?.status).toBe('Unknown');
    untilGone(sandbox, untilReplacement(sandbox, 4).metadata.name!);
    expect(health(sandbox)?.status).toBe('False');
  });

  it('goes True when a node registers, and a change of the EC2NodeClass resets it', async () => {
    const sandbox = await started('{}');
    await pinToControlPlane(sandbox, 'default');
    const claim = untilReplacement(sandbox, 1);
    while (!isTrue(get(sandbox, claim.metadata.name!)!, 'Registered')) run(sandbox, 1);
    // registration.go sets it, before the node initializes.
    expect(isTrue(get(sandbox, claim.metadata.name!)!, 'Initialized')).toBe(false);
    expect(health(sandbox)).toMatchObject({ status: 'True', reason: 'NodeRegistrationHealthy' });
    await customObjects(sandbox).patchClusterCustomObject(
      {
        group: 'karpenter.k8s.aws',
        version: 'v1',
        plural: 'ec2nodeclasses',
        name: 'default',
        body: { spec: { tags: { team: 'platform' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    run(sandbox, 1);
    expect(health(sandbox)).toMatchObject({ status: 'Unknown', reason: 'AwaitingReconciliation' });
    expect(claimsOf(sandbox, 'general').length).toBeGreaterThan(0);
  });

  it('by release: v1.4–v1.7 set False at the first failure while Unknown; before v1.4 (v1beta1 included) there is no such condition', async () => {
    const v17 = await started(LAUNCH_FAILS, '1.7.1');
    await pinToControlPlane(v17, 'default');
    untilGone(v17, untilReplacement(v17, 1).metadata.name!);
    expect(health(v17)).toMatchObject({ status: 'False', reason: 'LaunchFailed' });

    const v37 = await started(LAUNCH_FAILS, '0.37.8');
    await pinToControlPlane(v37, 'default');
    untilGone(v37, untilReplacement(v37, 1).metadata.name!);
    untilGone(v37, untilReplacement(v37, 2).metadata.name!);
    expect(health(v37)).toBeUndefined();
    expect(v37.kube.store.get(NODEPOOLS, 'general')!.status).not.toHaveProperty('nodeClassObservedGeneration');
  });
});
