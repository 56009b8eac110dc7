// `karp-drift resume`: release every hold karp-drift put on drift (by pause, or a staged upgrade that ended early),
// restoring each NodePool's own budgets exactly and removing only the node annotations karp-drift added.
import type { CommandContext } from '../io.js';
import { holdNeeds, requireAccess } from '../cluster/access.js';
import { recordNodePoolEvent } from '../cluster/events.js';
import { releaseBudgetHold, releaseNode } from '../cluster/holds.js';
import { listAll } from '../cluster/list.js';
import { NODES } from '../cluster/resources.js';
import { UsageError } from '../errors.js';
import { holdOutcomeText, holdReportJson, holdReportText, type PoolHoldOutcome } from '../report/holds.js';
import type { ResumeOptions } from '../stage-options.js';
import { HOLD_ANNOTATION } from '../stages/budget-hold.js';
import { LEASE_NAME } from '../stages/lock.js';
import { NODE_HOLD_ANNOTATION } from '../stages/node-hold.js';
import { lockHolder, nodePoolsInScope, withClusterLock } from './hold-shared.js';
import { connect } from './planning.js';

export async function resume(options: ResumeOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = connect(ctx);
  try {
    const { api, pools } = await nodePoolsInScope(ctx, cluster, options.nodePools);
    const heldNodes = (
      await listAll(cluster, NODES, {
        query: { labelSelector: 'karpenter.sh/nodepool' },
        signal: ctx.signal,
      })
    ).items.filter((n) => n.heldBy !== undefined && pools.some((p) => p.name === n.nodePool));
    const heldPools = pools.filter(
      (p) => p.annotations?.[HOLD_ANNOTATION] !== undefined || heldNodes.some((n) => n.nodePool === p.name),
    );
    if (heldPools.length === 0) {
      const where = options.nodePools.length > 0 ? `NodePool ${options.nodePools.join(', ')}` : 'any NodePool';
      throw new UsageError(
        `nothing to resume: karp-drift holds no drift on ${where} (no ${HOLD_ANNOTATION} annotation, no node with ${NODE_HOLD_ANNOTATION})`,
        {
          hint: 'karp-drift status shows what blocks drift; a budget or do-not-disrupt that someone else set is theirs to remove',
        },
      );
    }
    const holder = lockHolder(`resume${options.nodePools.map((n) => ` --nodepool ${n}`).join('')}`);
    const mechanisms = new Set<'budget' | 'node'>([
      ...(heldPools.some((p) => p.annotations?.[HOLD_ANNOTATION] !== undefined) ? (['budget'] as const) : []),
      ...(heldNodes.length > 0 ? (['node'] as const) : []),
    ]);
    await requireAccess(cluster, holdNeeds(options.lockNamespace, mechanisms));
    const outcomes = await withClusterLock(ctx, cluster, options, holder, async (signal) => {
      const done: PoolHoldOutcome[] = [];
      for (const pool of heldPools) {
        signal.throwIfAborted();
        if (pool.annotations?.[HOLD_ANNOTATION] !== undefined) {
          const r = await releaseBudgetHold(cluster, api, pool.name, signal);
          done.push({
            nodePool: pool.name,
            mechanism: 'budget',
            budgets: r.budgets,
            unchanged: !r.changed,
          });
        }
        const nodes = heldNodes.filter((n) => n.nodePool === pool.name);
        if (nodes.length > 0) {
          let released = 0;
          for (const n of nodes) if (await releaseNode(cluster, n.name, signal)) released++;
          done.push({
            nodePool: pool.name,
            mechanism: 'node',
            nodes: released,
            unchanged: released === 0,
          });
        }
        for (const outcome of done.filter((d) => d.nodePool === pool.name)) {
          await recordNodePoolEvent(
            cluster,
            { api, nodePool: pool },
            'StagedRolloutResumed',
            `${holdOutcomeText('resumed', outcome)}, by karp-drift (${holder.user}@${holder.host})`,
          );
        }
      }
      return done;
    });
    const report = {
      action: 'resumed' as const,
      nodePools: outcomes,
      lock: `${options.lockNamespace}/${LEASE_NAME}`,
    };
    ctx.io.out(ctx.globals.output === 'json' ? holdReportJson(report) : holdReportText(report));
  } finally {
    cluster.close();
  }
}
