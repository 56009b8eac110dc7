// A bad AMI release (the scenario's `faults.badAmi`, resolved by scenarios/bad-ami.ts) shows only on the nodes
// launched from it, judged as karp-drift's health gates must judge it: by the NodeClaim's status.imageID. Nodes on
// any other release, an older one of the same minor included, behave normally. The symptoms:
// - never-registers: the kubelet never joins (lifecycle-controller.ts, the `neverRegisters` path), so liveness deletes
//   the NodeClaim 15 minutes after its creation;
// - never-ready: the kubelet registers the Node but its CNI never comes up, so the Node is never Ready and the
//   NodeClaim never Initialized: the drift command times out after 10 minutes, and the replacement stays, NotReady
//   (liveness stops watching a NodeClaim once it has registered, and node repair is off by default);
// - launch-fails: EC2 refuses to launch the AMI on the instance type (an AMI without ENA support on a Nitro type):
//   `Launched=Unknown` `LaunchFailed` "Instance launch failed", retried until liveness deletes the NodeClaim 5 minutes
//   after its creation. The launch is refused, so the claim never gets a status.imageID: the AMI it would launch
//   (status.amis for its instance type) is what is judged;
// - crash-loop: the node is fine, every container started on it crashes (crash-loop.ts);
// - not-ready: the node registers and initializes, so the drift command completes and the old node drains onto it;
//   `afterSeconds` later its kubelet reports NotReady because the CNI never came up, and stays so. The node lifecycle
//   controller then marks the node's pods unready (MarkPodsNotReady). Nothing schedules onto it any more (pods.ts
//   `schedulable`), and Karpenter counts it as disrupting in every budget (disruption-controller.ts, DOMAIN.md §2.6).
import type { KubeObject } from '../kube-api/types.js';
import { NODECLAIMS, spec, status, type BadAmiSymptom, type SimContext } from './context.js';
import { conditionOf, rfc3339 } from './objects.js';

/** What a kubelet reports when the node's CNI plugin never initialized (kubelet_node_status.go, containerd's CRI). */
export const CNI_NOT_READY =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

/**
 * What EC2 answers CreateFleet for an AMI that lacks ENA support on a Nitro instance type, and what the AWS provider
 * makes of it (`combineFleetErrors`, `ToReasonMessage`: no rule matches, so the generic reason).
 */
export const ENA_REQUIRED = (instanceType: string): string =>
  `InvalidParameterCombination: Enhanced networking with the Elastic Network Adapter (ENA) is required for the '${instanceType}' instance type. Ensure that you are using an AMI that is enabled for ENA.`;
export const LAUNCH_FAILED = { reason: 'LaunchFailed', message: 'Instance launch failed' } as const;

/** The symptom a NodeClaim shows: its AMI is of the bad release and its EC2NodeClass is affected. */
export function badAmiSymptom(ctx: SimContext, claim: KubeObject): BadAmiSymptom | undefined {
  return imageSymptom(ctx, claim, status<{ imageID?: string }>(claim).imageID);
}

/** The symptom of the image a NodeClaim is launched from (before launch: the one it would be). */
export function imageSymptom(
  ctx: SimContext,
  claim: KubeObject,
  imageId: string | undefined,
): BadAmiSymptom | undefined {
  const bad = ctx.faults.badAmi;
  if (!bad || imageId === undefined || !bad.imageIds.has(imageId)) return undefined;
  const nodeClass = spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '';
  return bad.nodeClasses === undefined || bad.nodeClasses.has(nodeClass) ? bad.symptom : undefined;
}

/** The symptom of a Node, through the NodeClaim that owns it. */
export function nodeSymptom(ctx: SimContext, nodeName: string | undefined): BadAmiSymptom | undefined {
  if (!ctx.faults.badAmi || nodeName === undefined) return undefined;
  const owner = ctx.store.get('nodes', nodeName)?.metadata.ownerReferences?.find((r) => r.kind === 'NodeClaim');
  const claim = owner ? ctx.store.get(NODECLAIMS, owner.name) : undefined;
  return claim ? badAmiSymptom(ctx, claim) : undefined;
}

/** Called as a not-ready node initializes: its kubelet gives up on the network `afterSeconds` from now. */
export function scheduleNotReady(ctx: SimContext, nodeName: string): void {
  const after = ctx.faults.badAmi?.afterSeconds ?? 0;
  ctx.memory.notReady.set(nodeName, { at: ctx.clock.now().getTime() + after * 1000, struck: false });
}

/** Has the bad AMI taken this node's network down? Then a pod that starts on it is not Ready either. */
export function networkDown(ctx: SimContext, nodeName: string | undefined): boolean {
  return nodeName !== undefined && ctx.memory.notReady.get(nodeName)?.struck === true;
}

/**
 * The kubelet's NotReady, then the node lifecycle controller's answer to it: a `NodeNotReady` event on the Node,
 * and every pod of the node marked Ready=False with a `NodeNotReady` event (controller_utils.go MarkPodsNotReady).
 * Bounded by the step's budget: a node whose pods are not all marked yet is finished on the next pass.
 */
export function reconcileNotReadyNodes(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const [nodeName, state] of ctx.memory.notReady) {
    if (now < state.at) continue;
    if (ctx.budget.exhausted()) return;
    const node = ctx.store.get('nodes', nodeName);
    if (!node || node.metadata.deletionTimestamp) {
      ctx.memory.notReady.delete(nodeName);
      continue;
    }
    if (!state.struck) {
      reportNotReady(ctx, node);
      state.struck = true;
    }
    for (const pod of ctx.store.objects.podsOnNode(nodeName)) {
      if (conditionOf(pod, 'Ready')?.status !== 'True') continue;
      if (ctx.budget.exhausted()) return;
      markPodNotReady(ctx, pod);
    }
    // Struck and swept: the entry stays (with `at` out of reach) so networkDown() keeps new pods unready, until the
    // node is gone (termination-controller.ts).
    state.at = Number.POSITIVE_INFINITY;
  }
}

function reportNotReady(ctx: SimContext, node: KubeObject): void {
  const t = rfc3339(ctx.clock.wall());
  const conditions = (status<{ conditions?: Array<Record<string, unknown>> }>(node).conditions ?? []).map((c) =>
    c.type === 'Ready'
      ? {
          ...c,
          status: 'False',
          reason: 'KubeletNotReady',
          message: CNI_NOT_READY,
          lastHeartbeatTime: t,
          lastTransitionTime: t,
        }
      : c,
  );
  const updated = ctx.store.update(
    'nodes',
    { ...node, status: { ...status<Record<string, unknown>>(node), conditions } },
    { subresource: 'status', manager: 'kubelet' },
  );
  const name = node.metadata.name ?? '';
  const message = `Node ${name} status is now: NodeNotReady`;
  ctx.events.publish({ object: updated, type: 'Normal', reason: 'NodeNotReady', message, source: 'node-controller' });
}

function markPodNotReady(ctx: SimContext, pod: KubeObject): void {
  const t = rfc3339(ctx.clock.wall());
  const conditions = (status<{ conditions?: Array<Record<string, unknown>> }>(pod).conditions ?? []).map((c) =>
    c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: t } : c,
  );
  const updated = ctx.store.update(
    'pods',
    { ...pod, status: { ...status<Record<string, unknown>>(pod), conditions } },
    { subresource: 'status', manager: 'node-controller' },
  );
  ctx.events.publish({
    object: updated,
    type: 'Warning',
    reason: 'NodeNotReady',
    message: 'Node is not ready',
    source: 'node-controller',
  });
}
