// The vocabulary of a stall diagnosis, shared by stalls.ts and pod-stalls.ts (which checks the pods on drifted
// nodes): the codes, a blocker with its evidence, and the facts every check reads.
import type { EventView, KarpenterApi, NodeClaimView, NodeClassView, NodePoolView, PdbView, PodView } from '../karpenter/views.js';
import type { Snapshot } from './snapshot.js';
import type { RolloutScope } from './track.js';
import type { RunLock } from '../apis/hold-state.js';

/** Every stall code, in the order the docs list them (docs/troubleshooting.md, the `blocked` event's schema). */
export const STALL_CODES = [
  'STALL-BAD-AMI',
  'STALL-AMIS-NOT-READY',
  'STALL-NOT-DRIFTING',
  'STALL-HELD',
  'STALL-BUDGET',
  'STALL-DO-NOT-DISRUPT',
  'STALL-PDB',
  'STALL-NO-TGP',
  'STALL-UNSCHEDULABLE',
  'STALL-LAUNCH',
  'STALL-REGISTRATION',
] as const;

export type StallCode = (typeof STALL_CODES)[number];

export interface Blocker {
  code: StallCode;
  nodePool?: string;
  /** Set for a blocker of the EC2NodeClass itself (it holds every NodePool using the class). */
  nodeClass?: string;
  message: string;
  evidence: string[];
  next: string;
}

export interface DiagnosisContext {
  scope: RolloutScope;
  nodePools: NodePoolView[];
  pdbs: PdbView[];
  /** Pods on the NodePools' nodes. */
  pods: PodView[];
  karpenterApi: KarpenterApi;
  /** The cluster lock, when the caller read it: whether karp-drift's holds are a live run's or left behind. */
  lock?: RunLock;
}

/** A NodePool in scope as the checks see it (stalls.ts and pod-stalls.ts). */
export interface Pool {
  name: string;
  nodeClass: string;
  view: NodePoolView | undefined;
  nodeClassView: NodeClassView | undefined;
  claims: NodeClaimView[];
  /** NodeClaims with an imageId that is not a target. */
  old: NodeClaimView[];
}

export interface Facts {
  snapshot: Snapshot;
  context: DiagnosisContext;
  now: Date;
  events: EventView[];
  podsByNode: Map<string, PodView[]>;
}
