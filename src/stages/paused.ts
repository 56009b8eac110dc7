// Is a rollout in the cluster paused by karp-drift? (`wait` asks.) karp-drift holds drift with a budget on the
// NodePool (recorded in karp-drift.io/drift-hold) or with do-not-disrupt on its nodes (karp-drift.io/held-by). A
// staged upgrade paces drift with those same holds while it runs, and holds the cluster lock the whole time; holds
// with no live lock holder were left by a run that ended early (a health gate halted it, it was interrupted, it died)
// or by `pause`. Those hold drift at 0 (paused: nothing moves until someone runs resume, rollback or the upgrade
// again), except a dead run's budget hold whose dead man's switch has not fired yet: that one still lets Karpenter
// start replacements (draining), and `pause` stops it (apis/hold-state.ts). Pure.
import type { NodePoolView, NodeView } from '../karpenter/views.js';
import { decodeHoldRecord, HOLD_ANNOTATION } from '../apis/budget-hold.js';
import type { LeaseView } from '../apis/lock.js';
import { holdState, runLock, type HoldState } from '../apis/hold-state.js';
import { inOrder } from '../text/order.js';

export type RolloutHold =
  /** A live run paces these NodePools: its holds open wave by wave. */
  | { state: 'paced'; pools: string[]; holder: string; command?: string; renewedAt?: string }
  /** No live run, and a hold still lets Karpenter start replacements until its switch fires (or for good). */
  | { state: 'draining'; pools: string[]; runIds: string[]; since?: string; holds: PoolHold[] }
  /** Held at 0, and no run alive to release the holds (`switchedSince`: a dead run's switch holds them since then). */
  | {
      state: 'paused';
      pools: string[];
      runIds: string[];
      since?: string;
      switchedSince?: string;
      /** Every hold paused by its upgrade windows (apis/hold-state.ts `windowed`): the flags that ask for them. */
      windowFlags?: string[];
    };

export interface PoolHold {
  nodePool: string;
  hold: HoldState;
}

/** The state of each held NodePool among `pools`, by name (apis/hold-state.ts). */
export function poolHolds(
  pools: readonly NodePoolView[],
  nodes: readonly NodeView[],
  lease: LeaseView | undefined | 'unreadable',
  now: Date,
): PoolHold[] {
  const lock = runLock(lease, now);
  return [...pools]
    .sort((a, b) => inOrder(a.name, b.name))
    .flatMap((p) => {
      const held = nodes.filter((n) => n.nodePool === p.name && n.heldBy !== undefined).length;
      const hold = holdState(p, held, lock, now);
      return hold !== undefined ? [{ nodePool: p.name, hold }] : [];
    });
}

export function rolloutHold(
  pools: readonly NodePoolView[],
  nodes: readonly NodeView[],
  lease: LeaseView | undefined | 'unreadable',
  now: Date,
): RolloutHold | undefined {
  const holds = poolHolds(pools, nodes, lease, now);
  if (holds.length === 0) return undefined;
  const names = holds.map((h) => h.nodePool);
  const first = holds[0]!.hold;
  // A lock we may not read: a live run cannot be ruled out, so the holds are taken as pacing.
  if (first.state === 'unknown') return { state: 'paced', pools: names, holder: 'unknown (the lock could not be read)' };
  if (first.state === 'paced') {
    const { holder, command, renewedAt } = first.lock;
    return {
      state: 'paced',
      pools: names,
      holder,
      ...(command !== undefined ? { command } : {}),
      ...(renewedAt !== undefined ? { renewedAt } : {}),
    };
  }
  const { runIds, since } = recordsOf(pools, nodes, new Set(names));
  const common = { pools: names, runIds, ...(since !== undefined ? { since } : {}) };
  const draining = holds.filter((h) => h.hold.state === 'draining');
  if (draining.length > 0) return { state: 'draining', ...common, holds: draining };
  const switched = holds.flatMap((h) => (h.hold.state === 'switched' ? [h.hold.since] : [])).sort();
  // Paused by the windows only when every hold is: one a gate or `pause` stopped needs somebody to look at it.
  const windowed = holds.every((h) => h.hold.state === 'windowed') ? holds[0]!.hold : undefined;
  return {
    state: 'paused',
    ...common,
    ...(switched.length > 0 ? { switchedSince: switched[0] } : {}),
    ...(windowed?.state === 'windowed' ? { windowFlags: windowed.windowFlags } : {}),
  };
}

/** The runs that wrote the holds on `held`, and when the first was put on. */
function recordsOf(
  pools: readonly NodePoolView[],
  nodes: readonly NodeView[],
  held: ReadonlySet<string>,
): { runIds: string[]; since?: string } {
  const runIds = new Set<string>();
  const since: string[] = [];
  for (const p of pools) {
    const record = decodeHoldRecord(p.annotations?.[HOLD_ANNOTATION]);
    if (record === undefined || 'error' in record || !held.has(p.name)) continue;
    runIds.add(record.runId);
    since.push(record.since);
  }
  for (const n of nodes) if (n.heldBy !== undefined && n.nodePool !== undefined && held.has(n.nodePool)) runIds.add(n.heldBy);
  return { runIds: [...runIds].sort(), ...(since.length > 0 ? { since: since.sort()[0] } : {}) };
}
