// `karp-drift rollback`: put back the amiSelectorTerms (and amiFamily) the last upgrade recorded on each
// EC2NodeClass, and follow Karpenter as it drifts the nodes back. The restore is a server-side apply by the same
// field manager without the bookkeeping annotations, so they go (a second rollback finds nothing recorded) and an
// amiFamily that the upgrade added and the previous selection lacked is removed with them.
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import { applyNeeds, followNeeds, holdNeeds, lockNeeds, requireAccess, type AccessNeed } from '../cluster/access.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { LEASE_NAMESPACE, type LockHolder } from '../apis/lock.js';
import type { Inventory } from '../karpenter/views.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import type { RollbackOptions } from './options.js';
import { followRollout } from './follow-rollout.js';
import { connect, readScope } from './connect.js';
import { confirmOrRefuse, event } from './upgrade-shared.js';
import { awaitRestored, driftCleared, restoreEach } from './rollback-restore.js';
import { reportRollbackPlan, rollbackPlan, warnOfReplacements, type RollbackPlan } from './rollback-plan.js';
import { heldWrites, releaseHolds, type HeldDrift } from './release-holds.js';
import { createdRefs, deleteEach, deleteNeeds } from './rollback-created.js';
import { nodesGoingBack } from './rollback-plan.js';
import { rollbackStages } from './rollback-stages.js';
import { rollBackStaged, stagedNeeds, stagedRollbackResume } from './rollback-staged.js';
import { refuseHaltedRollback } from './rollback-consent.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { UsageError } from '../errors.js';
import { holdOutcomeText } from '../report/holds.js';
import { byGit } from './rollback-git.js';

/** The cluster as read, what the rollback restores, and where it reports. */
interface RollbackRun extends RollbackPlan {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  json: boolean;
  log: Logger;
}

/** Each restored class's generation; and, when the rollback already waited for Karpenter, what it resolved. */
interface RestoresDone {
  generations: Record<string, number>;
  restored?: Awaited<ReturnType<typeof awaitRestored>>;
}

export async function rollback(options: RollbackOptions, ctx: CommandContext): Promise<void> {
  refuseUnfollowed(options);
  const json = ctx.globals.output === 'json';
  const { cluster, log } = await connect(ctx);
  try {
    const { discovery, inventory } = await readScope(ctx, cluster, options.nodeClasses);
    const planned = rollbackPlan(inventory, options.nodeClasses);
    const staged = options.staged && rollbackStages(inventory, planned.pools, nodesGoingBack(inventory, planned), options.staged, new Date());
    reportRollbackPlan(ctx, planned, inventory, cluster.identity, staged);
    const held = warnOfReplacements(log, planned, inventory, staged !== undefined);
    const again = options.staged ? stagedRollbackResume({ ...options, staged: options.staged }, ctx) : plainRollback(options, ctx);
    refuseHaltedRollback(planned, held, options, again.replace(/ --yes$/, ''));
    await confirmOrRefuse(ctx, options, rollbackQuestion(planned, staged), 'rollback');
    const lockNamespace = options.lockNamespace ?? LEASE_NAMESPACE;
    await requireAccess(cluster, restoreNeeds(planned, options, lockNamespace, held, staged));
    const run: RollbackRun = { ...planned, cluster, discovery, inventory, json, log };
    if (staged && !options.dryRun && planned.restores.length > 0) {
      const stagedOptions = { ...options, staged: options.staged! };
      const holder = lockHolder(ctx.commandLine ?? again.replace(/^karp-drift /, ''));
      return await rollBackStaged(ctx, run, staged, stagedOptions, lockNamespace, holder);
    }
    const done = await restoreSelections(ctx, run, held, options.dryRun, lockNamespace, options.syncTimeoutMs);
    if (options.dryRun || !options.wait) return;
    if (planned.restores.length === 0) {
      // Nothing drifts back: the rollback only deleted what the upgrade created.
      if (!json) ctx.io.out(`Rollback complete: deleted ${createdRefs(planned.created.deletes).join(', ')}.\n`);
      return;
    }
    await followBack(ctx, run, options, done);
  } finally {
    cluster.close();
  }
}

/** The plain rollback again, as a hint names it. */
function plainRollback(options: RollbackOptions, ctx: CommandContext): string {
  const parts = ['karp-drift rollback', ...options.nodeClasses.map((n) => `--nodeclass ${n}`)];
  if (options.lockNamespace !== undefined && options.lockNamespace !== LEASE_NAMESPACE) parts.push(`--lock-namespace ${options.lockNamespace}`);
  if (ctx.globals.context) parts.push(`--context ${ctx.globals.context}`);
  return parts.join(' ');
}

/**
 * A staged rollback is followed by the run that paces it: refused with --no-wait (as a staged upgrade is), before the
 * cluster is read.
 */
function refuseUnfollowed(options: RollbackOptions): void {
  if (!options.staged || options.wait || options.dryRun) return;
  throw new UsageError('--no-wait cannot go with a staged rollback (--canary/--waves): karp-drift paces the waves while it follows them', {
    hint: 'drop --no-wait (a staged rollback that ends early stays paused; the same rollback again goes on), or drop --waves/--canary to go back at once',
  });
}

/** The question: the classes restored, the objects deleted, the nodes replaced (and how, when staged). */
function rollbackQuestion({ restores, created, onPinned }: RollbackPlan, staged: StagedPlan | undefined): string {
  const toRestore = restores.filter((r) => !r.restored);
  const reverts = toRestore.filter(byGit).length;
  const restore =
    toRestore.length > 0
      ? reverts === toRestore.length
        ? `Wait for ${reverts} EC2NodeClass(es) to be reverted in Git (their terms came from it)`
        : `Restore ${toRestore.length} EC2NodeClass(es)${reverts > 0 ? ` (${reverts} by a revert in Git)` : ''}`
      : restores.length > 0
        ? 'Go on with the rollback under way'
        : '';
  const deletes = createdRefs(created.deletes);
  const del = deletes.length > 0 ? `${restore ? ' and delete' : 'Delete'} ${deletes.join(', ')} (created by karp-drift upgrade)` : '';
  const pace = staged ? ` in ${staged.stages.length > 1 ? 'stages and ' : ''}waves, paced and gated by karp-drift` : '';
  return `${restore}${del}?${restores.length > 0 ? ` Karpenter will replace ${onPinned} node(s) through drift${pace}.` : ''}`;
}

/**
 * What the rollback will do, asked of RBAC before the first write: the restores (a dry run only those: it is
 * authorized as the write it tries), the reads of the restored classes and the follow, the lock and the holds.
 */
function restoreNeeds(
  { restores, created }: RollbackPlan,
  options: Pick<RollbackOptions, 'wait' | 'dryRun'>,
  lockNamespace: string,
  held: HeldDrift,
  staged: StagedPlan | undefined,
): AccessNeed[] {
  const names = restores.map((r) => r.view.name);
  const restore = applyNeeds('karpenter.k8s.aws', 'ec2nodeclasses', names, 'restore amiSelectorTerms');
  if (options.dryRun) return [...deleteNeeds(created.deletes), ...restore];
  if (staged && restores.length > 0) return [...deleteNeeds(created.deletes), ...restore, ...stagedNeeds(names, lockNamespace, held, staged)];
  const holds = held.pools.length > 0;
  const read = (name: string): AccessNeed => ({ verb: 'get', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name, why: 'wait for the previous AMIs' });
  return [
    ...deleteNeeds(created.deletes),
    ...restore,
    ...(options.wait || holds ? names.map(read) : []),
    ...(holds ? [{ verb: 'list', group: 'karpenter.sh', resource: 'nodeclaims', why: 'wait until no node is Drifted before lifting holds' }] : []),
    ...(options.wait ? followNeeds() : []),
    ...(holds ? holdNeeds(lockNamespace, heldWrites(held)) : lockNeeds(lockNamespace)),
  ];
}

/**
 * Restores every class, then (after a staged rollout left holds) waits until Karpenter resolved the previous AMIs
 * and no node on them is still Drifted before it lifts the holds. The cluster lock covers the writes (a staged
 * upgrade pacing this cluster refuses us, and we it); a dry run writes nothing and takes none.
 */
async function restoreSelections(
  ctx: CommandContext,
  run: RollbackRun,
  held: HeldDrift,
  dryRun: boolean,
  lockNamespace: string,
  syncTimeoutMs: number | undefined,
): Promise<RestoresDone> {
  const { cluster, discovery, restores, json, log } = run;
  const holder = lockHolder('rollback');
  const restore = async (signal: AbortSignal) => {
    const how = { dryRun, json, log, ...(syncTimeoutMs !== undefined ? { syncTimeoutMs } : {}) };
    const deletes = run.created.deletes;
    // The created NodePools first: an interrupt after them leaves the restores, which a second rollback still finds.
    await deleteEach({ ...ctx, signal }, cluster, discovery.karpenterApi, deletes, 'NodePool', how);
    const generations = await restoreEach({ ...ctx, signal }, cluster, discovery, restores, how);
    await deleteEach({ ...ctx, signal }, cluster, discovery.karpenterApi, deletes, 'EC2NodeClass', how);
    if (dryRun || held.pools.length === 0) return { generations };
    const restored = await awaitRestored(cluster, discovery, restores, generations, signal);
    await driftCleared(cluster, discovery, restored.targets, signal);
    await releaseHeld(ctx, run, held, holder, signal);
    return { generations, restored };
  };
  return dryRun ? restore(ctx.signal) : withClusterLock(ctx, cluster, { lockNamespace }, holder, restore);
}

async function releaseHeld(
  ctx: CommandContext,
  { cluster, discovery, json, log }: RollbackRun,
  held: HeldDrift,
  holder: LockHolder,
  signal: AbortSignal,
): Promise<void> {
  const released = await releaseHolds(cluster, discovery.karpenterApi, held, holder, signal);
  for (const r of released) {
    if (json)
      ctx.io.out(
        event('release', {
          nodePool: r.nodePool,
          mechanism: r.mechanism,
          ...(r.mechanism === 'budget' ? { budgets: r.budgets ?? null } : { nodes: r.nodes ?? 0 }),
        }),
      );
    else log.info(holdOutcomeText('resumed', r));
  }
}

async function followBack(
  ctx: CommandContext,
  { cluster, discovery, inventory, restores, pools, created, json }: RollbackRun,
  limits: Pick<RollbackOptions, 'timeoutMs' | 'stallTimeoutMs'>,
  { generations, restored }: RestoresDone,
): Promise<void> {
  const { targets, targetMinor } =
    restored ?? (await awaitRestored(cluster, discovery, restores, generations, ctx.signal));
  const startedAt = new Date();
  await followRollout(ctx, cluster, discovery, inventory, {
    scope: {
      nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
      targetImageIds: targets,
      targetMinor,
      startedAt,
      nodeClassGenerations: generations,
      back: true,
    },
    timeoutMs: limits.timeoutMs,
    stallTimeoutMs: limits.stallTimeoutMs,
    resumeCommand: 'karp-drift status --watch',
  });
  if (!json)
    ctx.io.out(
      `Rollback complete: ${pools.map((p) => `nodepool/${p.name}`).join(', ')} back on the previous AMIs (Kubernetes ${targetMinor})${created.deletes.length > 0 ? `; deleted ${createdRefs(created.deletes).join(', ')}` : ''}.\n`,
    );
}
