// `karp-drift resume`: release every hold karp-drift put on drift (by pause, or a staged upgrade that ended early),
// restoring each NodePool's own budgets exactly and removing only the node annotations karp-drift added.
import type { CommandContext } from './context.js';
import { recordSummary } from '../report/summary.js';
import { holdNeeds, requireAccess } from '../cluster/access.js';
import { UsageError } from '../errors.js';
import { holdReportJson, holdReportText } from '../report/holds.js';
import type { ResumeOptions } from './options.js';
import { HOLD_ANNOTATION } from '../apis/budget-hold.js';
import { LEASE_NAME } from '../apis/lock.js';
import { NODE_HOLD_ANNOTATION } from '../karpenter/views.js';
import { lockHolder, nodePoolsInScope, withClusterLock } from './hold-shared.js';
import { connect } from './connect.js';
import { heldWrites, readHeld, releaseHolds } from './release-holds.js';

export async function resume(options: ResumeOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = await connect(ctx);
  try {
    const { api, pools } = await nodePoolsInScope(ctx, cluster, options.nodePools);
    const held = await readHeld(cluster, pools, ctx.signal);
    if (held.pools.length === 0) {
      const where = options.nodePools.length > 0 ? `NodePool ${options.nodePools.join(', ')}` : 'any NodePool';
      throw new UsageError(
        `nothing to resume: karp-drift holds no drift on ${where} (no ${HOLD_ANNOTATION} annotation, no node with ${NODE_HOLD_ANNOTATION})`,
        {
          hint: 'karp-drift status shows what blocks drift; a budget or do-not-disrupt that someone else set is theirs to remove',
        },
      );
    }
    const holder = lockHolder(`resume${options.nodePools.map((n) => ` --nodepool ${n}`).join('')}`);
    await requireAccess(cluster, holdNeeds(options.lockNamespace, heldWrites(held)));
    const outcomes = await withClusterLock(ctx, cluster, options, holder, (signal) =>
      releaseHolds(cluster, api, held, holder, signal),
    );
    const report = {
      action: 'resumed' as const,
      nodePools: outcomes,
      lock: `${options.lockNamespace}/${LEASE_NAME}`,
    };
    // The run's record and summary: which NodePools it held or released, and how.
    if (ctx.summary) recordSummary(ctx.summary, { type: 'holds', time: new Date().toISOString(), ...report });
    ctx.io.out(ctx.globals.output === 'json' ? holdReportJson(report) : holdReportText(report));
  } finally {
    cluster.close();
  }
}
