// The `done` of a staged run that ended before its follow began (outside its windows, waiting for a sync): where each
// NodePool stands as the plan read it, nothing having been applied by the run since. As a follow's early end says it:
// `paused`, its cause, the NodePools left held.
import type { CommandContext } from './context.js';
import { doneEvent, ndjsonLine } from '../report/progress.js';
import { recordSummary } from '../report/summary.js';
import { inventorySnapshot } from '../rollout/snapshot.js';
import { rolloutProgress } from '../rollout/track.js';
import { targetIdsOf, type UpgradeFollow, type UpgradeRun } from './upgrade-follow.js';

export function reportEarlyDone(
  ctx: CommandContext,
  { cluster, inventory, plan, json }: UpgradeRun,
  follow: Pick<UpgradeFollow, 'target'>,
  ended: { message: string; paused: string[]; cause: string },
  now: Date,
): void {
  const scope = {
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: targetIdsOf(plan),
    targetMinor: follow.target,
    startedAt: now,
  };
  const progress = rolloutProgress(inventorySnapshot(inventory), scope, now);
  const done = { ...doneEvent('paused', progress, cluster.identity, now), message: ended.message, cause: ended.cause, paused: ended.paused };
  if (ctx.summary) recordSummary(ctx.summary, done);
  if (json) ctx.io.out(ndjsonLine(done));
}
