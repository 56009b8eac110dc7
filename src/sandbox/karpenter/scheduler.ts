// Karpenter's scheduler, as its disruption and provisioning controllers run it (kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/scheduler.go `Solve`, `add`, `calculateExistingNodeClaims`; existingnode.go
// `Add`; nodeclaim.go `Add`; queue.go `byCPUAndMemoryDescending`): the pods, largest CPU then memory request first
// (then oldest, then by a stable key), each placed on the first existing node that tolerates it, matches its node
// requirements and has room (initialized nodes first, then by name), else on a NodeClaim this run already made up
// (fewest pods first), else on a new NodeClaim from the first NodePool template that fits (by name: the sandbox's
// NodePools have no weights). A pod that fits nowhere gets the templates' errors joined with "; ", from the last
// node-affinity term tried (Preferences.Relax drops one term at a time). Pure: the caller builds the nodes and
// templates from the cluster (cluster-state.ts).
//
// Karpenter breaks ties between pods created in the same second by uid, which is random: which of two equal pods
// comes first, and so lands on the node still initializing, is a coin toss. The sandbox's uids are not seeded, so it
// tosses with a hash of namespace/name instead, as random and replayable (names alone would order pods by workload).
import { compatible as labelsMatch } from './drift-controller.js';
import {
  addRequirement,
  compatibility,
  isCompatible,
  requirement,
  requirementsOf,
  type NodeSelectorRequirement,
  type Requirements,
} from './requirements.js';
import { add, fits, resourcesText, type Resources } from './resources.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface SchedulingPod {
  /** namespace/name */
  key: string;
  /** metadata.creationTimestamp (RFC 3339, seconds). */
  createdAt: string;
  requests: Resources;
  /** nodeSelector with each required node-affinity term (requirements.ts `podRequirementTerms`). */
  terms: NodeSelectorRequirement[][];
  tolerations: Toleration[];
}

/** A node already in the cluster (Karpenter's state node): registered or not, launched or not. */
export interface ExistingNode {
  /** StateNode.Name(): the Node's name once registered, else the NodeClaim's. */
  name: string;
  nodeClaim?: string;
  node?: string;
  initialized: boolean;
  /** The Node's labels once registered, else the NodeClaim's. */
  labels: Record<string, string>;
  /** What the scheduler checks: the Node's taints, without ephemeral and startup taints while it is not initialized. */
  taints: Taint[];
  /** Allocatable minus the requests of the pods bound to it. */
  available: Resources;
  /** The requests of the DaemonSet pods it will run but does not run yet (NewExistingNode's remaining daemon resources). */
  daemonRemaining: Resources;
}

export interface NodeClaimTemplate {
  nodePool: string;
  /** The template's requirements and labels, and karpenter.sh/nodepool. */
  requirements: Requirements;
  /** The instance type's allocatable. */
  allocatable: Resources;
  /** One pod of each DaemonSet that would run on the new node. */
  daemonOverhead: Resources;
  taints: Taint[];
}

export interface NewNodeClaim {
  template: NodeClaimTemplate;
  hostname: string;
  requirements: Requirements;
  requests: Resources;
  pods: SchedulingPod[];
}

export interface PlacedOnExisting {
  node: ExistingNode;
  pods: SchedulingPod[];
}

export interface Results {
  newNodeClaims: NewNodeClaim[];
  /** The existing nodes given pods, in the order tried, each with the pods it got. */
  existing: PlacedOnExisting[];
  /** Pod key → why it fits nowhere. */
  errors: Map<string, string>;
}

/** Places `pods` as Karpenter's scheduler would. `hostname()` gives each made-up NodeClaim its placeholder. */
export function solve(
  pods: readonly SchedulingPod[],
  existingNodes: readonly ExistingNode[],
  templates: readonly NodeClaimTemplate[],
  hostname: () => string,
): Results {
  const least = leastRequest(pods);
  return solveOn(pods, least, roomFor(existingNodes, least), templates, hostname);
}

/**
 * `solve` for nodes already chosen and ordered by `roomFor(nodes, least)`, `least` being `leastRequest(pods)`: the
 * runs of a disruption pass share that choice (cluster-state.ts simulateScheduling).
 */
export function solveOn(
  pods: readonly SchedulingPod[],
  least: Resources | undefined,
  room: readonly ExistingNode[],
  templates: readonly NodeClaimTemplate[],
  hostname: () => string,
): Results {
  const newNodeClaims: NewNodeClaim[] = [];
  const errors = new Map<string, string>();
  const hashes = new Map(pods.map((p) => [p.key, fnv1a(p.key)]));
  const order = (a: SchedulingPod, b: SchedulingPod) =>
    b.requests.cpu - a.requests.cpu ||
    b.requests.memory - a.requests.memory ||
    cmp(a.createdAt, b.createdAt) ||
    hashes.get(a.key)! - hashes.get(b.key)! ||
    cmp(a.key, b.key);
  const open = new OpenNodes(room);
  for (const pod of [...pods].sort(order)) {
    const placed = place(pod, open, newNodeClaims, templates, hostname);
    if (typeof placed === 'string') errors.set(pod.key, placed);
    else if (placed !== undefined && least !== undefined && !fitsBoth(placed.requests, least, placed.node.available))
      open.remove(placed.node);
  }
  return { newNodeClaims, existing: open.placed(room), errors };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** fits(add(a, b), available), without making the sum: it runs for every node a pod is tried on. */
function fitsBoth(a: Resources, b: Resources, available: Resources): boolean {
  return a.cpu + b.cpu <= available.cpu && a.memory + b.memory <= available.memory && a.pods + b.pods <= available.pods;
}

/** Each resource's least request among the pods (undefined for none). */
export function leastRequest(pods: readonly SchedulingPod[]): Resources | undefined {
  let least: Resources | undefined;
  for (const { requests: r } of pods)
    least = least
      ? { cpu: Math.min(least.cpu, r.cpu), memory: Math.min(least.memory, r.memory), pods: Math.min(least.pods, r.pods) }
      : r;
  return least;
}

/**
 * The nodes a run may place on, in the order it tries them (initialized first, then by name): a node without room
 * for the run's least request (`leastRequest`) takes none of its pods, so it is left out, and a full cluster of
 * thousands of nodes costs a scan of the few with room per pod.
 */
export function roomFor(nodes: readonly ExistingNode[], least: Resources | undefined): ExistingNode[] {
  if (least === undefined) return [];
  return nodes
    .filter((node) => fits(add(node.daemonRemaining, least), node.available))
    .sort((a, b) => Number(b.initialized) - Number(a.initialized) || cmp(a.name, b.name));
}

/** FNV-1a, 32 bits. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

type Existing = PlacedOnExisting & { requests: Resources };

const NODEPOOL = 'karpenter.sh/nodepool';

/**
 * The existing nodes a run's pods are tried on, in the run's order, without those that filled up (no room left for
 * the run's least request: they take no further pod of it), and the same by NodePool: a pod that asks for one
 * NodePool (a nodeSelector on karpenter.sh/nodepool) is tried on that NodePool's nodes only, which are the only ones
 * its term can match, so a fleet of many NodePools costs each pod a scan of its own. What a node is given is kept
 * for the nodes given something only.
 */
class OpenNodes {
  private readonly all: ExistingNode[];
  private readonly byPool = new Map<string, ExistingNode[]>();
  private readonly given = new Map<ExistingNode, Existing>();

  constructor(nodes: readonly ExistingNode[]) {
    this.all = [...nodes];
    for (const n of nodes) {
      const pool = n.labels[NODEPOOL] ?? '';
      let inPool = this.byPool.get(pool);
      if (inPool === undefined) this.byPool.set(pool, (inPool = []));
      inPool.push(n);
    }
  }

  /** The nodes a pod with this term may go to, in order: its NodePool's when the term names exactly one. */
  for(term: readonly NodeSelectorRequirement[]): readonly ExistingNode[] {
    const pools = term.filter((r) => r.key === NODEPOOL);
    const only = pools.length === 1 && pools[0]?.operator === 'In' && pools[0].values?.length === 1 ? pools[0].values[0] : undefined;
    return only === undefined ? this.all : (this.byPool.get(only) ?? []);
  }

  /** What the node is asked for so far: its DaemonSet pods to come, and the pods this run gave it. */
  requests(node: ExistingNode): Resources {
    return this.given.get(node)?.requests ?? node.daemonRemaining;
  }

  give(node: ExistingNode, pod: SchedulingPod): Existing {
    let e = this.given.get(node);
    if (e === undefined) this.given.set(node, (e = { node, pods: [], requests: node.daemonRemaining }));
    e.pods.push(pod);
    e.requests = add(e.requests, pod.requests);
    return e;
  }

  remove(node: ExistingNode): void {
    this.all.splice(this.all.indexOf(node), 1);
    const inPool = this.byPool.get(node.labels[NODEPOOL] ?? '');
    inPool?.splice(inPool.indexOf(node), 1);
  }

  /** The nodes given pods, in the run's order. */
  placed(order: readonly ExistingNode[]): PlacedOnExisting[] {
    return order.flatMap((node) => {
      const e = this.given.get(node);
      return e === undefined ? [] : [{ node, pods: e.pods }];
    });
  }
}

/** Places the pod: on the existing node it went to, on a made-up NodeClaim (undefined), or why it fits nowhere. */
function place(
  pod: SchedulingPod,
  existing: OpenNodes,
  newNodeClaims: NewNodeClaim[],
  templates: readonly NodeClaimTemplate[],
  hostname: () => string,
): Existing | string | undefined {
  let error: string | undefined;
  for (const term of pod.terms) {
    // Cheapest test first: most nodes of a busy cluster have no room.
    const target = existing
      .for(term)
      .find(
        (n) =>
          fitsBoth(existing.requests(n), pod.requests, n.available) &&
          tolerates(pod.tolerations, n.taints) &&
          labelsMatch(term, schedulingLabels(n)),
      );
    if (target) return existing.give(target, pod);
    const wanted = requirementsOf(term);
    newNodeClaims.sort((a, b) => a.pods.length - b.pods.length);
    const inFlight = newNodeClaims.find(
      (n) =>
        fitsBoth(n.requests, pod.requests, n.template.allocatable) &&
        tolerates(pod.tolerations, n.template.taints) &&
        isCompatible(n.requirements, wanted),
    );
    if (inFlight) {
      addPod(inFlight, pod, wanted);
      return undefined;
    }
    // A template whose own requirements refuse the pod refuses it with the hostname too (a requirement more only
    // narrows), unless the pod asks about the hostname: then the NodeClaim is made to be asked. Each template tried
    // takes its placeholder hostname all the same, as NewNodeClaim does.
    const asksHostname = wanted.has(HOSTNAME);
    const refused: Array<[NodeClaimTemplate, string]> = [];
    for (const template of templates) {
      const name = hostname();
      if (asksHostname || isCompatible(template.requirements, wanted)) {
        const made = newNodeClaim(template, name);
        if (accepts(made, pod, wanted)) {
          addPod(made, pod, wanted);
          newNodeClaims.push(made);
          return undefined;
        }
      }
      refused.push([template, name]);
    }
    // The words only now that the pod fits nowhere, from the NodeClaims as they were made.
    const rejections = refused.map(
      ([template, name]) =>
        `incompatible with nodepool "${template.nodePool}", daemonset overhead=${resourcesText(template.daemonOverhead)}, ${rejection(newNodeClaim(template, name), pod, wanted)}`,
    );
    error = rejections.length > 0 ? rejections.join('; ') : 'nodepool requirements filtered out all available instance types';
  }
  return error;
}

// Once per ExistingNode: the runs of a pass share each node's view (cluster-state.ts), and nothing changes its labels.
const labelsWithHostname = new WeakMap<ExistingNode, Record<string, string>>();

/** The node's labels as a pod's terms match them: with kubernetes.io/hostname, its name where it has no such label. */
function schedulingLabels(node: ExistingNode): Record<string, string> {
  let labels = labelsWithHostname.get(node);
  if (labels === undefined)
    labelsWithHostname.set(node, (labels = { ...node.labels, 'kubernetes.io/hostname': node.labels['kubernetes.io/hostname'] ?? node.name }));
  return labels;
}

const HOSTNAME = 'kubernetes.io/hostname';

function newNodeClaim(template: NodeClaimTemplate, hostname: string): NewNodeClaim {
  const requirements: Requirements = new Map(template.requirements);
  addRequirement(requirements, requirement({ key: HOSTNAME, operator: 'In', values: [hostname] }));
  return { template, hostname, requirements, requests: template.daemonOverhead, pods: [] };
}

/** Can the made-up NodeClaim take the pod: `rejection` is undefined, without its words. */
function accepts(nodeClaim: NewNodeClaim, pod: SchedulingPod, wanted: Requirements): boolean {
  return (
    tolerates(pod.tolerations, nodeClaim.template.taints) &&
    isCompatible(nodeClaim.requirements, wanted) &&
    fitsBoth(nodeClaim.requests, pod.requests, nodeClaim.template.allocatable)
  );
}

/** Why the made-up NodeClaim cannot take the pod (nodeclaim.go Add), in Karpenter's words; undefined: it can. */
function rejection(nodeClaim: NewNodeClaim, pod: SchedulingPod, wanted: Requirements): string | undefined {
  if (!tolerates(pod.tolerations, nodeClaim.template.taints)) return 'did not tolerate the NodePool taints';
  const incompatible = compatibility(nodeClaim.requirements, wanted);
  if (incompatible.length > 0) return `incompatible requirements, ${incompatible.join('; ')}`;
  const requests = add(nodeClaim.requests, pod.requests);
  // The sandbox's NodePools offer one instance type each, and scenario checks keep every pod within it.
  if (!fits(requests, nodeClaim.template.allocatable))
    return `no instance type has enough resources, resources=${resourcesText(requests)}`;
  return undefined;
}

function addPod(nodeClaim: NewNodeClaim, pod: SchedulingPod, wanted: Requirements): void {
  nodeClaim.pods.push(pod);
  nodeClaim.requests = add(nodeClaim.requests, pod.requests);
  for (const r of wanted.values()) addRequirement(nodeClaim.requirements, r);
}

/** corev1 Toleration.ToleratesTaint over the taints that keep pods off (NoSchedule, NoExecute). */
export function tolerates(tolerations: readonly Toleration[], taints: readonly Taint[]): boolean {
  return taints
    .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    .every((taint) => tolerations.some((t) => toleratesTaint(t, taint)));
}

function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (!t.key) return false; // an empty key matches everything only with Exists
  return (t.value ?? '') === (taint.value ?? '');
}
