// What every simulated controller shares: the API (the sandbox store, through which all reads and writes go, with the
// same validation, finalizer and watch semantics as HTTP requests), simulated time, events, seeded randomness, the
// scenario's timing and faults, and the little memory a controller keeps between passes (Karpenter keeps the same in
// its cluster state and orchestration queue).
import type { RegistrationHealthRule } from '../../karpenter/registration-health.js';
import type { AmiCatalog } from '../aws/types.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import type { SeededRandom } from '../scenarios/random.js';
import type { BudgetSupport, NodeClassConditions } from '../scenarios/versions.js';
import type { SimClock } from './clock.js';
import type { DueQueue } from './due-queue.js';
import type { DisruptionLog } from './disruption-log.js';
import type { EventRecorder } from './events.js';
import type { DaemonSets, NodeUsage, SchedulableNodes } from './indexes.js';
import type { NodePoolCounts } from './nodepool-counts.js';
import type { ConditionTransitions } from './condition-transitions.js';
import type { HashVersions } from './hashes.js';
import { withCondition, type Condition } from './objects.js';

/** Simulated seconds unless named otherwise. */
export interface SimTiming {
  driftDetectionSeconds: number;
  launchSeconds: number;
  registerSeconds: [number, number];
  initializeSeconds: number;
  podStartSeconds: number;
  /** From a pod's creation by its ReplicaSet until kube-scheduler binds it, or marks it unschedulable. */
  podScheduleSeconds: number;
  registrationTimeoutMinutes: number;
  disruptionPollSeconds: number;
}

export const DEFAULT_TIMING: SimTiming = {
  driftDetectionSeconds: 5,
  launchSeconds: 60,
  registerSeconds: [30, 90],
  initializeSeconds: 10,
  podStartSeconds: 5,
  podScheduleSeconds: 1,
  registrationTimeoutMinutes: 15,
  disruptionPollSeconds: 10,
};

/**
 * How a bad AMI release shows on the nodes launched from it (bad-ami.ts): they never register, register but never go
 * Ready, go NotReady a while after initializing, crash every container, or never launch at all.
 */
export const BAD_AMI_SYMPTOMS = ['never-registers', 'never-ready', 'not-ready', 'crash-loop', 'launch-fails'] as const;
export type BadAmiSymptom = (typeof BAD_AMI_SYMPTOMS)[number];

/** A bad AMI release as the simulator applies it: the scenario's `faults.badAmi` resolved against the catalog. */
export interface BadAmi {
  symptom: BadAmiSymptom;
  /** The images of the bad release (every arch and variant of each affected family). */
  imageIds: ReadonlySet<string>;
  /** Only NodeClaims of these EC2NodeClasses; undefined: any. */
  nodeClasses?: ReadonlySet<string>;
  /** not-ready: simulated seconds from initialization until the Node goes NotReady. */
  afterSeconds: number;
}

/** A crash-looping pod's next restart (crash-loop.ts): the pod, and the exit code each crash reports. */
export interface CrashLoop {
  podKey: string;
  uid: string;
  exitCode: number;
}

export interface SimFaults {
  launchFailures?: { nodePool: string; count: number; reason: string };
  neverRegisters?: { nodePool: string };
  slowDrain?: { podTerminationSeconds: number };
  /** Images the simulated Karpenter's account cannot see once the class is changed (not shared). */
  hiddenImageIds?: ReadonlySet<string>;
  badAmi?: BadAmi;
}

/** Names already used in the cluster, so every new one is unique (scenarios/names.ts). */
export interface TakenNames {
  names: Set<string>;
  dnsNames: Set<string>;
  instanceIds: Set<string>;
}

/** A disruption command in flight (Karpenter's orchestration queue entry, queue.go Command). */
export interface Command {
  candidate: string; // old NodeClaim name
  nodeName: string;
  nodePool: string;
  /** The replacement NodeClaims; none when the candidate's pods fit on other nodes (a delete). */
  replacements: string[];
  /** Those seen Initialized (queue.go Replacement.Initialized): not checked again. */
  initialized: Set<string>;
  startedAt: number;
  /** When the queue next looks at it (simulated ms): it requeues a waiting command after queueBaseDelay, 1 s. */
  checkAt: number;
}

/** What a NodePool's budgets are counted over (DOMAIN.md §2.6): its initialized nodes, and those disrupting. */
export interface BudgetCounts {
  numNodes: number;
  disrupting: number;
}


export interface LifecyclePhase {
  /**
   * Simulated ms of the NodeClaim's creation: both of liveness's clocks start there, as operatorpkg stamps Launched and
   * Registered with the creationTimestamp (DOMAIN.md §1.4).
   */
  createdAt: number;
  launchAt: number;
  nodeName?: string;
  registerAt?: number;
  initializeAt?: number;
  /** The launch fails with this reason (an injected fault). */
  fail?: string;
}

export interface SimMemory {
  driftSeenAt: Map<string, number>;
  commands: Map<string, Command>;
  /** NodeClaim lifecycle deadlines (simulated ms): launch, register, initialize. */
  lifecycle: Map<string, LifecyclePhase>;
  /** NodeClaim → simulated ms of its creation, seen on the store's change feed (liveness counts from there). */
  createdAt: Map<string, number>;
  /** NodePool uid → its last launch outcomes, the buffer behind NodeRegistrationHealthy (registration-health.ts). */
  registrationHealth: Map<string, boolean[]>;
  launchFailuresLeft: number;
  /** Pods evicted and terminating: namespace/name → simulated ms when they are gone. */
  terminating: Map<string, number>;
  /** Pods created by their controller and not yet Running: namespace/name → ms when they become Ready. */
  starting: Map<string, number>;
  /** PodDisruptionBudget (namespace/name) → evictions still allowed; recomputed every pass. */
  pdbAllowed: Map<string, number>;
  /** Namespace → its PodDisruptionBudgets, listed once a pass (pdbs.ts). */
  pdbsByNamespace: Map<string, KubeObject[]>;
  /** Namespace and a pod's labels → the PodDisruptionBudgets selecting them, matched once a pass (pdbs.ts). */
  pdbsByLabels: Map<string, KubeObject[]>;
  /** EC2NodeClass → the generation whose AMI reconcile failed with an error, and when it is retried (simulated ms). */
  nodeClassRetryAt: Map<string, { generation: number; at: number }>;
  /** EC2NodeClass name → the generation last reconciled, for releases whose status has no AMIsReady to tell. */
  nodeClassReconciled: Map<string, number>;
  /** NodeClaim → simulated ms its deletion was first seen (terminationGracePeriod counts from there). */
  deletingSince: Map<string, number>;
  /** Node → when the termination controller looks at it again (simulated ms). */
  terminationAt: Map<string, number>;
  /** NodeClaim → when its instance, whose deletion was requested, is gone (simulated ms). */
  instanceGoneAt: Map<string, number>;
  /** Pods their ReplicaSet created that kube-scheduler has not looked at yet: namespace/name → when it will. */
  unscheduled: Map<string, number>;
  /** Pods kube-scheduler could not bind (PodScheduled False, Unschedulable), retried every pass: namespace/name. */
  pending: Set<string>;
  /** When pods still pending next wake the provisioner (its pod controller requeues them every 10 s). */
  pendingRetriggerAt: number;
  /** When the next disruption pass runs (simulated ms): 1 s after a pass that started a command, else the poll. */
  nextDisruptionPass: number;
  /** NodeClaim name → until when (simulated ms) a scheduling run relies on it for a pod (statenode.go Nominate). */
  nominatedUntil: Map<string, number>;
  /** `<resource>/<name>` → the static-drift hash of a NodePool or EC2NodeClass generation (hash-controller.ts). */
  hashes: Map<string, { generation: number; hash: string }>;
  /** The provisioner's batch: the first and the last trigger since it last ran (simulated ms). */
  provisionerBatch?: { first: number; last: number };
  /** NodeClaims the scheduling simulation has made up, for their `hostname-placeholder-NNNN` (scheduling.ts). */
  hostnamePlaceholders: number;
  /** Nodes of a bad AMI whose symptom is not-ready: when the kubelet reports NotReady, and whether it has (bad-ami.ts). */
  notReady: Map<string, { at: number; struck: boolean }>;
  /** Crash-looping containers' next restarts (crash-loop.ts). */
  crashLoops: DueQueue<CrashLoop>;
}

/**
 * How many store writes one controller step may make before it leaves the rest to the next pass, so a step stays
 * short whatever the fleet's size: the step is one turn of the event loop, and the API server answers nothing while
 * it runs. Controllers check it before each object they act on, so a step writes at most `limit` plus one object's
 * writes. Karpenter's controllers likewise reconcile object by object rather than the whole fleet at once.
 */
export class WorkBudget {
  private start: number;
  constructor(
    private readonly writes: () => number,
    public limit = 200,
  ) {
    this.start = writes();
  }

  /** Has this step written its share? Then leave the rest for the next pass. */
  exhausted(): boolean {
    return this.writes() - this.start >= this.limit;
  }

  /** Writes so far in this step. */
  spent(): number {
    return this.writes() - this.start;
  }

  reset(): void {
    this.start = this.writes();
  }
}

export interface SimContext {
  store: KubeStore;
  budget: WorkBudget;
  /** Nodes pods may be bound to, kept from the store's changes (indexes.ts). */
  schedulableNodes: SchedulableNodes;
  /** What the pods bound to each node request (indexes.ts). */
  nodeUsage: NodeUsage;
  /** Condition transitions seen on the store's change feed, for operatorpkg's events (status-events.ts). */
  conditionTransitions: ConditionTransitions;
  /** Each NodePool's NodeClaims and capacity, for its status (nodepool-controller.ts). */
  nodePoolCounts: NodePoolCounts;
  /** The DaemonSets known from their pods, and the new Nodes still to get their pods (daemonsets.ts). */
  daemonSets: DaemonSets;
  clock: SimClock;
  events: EventRecorder;
  rng: SeededRandom;
  taken: TakenNames;
  timing: SimTiming;
  faults: SimFaults;
  catalog: AmiCatalog;
  controlPlaneVersion: string;
  /** karpenter.sh/v1, or karpenter.sh/v1beta1 for a v0.3x install. */
  karpenterApi: 'v1' | 'v1beta1';
  /** The static-drift hash versions this release writes (hashes.ts). */
  hashVersions: HashVersions;
  /**
   * The release's disruption budgets (scenarios/versions.ts): by reason (v1), one allowance for every method (v0.34–
   * v0.37), or none, one command at a time for the whole cluster (v0.32–v0.33).
   */
  budgets: BudgetSupport;
  /** Which conditions the release's EC2NodeClass status has (scenarios/versions.ts). */
  nodeClassConditions: NodeClassConditions;
  /** How the release keeps NodeRegistrationHealthy (scenarios/versions.ts); undefined: it has no such condition. */
  registrationHealthRule: RegistrationHealthRule | undefined;
  memory: SimMemory;
  /** The drift commands started and when each ended, for tests (disruption-log.ts). */
  disruptions: DisruptionLog;
  log(message: string): void;
}

export const NODECLAIMS = 'nodeclaims.karpenter.sh';
export const NODEPOOLS = 'nodepools.karpenter.sh';
export const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
export const MANAGER = 'karpenter';

export function key(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
}

export function status<T = Record<string, unknown>>(o: KubeObject): T {
  return (o.status ?? {}) as T;
}

export function spec<T = Record<string, unknown>>(o: KubeObject): T {
  return (o.spec ?? {}) as T;
}

/** Writes status through the status subresource, as a controller does. */
export function writeStatus(
  ctx: SimContext,
  resource: string,
  o: KubeObject,
  next: Record<string, unknown>,
): KubeObject {
  return ctx.store.update(resource, { ...o, status: next }, { subresource: 'status', manager: MANAGER });
}

/**
 * Sets status conditions (a transition time only where the status changes), as Karpenter's controllers patch them.
 * `at` is the transition time of a condition that changes (default: now).
 */
export function setConditions(
  ctx: SimContext,
  resource: string,
  o: KubeObject,
  updates: Array<Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>>,
  extra: Record<string, unknown> = {},
  at?: Date,
): KubeObject {
  const now = at ?? ctx.clock.wall();
  let conditions = status<{ conditions?: Condition[] }>(o).conditions;
  for (const u of updates)
    conditions = withCondition(conditions, { ...u, observedGeneration: o.metadata.generation ?? 1 }, now);
  return writeStatus(ctx, resource, o, { ...status<Record<string, unknown>>(o), ...extra, conditions });
}

export function writeObject(ctx: SimContext, resource: string, o: KubeObject): KubeObject {
  return ctx.store.update(resource, o, { manager: MANAGER });
}
