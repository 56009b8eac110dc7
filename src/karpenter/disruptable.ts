// Which pods hold a node back from voluntary disruption, by Karpenter's rules (kubernetes-sigs/karpenter v1.14.1
// pkg/utils/pod/scheduling.go `IsDoNotDisruptActive`, `IsEvictable`; pkg/utils/pdb/pdb.go `isEvictable`;
// pkg/controllers/state/statenode.go `ValidatePodsDisruptable`; DOMAIN.md §2.7). Pure, over the narrow views, so
// the plan, the diagnosis and the sandbox's Karpenter apply the same rules and cannot disagree.
import { selectorMatches } from './convert.js';
import { goQuote, parseGoDuration } from './go-duration.js';
import type { PdbView, PodView } from './views.js';

/** A pod's `karpenter.sh/do-not-disrupt` as Karpenter reads it at `now`. */
export type DoNotDisrupt =
  | { state: 'absent' }
  /** "true" (no `until`: until removed), or a positive duration not yet run out since `status.startTime`. */
  | { state: 'active'; value: string; until?: Date }
  /** A duration that ran out at `at`: Karpenter no longer honours it. */
  | { state: 'expired'; value: string; at: Date }
  /** Not "true" and not a positive Go duration: Karpenter ignores it and says why in InvalidDoNotDisruptAnnotation. */
  | { state: 'invalid'; value: string; error: string };

type DoNotDisruptFields = Pick<PodView, 'doNotDisrupt' | 'startTime'>;

// One for every pod without the annotation (most of them), rather than an object each.
const ABSENT: DoNotDisrupt = Object.freeze({ state: 'absent' });

export function doNotDisrupt(pod: DoNotDisruptFields, now: Date): DoNotDisrupt {
  const value = pod.doNotDisrupt;
  if (value === undefined) return ABSENT;
  if (value === 'true') return { state: 'active', value };
  // parseDoNotDisrupt: the error texts are the ones Karpenter puts in its event.
  const d = parseGoDuration(value);
  if (!d.ok) return { state: 'invalid', value, error: `failed to parse ${goQuote(value)} as a duration: ${d.error}` };
  if (d.ns <= 0n) return { state: 'invalid', value, error: `duration ${goQuote(value)} must be positive` };
  const start = Date.parse(pod.startTime ?? '');
  // "If we can't determine start time, fail safe".
  if (Number.isNaN(start)) return { state: 'active', value };
  const until = new Date(start + d.ms);
  return now.getTime() - start < d.ms ? { state: 'active', value, until } : { state: 'expired', value, at: until };
}

/** Karpenter's InvalidDoNotDisruptAnnotation event message (pkg/utils/pod/events.go). */
export function invalidDoNotDisruptMessage(error: string): string {
  return `Invalid karpenter.sh/do-not-disrupt annotation: ${error}, ignoring annotation`;
}

type PodFields = Pick<PodView, 'phase' | 'deleting'>;

/** `IsActive`: not Succeeded or Failed, not terminating. */
export function isActivePod(pod: PodFields): boolean {
  return !pod.deleting && pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
}

/**
 * `IsReschedulable`: a pod Karpenter must find a place for before it disrupts the node (active, or a terminating
 * StatefulSet pod; not a DaemonSet's, not a mirror pod). A drifted node without one is empty: drift deletes it first,
 * and without a replacement (`disruption/drift.go`).
 */
export function isReschedulable(pod: PodView): boolean {
  const terminal = pod.phase === 'Succeeded' || pod.phase === 'Failed';
  const statefulSetLeaving = pod.deleting && !terminal && pod.owner?.startsWith('StatefulSet/') === true;
  return (isActivePod(pod) || statefulSetLeaving) && !pod.daemonSet && pod.mirror !== true;
}

const busyNodes = new WeakMap<readonly PodView[], ReadonlySet<string | undefined>>();

/**
 * The nodes that run a reschedulable pod: the others are empty. Worked out once per list of pods, which a plan reads
 * for its AMIs and again for its picks (50,000 pods on `large`).
 */
export function nodesWithReschedulablePods(pods: readonly PodView[]): ReadonlySet<string | undefined> {
  let busy = busyNodes.get(pods);
  if (busy === undefined) {
    const nodes = new Set<string | undefined>();
    for (const p of pods) if (isReschedulable(p)) nodes.add(p.nodeName);
    busyNodes.set(pods, (busy = nodes));
  }
  return busy;
}

/**
 * `IsDisruptable`, negated: an active pod whose do-not-disrupt holds. Karpenter checks this on every pod bound to the
 * node, DaemonSet and mirror pods included ("we will allow Mirror Pods and DaemonSets to block disruption").
 */
export function holdsDoNotDisrupt(pod: PodFields & DoNotDisruptFields, now: Date): boolean {
  return isActivePod(pod) && doNotDisrupt(pod, now).state === 'active';
}

/**
 * `IsEvictable`: the pods Karpenter would call the Eviction API for, the only ones whose PDBs it checks. Not those
 * that tolerate `karpenter.sh/disrupted:NoSchedule` (DaemonSet pods often do), not mirror pods, not do-not-disrupt.
 */
export function isEvictable(pod: PodView, now: Date): boolean {
  return isActivePod(pod) && !pod.toleratesDisrupted && !pod.mirror && !holdsDoNotDisrupt(pod, now);
}

/** The PDBs selecting the pod; undefined for none, so that most pods make no array (a plan asks for every pod). */
function pdbsOf(pod: Pick<PodView, 'namespace' | 'labels'>, pdbs: readonly PdbView[]): PdbView[] | undefined {
  let matching: PdbView[] | undefined;
  for (const b of pdbs) if (b.namespace === pod.namespace && selectorMatches(b.selector, pod.labels)) (matching ??= []).push(b);
  return matching;
}

/** What stops Karpenter from evicting a pod: several PDBs (the Eviction API refuses), or one allowing none. */
export interface PdbBlock {
  multiple: boolean;
  pdbs: PdbView[];
}

/** pdb.go `isEvictable` with zeroDisruptions: undefined when the pod's PDBs let Karpenter pick its node. */
export function pdbBlock(pod: PodView, pdbs: readonly PdbView[], now: Date): PdbBlock | undefined {
  if (pdbs.length === 0 || !isEvictable(pod, now)) return undefined;
  const matching = pdbsOf(pod, pdbs);
  if (matching === undefined) return undefined;
  if (matching.length > 1) return { multiple: true, pdbs: matching };
  const pdb = matching[0]!;
  // An unready pod under `unhealthyPodEvictionPolicy: AlwaysAllow` may always be evicted.
  if (pdb.unhealthyPodEvictionPolicy === 'AlwaysAllow' && pod.notReady === true) return undefined;
  return pdb.disruptionsAllowed <= 0 ? { multiple: false, pdbs: [pdb] } : undefined;
}

export const pdbKey = (pdb: Pick<PdbView, 'namespace' | 'name'>): string => `${pdb.namespace}/${pdb.name}`;
