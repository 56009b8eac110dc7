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
  const existing: Existing[] = roomFor(existingNodes, leastRequest(pods)).map((node) => ({
    node,
    pods: [],
    requests: node.daemonRemaining,
    labels: { ...node.labels, 'kubernetes.io/hostname': hostnameOf(node) },
  }));
  const newNodeClaims: NewNodeClaim[] = [];
  const errors = new Map<string, string>();
  const hashes = new Map(pods.map((p) => [p.key, fnv1a(p.key)]));
  const order = (a: SchedulingPod, b: SchedulingPod) =>
    b.requests.cpu - a.requests.cpu ||
    b.requests.memory - a.requests.memory ||
    cmp(a.createdAt, b.createdAt) ||
    hashes.get(a.key)! - hashes.get(b.key)! ||
    cmp(a.key, b.key);
  for (const pod of [...pods].sort(order)) {
    const error = place(pod, existing, newNodeClaims, templates, hostname);
    if (error !== undefined) errors.set(pod.key, error);
  }
  return { newNodeClaims, existing: existing.map(({ node, pods: placed }) => ({ node, pods: placed })), errors };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

type Existing = PlacedOnExisting & { requests: Resources; labels: Record<string, string> };

function place(
  pod: SchedulingPod,
  existing: Existing[],
  newNodeClaims: NewNodeClaim[],
  templates: readonly NodeClaimTemplate[],
  hostname: () => string,
): string | undefined {
  let error: string | undefined;
  for (const term of pod.terms) {
    // Cheapest test first: most nodes of a busy cluster have no room.
    const target = existing.find(
      (e) =>
        fits(add(e.requests, pod.requests), e.node.available) &&
        tolerates(pod.tolerations, e.node.taints) &&
        labelsMatch(term, e.labels),
    );
    if (target) {
      target.pods.push(pod);
      target.requests = add(target.requests, pod.requests);
      return undefined;
    }
    const wanted = requirementsOf(term);
    newNodeClaims.sort((a, b) => a.pods.length - b.pods.length);
    const inFlight = newNodeClaims.find(
      (n) =>
        tolerates(pod.tolerations, n.template.taints) &&
        fits(add(n.requests, pod.requests), n.template.allocatable) &&
        compatibility(n.requirements, wanted).length === 0,
    );
    if (inFlight) {
      addPod(inFlight, pod, wanted);
      return undefined;
    }
    const rejections: string[] = [];
    for (const template of templates) {
      const made = newNodeClaim(template, hostname());
      const why = rejection(made, pod, wanted);
      if (why === undefined) {
        addPod(made, pod, wanted);
        newNodeClaims.push(made);
        return undefined;
      }
      rejections.push(
        `incompatible with nodepool "${template.nodePool}", daemonset overhead=${resourcesText(template.daemonOverhead)}, ${why}`,
      );
    }
    error = rejections.length > 0 ? rejections.join('; ') : 'nodepool requirements filtered out all available instance types';
  }
  return error;
}

function hostnameOf(node: ExistingNode): string {
  return node.labels['kubernetes.io/hostname'] ?? node.name;
}

function newNodeClaim(template: NodeClaimTemplate, hostname: string): NewNodeClaim {
  const requirements: Requirements = new Map(template.requirements);
  addRequirement(requirements, requirement({ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }));
  return { template, hostname, requirements, requests: template.daemonOverhead, pods: [] };
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
