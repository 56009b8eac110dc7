// `rollback --canary/--waves`: a staged rollback, run under the cluster lock from its first hold to its last release.
// Every NodePool in scope is held at 0 before the restore, so nothing drifts back until Karpenter has resolved the
// previous AMIs and no node on them is still marked Drifted (otherwise a wave of one could start with a node that
// is already where it should be). Then the restored AMIs are the targets of a staged rollout that upgrade-staged.ts
// `followStaged` paces and gates as it does an upgrade's: the same waves, holds, dead man's switch, gates, and pause on
// an early end. The classes keep karp-drift's records until the nodes are back, so the same rollback run again (after
// a halt, an interrupt, a stall) finds its classes restored and goes on at the wave where the cluster stands.
import type { CommandContext } from './context.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import type { LockHolder } from '../apis/lock.js';
import type { Inventory } from '../karpenter/views.js';
import type { StagedRequest } from '../stages/request.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import type { Logger } from '../logger.js';
import type { RollbackOptions } from './options.js';
import type { RollbackPlan } from './rollback-plan.js';
import { deleteEach } from './rollback-created.js';
import { awaitRestored, driftCleared, dropRecords, restoreEach } from './rollback-restore.js';
import { rollbackResume, stagedBack } from './rollback-stages.js';
import { createPacer, type Pacer } from './staged-pacer.js';
import { followStaged, primeFailed, stagedReporter } from './upgrade-staged.js';
import { withClusterLock } from './hold-shared.js';
import { followNeeds, holdNeeds, type AccessNeed } from '../cluster/access.js';
import { heldWrites, type HeldDrift } from './release-holds.js';
import { byGit } from './rollback-git.js';

/** The cluster as read, what the rollback restores, and where it reports. */
export interface StagedRollback extends RollbackPlan {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  json: boolean;
  log: Logger;
}

/**
 * A staged rollback's: the reads of the restored classes (their resolution, dropping the records at the end), the
 * NodeClaims (no node on the previous AMIs still Drifted), the follow, and a staged rollout's holds, which take over
 * any a paused or halted one left.
 */
export function stagedNeeds(names: readonly string[], lockNamespace: string, held: HeldDrift, staged: StagedPlan): AccessNeed[] {
  const pools = staged.stages.flatMap((s) => s.nodePools);
  const left = heldWrites(held);
  const budgets = new Set([...pools.filter((p) => p.hold.mechanism === 'budget').map((p) => p.name), ...left.nodePools]);
  return [
    ...names.map((name): AccessNeed => ({ verb: 'get', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name, why: 'wait for the previous AMIs' })),
    { verb: 'list', group: 'karpenter.sh', resource: 'nodeclaims', why: 'wait until no node is Drifted before the first wave' },
    ...followNeeds(),
    ...holdNeeds(lockNamespace, { nodePools: [...budgets], nodes: left.nodes || pools.some((p) => p.hold.mechanism === 'node') }),
  ];
}

/** The command that goes on where this staged rollback stops: the same rollback. */
export function stagedRollbackResume(options: RollbackOptions & { staged: StagedRequest }, ctx: CommandContext): string {
  return rollbackResume(options.staged, {
    nodeClasses: options.nodeClasses,
    ...(options.lockNamespace !== undefined ? { lockNamespace: options.lockNamespace } : {}),
    ...(ctx.globals.context ? { context: ctx.globals.context } : {}),
  });
}

export async function rollBackStaged(
  ctx: CommandContext,
  run: StagedRollback,
  staged: StagedPlan,
  options: RollbackOptions & { staged: StagedRequest },
  lockNamespace: string,
  holder: LockHolder,
): Promise<void> {
  const { cluster, discovery, restores, pools, log } = run;
  const resume = stagedRollbackResume(options, ctx);
  await withClusterLock(ctx, cluster, { lockNamespace }, holder, async (signal) => {
    const locked = { ...ctx, signal };
    const { generations, holds } = await restoreHeld(locked, run, staged, holder, options.syncTimeoutMs);
    const nodeClasses = restores.map((r) => r.view.name);
    const back = await stagedBack(
      run,
      {
        nodeClasses,
        nodePools: pools,
        ...(await awaitResolved(run, generations, signal)),
        generations,
        request: options.staged,
        runId: holder.runId,
        resume,
        timeoutMs: options.timeoutMs,
        stallTimeoutMs: options.stallTimeoutMs,
      },
      signal,
    ).catch(async (err: unknown) => {
      // Restored, not yet paced (interrupted while Karpenter resolves, or it never does): paused where the holds stand.
      throw holds ? await primeFailed(err, holds, run.inventory, true, signal, 'the rollback') : err;
    });
    await followStaged(locked, back.run, back.staged, back.writes, back.follow, holder);
    const kept = await dropRecords(cluster, discovery, nodeClasses, signal);
    if (kept.length > 0)
      log.warn(
        `${kept.map((n) => `ec2nodeclass/${n}`).join(', ')} changed during the rollback: karp-drift's records of the upgrade stay on ${kept.length === 1 ? 'it' : 'them'}, so karp-drift rollback would restore them again`,
      );
  }, { rideOut: true });
}

/** Karpenter's resolution of the restored selection, and no node on it still Drifted: the targets, and their minor. */
async function awaitResolved(
  { cluster, discovery, restores }: StagedRollback,
  generations: Record<string, number>,
  signal: AbortSignal,
): Promise<{ targets: Record<string, string[]>; targetMinor: string }> {
  const resolved = await awaitRestored(cluster, discovery, restores, generations, signal);
  await driftCleared(cluster, discovery, resolved.targets, signal);
  return resolved;
}

/**
 * Holds every NodePool at 0 (unless every class is restored already: a re-run, whose holds stand and record its
 * waves), deletes what the last `upgrade --templates` created, and restores the classes that need it, keeping their
 * records. Returns each class's generation. A failure before any class is restored takes the holds off again; after,
 * leaves the rollback paused.
 */
async function restoreHeld(
  ctx: CommandContext,
  run: StagedRollback,
  staged: StagedPlan,
  holder: LockHolder,
  syncTimeoutMs: number | undefined,
): Promise<{ generations: Record<string, number>; holds?: Pacer }> {
  const { cluster, discovery, inventory, restores, created, pools, json, log } = run;
  const how = { dryRun: false, json, log, ...(syncTimeoutMs !== undefined ? { syncTimeoutMs } : {}) };
  const generations: Record<string, number> = Object.fromEntries(
    restores.filter((r) => r.restored).map((r) => [r.view.name, r.view.generation]),
  );
  const toRestore = restores.filter((r) => !r.restored);
  await deleteEach(ctx, cluster, discovery.karpenterApi, created.deletes, 'NodePool', how);
  if (toRestore.length === 0) {
    await deleteEach(ctx, cluster, discovery.karpenterApi, created.deletes, 'EC2NodeClass', how);
    return { generations };
  }
  // Held whatever AMI they run (no target: every node is held): the restored AMIs are not resolved yet, and until
  // they are, no node of these NodePools may be replaced. The staged rollout's own pacer takes these holds over.
  const holds = createPacer({
    cluster,
    api: discovery.karpenterApi,
    plan: staged,
    scope: { nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })), targetImageIds: {} },
    runId: holder.runId,
    // Not the restored minor (unknown until Karpenter resolves it): these holds record no waves of their own.
    target: 'rollback',
    who: `${holder.user}@${holder.host}`,
    command: holder.command,
    nodePools: inventory.nodePools,
    rerun: 'the rollback',
  });
  holds.listen(stagedReporter(ctx, run, staged));
  try {
    await holds.prime(inventory, new Date(), ctx.signal, { closed: true });
    await restoreEach(ctx, cluster, discovery, toRestore, { ...how, keepRecords: true }, generations);
    await deleteEach(ctx, cluster, discovery.karpenterApi, created.deletes, 'EC2NodeClass', how);
  } catch (err) {
    // A revert in Git may still land after the run: the holds stay, as for a class already restored.
    const restored = toRestore.some((r) => generations[r.view.name] !== undefined || byGit(r));
    throw await primeFailed(err, holds, inventory, restored, ctx.signal, 'the rollback');
  }
  return { generations, holds };
}
