// Is a rollout in the cluster paused by karp-drift? (`wait` asks.) karp-drift holds drift with a budget on the
// NodePool (recorded in karp-drift.io/drift-hold) or with do-not-disrupt on its nodes (karp-drift.io/held-by). A
// staged upgrade paces drift with those same holds while it runs, and holds the cluster lock the whole time; holds
// with no live lock holder were left by a run that ended early (a health gate halted it, it was interrupted) or by
// `pause`, and nothing moves until someone runs resume, rollback or the upgrade again. Pure.
import type { NodePoolView, NodeView } from '../karpenter/views.js';
import { decodeHoldRecord, HOLD_ANNOTATION } from '../apis/budget-hold.js';
import { LOCK_ANNOTATIONS, lockVerdict, type LeaseView } from '../apis/lock.js';

export type RolloutHold =
  /** A live run paces these NodePools: its holds open wave by wave. */
  | { state: 'paced'; pools: string[]; holder: string; command?: string }
  /** Held, and no run alive to release the holds. */
  | { state: 'paused'; pools: string[]; runIds: string[]; since?: string };

/** No run is this one: whoever holds a live lease is another. */
const NOBODY = { runId: '', user: '', host: '', command: '' };

/** Whether a run holds the lock now (an unreadable Lease cannot rule one out). */
export function lockAlive(lease: LeaseView | undefined | 'unreadable', now: Date): boolean {
  return lease === 'unreadable' || lockVerdict(lease, NOBODY, now).action === 'refuse';
}

export function rolloutHold(
  pools: readonly NodePoolView[],
  nodes: readonly NodeView[],
  lease: LeaseView | undefined | 'unreadable',
  now: Date,
): RolloutHold | undefined {
  const runIds = new Set<string>();
  const since: string[] = [];
  const held = new Set<string>();
  for (const p of pools) {
    const record = decodeHoldRecord(p.annotations?.[HOLD_ANNOTATION]);
    if (record === undefined) continue;
    held.add(p.name);
    if (!('error' in record)) {
      runIds.add(record.runId);
      since.push(record.since);
    }
  }
  for (const n of nodes) {
    if (n.heldBy === undefined || n.nodePool === undefined || !pools.some((p) => p.name === n.nodePool)) continue;
    held.add(n.nodePool);
    runIds.add(n.heldBy);
  }
  if (held.size === 0) return undefined;
  const names = [...held].sort();
  // A lock we may not read: a live run cannot be ruled out, so the holds are taken as pacing.
  if (lease === 'unreadable') return { state: 'paced', pools: names, holder: 'unknown (the lock could not be read)' };
  const verdict = lockVerdict(lease, NOBODY, now);
  if (verdict.action === 'refuse') {
    return {
      state: 'paced',
      pools: names,
      holder: verdict.holder,
      ...(lease?.annotations[LOCK_ANNOTATIONS.command] !== undefined
        ? { command: lease.annotations[LOCK_ANNOTATIONS.command] }
        : {}),
    };
  }
  return {
    state: 'paused',
    pools: names,
    runIds: [...runIds].sort(),
    ...(since.length > 0 ? { since: since.sort()[0] } : {}),
  };
}
