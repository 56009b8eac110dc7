// The narrow views of cluster objects that planning, tracking and diagnosis work on (STYLE.md "Convert at the
// boundary"): karpenter/convert.ts builds them from API objects; nothing past it sees a raw Kubernetes object.
import type { Budget } from './budgets.js';

export type KarpenterApi = 'v1' | 'v1beta1';

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface ConditionView {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface AmiSelectorTerm {
  alias?: string;
  id?: string;
  name?: string;
  owner?: string;
  tags?: Record<string, string>;
  ssmParameter?: string;
}

/** One entry of managedFields, reduced to what ownership decisions need. */
export interface FieldOwner {
  manager: string;
  operation: 'Apply' | 'Update';
  /** Owns `spec.amiSelectorTerms` (the whole list or any term of it). */
  ownsAmiSelectorTerms: boolean;
  ownsAmiFamily: boolean;
  /** When the manager last changed what it owns (managedFields `time`, whole seconds); absent if not recorded. */
  time?: string;
}

export interface NodeClassView {
  name: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  amiFamily?: string;
  amiSelectorTerms: AmiSelectorTerm[];
  /** status.amis as Karpenter resolved them. */
  statusAmis: Array<{ id: string; name?: string; requirements: Requirement[]; deprecated?: boolean }>;
  /** status.conditions by type (AMIsReady, Ready, ...). */
  conditions: Record<string, ConditionView>;
  owners: FieldOwner[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface NodePoolView {
  name: string;
  uid: string;
  resourceVersion?: string;
  nodeClass: string;
  /** spec.disruption.budgets; undefined = absent (the CRD default applies). */
  budgets?: Budget[];
  requirements: Requirement[];
  conditions: Record<string, ConditionView>;
  /** Managers that own `spec.disruption.budgets` (a staged rollout's hold writes it). */
  budgetOwners?: Array<{ manager: string; operation: 'Apply' | 'Update' }>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface NodeClaimView {
  name: string;
  uid: string;
  resourceVersion: string;
  nodePool?: string;
  nodeClass?: string;
  imageId?: string;
  nodeName?: string;
  providerId?: string;
  arch?: string;
  instanceType?: string;
  /** Instance labels say it has GPUs or accelerators (it needs an nvidia/neuron AMI). */
  gpu: boolean;
  accelerator: boolean;
  createdAt?: string;
  deleting: boolean;
  deletionTimestamp?: string;
  /** spec.terminationGracePeriod (immutable, copied from the NodePool at creation). */
  terminationGracePeriod?: string;
  conditions: Record<string, ConditionView>;
}

/**
 * "On target", the one definition plan, upgrade, wait and the result document count with: not being deleted, its
 * status.imageID one of the target AMIs, and Initialized (a replacement still starting is not there yet). `status`
 * counts the same against what each class selects now, and calls it UP-TO-DATE.
 */
export function isOnTarget(
  claim: Pick<NodeClaimView, 'deleting' | 'imageId' | 'conditions'>,
  targets: ReadonlySet<string>,
): boolean {
  return (
    !claim.deleting &&
    claim.imageId !== undefined &&
    targets.has(claim.imageId) &&
    claim.conditions.Initialized?.status === 'True'
  );
}

export interface TaintView {
  key: string;
  value?: string;
  effect: string;
}

/**
 * karp-drift's own mark on a Node it holds with do-not-disrupt (apis/node-hold.ts writes it): defined here, not in
 * apis/, because the Node view carries it (`heldBy`) and this room imports no other.
 */
export const NODE_HOLD_ANNOTATION = 'karp-drift.io/held-by';

export interface NodeView {
  name: string;
  uid: string;
  resourceVersion: string;
  nodePool?: string;
  providerId?: string;
  kubeletVersion?: string;
  osImage?: string;
  ready: boolean;
  /** Why the Node is not Ready, in the kubelet's (or the node controller's) words: for a health gate's evidence. */
  notReady?: { status: string; reason: string; message: string; since?: string };
  initialized: boolean;
  doNotDisrupt: boolean;
  /** karp-drift's node hold (`NODE_HOLD_ANNOTATION`): the run that put do-not-disrupt there. */
  heldBy?: string;
  taints: TaintView[];
  deleting: boolean;
  createdAt?: string;
  /** The `kubernetes.io/hostname` label, which need not be the node's name (EKS: `ip-10-0-8-225` or the DNS name). */
  hostname?: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface PdbView {
  namespace: string;
  name: string;
  selector?: LabelSelector;
  disruptionsAllowed: number;
  /** spec.unhealthyPodEvictionPolicy: with AlwaysAllow, an unready pod never counts against the budget. */
  unhealthyPodEvictionPolicy?: string;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
}

export interface PodView {
  namespace: string;
  name: string;
  nodeName?: string;
  labels: Record<string, string>;
  phase?: string;
  /** status.startTime, from which a duration-valued do-not-disrupt counts. */
  startTime?: string;
  /**
   * The value of karpenter.sh/do-not-disrupt, when annotated. Only "true" or (Karpenter v1.12+) a running positive
   * duration holds the node: read it with `doNotDisrupt()` in karpenter/disruptable.ts.
   */
  doNotDisrupt?: string;
  daemonSet: boolean;
  /** A mirror (static) pod: owned by its Node; Karpenter never evicts it. */
  mirror?: boolean;
  /** Tolerates karpenter.sh/disrupted:NoSchedule, so Karpenter does not evict it (nor check its PDBs). */
  toleratesDisrupted?: boolean;
  /** Its Ready condition is False (one without a Ready condition is not). */
  notReady?: boolean;
  /** Its Ready condition is True. */
  ready?: boolean;
  /** metadata.creationTimestamp: a pod not Ready long after it was created fails a health gate. */
  createdAt?: string;
  /** The controlling owner, `Kind/name` (a ReplicaSet, StatefulSet, DaemonSet, Job): the workload it belongs to. */
  owner?: string;
  /** Restarts of all its containers (kubelet restartCount), when any. */
  restarts?: number;
  /**
   * The first container the kubelet keeps from running, in its words: a waiting reason other than the normal
   * start-up ones (CrashLoopBackOff, ImagePullBackOff, CreateContainerError, ...), and the last exit when known.
   */
  waiting?: { container: string; reason: string; message?: string; lastExit?: string };
  deleting: boolean;
  /**
   * The one node the pod may run on, by `kubernetes.io/hostname` (nodeSelector or required node affinity: the node's
   * hostname label) or `metadata.name` (matchFields: its name): no replacement node can take it.
   */
  pinnedTo?: string;
}

export interface EventView {
  uid: string;
  namespace: string;
  reason: string;
  message: string;
  type?: string;
  involvedKind?: string;
  involvedName?: string;
  count: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
}

/** /version, as EKS reports it. */
export interface ControlPlaneVersion {
  /** "1.30" */
  minor: string;
  gitVersion: string;
}

/** Everything `plan`, `upgrade` and `status` read from the cluster, read once (cluster/inventory.ts). */
export interface Inventory {
  karpenterApi: KarpenterApi;
  controlPlane: ControlPlaneVersion;
  nodeClasses: NodeClassView[];
  nodePools: NodePoolView[];
  nodeClaims: NodeClaimView[];
  nodes: NodeView[];
  pdbs: PdbView[];
  /** Pods on the Karpenter-managed nodes. */
  pods: PodView[];
  /** Karpenter's events (DisruptionBlocked, FailedDraining, ...), newest last. */
  events: EventView[];
  /**
   * `files`: the classes and NodePools are manifests read from files (`karp-drift pin`), with whatever a cluster or
   * EC2 told about them: a class nothing was observed for (no status.amis, no NodeClaim) can launch what its terms
   * select, not only amd64. Absent: read from a cluster.
   */
  origin?: 'files';
}

/**
 * What tells which AMIs a plan needs (plan/targets.ts, kept-releases.ts, promotion.ts): the classes, their NodePools
 * and NodeClaims. They are read long before the pods' pages end, so the AMIs are resolved while those are on the wire.
 */
export type KarpenterObjects = Pick<Inventory, 'nodeClasses' | 'nodePools' | 'nodeClaims' | 'origin'>;

/** What a diagnosis reads besides the watched kinds: NodePools (budgets), PDBs, and the pods on Karpenter's nodes. */
export type DiagnosisReads = Pick<Inventory, 'nodePools' | 'pdbs' | 'pods'>;

export type WatchedKind = 'NodeClaim' | 'Node' | 'EC2NodeClass' | 'Event';

/** What following the cluster delivers (cluster/follow.ts) and the rollout tracker consumes (rollout/snapshot.ts). */
export type ClusterChange =
  /** After the first list and after every relist: the full current set of that kind, replacing what was known. */
  | { type: 'synced'; kind: WatchedKind; items: Array<NodeClaimView | NodeView | NodeClassView | EventView> }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: 'NodeClaim'; view: NodeClaimView }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: 'Node'; view: NodeView }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: 'EC2NodeClass'; view: NodeClassView }
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: 'Event'; view: EventView };

/** One managedFields entry, as the API server returns it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
}

/** A live object reduced to what the diff reads (cluster/live-manifests.ts builds it, manifests/diff.ts reads it). */
export interface LiveObject {
  /** What the diff was computed against: the apply carries it as a precondition. */
  resourceVersion: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Record<string, unknown>;
  managedFields: ManagedFieldsEntry[];
}

/** A NodeClaim as the template checks (plan/template-drift.ts) see it: where it belongs, what it runs, and its labels (for requirements). */
export interface TemplateClaim {
  name: string;
  nodePool?: string;
  nodeClass?: string;
  imageId?: string;
  labels: Record<string, string>;
  deleting: boolean;
}
