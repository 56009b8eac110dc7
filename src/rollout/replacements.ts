// The replacements a follow saw, each with its start and end, for the run's record and its picture (issue 37): every
// NodeClaim of a NodePool in scope created during the run, from its creation to `Initialized=True` (phase 4 in README:
// the replacement is up) or to its deletion before that (a failed replacement; the health gates judge it). Created
// during the run: not in the follow's first full list (the snapshot's baseline), or in it but created since the run
// began (a rollback's follow starts once Karpenter resolved the restored AMIs, and Karpenter may have launched
// replacements by then). Times are the API server's own (creationTimestamp, the condition's lastTransitionTime,
// deletionTimestamp), so the bars are where the cluster says they were. A NodeClaim Karpenter launched for pending
// pods during the rollout counts too: nothing on a NodeClaim tells a drift replacement apart. Pure.
import type { NodeClaimView } from '../karpenter/views.js';
import type { Snapshot } from './snapshot.js';

export interface ReplacementSpan {
  name: string;
  nodePool: string;
  /** ms since the epoch */
  start: number;
  end?: number;
  failed: boolean;
}

const ms = (iso: string | undefined): number | undefined => {
  const t = Date.parse(iso ?? '');
  return Number.isFinite(t) ? t : undefined;
};

function span(claim: NodeClaimView, departed: boolean): ReplacementSpan | undefined {
  const start = ms(claim.createdAt);
  if (start === undefined || claim.nodePool === undefined) return undefined;
  const initialized = claim.conditions.Initialized;
  const up = initialized?.status === 'True' ? ms(initialized.lastTransitionTime) : undefined;
  if (up !== undefined) return { name: claim.name, nodePool: claim.nodePool, start, end: Math.max(up, start), failed: false };
  // Deleted before it was Initialized: it failed, ending when it was deleted.
  if (claim.deleting || departed) {
    const end = ms(claim.deletionTimestamp);
    return { name: claim.name, nodePool: claim.nodePool, start, ...(end !== undefined ? { end: Math.max(end, start) } : {}), failed: true };
  }
  return { name: claim.name, nodePool: claim.nodePool, start, failed: false };
}

/**
 * The replacements the snapshot knows, folded into `into` (by name) so that one seen once is kept after it left the
 * snapshot's bounded memory of departed NodeClaims; a later view of the same NodeClaim replaces an earlier one.
 */
export function foldReplacements(
  into: Map<string, ReplacementSpan>,
  snapshot: Pick<Snapshot, 'nodeClaims' | 'departed' | 'baseline' | 'synced'>,
  nodePools: ReadonlySet<string>,
  /**
   * When the run began (ms). creationTimestamps have whole seconds, so the second it began in counts: a NodeClaim
   * Karpenter created in it after the run began is the run's (a re-run mid-rollout, a rollback), and one created in it
   * just before cannot be told apart by the API's timestamps.
   */
  since: number,
): void {
  // Before the first full list there is no baseline: every NodeClaim would look new.
  if (!snapshot.synced.has('NodeClaim')) return;
  const from = Math.floor(since / 1000) * 1000;
  const fold = (claim: NodeClaimView, departed: boolean) => {
    if (claim.nodePool === undefined || !nodePools.has(claim.nodePool)) return;
    if (snapshot.baseline.has(claim.name) && !((ms(claim.createdAt) ?? -Infinity) >= from)) return;
    const s = span(claim, departed);
    if (s === undefined) return;
    const known = into.get(claim.name);
    // A NodeClaim that departed and whose last view was taken before it initialized stays as it was seen up.
    if (known?.end !== undefined && !known.failed && s.failed) return;
    into.set(claim.name, s);
  };
  for (const claim of snapshot.departed.values()) fold(claim, true);
  for (const claim of snapshot.nodeClaims.values()) fold(claim, false);
}
