// The NodeClaim lifecycle (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/{launch,registration,
// initialization,liveness}.go): Launched (EC2 answered, status.imageID set) → Registered (the kubelet's Node appeared)
// → Initialized (Node Ready, karpenter.sh/initialized) → Ready. The first reconcile writes all four Unknown, stamped
// with the NodeClaim's creationTimestamp (operatorpkg's ConditionSet initialises dependent conditions so, and a
// condition's lastTransitionTime moves only when its status does). Launch failures, as launch.go and the AWS
// provider's Create treat them: insufficient capacity publishes `InsufficientCapacityError` and deletes the claim; a
// class with Ready=False (NodeClassNotReady) deletes it with a log line only; a class with Ready=Unknown, or any other
// create error, leaves Launched=Unknown with the error's reason. Liveness (liveness.go) measures from those
// lastTransitionTimes, so from the creation: a claim not launched 5 minutes after it, or not registered 15 minutes
// after it, is deleted, with the log line "terminating due to timeout" and no event. Each registration and each
// deletion by liveness is an outcome for the NodePool's NodeRegistrationHealthy (registration-health.ts).
import type { KubeObject } from '../kube-api/types.js';
import { badAmiSymptom, CNI_NOT_READY, ENA_REQUIRED, imageSymptom, LAUNCH_FAILED, scheduleNotReady } from './bad-ami.js';
import {
  EC2NODECLASSES,
  NODECLAIMS,
  setConditions,
  spec,
  status,
  type LifecyclePhase as Phase,
  type SimContext,
  writeObject,
} from './context.js';
import { chosenAmi, type StatusAmi } from './drift-controller.js';
import {
  conditionOf,
  isTrue,
  launchedStatus,
  nodeInfoForImage,
  nodeObject,
  nodeReadyCondition,
  rfc3339,
  ZONES,
} from './objects.js';
import { nodeClassReady } from './nodeclass-controller.js';
import { recordLaunchOutcome } from './registration-health.js';
import { instanceTypeOf, newInstance } from './replacement.js';
import { LAUNCH_TTL_MS } from '../../karpenter/lifecycle.js';

const ICE = 'InsufficientCapacityError';
/** The kubelet's until its node is Ready (TaintNodesByCondition), and Karpenter's until it registers the Node (v1). */
const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' } as const;
const UNREGISTERED_TAINT = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' } as const;

type Taint = { key: string; value?: string; effect: string };
const taintsOf = (node: KubeObject): Taint[] => spec<{ taints?: Taint[] }>(node).taints ?? [];

/** The taints a new Node registers with: v1beta1 Karpenter had no unregistered taint. */
function startupTaints(ctx: SimContext): Taint[] {
  return ctx.karpenterApi === 'v1' ? [{ ...NOT_READY_TAINT }, { ...UNREGISTERED_TAINT }] : [{ ...NOT_READY_TAINT }];
}
const AWAITING = { status: 'Unknown', reason: 'AwaitingReconciliation', message: 'object is awaiting reconciliation' } as const;

export function reconcileLifecycle(ctx: SimContext): void {
  for (const listed of ctx.store.list(NODECLAIMS)) {
    if (listed.metadata.deletionTimestamp || isTrue(listed, 'Initialized')) continue;
    if (ctx.budget.exhausted()) return;
    let claim = listed;
    const name = claim.metadata.name ?? '';
    const now = ctx.clock.now().getTime();
    let phase = ctx.memory.lifecycle.get(name);
    if (!phase) {
      const createdAt = ctx.memory.createdAt.get(name) ?? now;
      phase = { createdAt, launchAt: createdAt + ctx.timing.launchSeconds * 1000 };
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
      if (!conditionOf(claim, 'Launched')) claim = stampConditions(ctx, claim);
    }
    // What fell due first happens first, however late the pass that sees it comes (a fast clock makes passes
    // minutes apart): a launch or a registration due before liveness's deadline is made, and liveness deletes only a
    // claim still not launched, or not registered, at its deadline.
    if (!isTrue(claim, 'Launched')) {
      if (now >= phase.launchAt && phase.launchAt - phase.createdAt < LAUNCH_TTL_MS) {
        launch(ctx, claim, phase, now);
        const after = ctx.store.get(NODECLAIMS, name);
        if (after === undefined) continue; // refused for good: deleted
        claim = after;
      }
      if (!isTrue(claim, 'Launched') && now - phase.createdAt >= LAUNCH_TTL_MS) timeOut(ctx, claim, 'launch_timeout', LAUNCH_TTL_MS);
    } else if (!isTrue(claim, 'Registered')) {
      const timeout = ctx.timing.registrationTimeoutMinutes * 60_000;
      const due = phase.registerAt !== undefined && phase.registerAt - phase.createdAt < timeout;
      if (due || now - phase.createdAt < timeout) register(ctx, claim, phase, now);
      claim = ctx.store.get(NODECLAIMS, name) ?? claim;
      if (!isTrue(claim, 'Registered') && now - phase.createdAt >= timeout) timeOut(ctx, claim, 'registration_timeout', timeout);
    } else if (phase.initializeAt !== undefined && now >= phase.initializeAt) {
      initialize(ctx, claim);
      ctx.memory.lifecycle.delete(name);
    }
  }
}

/**
 * The first reconcile of a NodeClaim: operatorpkg's `ConditionSet.For` sets Ready, Launched, Registered and Initialized
 * Unknown with the object's creationTimestamp as their lastTransitionTime, and registration.go finds no Node yet.
 */
function stampConditions(ctx: SimContext, claim: KubeObject): KubeObject {
  const created = new Date(claim.metadata.creationTimestamp ?? ctx.clock.wall().toISOString());
  return setConditions(
    ctx,
    NODECLAIMS,
    claim,
    [
      { type: 'Launched', ...AWAITING },
      { type: 'Registered', status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
      { type: 'Initialized', ...AWAITING },
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'ReconcilingDependents',
        message: 'Launched=Unknown, Registered=Unknown, Initialized=Unknown',
      },
    ],
    {},
    created,
  );
}

function launch(ctx: SimContext, claim: KubeObject, phase: Phase, now: number): void {
  const name = claim.metadata.name ?? '';
  const instanceType = instanceTypeOf(claim);
  const zone = claim.metadata.labels?.['topology.kubernetes.io/zone'] ?? ZONES[0].zone;
  const nodeClass = ctx.store.get(
    EC2NODECLASSES,
    spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '',
  );
  const ready = nodeClass ? nodeClassReady(ctx, nodeClass) : undefined;
  if (!nodeClass)
    return insufficientCapacity(ctx, claim, 'resolving node class, ec2nodeclasses.karpenter.k8s.aws not found');
  if (ready?.status === 'False') {
    // NodeClassNotReadyError: launch.go logs it and deletes the claim; there is no event.
    ctx.log(`failed launching nodeclaim ${name}: ${ready.message}`);
    ctx.store.delete(NODECLAIMS, name);
    return;
  }
  if (ready?.status !== 'True')
    return launchFailed(ctx, claim, 'NodeClassReadinessUnknown', 'NodeClass is in Ready=Unknown');
  if (phase.fail === ICE) {
    return insufficientCapacity(
      ctx,
      claim,
      `creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient ${instanceType.name} capacity in the Availability Zone you requested (${zone}).`,
    );
  }
  if (phase.fail) return launchFailed(ctx, claim, phase.fail, `creating instance, ${phase.fail}`);
  const ami = chosenAmi(status<{ amis?: StatusAmi[] }>(nodeClass).amis ?? [], claim.metadata.labels ?? {});
  // No AMI fits the instance type: the provider filters that type out and has nothing left to launch.
  if (!ami) return insufficientCapacity(ctx, claim, 'all requested instance types were unavailable during launch');
  // A bad AMI EC2 will not launch: CreateFleet answers with a fleet error that is not about capacity, which the
  // provider returns as a CreateError (combineFleetErrors) and launch.go records on Launched; the reconcile fails and
  // is retried with back-off, each attempt failing alike, until liveness deletes the claim.
  if (imageSymptom(ctx, claim, ami.id) === 'launch-fails')
    return launchFailed(ctx, claim, LAUNCH_FAILED.reason, LAUNCH_FAILED.message, ENA_REQUIRED(instanceType.name));
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

/**
 * Any other create error: Launched=Unknown with the error's reason (its lastTransitionTime stays the creation's, the
 * status being Unknown already), retried until liveness gives up on it. The reconcile's error is logged once.
 */
function launchFailed(ctx: SimContext, claim: KubeObject, reason: string, message: string, error = message): void {
  const name = claim.metadata.name ?? '';
  const launched = conditionOf(claim, 'Launched');
  if (launched?.reason !== reason || launched.message !== message) {
    setConditions(ctx, NODECLAIMS, claim, [{ type: 'Launched', status: 'Unknown', reason, message }]);
    ctx.log(`reconciler error: nodeclaim ${name}: launching nodeclaim, creating nodeclaim, ${error}`);
  }
}

/**
 * liveness.go: the launch's outcome for NodeRegistrationHealthy, then the claim deleted, logged (at debug) with the
 * timeout and its reason; Karpenter publishes no event for it.
 */
function timeOut(
  ctx: SimContext,
  claim: KubeObject,
  reason: 'launch_timeout' | 'registration_timeout',
  timeoutMs: number,
): void {
  const name = claim.metadata.name ?? '';
  recordLaunchOutcome(ctx, claim, false);
  ctx.store.delete(NODECLAIMS, name);
  ctx.memory.lifecycle.delete(name);
  ctx.log(`terminating due to timeout: nodeclaim ${name} (timeout=${goMinutes(timeoutMs)}, reason=${reason})`);
}

/** A whole number of minutes as Go's time.Duration prints it: 15m0s. */
const goMinutes = (ms: number): string => `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;

function register(ctx: SimContext, claim: KubeObject, phase: Phase, now: number): void {
  const name = claim.metadata.name ?? '';
  const p = phase;
  const pool = claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
  // The instance runs but its kubelet never joins (the neverRegisters fault, or a bad AMI with that symptom): liveness
  // deletes the claim at the registration timeout.
  const symptom = badAmiSymptom(ctx, claim);
  if (ctx.faults.neverRegisters?.nodePool === pool || symptom === 'never-registers') return;
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
  // A never-ready AMI's kubelet registers the Node, but its CNI never comes up: NotReady from the start.
  if (symptom === 'never-ready') {
    const t = rfc3339(ctx.clock.wall());
    const notReady = { ...nodeReadyCondition(false, ctx.clock.wall()), message: CNI_NOT_READY, lastHeartbeatTime: t };
    node.status = { ...(node.status as object), conditions: [notReady] };
  }
  // The kubelet registers with the taints it and Karpenter's user data ask for, not ready and not registered yet;
  // Karpenter's registration then labels the Node registered and removes its unregistered taint (registration.go).
  const { 'karpenter.sh/registered': _registered, ...kubeletLabels } = node.metadata.labels ?? {};
  const created = ctx.store.create(
    'nodes',
    { ...node, metadata: { ...node.metadata, labels: kubeletLabels }, spec: { ...(node.spec as object), taints: startupTaints(ctx) } },
    { wholeObject: true, manager: 'kubelet' },
  );
  // Registration also syncs the NodeClaim's labels (its NodePool template's among them) onto the Node.
  writeObject(ctx, 'nodes', {
    ...created,
    metadata: { ...created.metadata, labels: { ...created.metadata.labels, ...claim.metadata.labels, 'karpenter.sh/registered': 'true' } },
    spec: { ...(created.spec as object), taints: taintsOf(created).filter((t) => t.key !== UNREGISTERED_TAINT.key) },
  });
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
  // A Node that is never Ready is never initialized (initialization.go keeps Initialized Unknown NodeNotReady).
  const initializeAt = symptom === 'never-ready' ? undefined : now + ctx.timing.initializeSeconds * 1000;
  ctx.memory.lifecycle.set(name, { ...p, initializeAt });
  ctx.log(`registered nodeclaim ${name}: node ${p.nodeName}`);
  recordLaunchOutcome(ctx, claim, true);
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
  // The node lifecycle controller takes the not-ready taint off a Ready node; then Karpenter, finding no ephemeral
  // taint left, initializes it (initialization.go).
  const untainted = ctx.store.update(
    'nodes',
    { ...ready, spec: { ...(ready.spec as object), taints: taintsOf(ready).filter((t) => t.key !== NOT_READY_TAINT.key) } },
    { manager: 'kube-controller-manager' },
  );
  ctx.store.update(
    'nodes',
    {
      ...untainted,
      metadata: { ...untainted.metadata, labels: { ...untainted.metadata.labels, 'karpenter.sh/initialized': 'true' } },
    },
    { manager: 'karpenter' },
  );
  setConditions(ctx, NODECLAIMS, claim, [
    { type: 'Initialized', status: 'True', reason: 'Initialized', message: '' },
    { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
    // The consistency controller checks an initialized NodeClaim against its Node (consistency/controller.go).
    { type: 'ConsistentStateFound', status: 'True', reason: 'ConsistentStateFound', message: '' },
  ]);
  ctx.log(`initialized nodeclaim ${claim.metadata.name}: node ${nodeName}`);
  // A bad AMI's broken CNI shows only after the node has joined and taken pods.
  if (badAmiSymptom(ctx, claim) === 'not-ready') scheduleNotReady(ctx, nodeName);
}
