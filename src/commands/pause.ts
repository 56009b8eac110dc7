// `karp-drift pause`: hold Drifted disruption on NodePools now, reversibly (`resume` puts back exactly what was there).
// Karpenter finishes the replacements it has started; it starts no new one while the hold is on (DOMAIN.md §2.6).
import type { CommandContext } from './context.js';
import { holdNeeds, requireAccess } from '../cluster/access.js';
import { recordNodePoolEvent } from '../cluster/events.js';
import { holdNode, holdWithBudget } from '../cluster/holds.js';
import { listAll } from '../cluster/list.js';
import { NODES } from '../karpenter/resources.js';
import { RefusedError } from '../errors.js';
import { holdOutcomeText, holdReportJson, holdReportText, type PoolHoldOutcome } from '../report/holds.js';
import { DISRUPTION_TAINTS } from '../rollout/track.js';
import type { PauseOptions } from './options.js';
import { chooseHold, type HoldChoice } from '../stages/hold-mechanism.js';
import { LEASE_NAME } from '../apis/lock.js';
import { lockHolder, nodePoolsInScope, withClusterLock } from './hold-shared.js';
import { connect } from './planning.js';
import { readHeld } from './release-holds.js';

export async function pause(options: PauseOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = await connect(ctx);
  try {
    const scope = await nodePoolsInScope(ctx, cluster, options.nodePools);
    const { api } = scope;
    const pools = options.held ? (await readHeld(cluster, scope.pools, ctx.signal)).pools : scope.pools;
    if (pools.length === 0) {
      // --held with nothing held: already as paused as karp-drift makes it (a CI clean-up step runs this blind).
      const report = { action: 'paused' as const, nodePools: [], lock: `${options.lockNamespace}/${LEASE_NAME}` };
      ctx.io.out(ctx.globals.output === 'json' ? holdReportJson(report) : 'nothing to pause: karp-drift holds no drift on these NodePools\n');
      return;
    }
    const choices = pools.map((p) => chooseHold(p, options.holdWith, options.forceConflicts));
    const refused = choices.filter((c): c is Extract<typeof c, { error: string }> => 'error' in c);
    if (refused.length > 0) {
      throw new RefusedError(refused.map((r) => r.error).join('; '), {
        hint: refused[0]!.next,
      });
    }
    const holder = lockHolder(`pause${options.held ? ' --held' : ''}${options.nodePools.map((n) => ` --nodepool ${n}`).join('')}`);
    await requireAccess(
      cluster,
      holdNeeds(options.lockNamespace, new Set((choices as HoldChoice[]).map((c) => c.mechanism))),
    );
    const outcomes = await withClusterLock(ctx, cluster, options, holder, async (signal) => {
      const done: PoolHoldOutcome[] = [];
      for (const choice of choices as HoldChoice[]) {
        signal.throwIfAborted();
        const pool = pools.find((p) => p.name === choice.nodePool)!;
        let outcome: PoolHoldOutcome;
        if (choice.mechanism === 'budget') {
          const r = await holdWithBudget(cluster, api, pool.name, 0, { runId: holder.runId, now: new Date() }, signal);
          outcome = {
            nodePool: pool.name,
            mechanism: 'budget',
            why: choice.why,
            budgets: r.budgets,
            unchanged: !r.changed,
          };
        } else {
          // Every Node of the NodePool that Karpenter has not started to disrupt.
          const nodes = (
            await listAll(cluster, NODES, {
              query: { labelSelector: `karpenter.sh/nodepool=${pool.name}` },
              signal,
            })
          ).items;
          let held = 0;
          for (const n of nodes) {
            if (n.deleting || n.taints.some((t) => DISRUPTION_TAINTS.includes(t.key))) continue;
            if (await holdNode(cluster, n.name, holder.runId, signal)) held++;
          }
          outcome = {
            nodePool: pool.name,
            mechanism: 'node',
            why: choice.why,
            nodes: held,
            unchanged: held === 0,
          };
        }
        if (choice.warning !== undefined) outcome.warning = choice.warning;
        done.push(outcome);
        await recordNodePoolEvent(
          cluster,
          { api, nodePool: pool },
          'StagedRolloutPaused',
          `${holdOutcomeText('paused', outcome)}, by karp-drift (${holder.user}@${holder.host}); karp-drift resume releases it`,
        );
      }
      return done;
    });
    const report = {
      action: 'paused' as const,
      nodePools: outcomes,
      lock: `${options.lockNamespace}/${LEASE_NAME}`,
    };
    ctx.io.out(ctx.globals.output === 'json' ? holdReportJson(report) : holdReportText(report));
  } finally {
    cluster.close();
  }
}
