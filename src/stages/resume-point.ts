// Where a staged rollout stands when a run (re)starts it: the stage and wave the cluster is in, counted from the old
// NodeClaims left and from what the holds of an earlier run for the same target recorded (each stage's size when it
// began, each NodePool's share, a soak under way). The pacer starts there; a re-run's resume plan says it. Pure.
import { decodeHoldRecord, HOLD_ANNOTATION, type HoldRecord } from '../apis/budget-hold.js';
import type { NodePoolView } from '../karpenter/views.js';
import { initialPosition, type PicksOf, type PoolWaveCounts, type StagePlan, type StagePosition } from './controller.js';

/** Hold records of this target on the NodePools (a pause's record, or one for another target, says nothing of waves). */
export function holdRecordsFor(pools: readonly NodePoolView[], target: string): Map<string, HoldRecord> {
  const out = new Map<string, HoldRecord>();
  for (const p of pools) {
    const r = decodeHoldRecord(p.annotations?.[HOLD_ANNOTATION]);
    if (r !== undefined && !('error' in r) && r.target === target) out.set(p.name, r);
  }
  return out;
}

export function resumePosition(
  plan: StagePlan,
  counts: readonly PoolWaveCounts[],
  pools: readonly NodePoolView[],
  target: string,
  now: Date,
  picks?: PicksOf,
): StagePosition {
  const records = holdRecordsFor(pools, target);
  const sizes = plan.stages.map((s) => {
    const recorded = s.nodePools.map((p) => records.get(p)?.stageSize).filter((n): n is number => n !== undefined && n > 0);
    return recorded.length > 0 ? Math.max(...recorded) : undefined;
  });
  const soaks = [...records.values()].map((r) => r.soakUntil).filter((s): s is string => s !== undefined);
  const soak = soaks.length > 0 ? { until: new Date(soaks.sort().at(-1)!), now } : undefined;
  const poolSizes: Record<string, number> = {};
  for (const [pool, r] of records) if (r.poolSize !== undefined) poolSizes[pool] = r.poolSize;
  return initialPosition(plan, counts, sizes, soak, poolSizes, picks);
}
