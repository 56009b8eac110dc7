// The NodeClaim lifecycle (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/{launch,registration,
// initialization,liveness}.go): Launched (EC2 answered, status.imageID set) → Registered (the kubelet's Node appeared)
// → Initialized (Node Ready, karpenter.sh/initialized) → Ready. Launch failures, as launch.go and the AWS provider's
// Create treat them: insufficient capacity publishes `InsufficientCapacityError` and deletes the claim; a class with
// Ready=False (NodeClassNotReady) deletes it with a log line only; a class with Ready=Unknown, or any other create
// error, leaves Launched=Unknown with the error's reason until the launch timeout (5 minutes). Liveness deletes a
// claim not launched by then, or not registered 15 minutes after its Registered condition was set (at launch), and
// sets the NodePool's NodeRegistrationHealthy=False.
import type { KubeObject } from '../kube-api/types.js';
import { badAmiSymptom, scheduleNotReady } from './bad-ami.js';
import {
  EC2NODECLASSES,
  NODECLAIMS,
  NODEPOOLS,
  setConditions,
  spec,
  status,
  type LifecyclePhase as Phase,
  type SimContext,
} from './context.js';
import { chosenAmi, type StatusAmi } from './drift-controller.js';
import {
  conditionOf,
  isTrue,
  launchedStatus,
  nodeInfoForImage,
  nodeObject,
  nodeReadyCondition,
  ZONES,
  type Condition,
} from './objects.js';
import { instanceTypeOf, newInstance } from './replacement.js';
import { LAUNCH_TTL_MS } from '../../karpenter/lifecycle.js';

const ICE = 'InsufficientCapacityError';

export function reconcileLifecycle(ctx: SimContext): void {
  for (const claim of ctx.store.list(NODECLAIMS)) {
    if (claim.metadata.deletionTimestamp || isTrue(claim, 'Initialized')) continue;
    if (ctx.budget.exhausted()) return;
    const name = claim.metadata.name ?? '';
    const now = ctx.clock.now().getTime();
    let phase = ctx.memory.lifecycle.get(name);
    if (!phase) {
      phase = { launchAt: now + ctx.timing.launchSeconds * 1000 };
      const failures = ctx.faults.launchFailures;
      if (
        failures &&
        ctx.memory.launchFailuresLeft > 0 &&
        claim.metadata.labels?.['karpenter.sh/nodepool'] === failures.nodePool
      ) {
        ctx.memory.launchFailuresLeft -= 1;
        phase.fail = failures.reason;
      }
      ctx.memory.lifecycle.set(name, phase);
      ctx.log(`created nodeclaim ${name}`);
    }
    if (!isTrue(claim, 'Launched')) {
      if (phase.launchFailedAt !== undefined && now - phase.launchFailedAt >= LAUNCH_TTL_MS)
        timeOut(ctx, claim, 'launch_timeout');
      else if (now >= phase.launchAt) launch(ctx, claim, phase, now);
    } else if (!isTrue(claim, 'Registered')) {
      if (now - (phase.launchedAt ?? now) >= ctx.timing.registrationTimeoutMinutes * 60_000)
        timeOut(ctx, claim, 'registration_timeout');
      else register(ctx, claim, phase, now);
    } else if (phase.initializeAt !== undefined && now >= phase.initializeAt) {
      initialize(ctx, claim);
      ctx.memory.lifecycle.delete(name);
    }
  }
}

function launch(ctx: SimContext, claim: KubeObject, phase: Phase, now: number): void {
  const name = claim.metadata.name ?? '';
  const instanceType = instanceTypeOf(claim);
  const zone = claim.metadata.labels?.['topology.kubernetes.io/zone'] ?? ZONES[0].zone;
  const nodeClass = ctx.store.get(
    EC2NODECLASSES,
    spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '',
  );
  const ready = nodeClass ? conditionOf(nodeClass, 'Ready') : undefined;
  if (!nodeClass)
    return insufficientCapacity(ctx, claim, 'resolving node class, ec2nodeclasses.karpenter.k8s.aws not found');
  if (ready?.status === 'False') {
    // NodeClassNotReadyError: launch.go logs it and deletes the claim; there is no event.
    ctx.log(`failed launching nodeclaim ${name}: ${ready.message}`);
    ctx.store.delete(NODECLAIMS, name);
    return;
  }
  if (ready?.status !== 'True')
    return launchFailed(ctx, claim, phase, now, 'NodeClassReadinessUnknown', 'NodeClass is in Ready=Unknown');
  if (phase.fail === ICE) {
    return insufficientCapacity(
      ctx,
      claim,
      `creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient ${instanceType.name} capacity in the Availability Zone you requested (${zone}).`,
    );
  }
  if (phase.fail) return launchFailed(ctx, claim, phase, now, phase.fail, `creating instance, ${phase.fail}`);
  const ami = chosenAmi(status<{ amis?: StatusAmi[] }>(nodeClass).amis ?? [], claim.metadata.labels ?? {});
  // No AMI fits the instance type: the provider filters that type out and has nothing left to launch.
  if (!ami) return insufficientCapacity(ctx, claim, 'all requested instance types were unavailable during launch');
  const zoneIndex = zoneIndexOf(zone);
  const { instanceId, nodeName } = newInstance(ctx, zoneIndex);
  const launched = launchedStatus(
    { name, nodePool: { name: '', uid: '' }, nodeClass: '', instanceType, zoneIndex, nodeName, instanceId },
    ami.id,
  );
  setConditions(
    ctx,
    NODECLAIMS,
    claim,
    [
      { type: 'Launched', status: 'True', reason: 'Launched', message: '' },
      { type: 'Registered', status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
      { type: 'Initialized', status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'ReconcilingDependents',
        message: 'Registered=Unknown, Initialized=Unknown',
      },
    ],
    launched,
  );
  const [lo, hi] = ctx.timing.registerSeconds;
  ctx.memory.lifecycle.set(name, {
    ...phase,
    registerAt: now + (lo + ctx.rng.next() * (hi - lo)) * 1000,
    nodeName,
    launchedAt: now,
  });
  ctx.log(`launched nodeclaim ${name}: ${instanceType.name} ${ami.id} (${ami.name ?? ''})`);
}

/** An InsufficientCapacityError: the event on the NodeClaim, the error log line, and the claim deleted (launch.go). */
function insufficientCapacity(ctx: SimContext, claim: KubeObject, error: string): void {
  const name = claim.metadata.name ?? '';
  ctx.events.publish({ object: claim, type: 'Warning', reason: ICE, message: `NodeClaim ${name} event: ${error}` });
  ctx.log(`failed launching nodeclaim ${name}: ${error}`);
  ctx.store.delete(NODECLAIMS, name);
}

/** Any other create error: Launched=Unknown with the error's reason, retried until liveness gives up on it. */
function launchFailed(
  ctx: SimContext,
  claim: KubeObject,
  phase: Phase,
  now: number,
  reason: string,
  message: string,
): void {
  const name = claim.metadata.name ?? '';
  const launched = conditionOf(claim, 'Launched');
  if (launched?.reason !== reason || launched.message !== message) {
    setConditions(ctx, NODECLAIMS, claim, [{ type: 'Launched', status: 'Unknown', reason, message }]);
    ctx.memory.lifecycle.set(name, { ...phase, launchFailedAt: now });
    ctx.log(`launching nodeclaim ${name}: ${message}`);
  }
}

/** liveness.go: NodeRegistrationHealthy=False on the NodePool, then the claim is deleted. */
function timeOut(ctx: SimContext, claim: KubeObject, reason: 'launch_timeout' | 'registration_timeout'): void {
  const name = claim.metadata.name ?? '';
  const launched = conditionOf(claim, 'Launched');
  setRegistrationHealth(
    ctx,
    claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '',
    false,
    launched?.status === 'True' ? undefined : launched,
  );
  ctx.store.delete(NODECLAIMS, name);
  ctx.memory.lifecycle.delete(name);
  ctx.log(`terminating due to timeout: nodeclaim ${name} (${reason})`);
}

function register(ctx: SimContext, claim: KubeObject, phase: Phase, now: number): void {
  const name = claim.metadata.name ?? '';
  const p = phase;
  const pool = claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
  // The instance runs but its kubelet never joins (the neverRegisters fault, or a bad AMI with that symptom): liveness
  // deletes the claim at the registration timeout.
  if (ctx.faults.neverRegisters?.nodePool === pool || badAmiSymptom(ctx, claim) === 'never-registers') return;
  if (p.registerAt === undefined || now < p.registerAt || !p.nodeName) return;
  const s = status<{ imageID?: string; providerID?: string }>(claim);
  const image = ctx.catalog.images.get(s.imageID ?? '');
  const kubernetesVersion = /-(1\.\d+)-/.exec(image?.name ?? '')?.[1] ?? ctx.controlPlaneVersion;
  const info = nodeInfoForImage(image?.name ?? '', kubernetesVersion);
  const zone = claim.metadata.labels?.['topology.kubernetes.io/zone'];
  const node = nodeObject({
    name,
    nodePool: { name: pool, uid: '' },
    nodeClass: claim.metadata.labels?.['karpenter.k8s.aws/ec2nodeclass'] ?? '',
    instanceType: instanceTypeOf(claim),
    zoneIndex: zoneIndexOf(zone),
    nodeName: p.nodeName,
    instanceId: (s.providerID ?? '').split('/').pop() ?? '',
    nodeClaimUid: claim.metadata.uid ?? '',
    initialized: false,
    ready: false,
    ...info,
  });
  ctx.store.create('nodes', node, { wholeObject: true, manager: 'kubelet' });
  setConditions(
    ctx,
    NODECLAIMS,
    claim,
    [
      { type: 'Registered', status: 'True', reason: 'Registered', message: '' },
      { type: 'Initialized', status: 'Unknown', reason: 'NodeNotReady', message: 'Node status is NotReady' },
    ],
    { nodeName: p.nodeName },
  );
  ctx.memory.lifecycle.set(name, { ...p, initializeAt: now + ctx.timing.initializeSeconds * 1000 });
  ctx.log(`registered nodeclaim ${name}: node ${p.nodeName}`);
}

/** The index of a NodeClaim's zone label among the sandbox's zones (the first for an unknown one). */
const zoneIndexOf = (zone: string | undefined): number =>
  Math.max(
    0,
    ZONES.findIndex((z) => z.zone === zone),
  );

function initialize(ctx: SimContext, claim: KubeObject): void {
  const nodeName = status<{ nodeName?: string }>(claim).nodeName ?? '';
  const node = ctx.store.get('nodes', nodeName);
  if (!node) return;
  const now = ctx.clock.wall();
  const ready = ctx.store.update(
    'nodes',
    { ...node, status: { ...status<Record<string, unknown>>(node), conditions: [nodeReadyCondition(true, now)] } },
    { subresource: 'status', manager: 'kubelet' },
  );
  ctx.store.update(
    'nodes',
    {
      ...ready,
      metadata: { ...ready.metadata, labels: { ...ready.metadata.labels, 'karpenter.sh/initialized': 'true' } },
    },
    { manager: 'karpenter' },
  );
  setConditions(ctx, NODECLAIMS, claim, [
    { type: 'Initialized', status: 'True', reason: 'Initialized', message: '' },
    { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
  ]);
  setRegistrationHealth(ctx, claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '', true);
  ctx.log(`initialized nodeclaim ${claim.metadata.name}: node ${nodeName}`);
  // A bad AMI's broken CNI shows only after the node has joined and taken pods.
  if (badAmiSymptom(ctx, claim) === 'not-ready') scheduleNotReady(ctx, nodeName);
}

/**
 * The NodePool's NodeRegistrationHealthy (liveness.go, registration.go): False with RegistrationFailed "Failed to
 * register node" when a launched claim never registered, or with the Launched condition's reason and message when
 * the launch itself timed out; True again once a node registers.
 */
export function setRegistrationHealth(
  ctx: SimContext,
  poolName: string,
  healthy: boolean,
  launchFailure?: Condition,
): void {
  const pool = ctx.store.get(NODEPOOLS, poolName);
  if (!pool) return;
  const current = conditionOf(pool, 'NodeRegistrationHealthy');
  if (current?.status === (healthy ? 'True' : 'False')) return;
  setConditions(ctx, NODEPOOLS, pool, [
    healthy
      ? { type: 'NodeRegistrationHealthy', status: 'True', reason: 'NodeRegistrationHealthy', message: '' }
      : launchFailure !== undefined
        ? {
            type: 'NodeRegistrationHealthy',
            status: 'False',
            reason: launchFailure.reason,
            message: launchFailure.message,
          }
        : {
            type: 'NodeRegistrationHealthy',
            status: 'False',
            reason: 'RegistrationFailed',
            message: 'Failed to register node',
          },
  ]);
}
