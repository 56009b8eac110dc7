// Views in the states a drift rollout passes through, built from defaults plus overrides, as Karpenter's
// pkg/test/nodeclaim.go does: `nodeClaim({ imageId: 'ami-old', drifted: true })`. Defaults: NodePool "general" on
// EC2NodeClass "default", old AMI ami-old with kubelet 1.29, target ami-new with kubelet 1.30.
import type {
  ConditionView,
  EventView,
  NodeClaimView,
  NodeClassView,
  NodePoolView,
  NodeView,
  PdbView,
  PodView,
} from '../../src/karpenter/views.js';
import { inventorySnapshot, type Snapshot } from '../../src/rollout/snapshot.js';
import type { RolloutScope } from '../../src/rollout/track.js';

/** When the rollout started: `at(12)` is twelve minutes later. */
export const T0 = new Date('2025-08-20T14:00:00Z');
export const at = (minutes: number, seconds = 0): Date => new Date(T0.getTime() + minutes * 60_000 + seconds * 1000);
export const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

const condition = (status: ConditionView['status'], reason: string, message = '', time = at(-60)): ConditionView => ({
  status,
  reason,
  message,
  lastTransitionTime: iso(time),
  observedGeneration: 1,
});

export type Phase = 'created' | 'launched' | 'registered' | 'initialized';

export interface NodeClaimOptions extends Partial<NodeClaimView> {
  /** How far the lifecycle got (default initialized): sets Launched, Registered, Initialized, Ready. */
  phase?: Phase;
  drifted?: boolean;
  /** Picked by the disruption queue: DisruptionReason=True/Drifted. */
  disruptionReason?: boolean;
  /** When Launched turned True (default an hour before T0); the NodeClaim was created a minute before. */
  launchedAt?: Date;
}

export function nodeClaim(o: NodeClaimOptions = {}): NodeClaimView {
  const {
    phase = 'initialized',
    drifted = false,
    disruptionReason = false,
    launchedAt = at(-60),
    conditions,
    ...rest
  } = o;
  const name = rest.name ?? 'general-a1b2c';
  const step = ['created', 'launched', 'registered', 'initialized'].indexOf(phase);
  const c: Record<string, ConditionView> = {};
  if (step >= 1) {
    c.Launched = condition('True', 'Launched', '', launchedAt);
    c.Registered = condition('Unknown', 'NodeNotFound', 'Node not registered with cluster', launchedAt);
    c.Initialized = condition('Unknown', 'NodeNotFound', 'Node not registered with cluster', launchedAt);
  }
  if (step >= 2) {
    c.Registered = condition('True', 'Registered');
    c.Initialized = condition('Unknown', 'NodeNotReady', 'Node status is NotReady');
  }
  if (step >= 3) {
    c.Initialized = condition('True', 'Initialized');
    c.Ready = condition('True', 'Ready');
  }
  if (drifted) c.Drifted = condition('True', 'AMIDrift', 'AMIDrift', at(1));
  if (disruptionReason) c.DisruptionReason = condition('True', 'Drifted', 'Drifted', at(2));
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: '100',
    nodePool: 'general',
    nodeClass: 'default',
    ...(step >= 1 ? { imageId: 'ami-old', providerId: `aws:///us-west-2a/i-${name.replace(/[^a-z0-9]/g, '')}` } : {}),
    ...(step >= 2 ? { nodeName: `ip-${name}` } : {}),
    arch: 'amd64',
    instanceType: 'm6i.xlarge',
    gpu: false,
    accelerator: false,
    // Karpenter stamps Launched and Registered with the creation time (DOMAIN.md §1.4); a minute before launch here.
    createdAt: iso(new Date(launchedAt.getTime() - 60_000)),
    deleting: false,
    ...rest,
    ...(rest.deleting === true && rest.deletionTimestamp === undefined ? { deletionTimestamp: iso(at(3)) } : {}),
    conditions: { ...c, ...conditions },
  };
}

export function node(o: Partial<NodeView> = {}): NodeView {
  const name = o.name ?? 'ip-general-a1b2c';
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: '100',
    nodePool: 'general',
    kubeletVersion: 'v1.29.8-eks-a1b2c3d',
    ready: true,
    initialized: true,
    doNotDisrupt: false,
    taints: [],
    deleting: false,
    ...o,
  };
}

/** The Node of a registered NodeClaim, its kubelet matching the NodeClaim's AMI unless overridden. */
export function nodeFor(claim: NodeClaimView, o: Partial<NodeView> = {}): NodeView {
  return node({
    name: claim.nodeName ?? '',
    nodePool: claim.nodePool,
    kubeletVersion: claim.imageId === 'ami-new' ? 'v1.30.4-eks-e5f6a7b' : 'v1.29.8-eks-a1b2c3d',
    ready: claim.conditions.Initialized?.status === 'True',
    initialized: claim.conditions.Initialized?.status === 'True',
    ...(claim.providerId !== undefined ? { providerId: claim.providerId } : {}),
    ...o,
  });
}

export function nodeClass(o: Partial<NodeClassView> = {}): NodeClassView {
  return {
    name: 'default',
    uid: 'uid-default',
    resourceVersion: '100',
    generation: 2,
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ id: 'ami-new' }],
    statusAmis: [{ id: 'ami-new', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20250801', requirements: [] }],
    conditions: { AMIsReady: { ...condition('True', 'AMIsReady', '', at(0, 5)), observedGeneration: 2 } },
    owners: [],
    labels: {},
    annotations: {},
    ...o,
  };
}

export function nodePool(o: Partial<NodePoolView> = {}): NodePoolView {
  return { name: 'general', uid: 'uid-general', nodeClass: 'default', requirements: [], conditions: {}, ...o };
}

export function pod(o: Partial<PodView> = {}): PodView {
  return {
    namespace: 'payments',
    name: 'ledger-0',
    nodeName: 'ip-general-a1b2c',
    labels: { app: 'ledger' },
    phase: 'Running',
    daemonSet: false,
    deleting: false,
    ...o,
  };
}

export function pdb(o: Partial<PdbView> = {}): PdbView {
  return {
    namespace: 'payments',
    name: 'ledger',
    selector: { matchLabels: { app: 'ledger' } },
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
    ...o,
  };
}

export function event(o: Partial<EventView> = {}): EventView {
  return {
    uid: 'ev-1',
    namespace: 'default',
    reason: 'DisruptionBlocked',
    message: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
    type: 'Normal',
    involvedKind: 'NodePool',
    involvedName: 'general',
    count: 1,
    firstTimestamp: iso(at(5)),
    lastTimestamp: iso(at(5)),
    ...o,
  };
}

export function scope(o: Partial<RolloutScope> = {}): RolloutScope {
  return {
    nodePools: [{ name: 'general', nodeClass: 'default' }],
    targetImageIds: { default: ['ami-new'] },
    targetMinor: '1.30',
    startedAt: T0,
    nodeClassGenerations: { default: 2 },
    ...o,
  };
}

/** A snapshot listing these objects once (so the NodeClaims are also the baseline). */
export function snapshotOf(o: {
  nodeClaims?: NodeClaimView[];
  nodes?: NodeView[];
  nodeClasses?: NodeClassView[];
  events?: EventView[];
}): Snapshot {
  return inventorySnapshot({
    nodeClaims: o.nodeClaims ?? [],
    nodes: o.nodes ?? [],
    nodeClasses: o.nodeClasses ?? [nodeClass()],
    events: o.events ?? [],
  });
}

/** NodeClaims and their Nodes, for `snapshotOf`. */
export function members(...claims: NodeClaimView[]): { nodeClaims: NodeClaimView[]; nodes: NodeView[] } {
  return { nodeClaims: claims, nodes: claims.filter((c) => c.nodeName !== undefined).map((c) => nodeFor(c)) };
}
