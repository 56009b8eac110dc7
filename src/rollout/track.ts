// Where a drift rollout stands, per NodePool, computed from a snapshot (src/rollout/README.md has the phases and
// what "done" means). Pure: `now` is an argument, and the follow loop decides when to call it.
import { isOnTarget, type ConditionView, type NodeClaimView, type NodeView } from '../karpenter/views.js';
import type { Snapshot } from './snapshot.js';
import { plural } from '../text/words.js';

export interface RolloutScope {
  nodePools: Array<{ name: string; nodeClass: string }>;
  /** EC2NodeClass name → the AMI IDs pinned for it: a NodeClaim is on target when its imageId is one of them. */
  targetImageIds: Record<string, string[]>;
  /** The Kubernetes minor every kubelet must report at the end, e.g. "1.30". */
  targetMinor: string;
  startedAt: Date;
  /** EC2NodeClass name → the metadata.generation that was applied: its status counts once AMIsReady observed it. */
  nodeClassGenerations?: Record<string, number>;
  /** A rollback: the targets are the AMIs the upgrade replaced, and the lines say the nodes went back to them. */
  back?: boolean;
}

export interface NodePoolCounts {
  /** NodeClaims of the NodePool not being deleted. */
  total: number;
  /** Not being deleted, imageId a target AMI, Initialized. */
  onTarget: number;
  /** NodeClaims of the first full list that were off target and are now gone. */
  replaced: number;
  /** NodeClaims (being deleted or not) whose imageId is not a target AMI. */
  remaining: number;
  /** Drifted=True. */
  drifted: number;
  /** DisruptionReason=True, the disruption taint, or being deleted. */
  disrupting: number;
  /** Not being deleted and not yet Registered (Launched or not). */
  launching: number;
  /** Registered, not yet Initialized. */
  initializing: number;
  /** Off target and being deleted: the old NodeClaim's last phase. */
  terminating: number;
}

export interface NodePoolProgress extends NodePoolCounts {
  name: string;
  nodeClass: string;
  /** Like kubectl rollout status: `Waiting for NodePool "general" drift: 3 of 6 nodes replaced, ...`. */
  message: string;
  done: boolean;
}

export interface RolloutProgress {
  at: Date;
  startedAt: Date;
  targetMinor: string;
  /** When the counts last moved toward done (see `progressed`); the caller compares it with --stall-timeout. */
  lastProgressAt: Date;
  /** NodeClaims and Nodes have been listed in full. */
  synced: boolean;
  nodePools: NodePoolProgress[];
  totals: NodePoolCounts;
  message: string;
  done: boolean;
}

/** The disruption taint: v1 `karpenter.sh/disrupted:NoSchedule`, v1beta1 `karpenter.sh/disruption=disrupting`. */
export const DISRUPTION_TAINTS: readonly string[] = ['karpenter.sh/disrupted', 'karpenter.sh/disruption'];

export const isTrue = (conditions: Record<string, ConditionView>, type: string): boolean =>
  conditions[type]?.status === 'True';

/** `v1.30.4-eks-a737599` → `1.30`. */
export function kubeletMinor(version: string | undefined): string | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return m ? `${m[1]}.${m[2]}` : undefined;
}

export function nodeOf(snapshot: Snapshot, claim: NodeClaimView): NodeView | undefined {
  return claim.nodeName !== undefined ? snapshot.nodes.get(claim.nodeName) : undefined;
}

/** Picked by the disruption queue (v1.2+ sets DisruptionReason; older versions only taint) or being deleted. */
export function isDisrupting(claim: NodeClaimView, node: NodeView | undefined): boolean {
  return claim.deleting || isPicked(claim, node);
}

/** Picked by the disruption queue: DisruptionReason (v1.2+), or the disruption taint alone (older versions). */
export function isPicked(claim: NodeClaimView, node: NodeView | undefined): boolean {
  return (
    isTrue(claim.conditions, 'DisruptionReason') ||
    (node?.taints.some((t) => DISRUPTION_TAINTS.includes(t.key)) ?? false)
  );
}

/** NodeClaims by NodePool label, one pass over the snapshot. */
export function claimsByNodePool(snapshot: Snapshot): Map<string, NodeClaimView[]> {
  const out = new Map<string, NodeClaimView[]>();
  for (const claim of snapshot.nodeClaims.values()) {
    if (claim.nodePool === undefined) continue;
    const list = out.get(claim.nodePool);
    if (list) list.push(claim);
    else out.set(claim.nodePool, [claim]);
  }
  return out;
}

const ZERO: NodePoolCounts = {
  total: 0,
  onTarget: 0,
  replaced: 0,
  remaining: 0,
  drifted: 0,
  disrupting: 0,
  launching: 0,
  initializing: 0,
  terminating: 0,
};
const COUNT_KEYS = Object.keys(ZERO) as Array<keyof NodePoolCounts>;

/** What keeps a NodePool from done beyond the counts; only messages read it. */
interface Waiting {
  drifted: number;
  notDrifted: number;
  notReady: number;
  otherKubelet: Map<string, number>;
}

/**
 * The status line a run that ends early quotes: in a staged rollout, the first NodePool of the open stage that is not
 * done (`nodePools`); the NodePools of later stages wait, held on purpose, and naming one of them said the wrong stage
 * was running. Otherwise the rollout's own line.
 */
export function statusLineOf(progress: RolloutProgress, nodePools?: readonly string[]): string {
  if (nodePools === undefined || !progress.synced || progress.done) return progress.message;
  return progress.nodePools.find((p) => !p.done && nodePools.includes(p.name))?.message ?? progress.message;
}

/** Progress from one snapshot; `lastProgressAt` is `scope.startedAt` (`track` carries it forward). */
export function rolloutProgress(snapshot: Snapshot, scope: RolloutScope, now: Date): RolloutProgress {
  const synced = snapshot.synced.has('NodeClaim') && snapshot.synced.has('Node');
  const byPool = claimsByNodePool(snapshot);
  const replaced = replacedByNodePool(snapshot, scope);
  const nodePools = scope.nodePools.map((pool) =>
    nodePoolProgress(snapshot, scope, pool, byPool.get(pool.name) ?? [], replaced.get(pool.name) ?? 0, synced),
  );
  const totals = { ...ZERO };
  for (const p of nodePools) for (const k of COUNT_KEYS) totals[k] += p[k];
  const done = synced && nodePools.every((p) => p.done);
  const message = !synced
    ? 'Waiting for the first list of NodeClaims and Nodes...'
    : done
      ? scope.back === true
        ? `Rollback complete: ${plural(nodePools.length, 'NodePool')}, ${plural(totals.onTarget, 'node')} back on the previous AMIs with kubelet ${scope.targetMinor}`
        : `Rollout complete: ${plural(nodePools.length, 'NodePool')}, ${plural(totals.onTarget, 'node')} on the target AMIs with kubelet ${scope.targetMinor}`
      : (nodePools.find((p) => !p.done)?.message ?? '');
  return {
    at: now,
    startedAt: scope.startedAt,
    targetMinor: scope.targetMinor,
    lastProgressAt: scope.startedAt,
    synced,
    nodePools,
    totals,
    message,
    done,
  };
}

/** Baseline NodeClaims that were off target and are gone, by NodePool: one pass over the baseline. */
function replacedByNodePool(snapshot: Snapshot, scope: RolloutScope): Map<string, number> {
  const targets = new Map(
    scope.nodePools.map((p) => [p.name, new Set(scope.targetImageIds[p.nodeClass] ?? [])] as const),
  );
  const out = new Map<string, number>();
  for (const [name, { nodePool, imageId }] of snapshot.baseline) {
    const poolTargets = nodePool !== undefined ? targets.get(nodePool) : undefined;
    if (poolTargets === undefined || imageId === undefined || poolTargets.has(imageId)) continue;
    if (!snapshot.nodeClaims.has(name)) out.set(nodePool ?? '', (out.get(nodePool ?? '') ?? 0) + 1);
  }
  return out;
}

function nodePoolProgress(
  snapshot: Snapshot,
  scope: RolloutScope,
  pool: { name: string; nodeClass: string },
  claims: NodeClaimView[],
  replaced: number,
  synced: boolean,
): NodePoolProgress {
  const targets = new Set(scope.targetImageIds[pool.nodeClass] ?? []);
  const c = { ...ZERO, replaced };
  const waiting: Waiting = { drifted: 0, notDrifted: 0, notReady: 0, otherKubelet: new Map() };
  let complete = true;
  for (const claim of claims) {
    const node = nodeOf(snapshot, claim);
    const onImage = claim.imageId !== undefined && targets.has(claim.imageId);
    const registered = isTrue(claim.conditions, 'Registered');
    const initialized = isTrue(claim.conditions, 'Initialized');
    const drifted = isTrue(claim.conditions, 'Drifted');
    const disrupting = isDisrupting(claim, node);
    if (!claim.deleting) c.total += 1;
    if (isOnTarget(claim, targets)) c.onTarget += 1;
    if (drifted) c.drifted += 1;
    if (disrupting) c.disrupting += 1;
    if (!claim.deleting && !registered) c.launching += 1;
    if (!claim.deleting && registered && !initialized) c.initializing += 1;
    if (claim.imageId !== undefined && !onImage) {
      c.remaining += 1;
      if (claim.deleting) c.terminating += 1;
      else if (!disrupting) waiting[drifted ? 'drifted' : 'notDrifted'] += 1;
    }
    if (claim.deleting || !onImage || !initialized) {
      complete = false;
      continue;
    }
    if (node === undefined || !node.ready) {
      waiting.notReady += 1;
      complete = false;
    }
    const minor = kubeletMinor(node?.kubeletVersion);
    if (node !== undefined && minor !== scope.targetMinor) {
      const key = minor ?? 'unknown';
      waiting.otherKubelet.set(key, (waiting.otherKubelet.get(key) ?? 0) + 1);
      complete = false;
    }
  }
  const done = synced && complete;
  return {
    name: pool.name,
    nodeClass: pool.nodeClass,
    ...c,
    message: nodePoolMessage(pool.name, c, waiting, done, scope),
    done,
  };
}

function nodePoolMessage(name: string, c: NodePoolCounts, w: Waiting, done: boolean, scope: RolloutScope): string {
  const minor = scope.targetMinor;
  if (done && scope.back === true)
    return `NodePool "${name}" rolled back: ${plural(c.total, 'node')} on the previous AMIs with kubelet ${minor}`;
  if (done)
    return `NodePool "${name}" successfully rolled out: ${plural(c.total, 'node')} on the target AMIs with kubelet ${minor}`;
  const clauses = [
    c.launching > 0 ? `${plural(c.launching, 'replacement')} launching` : '',
    c.initializing > 0 ? `${plural(c.initializing, 'replacement')} initializing` : '',
    c.terminating > 0 ? `${plural(c.terminating, 'old node')} terminating` : '',
    w.drifted > 0 ? `${plural(w.drifted, 'drifted node')} waiting for disruption` : '',
    w.notDrifted > 0 ? `${plural(w.notDrifted, 'node')} not drifted yet` : '',
    w.notReady > 0 ? `${plural(w.notReady, 'node')} not Ready` : '',
    ...[...w.otherKubelet].map(([m, n]) => `${plural(n, 'node')} on kubelet ${m}, not ${minor}`),
  ].filter((s) => s !== '');
  return `Waiting for NodePool "${name}" drift: ${c.replaced} of ${c.replaced + c.remaining} nodes replaced${clauses.map((s) => `, ${s}`).join('')}...`;
}

/**
 * Did the rollout move toward done between two readings? Only forward moves count: a replacement that launches and
 * then fails (insufficient capacity, a node that never registers) makes `launching` and `disrupting` go up and down
 * forever, and must not keep a stalled rollout from being reported.
 */
export function progressed(previous: RolloutProgress, next: RolloutProgress): boolean {
  if (next.done && !previous.done) return true;
  return next.nodePools.some((p) => {
    const before = previous.nodePools.find((q) => q.name === p.name);
    if (before === undefined) return true;
    return (
      p.replaced > before.replaced ||
      p.onTarget > before.onTarget ||
      p.remaining < before.remaining ||
      p.drifted > before.drifted
    );
  });
}

/** When the counts last moved toward done: `now` if they just did, else what `previous` knew. */
export function lastProgressAt(previous: RolloutProgress | undefined, next: RolloutProgress, now: Date): Date {
  if (previous === undefined) return next.lastProgressAt;
  return progressed(previous, next) ? now : previous.lastProgressAt;
}

/** `rolloutProgress` with `lastProgressAt` carried from the previous reading: the follow loop's one call. */
export function track(
  previous: RolloutProgress | undefined,
  snapshot: Snapshot,
  scope: RolloutScope,
  now: Date,
): RolloutProgress {
  const next = rolloutProgress(snapshot, scope, now);
  return { ...next, lastProgressAt: lastProgressAt(previous, next, now) };
}
