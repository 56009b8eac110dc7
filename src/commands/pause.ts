// `karp-drift pause`: hold Drifted disruption on NodePools now, reversibly (`resume` puts back exactly what was there).
// Karpenter finishes the replacements it has started; it starts no new one while the hold is on (DOMAIN.md §2.6).
import type { CommandContext } from './context.js';
import { recordSummary } from '../report/summary.js';
import type { Cluster } from '../cluster/client.js';
import { holdNeeds, requireAccess } from '../cluster/access.js';
import { recordNodePoolEvent } from '../cluster/events.js';
import { holdNode, holdWithBudget, setPauseRecord } from '../cluster/holds.js';
import { decodePauseRecord, PAUSE_ANNOTATION } from '../apis/pause-record.js';
import { listAll } from '../cluster/list.js';
import { NODES } from '../karpenter/resources.js';
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import { RefusedError } from '../errors.js';
import { holdOutcomeText, holdReportJson, holdReportText, type PoolHoldOutcome } from '../report/holds.js';
import { DISRUPTION_TAINTS } from '../rollout/track.js';
import type { PauseOptions } from './options.js';
import { chooseHold, type HoldChoice } from '../stages/hold-mechanism.js';
import { LEASE_NAME, type LockHolder } from '../apis/lock.js';
import { lockHolder, nodePoolsInScope, withClusterLock } from './hold-shared.js';
import { connect } from './connect.js';
import { readHeld } from './release-holds.js';

export async function pause(options: PauseOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = await connect(ctx);
  try {
    const scope = await nodePoolsInScope(ctx, cluster, options.nodePools);
    const pools = options.held ? (await readHeld(cluster, scope.pools, ctx.signal)).pools : scope.pools;
    if (pools.length === 0) {
      // --held with nothing held: already as paused as karp-drift makes it (a CI clean-up step runs this blind).
      const report = { action: 'paused' as const, nodePools: [], lock: `${options.lockNamespace}/${LEASE_NAME}` };
      ctx.io.out(ctx.globals.output === 'json' ? holdReportJson(report) : 'nothing to pause: karp-drift holds no drift on these NodePools\n');
      return;
    }
    const choices = chosenHolds(pools, options, scope.api);
    const holder = lockHolder(ctx.commandLine ?? `pause${options.held ? ' --held' : ''}${options.nodePools.map((n) => ` --nodepool ${n}`).join('')}`);
    await requireAccess(
      cluster,
      holdNeeds(options.lockNamespace, {
        nodePools: choices.filter((c) => c.mechanism === 'budget').map((c) => c.nodePool),
        nodes: choices.some((c) => c.mechanism === 'node'),
      }),
    );
    const outcomes = await withClusterLock(ctx, cluster, options, holder, (signal) =>
      holdEach(cluster, scope.api, pools, choices, holder, signal),
    );
    const report = {
      action: 'paused' as const,
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

/** How each NodePool is held (--hold-with); one that cannot be held safely refuses the whole pause. */
function chosenHolds(
  pools: readonly NodePoolView[],
  options: Pick<PauseOptions, 'holdWith' | 'forceConflicts'>,
  api: KarpenterApi,
): HoldChoice[] {
  const choices = pools.map((p) => chooseHold(p, options.holdWith, options.forceConflicts, api));
  const refused = choices.filter((c): c is Extract<typeof c, { error: string }> => 'error' in c);
  if (refused.length > 0) {
    throw new RefusedError(refused.map((r) => r.error).join('; '), {
      hint: refused[0]!.next,
    });
  }
  return choices as HoldChoice[];
}

/** Holds the NodePools one after another, each recorded in a StagedRolloutPaused Event on it. */
async function holdEach(
  cluster: Cluster,
  api: KarpenterApi,
  pools: readonly NodePoolView[],
  choices: readonly HoldChoice[],
  holder: LockHolder,
  signal: AbortSignal,
): Promise<PoolHoldOutcome[]> {
  const done: PoolHoldOutcome[] = [];
  for (const choice of choices) {
    signal.throwIfAborted();
    const pool = pools.find((p) => p.name === choice.nodePool)!;
    const outcome = await holdPool(cluster, api, pool, choice, holder, signal);
    done.push(outcome);
    // A gate's halt stays what the rollout is paused by: it still needs somebody to look before it goes on.
    if (decodePauseRecord(pool.annotations?.[PAUSE_ANNOTATION])?.by !== 'gate') {
      const who = `${holder.user}@${holder.host}`;
      const record = { runId: holder.runId, at: new Date().toISOString(), by: 'pause' as const, why: `karp-drift pause by ${who}`, command: holder.command, who };
      await setPauseRecord(cluster, api, pool.name, record, signal);
    }
    await recordNodePoolEvent(
      cluster,
      { api, nodePool: pool },
      'StagedRolloutPaused',
      `${holdOutcomeText('paused', outcome)}, by karp-drift (${holder.user}@${holder.host}); karp-drift resume releases it`,
    );
  }
  return done;
}

async function holdPool(
  cluster: Cluster,
  api: KarpenterApi,
  pool: NodePoolView,
  choice: HoldChoice,
  holder: LockHolder,
  signal: AbortSignal,
): Promise<PoolHoldOutcome> {
  let outcome: PoolHoldOutcome;
  if (choice.mechanism === 'budget') {
    const r = await holdWithBudget(cluster, api, pool.name, 0, { runId: holder.runId, now: new Date() }, signal);
    outcome = { nodePool: pool.name, mechanism: 'budget', why: choice.why, budgets: r.budgets, unchanged: !r.changed };
  } else {
    const held = await holdNodes(cluster, pool.name, holder.runId, signal);
    outcome = { nodePool: pool.name, mechanism: 'node', why: choice.why, nodes: held, unchanged: held === 0 };
  }
  if (choice.warning !== undefined) outcome.warning = choice.warning;
  return outcome;
}

/** Holds every Node of the NodePool that Karpenter has not started to disrupt; returns how many this run held. */
async function holdNodes(cluster: Cluster, nodePool: string, runId: string, signal: AbortSignal): Promise<number> {
  const nodes = (
    await listAll(cluster, NODES, {
      query: { labelSelector: `karpenter.sh/nodepool=${nodePool}` },
      signal,
    })
  ).items;
  let held = 0;
  for (const n of nodes) {
    if (n.deleting || n.taints.some((t) => DISRUPTION_TAINTS.includes(t.key))) continue;
    if (await holdNode(cluster, n.name, runId, signal)) held++;
  }
  return held;
}
