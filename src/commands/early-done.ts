// The `done` of a staged run that ended before its follow began (outside its windows, waiting for a sync, interrupted
// or failed while its holds went on or its classes were applied): where each NodePool stands as the plan read it. As
// a follow's early end says it: `paused`, its cause, the NodePools left held; or, when the run took its holds off
// again and changed nothing, `interrupted` or `failed`.
import type { CommandContext } from './context.js';
import { doneEvent, ndjsonLine } from '../report/progress.js';
import { recordSummary } from '../report/summary.js';
import { inventorySnapshot } from '../rollout/snapshot.js';
import { rolloutProgress } from '../rollout/track.js';
import { targetIdsOf, type UpgradeFollow, type UpgradeRun } from './upgrade-follow.js';

/** Paused, with its cause and the NodePools left held; or interrupted or failed, its holds taken off again. */
export type EarlyEnd =
  | { result?: 'paused'; message: string; paused: string[]; cause: string }
  | { result: 'interrupted' | 'failed'; message: string };

export function reportEarlyDone(
  ctx: CommandContext,
  { cluster, inventory, plan, json }: UpgradeRun,
  follow: Pick<UpgradeFollow, 'target'>,
  ended: EarlyEnd,
  now: Date,
): void {
  const scope = {
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: targetIdsOf(plan),
    targetMinor: follow.target,
    startedAt: now,
  };
  const progress = rolloutProgress(inventorySnapshot(inventory), scope, now);
  const done =
    'paused' in ended
      ? { ...doneEvent('paused', progress, cluster.identity, now), message: ended.message, cause: ended.cause, paused: ended.paused }
      : { ...doneEvent(ended.result, progress, cluster.identity, now), message: ended.message };
  if (ctx.summary) recordSummary(ctx.summary, done);
  if (json) ctx.io.out(ndjsonLine(done));
}
