// `upgrade --on-failure rollback`: after a health gate halted a staged rollout (every NodePool held at 0), put the
// classes back to the selection karp-drift recorded, then release the holds and follow the replaced nodes back.
// The holds come off only once Karpenter resolved the restored AMIs and no NodeClaim on them is still marked
// Drifted: released earlier, Karpenter could replace an old node (drifted against the bad AMI a moment ago) with a
// node on the bad AMI. The run still exits 6; the rollback's outcome is part of its message and of `done`.
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { readNodeClass } from '../cluster/inventory.js';
import { callDeadline } from '../cluster/api-errors.js';
import { failureText } from '../cluster/failures.js';
import type { Inventory, NodeView } from '../karpenter/views.js';
import { HaltedError, KarpDriftError } from '../errors.js';
import { doneEvent, eventTime } from '../report/progress.js';
import { recordSummary } from '../report/summary.js';
import { followRollout } from './follow-rollout.js';
import { awaitRestored, driftCleared, dropRecords, recorded, restoreEach, type Restore } from './rollback-restore.js';
import { holdsOf, rollbackRequest, rollbackResume, stagedBack, type StagedBack } from './rollback-stages.js';
import type { Pacer } from './staged-pacer.js';
import type { WaveStep } from '../stages/waves.js';
import type { RolloutProgress } from '../rollout/track.js';

export interface HaltRollback {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  pacer: Pacer;
  /** The EC2NodeClasses and NodePools of the run. */
  nodeClasses: string[];
  nodePools: Array<{ name: string; nodeClass: string }>;
  timeoutMs: number;
  stallTimeoutMs: number;
  json: boolean;
  log: Logger;
  /**
   * --rollback-waves: the rollback is itself staged in these waves, its holds taken over from the halted rollout's,
   * gated as it was, and followed by `follow` (upgrade-staged.ts followStaged, under the run's lock).
   */
  staged?: { waves: WaveStep[]; follow: (back: StagedBack) => Promise<RolloutProgress>; runId: string; lockNamespace?: string };
}

export async function rollbackAfterHalt(
  ctx: CommandContext,
  halted: HaltedError,
  r: HaltRollback,
): Promise<HaltedError> {
  const halt = halted.message.replace(/; the staged rollout is paused: .*$/, '');
  const end = (outcome: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    reportHaltDone(ctx, r, halted, outcome, extra);
  let restores: Restore[];
  try {
    restores = await recordedSelections(r);
  } catch (e) {
    end({ result: 'failed', message: messageOf(e) }, { paused: halted.paused });
    return rewrap(halted, `${halted.message}; the rollback could not read the classes (${messageOf(e)})`);
  }
  if (restores.length === 0) {
    end({ result: 'failed', message: 'no class carries a recorded selection' }, { paused: halted.paused });
    return rewrap(
      halted,
      `${halted.message}; nothing to roll back: no EC2NodeClass in scope carries the selection karp-drift records`,
    );
  }
  const names = restores.map((x) => `ec2nodeclass/${x.view.name}`).join(', ');
  if (!r.json)
    r.log.warn(
      `--on-failure rollback: restoring ${names} and following the replaced nodes back${r.staged ? ` in waves (--rollback-waves ${r.staged.waves.map((w) => w.text).join(',')}), gated as the upgrade was` : ''}`,
    );
  const pools = r.nodePools.filter((p) => restores.some((x) => x.view.name === p.nodeClass));
  try {
    const { done, targetMinor } = await restoreAndFollowBack(ctx, r, restores, pools);
    end(
      {
        result: 'succeeded',
        nodeClasses: restores.map((x) => x.view.name),
        nodePools: done.type === 'done' ? done.nodePools : [],
      },
      { paused: [] },
    );
    return rewrap(
      halted,
      `${halt}; rolled back: ${names} restored, every node of ${pools.map((p) => `nodepool/${p.name}`).join(', ')} back on the previous AMIs (Kubernetes ${targetMinor})`,
      `find out why the new AMI failed (${r.json ? "the 'gate' event on stdout" : 'the evidence above'}) before upgrading again; the holds are released`,
    );
  } catch (e) {
    const code = e instanceof KarpDriftError ? e.exitCode : 1;
    // A staged rollback that a gate halted (or that ended early) is paused where it stood: its holds are the run's.
    const paused = e instanceof HaltedError ? e.paused : undefined;
    end(
      {
        result: e instanceof HaltedError ? 'halted' : 'failed',
        exitCode: code,
        message: messageOf(e),
        ...(e instanceof HaltedError ? { gate: e.gate } : {}),
      },
      paused !== undefined ? { paused } : {},
    );
    return rewrap(
      halted,
      `${halt}; the rollback did not complete: ${messageOf(e)}`,
      e instanceof KarpDriftError ? e.hint : undefined,
      paused,
    );
  }
}

/** The run's `done`: halted by a gate, with the rollback's outcome (NDJSON, and the summary's). */
function reportHaltDone(
  ctx: CommandContext,
  { json, cluster }: Pick<HaltRollback, 'json' | 'cluster'>,
  halted: HaltedError,
  outcome: Record<string, unknown>,
  extra: Record<string, unknown>,
): void {
  // Every `done` names the cluster and says what happened in `message` (docs/schemas/v1/events.schema.json).
  const done = {
    type: 'done',
    time: eventTime(new Date()),
    result: 'halted',
    cause: 'gate',
    cluster: cluster.identity,
    message: `halted by a health gate; rollback ${String(outcome.result)}`,
    // What the rollout replaced before the halt, as a plain halt's `done` counts it (--result-file's nodesReplaced).
    ...(halted.nodePools !== undefined ? { nodePools: halted.nodePools } : {}),
    gate: halted.gate,
    rollback: outcome,
    ...extra,
  };
  if (ctx.summary) recordSummary(ctx.summary, done);
  if (json) ctx.io.out(`${JSON.stringify(done)}\n`);
}

/** The selections recorded on the run's classes: read anew, as this run's apply recorded them after the inventory. */
async function recordedSelections({ cluster, discovery, nodeClasses }: HaltRollback): Promise<Restore[]> {
  const views = await Promise.all(
    nodeClasses.map((n) => readNodeClass(cluster, discovery.karpenterApi, n, callDeadline(30_000, 'reading the EC2NodeClasses to restore'))),
  );
  return views.flatMap((v) => (v ? (recorded(v) ?? []) : []));
}

/**
 * Restores the classes; once Karpenter resolved the previous AMIs and no node on them is still Drifted, releases the
 * holds and follows the replaced nodes back.
 */
async function restoreAndFollowBack(
  ctx: CommandContext,
  r: HaltRollback,
  restores: Restore[],
  pools: HaltRollback['nodePools'],
): Promise<{ done: ReturnType<typeof doneEvent>; targetMinor: string }> {
  const { cluster, discovery, json, log } = r;
  const staged = r.staged;
  // Staged, the records stay on the classes until the nodes are back: the same rollback run again goes on.
  const generations = await restoreEach(ctx, cluster, discovery, restores, { dryRun: false, json, log, keepRecords: staged !== undefined });
  const { targets, targetMinor } = await awaitRestored(cluster, discovery, restores, generations, ctx.signal);
  await driftCleared(cluster, discovery, targets, ctx.signal);
  if (staged) {
    const nodeClasses = restores.map((x) => x.view.name);
    const request = rollbackRequest(r.pacer.plan, staged.waves);
    const resume = rollbackResume(request, {
      nodeClasses,
      ...(staged.lockNamespace !== undefined ? { lockNamespace: staged.lockNamespace } : {}),
      ...(ctx.globals.context ? { context: ctx.globals.context } : {}),
    });
    const back = { nodeClasses, nodePools: pools, targets, targetMinor, generations, request, runId: staged.runId, resume };
    const limits = { timeoutMs: r.timeoutMs, stallTimeoutMs: r.stallTimeoutMs, quietDone: true };
    // The halted rollout's holds (every NodePool at 0) stand until the staged rollback's pacer takes them over.
    const progress = await staged.follow(await stagedBack(r, { ...back, ...limits, holds: holdsOf(r.pacer.plan) }, ctx.signal));
    await dropRecords(cluster, discovery, nodeClasses, ctx.signal);
    return { done: doneEvent('succeeded', progress, cluster.identity, new Date()), targetMinor };
  }
  const nodes = new Map<string, NodeView>(r.inventory.nodes.map((n) => [n.name, n]));
  await r.pacer.finish(nodes, new Date(), { quiet: true });
  const progress = await followRollout(ctx, cluster, discovery, r.inventory, {
    scope: {
      nodePools: pools,
      targetImageIds: targets,
      targetMinor,
      startedAt: new Date(),
      nodeClassGenerations: generations,
      back: true,
    },
    timeoutMs: r.timeoutMs,
    stallTimeoutMs: r.stallTimeoutMs,
    resumeCommand: 'karp-drift status --watch',
    quietDone: true,
  });
  return { done: doneEvent('succeeded', progress, cluster.identity, new Date()), targetMinor };
}

const messageOf = failureText;

function rewrap(halted: HaltedError, message: string, hint?: string, paused?: string[]): HaltedError {
  return new HaltedError(message, {
    ...((hint ?? halted.hint) ? { hint: hint ?? halted.hint } : {}),
    paused: paused ?? halted.paused,
    gate: halted.gate,
    ...(halted.nodePools !== undefined ? { nodePools: halted.nodePools } : {}),
  });
}
