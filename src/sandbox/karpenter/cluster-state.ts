// Karpenter's cluster state, read from the sandbox store for its scheduling simulations (kubernetes-sigs/karpenter
// pkg/controllers/state/cluster.go, statenode.go; disruption/helpers.go SimulateScheduling; provisioning/
// provisioner.go Schedule): the state nodes (every NodeClaim with its Node), which of them are initialized and which
// are marked for deletion, the pods each must place (pending pods the scheduler could not bind, and the pods of
// deleting nodes), and a NodeClaim template per NodePool.
//
// One reading differs: Karpenter's state holds a NodeClaim once CreateFleet has answered (1–2 s after its creation),
// and the sandbox's `launchSeconds` stands for the launch and that answer together, so here a NodeClaim is a state
// node from its creation (unless its launch failed: that one never gets a providerID). Otherwise a minute-long
// simulated launch would hide each replacement from the next simulations, which real Karpenter sees within seconds.
import { markedForDeletion } from '../../karpenter/budget-mapping.js';
import type { KubeObject } from '../kube-api/types.js';
import { doNotDisruptHolds, isDaemonSetPod, isTerminal } from './pods.js';
import { NODECLAIMS, NODEPOOLS, key, spec, status, type SimContext } from './context.js';
import type { DaemonSets } from './indexes.js';
import { INSTANCE_ALLOCATABLE, conditionOf, isTrue } from './objects.js';
import { podRequirementTerms, requirementsOf, type NodeSelectorRequirement } from './requirements.js';
import { add, podRequests, resourceList, subtract, ZERO, type Resources } from './resources.js';
import { leastRequest, roomFor, solveOn, type ExistingNode, type NodeClaimTemplate, type Results, type SchedulingPod, type Taint, type Toleration } from './scheduler.js';

export interface StateNode {
  /** StateNode.Name(): the Node's once registered, else the NodeClaim's. */
  name: string;
  claim: KubeObject;
  node?: KubeObject;
  nodePool: string;
  initialized: boolean;
  /**
   * Picked by the disruption queue, deleting, or its instance terminating (statenode.go MarkedForDeletion, as
   * karpenter/budget-mapping.ts reads it: its Node's own deletion is not one).
   */
  markedForDeletion: boolean;
}

export function stateNodes(ctx: SimContext): StateNode[] {
  return ctx.store.list(NODECLAIMS).filter((claim) => !launchFailed(claim)).map((claim) => stateNode(ctx, claim));
}

/** A launch that failed never gets a providerID, so Karpenter's state never holds its NodeClaim. */
function launchFailed(claim: KubeObject): boolean {
  const launched = conditionOf(claim, 'Launched');
  return launched !== undefined && launched.status !== 'True' && launched.reason !== 'AwaitingReconciliation';
}

// Per NodeClaim version (the store never mutates a stored object), while its Node and the queue's mark are as they
// were: a pass reads every NodeClaim of the fleet, and few changed since the last.
const stateNodesRead = new WeakMap<KubeObject, { node: KubeObject | undefined; marked: boolean; view: StateNode }>();

export function stateNode(ctx: SimContext, claim: KubeObject): StateNode {
  const nodeName = status<{ nodeName?: string }>(claim).nodeName;
  const node = nodeName ? ctx.store.get('nodes', nodeName) : undefined;
  const marked = ctx.memory.commands.has(claim.metadata.name ?? '');
  const read = stateNodesRead.get(claim);
  if (read !== undefined && read.node === node && read.marked === marked) return read.view;
  const view = readStateNode(claim, node, marked);
  stateNodesRead.set(claim, { node, marked, view });
  return view;
}

function readStateNode(claim: KubeObject, node: KubeObject | undefined, marked: boolean): StateNode {
  const registered = node?.metadata.labels?.['karpenter.sh/registered'] === 'true';
  const name = claim.metadata.name ?? '';
  return {
    name: registered && node ? (node.metadata.name ?? name) : name,
    claim,
    ...(node ? { node } : {}),
    nodePool: claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '',
    initialized: node?.metadata.labels?.['karpenter.sh/initialized'] === 'true',
    markedForDeletion: markedForDeletion({
      marked,
      nodeClaimDeleting: claim.metadata.deletionTimestamp !== undefined,
      instanceTerminating: isTrue(claim, 'InstanceTerminating'),
    }),
  };
}

// scheduling.IsKnownEphemeralTaint: taints a node sheds on its own as it comes up.
const EPHEMERAL = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/network-unavailable',
  'node.cloudprovider.kubernetes.io/uninitialized',
  'karpenter.sh/unregistered',
]);

/** An ExistingNode with what it was read from: kept while the NodeClaim, its Node, their pods and DaemonSets are. */
interface ExistingNodeRead {
  node: KubeObject | undefined;
  usage: Resources;
  pods: number;
  daemonSets: DaemonSets;
  version: number;
  view: ExistingNode;
}

// Per NodeClaim version (the store never mutates a stored object): a pass reads thousands of nodes of which a few
// changed since the last. The requests of the node's pods (NodeUsage) are a new object whenever a running pod comes
// or goes, and the count of its pods changes with a finished one.
const existingNodes = new WeakMap<KubeObject, ExistingNodeRead>();

/** The node as the scheduler sees it (scheduler.go calculateExistingNodeClaims, statenode.go Taints, Allocatable). */
export function existingNode(ctx: SimContext, n: StateNode): ExistingNode {
  const nodeName = n.node?.metadata.name ?? '';
  const usage = n.node ? ctx.nodeUsage.of(nodeName) : ZERO;
  const pods = n.node ? ctx.store.objects.podCountOnNode(nodeName) : 0;
  const { daemonSets } = ctx;
  const read = existingNodes.get(n.claim);
  if (
    read !== undefined &&
    read.node === n.node &&
    read.usage === usage &&
    read.pods === pods &&
    read.daemonSets === daemonSets &&
    read.version === daemonSets.version
  )
    return read.view;
  const view = readExistingNode(ctx, n, usage);
  existingNodes.set(n.claim, { node: n.node, usage, pods, daemonSets, version: daemonSets.version, view });
  return view;
}

function readExistingNode(ctx: SimContext, n: StateNode, used: Resources): ExistingNode {
  const registered = n.node?.metadata.labels?.['karpenter.sh/registered'] === 'true';
  const source = registered && n.node ? n.node : n.claim;
  let taints = spec<{ taints?: Taint[] }>(source).taints ?? [];
  if (!n.initialized) {
    const startup = spec<{ startupTaints?: Taint[] }>(n.claim).startupTaints ?? [];
    taints = taints.filter((t) => !EPHEMERAL.has(t.key) && !startup.some((s) => s.key === t.key && s.effect === t.effect));
  }
  const allocatable = allocatableOf(n);
  return {
    name: n.name,
    nodeClaim: n.claim.metadata.name ?? '',
    ...(n.node ? { node: n.node.metadata.name ?? '' } : {}),
    initialized: n.initialized,
    labels: { ...(registered && n.node ? n.node.metadata.labels : n.claim.metadata.labels) },
    taints,
    available: subtract(allocatable, used),
    daemonRemaining: daemonRemaining(ctx, n),
  };
}

function allocatableOf(n: StateNode): Resources {
  const fromNode = resourceList(status<{ allocatable?: Record<string, string> }>(n.node ?? n.claim).allocatable);
  if (n.node && n.initialized && fromNode.pods > 0) return fromNode;
  const fromClaim = resourceList(status<{ allocatable?: Record<string, string> }>(n.claim).allocatable);
  return fromClaim.pods > 0 ? fromClaim : resourceList(INSTANCE_ALLOCATABLE);
}

/** The DaemonSet pods the node will run and does not yet (existingnode.go NewExistingNode). */
function daemonRemaining(ctx: SimContext, n: StateNode): Resources {
  const present = new Set(
    n.node ? ctx.store.objects.podsOnNode(n.node.metadata.name ?? '').map((p) => p.metadata.ownerReferences?.[0]?.uid) : [],
  );
  let total = ZERO;
  for (const [uid, ds] of ctx.daemonSets.byUid)
    if (ds.nodePools.has(n.nodePool) && !present.has(uid)) total = add(total, podRequests(ds.template));
  return total;
}

/** One pod of each DaemonSet that runs on the NodePool's nodes (scheduler.go getDaemonOverhead). */
function daemonOverhead(ctx: SimContext, nodePool: string): Resources {
  let total = ZERO;
  for (const ds of ctx.daemonSets.byUid.values()) if (ds.nodePools.has(nodePool)) total = add(total, podRequests(ds.template));
  return total;
}

type Template = {
  metadata?: { labels?: Record<string, string> };
  spec?: { requirements?: NodeSelectorRequirement[]; taints?: Taint[] };
};

/**
 * A NodeClaim template per NodePool that can launch (provisioner.go NewScheduler: not deleting, and Ready where the
 * release writes Ready), heaviest weight first, then by name: its requirements, labels and karpenter.sh/nodepool.
 */
export function nodeClaimTemplates(ctx: SimContext): NodeClaimTemplate[] {
  return ctx.store
    .list(NODEPOOLS)
    .filter((p) => !p.metadata.deletionTimestamp && conditionOf(p, 'Ready')?.status !== 'False' && conditionOf(p, 'Ready')?.status !== 'Unknown')
    .sort(
      (a, b) =>
        (spec<{ weight?: number }>(b).weight ?? 0) - (spec<{ weight?: number }>(a).weight ?? 0) ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    )
    .map((pool) => {
      const template = spec<{ template?: Template }>(pool).template;
      const nodePool = pool.metadata.name ?? '';
      const labels = { ...template?.metadata?.labels, 'karpenter.sh/nodepool': nodePool };
      const requirements = requirementsOf([
        ...(template?.spec?.requirements ?? []),
        ...Object.entries(labels).map(([k, v]) => ({ key: k, operator: 'In', values: [v] })),
      ]);
      return {
        nodePool,
        requirements,
        allocatable: resourceList(INSTANCE_ALLOCATABLE),
        daemonOverhead: daemonOverhead(ctx, nodePool),
        taints: template?.spec?.taints ?? [],
      };
    });
}

// Once per version of a pod: the store never mutates a stored object (pods.ts viewOf).
const schedulingPods = new WeakMap<KubeObject, SchedulingPod>();

export function schedulingPod(pod: KubeObject): SchedulingPod {
  let read = schedulingPods.get(pod);
  if (!read) schedulingPods.set(pod, (read = readSchedulingPod(pod)));
  return read;
}

function readSchedulingPod(pod: KubeObject): SchedulingPod {
  return {
    key: key(pod),
    createdAt: pod.metadata.creationTimestamp ?? '',
    requests: podRequests(pod),
    terms: podRequirementTerms(pod),
    tolerations: spec<{ tolerations?: Toleration[] }>(pod).tolerations ?? [],
  };
}

/** Pods kube-scheduler could not bind (PodScheduled False, Unschedulable): pod.IsProvisionable. */
export function pendingPods(ctx: SimContext): KubeObject[] {
  const out: KubeObject[] = [];
  for (const podKey of ctx.memory.pending) {
    const [namespace, name] = podKey.split('/') as [string, string];
    const pod = ctx.store.get('pods', name, namespace);
    if (pod && !spec<{ nodeName?: string }>(pod).nodeName && !pod.metadata.deletionTimestamp) out.push(pod);
  }
  return out;
}

/**
 * The pods of the nodes being deleted that still need a place (StateNodes.CurrentlyReschedulablePods): not
 * DaemonSet-owned, not finished or terminating, and not held there by an active do-not-disrupt or a PDB that allows
 * no eviction at all (pdb.go IsCurrentlyReschedulable).
 */
export function deletingNodePods(ctx: SimContext, nodes: readonly StateNode[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const n of nodes) {
    if (!n.markedForDeletion || !n.node) continue;
    for (const pod of ctx.store.objects.podsOnNode(n.node.metadata.name ?? '')) {
      if (isDaemonSetPod(pod) || isTerminal(pod) || pod.metadata.deletionTimestamp) continue;
      if (doNotDisruptHolds(ctx, pod) || fullyBlocked(ctx, pod)) continue;
      out.push(pod);
    }
  }
  return out;
}

// pdb.go newPdb isFullyBlocking: maxUnavailable 0 (or 0%), or minAvailable 100%.
function fullyBlocked(ctx: SimContext, pod: KubeObject): boolean {
  const labels = pod.metadata.labels ?? {};
  return ctx.store.list('poddisruptionbudgets.policy', pod.metadata.namespace).some((pdb) => {
    const s = spec<{ maxUnavailable?: number | string; minAvailable?: number | string; selector?: { matchLabels?: Record<string, string> } }>(pdb);
    const selects = Object.entries(s.selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    return selects && (s.maxUnavailable === 0 || s.maxUnavailable === '0%' || s.minAvailable === '100%');
  });
}

export interface Simulation {
  results: Results;
  /** The pods it placed, by namespace/name. */
  pods: Map<string, KubeObject>;
  /** Pod key → why it would not schedule, for pods that are not pending: what blocks a disruption. */
  errors: Map<string, string>;
}

/** What every simulation of a pass shares: the nodes as the scheduler sees them, the pods to place, the templates. */
export interface SchedulingInput {
  /** The active nodes (not marked for deletion), by NodeClaim name. */
  active: Map<string, ExistingNode>;
  deleting: KubeObject[];
  pending: KubeObject[];
  templates: NodeClaimTemplate[];
  /** The pending and deleting pods as the scheduler reads them, once for every candidate of the pass. */
  shared: SchedulingPod[];
  /** The active nodes with room for a pod at all: the only ones a run can place on. */
  roomy: ExistingNode[];
  /**
   * `roomFor(roomy, least)` by the run's least request: the candidates of a pass mostly run the same pods' sizes, so
   * each pass scans its thousands of full nodes once per size, not once per candidate.
   */
  roomFor: Map<string, ExistingNode[]>;
  deletingKeys: Set<string>;
  pendingKeys: Set<string>;
}

export function schedulingInput(ctx: SimContext, nodes: readonly StateNode[]): SchedulingInput {
  const active = new Map<string, ExistingNode>();
  for (const n of nodes) if (!n.markedForDeletion) active.set(n.claim.metadata.name ?? '', existingNode(ctx, n));
  const deleting = deletingNodePods(ctx, nodes);
  const pending = pendingPods(ctx);
  return {
    active,
    deleting,
    pending,
    templates: nodeClaimTemplates(ctx),
    shared: [...pending, ...deleting].map(schedulingPod),
    roomy: [...active.values()].filter((n) => n.available.pods - n.daemonRemaining.pods >= 1),
    roomFor: new Map(),
    deletingKeys: new Set(deleting.map(key)),
    pendingKeys: new Set(pending.map(key)),
  };
}

/**
 * SimulateScheduling (disruption/helpers.go): the pending pods, the candidates' pods and the deleting nodes' pods
 * placed on the other active nodes or on new NodeClaims. A pod other than a deleting node's that lands on a node not
 * yet initialized is an error (`would schedule against uninitialized nodeclaim/<name>, node/<name>`): Karpenter
 * does not decide on capacity that has not come up yet.
 */
export function simulateScheduling(ctx: SimContext, input: SchedulingInput, candidates: readonly StateNode[]): Simulation {
  const names = new Set(candidates.map((c) => c.claim.metadata.name ?? ''));
  const candidatePods = candidates.flatMap((c) =>
    c.node ? ctx.store.objects.podsOnNode(c.node.metadata.name ?? '').filter(reschedulable) : [],
  );
  const pods = [...input.shared, ...candidatePods.map(schedulingPod)];
  const least = leastRequest(pods);
  const size = least === undefined ? '' : `${least.cpu}/${least.memory}/${least.pods}`;
  let room = input.roomFor.get(size);
  if (room === undefined) input.roomFor.set(size, (room = roomFor(input.roomy, least)));
  const existing = room.filter((node) => !names.has(node.nodeClaim ?? ''));
  const results = solveOn(pods, least, existing, input.templates, () => nextHostname(ctx));
  const errors = nonPendingErrors(results, input.deletingKeys, input.pendingKeys);
  const placed = new Map([...input.pending, ...candidatePods, ...input.deleting].map((p) => [key(p), p]));
  return { results, pods: placed, errors };
}

/**
 * What blocks a disruption in a scheduling run's results (helpers.go SimulateScheduling, then
 * Results.NonPendingPodSchedulingErrors as drift.go ComputeCommands reads them): a pod that fits nowhere, and a pod
 * placed on a node not initialized yet (`would schedule against uninitialized …`), unless it is a deleting node's pod
 * (Karpenter assumes the earlier command's replacement will come up) or a pending pod (pending pods never block). No
 * error, and the candidate goes: deleted when the run made up no NodeClaim, else replaced by those it made up.
 */
export function nonPendingErrors(results: Results, deleting: ReadonlySet<string>, pending: ReadonlySet<string>): Map<string, string> {
  const errors = new Map([...results.errors].filter(([podKey]) => !pending.has(podKey)));
  for (const placed of results.existing) {
    if (placed.node.initialized) continue;
    for (const pod of placed.pods) {
      if (deleting.has(pod.key) || pending.has(pod.key)) continue;
      errors.set(pod.key, uninitializedError(placed.node));
    }
  }
  return errors;
}

/** pod.IsReschedulable: a pod that must move when its node goes. */
export function reschedulable(pod: KubeObject): boolean {
  return !isDaemonSetPod(pod) && !isTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** helpers.go UninitializedNodeError. */
function uninitializedError(node: ExistingNode): string {
  const info = [`nodeclaim/${node.nodeClaim}`, ...(node.node !== undefined ? [`node/${node.node}`] : [])];
  return `would schedule against uninitialized ${info.join(', ')}`;
}

/** NewNodeClaim: every NodeClaim a simulation makes up gets its own hostname, hostname-placeholder-0001 and on. */
export function nextHostname(ctx: SimContext): string {
  ctx.memory.hostnamePlaceholders += 1;
  return `hostname-placeholder-${String(ctx.memory.hostnamePlaceholders).padStart(4, '0')}`;
}

/**
 * Results.NonPendingPodSchedulingErrors, capitalised by pretty.Sentence: `Not all pods would schedule, <ns>/<pod> =>
 * <error> ` for five pods, then ` and N other(s)`.
 */
export function notAllPodsWouldSchedule(errors: ReadonlyMap<string, string>): string {
  const MAX = 5;
  const listed = [...errors].slice(0, MAX).map(([podKey, error]) => `${podKey} => ${error} `);
  const more = errors.size > MAX ? ` and ${errors.size - MAX} other(s)` : '';
  return `Not all pods would schedule, ${listed.join('')}${more}`;
}
