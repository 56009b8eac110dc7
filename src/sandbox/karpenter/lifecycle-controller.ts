// The NodeClaim lifecycle (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/{launch,registration,
// initialization,liveness}.go): Launched (EC2 answered, status.imageID set) → Registered (the kubelet's Node appeared)
// → Initialized (Node Ready, karpenter.sh/initialized) → Ready. Faults: an insufficient-capacity launch deletes the
// claim; a Node that never registers is deleted at the registration TTL (15 minutes) and the NodePool reports
// NodeRegistrationHealthy=False.
import type { KubeObject } from '../kube-api/types.js';
import { EC2NODECLASSES, NODECLAIMS, NODEPOOLS, setConditions, spec, status, type LifecyclePhase as Phase, type SimContext } from './context.js';
import { chosenAmi, type StatusAmi } from './drift-controller.js';
import { conditionOf, isTrue, launchedStatus, nodeInfoForImage, nodeObject, nodeReadyCondition, ZONES } from './objects.js';
import { instanceTypeOf, newInstance } from './replacement.js';


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
      if (failures && ctx.memory.launchFailuresLeft > 0 && claim.metadata.labels?.['karpenter.sh/nodepool'] === failures.nodePool) {
        ctx.memory.launchFailuresLeft -= 1;
        phase.fail = failures.reason;
      }
      ctx.memory.lifecycle.set(name, phase);
      ctx.log(`created nodeclaim ${name}`);
    }
    if (!isTrue(claim, 'Launched')) {
      if (now >= phase.launchAt) launch(ctx, claim, phase);
    } else if (!isTrue(claim, 'Registered')) {
      register(ctx, claim, phase, now);
    } else if (phase.initializeAt !== undefined && now >= phase.initializeAt) {
      initialize(ctx, claim);
      ctx.memory.lifecycle.delete(name);
    }
  }
}


function launch(ctx: SimContext, claim: KubeObject, phase: Phase): void {
  const name = claim.metadata.name ?? '';
  const instanceType = instanceTypeOf(claim);
  const zone = claim.metadata.labels?.['topology.kubernetes.io/zone'] ?? ZONES[0].zone;
  if (phase.fail) {
    const message = `creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient ${instanceType.name} capacity in the Availability Zone you requested (${zone}).`;
    const failed = setConditions(ctx, NODECLAIMS, claim, [{ type: 'Launched', status: 'Unknown', reason: phase.fail, message }]);
    ctx.events.publish({ object: failed, type: 'Warning', reason: phase.fail, message: `NodeClaim ${name} event: ${message}` });
    ctx.log(`failed launching nodeclaim ${name}: ${phase.fail}`);
    ctx.store.delete(NODECLAIMS, name); // Karpenter deletes a NodeClaim that hit insufficient capacity
    return;
  }
  const nodeClass = ctx.store.get(EC2NODECLASSES, spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '');
  const ami = nodeClass ? chosenAmi(status<{ amis?: StatusAmi[] }>(nodeClass).amis ?? [], claim.metadata.labels ?? {}) : undefined;
  if (!ami) {
    setConditions(ctx, NODECLAIMS, claim, [{ type: 'Launched', status: 'Unknown', reason: 'NodeClassNotReady', message: 'NodeClass is not ready' }]);
    return;
  }
  const zoneIndex = Math.max(0, ZONES.findIndex((z) => z.zone === zone));
  const { instanceId, nodeName } = newInstance(ctx, zoneIndex);
  const launched = launchedStatus({ name, nodePool: { name: '', uid: '' }, nodeClass: '', instanceType, zoneIndex, nodeName, instanceId }, ami.id);
  setConditions(
    ctx,
    NODECLAIMS,
    claim,
    [
      { type: 'Launched', status: 'True', reason: 'Launched', message: '' },
      { type: 'Registered', status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
      { type: 'Initialized', status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
      { type: 'Ready', status: 'Unknown', reason: 'ReconcilingDependents', message: 'Registered=Unknown, Initialized=Unknown' },
    ],
    launched,
  );
  const [lo, hi] = ctx.timing.registerSeconds;
  const now = ctx.clock.now().getTime();
  ctx.memory.lifecycle.set(name, { ...phase, registerAt: now + (lo + ctx.rng.next() * (hi - lo)) * 1000, nodeName, launchedAt: now });
  ctx.log(`launched nodeclaim ${name}: ${instanceType.name} ${ami.id} (${ami.name ?? ''})`);
}

function register(ctx: SimContext, claim: KubeObject, phase: Phase, now: number): void {
  const name = claim.metadata.name ?? '';
  const p = phase;
  const pool = claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
  if (ctx.faults.neverRegisters?.nodePool === pool) {
    if (now - (p.launchedAt ?? now) >= ctx.timing.registrationTimeoutMinutes * 60_000) {
      ctx.log(`deleting nodeclaim, registration timed out: ${name}`);
      ctx.store.delete(NODECLAIMS, name);
      ctx.memory.lifecycle.delete(name);
      setRegistrationHealth(ctx, pool, false);
    }
    return;
  }
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
    zoneIndex: Math.max(0, ZONES.findIndex((z) => z.zone === zone)),
    nodeName: p.nodeName,
    instanceId: (s.providerID ?? '').split('/').pop() ?? '',
    nodeClaimUid: claim.metadata.uid ?? '',
    initialized: false,
    ready: false,
    ...info,
  });
  ctx.store.create('nodes', node, { wholeObject: true, manager: 'kubelet' });
  setConditions(ctx, NODECLAIMS, claim, [{ type: 'Registered', status: 'True', reason: 'Registered', message: '' }, { type: 'Initialized', status: 'Unknown', reason: 'NodeNotReady', message: 'Node status is NotReady' }], { nodeName: p.nodeName });
  ctx.memory.lifecycle.set(name, { ...p, initializeAt: now + ctx.timing.initializeSeconds * 1000 });
  ctx.log(`registered nodeclaim ${name}: node ${p.nodeName}`);
}

function initialize(ctx: SimContext, claim: KubeObject): void {
  const nodeName = status<{ nodeName?: string }>(claim).nodeName ?? '';
  const node = ctx.store.get('nodes', nodeName);
  if (!node) return;
  const now = ctx.clock.wall();
  const ready = ctx.store.update('nodes', { ...node, status: { ...status<Record<string, unknown>>(node), conditions: [nodeReadyCondition(true, now)] } }, { subresource: 'status', manager: 'kubelet' });
  ctx.store.update('nodes', { ...ready, metadata: { ...ready.metadata, labels: { ...ready.metadata.labels, 'karpenter.sh/initialized': 'true' } } }, { manager: 'karpenter' });
  setConditions(ctx, NODECLAIMS, claim, [
    { type: 'Initialized', status: 'True', reason: 'Initialized', message: '' },
    { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
  ]);
  setRegistrationHealth(ctx, claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '', true);
  ctx.log(`initialized nodeclaim ${claim.metadata.name}: node ${nodeName}`);
}

export function setRegistrationHealth(ctx: SimContext, poolName: string, healthy: boolean): void {
  const pool = ctx.store.get(NODEPOOLS, poolName);
  if (!pool) return;
  const current = conditionOf(pool, 'NodeRegistrationHealthy');
  if (current?.status === (healthy ? 'True' : 'False')) return;
  setConditions(ctx, NODEPOOLS, pool, [
    healthy
      ? { type: 'NodeRegistrationHealthy', status: 'True', reason: 'NodeRegistrationHealthy', message: '' }
      : { type: 'NodeRegistrationHealthy', status: 'False', reason: 'RegistrationFailed', message: 'Failed to launch node' },
  ]);
}
