// A staged `upgrade` (--canary/--waves), run while it holds the cluster lock: hold every NodePool at its first wave,
// apply, then follow with karp-drift pacing the waves and the health gates judging each checkpoint; with
// --on-failure rollback, a halt puts the previous AMIs back.
import type { CommandContext } from './context.js';
import type { LockHolder } from '../apis/lock.js';
import { HaltedError, InterruptedError, KarpDriftError, RuntimeFailure, WindowPausedError } from '../errors.js';
import { LockLost } from '../cluster/lock.js';
import { nextWindowText, windowEventJson, type WindowEventKind } from '../report/windows.js';
import type { WindowPlan } from '../stages/window-plan.js';
import { windowState, type WindowState } from '../windows/calendar.js';
import { serverTime, skewWarning } from '../cluster/server-clock.js';
import { takeBaseline } from '../gates/baseline.js';
import type { Inventory } from '../karpenter/views.js';
import { pacerEventJson, pacerLogLine, type PacerEvent } from '../report/stages.js';
import { recordSummary } from '../report/summary.js';
import type { RolloutProgress } from '../rollout/track.js';
import { reportEarlyDone, type EarlyEnd } from './early-done.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import type { Plan } from '../plan/plan.js';
import { createGateKeeper, type GateKeeper } from './gate-keeper.js';
import { amiPickScope, type AmiPickScope } from '../stages/ami-picks.js';
import { rollbackAfterHalt } from './halt-rollback.js';
import { createPacer, type Pacer } from './staged-pacer.js';
import { applyPlan, validateApplies, type NodeClassWrites } from './upgrade-apply.js';
import { failureText } from '../cluster/failures.js';
import { wasInterrupted } from '../cluster/api-errors.js';
import { followToEnd, targetIdsOf, type Applied, type UpgradeFollow, type UpgradeRun } from './upgrade-follow.js';
import { holdsAsLastWritten } from './follow-end.js';
import { awaitSync, expectedTermsOf } from './apply-by-git.js';
import { applierOf } from '../report/sync.js';

/** `ctx` is the locked one: its signal aborts when the lock is lost. */
export async function followStaged(
  ctx: CommandContext,
  run: UpgradeRun,
  staged: StagedPlan,
  writes: NodeClassWrites,
  follow: UpgradeFollow,
  holder: LockHolder,
): Promise<RolloutProgress | undefined> {
  const { cluster, discovery, inventory, plan } = run;
  const gates = gateKeeper(ctx, run, staged, holder.runId, follow.target);
  const pacer = createPacer({
    cluster,
    api: discovery.karpenterApi,
    plan: staged,
    scope: { nodePools: plan.nodePools, targetImageIds: targetIdsOf(plan) },
    runId: holder.runId,
    target: follow.target,
    who: `${holder.user}@${holder.host}`,
    command: holder.command,
    nodePools: inventory.nodePools,
    ...(gates ? { cleared: (c) => gates.cleared(c), picksCount: (c) => gates.driftReplacement(c) } : {}),
    ...(follow.rollback ? { rerun: 'the rollback' as const } : {}),
    // A staged rollback never has a `1/ami` wave (cli/stage-options.ts refuses it): its targets are only IDs.
    ...(staged.stagePlan.waves[0]?.kind === 'ami' && !('restored' in plan) ? { picks: pickScope(plan, inventory, staged) } : {}),
  });
  // The holds go on before the apply: from the moment the AMIs change, Karpenter may start only the first wave.
  pacer.listen(stagedReporter(ctx, run, staged));
  // The discovery, the plan's reads and the lock have answered by now: their Date says how far off this clock is.
  const skew = skewWarning(cluster);
  if (skew !== undefined) run.log.warn(skew);
  // Nothing left to drift (a scheduler's tick after the rollout ended): no window to wait for, whenever it runs; the
  // follow finds it done and releases whatever holds are left.
  const windowed = staged.windows !== undefined && !nothingLeft(staged, writes);
  if (windowed) await unlessWindowOpen(ctx, pacer, run, staged.windows!, follow);
  const byGit = writes.applyBy !== undefined && !('restored' in plan) ? { plan, applyBy: writes.applyBy } : undefined;
  // A run that ends before its follow ends with its `done` too (docs/reference/json-output.md).
  const ended = (end: EarlyEnd) => reportEarlyDone(ctx, run, follow, end, new Date());
  const generations = byGit
    ? await primeAndAwaitSync(ctx, pacer, { ...run, plan: byGit.plan }, { ...writes, applyBy: byGit.applyBy }, follow, ended)
    : await primeAndApply(ctx, pacer, run, writes, follow.rollback ? 'the rollback' : 'the upgrade', ended);
  try {
    return await followToEnd(ctx, run, follow, {
      generations,
      changed: writes.changes.length,
      pacer,
      windowed,
      ...(gates ? { gates } : {}),
      ...(byGit ? { expectedTerms: expectedTermsFor(byGit.plan, run.inventory) } : {}),
    });
  } catch (err) {
    if (!(err instanceof HaltedError) || staged.gates?.onFailure !== 'rollback') throw err;
    // --rollback-waves: the rollback is a staged rollout of its own, followed by this same function (under this
    // run's lock), whose targets are the restored AMIs.
    const { rollbackWaves } = staged;
    throw await rollbackAfterHalt(ctx, err, {
      ...(rollbackWaves
        ? {
            staged: {
              waves: rollbackWaves,
              runId: holder.runId,
              ...(follow.lockNamespace !== undefined ? { lockNamespace: follow.lockNamespace } : {}),
              // Always followed (wait: true), so there is an end to report.
              follow: async (back) => (await followStaged(ctx, back.run, back.staged, back.writes, back.follow, holder))!,
            },
          }
        : {}),
      cluster,
      discovery,
      inventory,
      pacer,
      nodeClasses: plan.nodeClasses.map((c) => c.name),
      nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
      timeoutMs: follow.timeoutMs,
      stallTimeoutMs: follow.stallTimeoutMs,
      json: run.json,
      log: run.log,
    });
  }
}

/** What a `1/ami` wave picks from: the plan's classes and NodePools, how each is held, and which nodes were empty. */
function pickScope(plan: Plan, inventory: UpgradeRun['inventory'], staged: StagedPlan): AmiPickScope {
  const holds = new Map(staged.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold.mechanism] as const)));
  return amiPickScope(plan, inventory, holds, inventory.nodes.map((n) => n.name));
}

/** No EC2NodeClass to change and no old node in any stage: the rollout is over (or never had anything to do). */
function nothingLeft(staged: StagedPlan, writes: NodeClassWrites): boolean {
  return writes.changes.length === 0 && staged.stages.every((s) => s.size === 0);
}

/**
 * With --window: inside a window, says until when and goes on. Outside one, the run writes its holds at 0 with the
 * windows' budgets (so Karpenter keeps drift shut outside the windows even with no run alive), applies nothing, and
 * ends paused by the window (exit 7, or --window-exit-code's: commands/upgrade.ts), with the `done` every run ends
 * with: the same command, run again inside a
 * window, goes on.
 */
async function unlessWindowOpen(
  ctx: CommandContext,
  pacer: Pacer,
  run: UpgradeRun,
  windows: WindowPlan,
  follow: UpgradeFollow,
): Promise<void> {
  const now = new Date();
  // Open or not by the API server's clock, which Karpenter keeps the windows' budgets by; the holds take this run's.
  const clusterNow = serverTime(run.cluster, now);
  const state = windowState(windows.calendar, clusterNow);
  reportWindow(ctx, run, state.open ? 'opened' : 'waiting', state, clusterNow);
  if (state.open) return;
  const { inventory } = run;
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  await pacer.prime(inventory, now, ctx.signal, { closed: true });
  const next = nextWindowText(state, clusterNow);
  const pools = await pacer.pause(inventory.nodeClaims, nodes, `outside the upgrade windows; ${next}`, now, {
    byWindow: true,
    by: 'window',
  });
  const message = `paused by the window, ${next}: nothing was applied; karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')} with the windows' budgets`;
  reportEarlyDone(ctx, run, follow, { message, paused: pools, cause: 'window' }, new Date());
  throw new WindowPausedError(message, {
    paused: pools,
    hint: `run the same command again inside a window (a scheduler or CI can run it every window): ${follow.resume}`,
  });
}

/** NDJSON, and the summary's record whatever the output. */
function reportWindow(ctx: CommandContext, { json, log }: UpgradeRun, kind: WindowEventKind, state: WindowState, now: Date): void {
  const event = windowEventJson(kind, state, now);
  if (ctx.summary) recordSummary(ctx.summary, event);
  if (json) ctx.io.out(`${JSON.stringify(event)}\n`);
  else if (state.open) log.info(`Inside the upgrade window: ${nextWindowText(state, now)}.`);
}

/** `--apply-by git`: the holds, then the wait for the sync (apply-by-git.ts); a failure to hold leaves nothing held. */
async function primeAndAwaitSync(
  ctx: CommandContext,
  pacer: Pacer,
  run: UpgradeRun & { plan: Plan },
  writes: NodeClassWrites & { applyBy: { timeoutMs: number } },
  follow: UpgradeFollow,
  ended: (end: EarlyEnd) => void,
): Promise<Record<string, number>> {
  try {
    await pacer.prime(run.inventory, new Date(), ctx.signal);
  } catch (err) {
    throw await primeFailed(err, pacer, run.inventory, false, ctx.signal, 'the upgrade', ended);
  }
  return awaitSync(ctx, pacer, run, writes, follow);
}

/** The terms the follow holds each class to, and who applies them, for the words of a revert. */
function expectedTermsFor(plan: Plan, inventory: Inventory): NonNullable<Applied['expectedTerms']> {
  const appliers = new Map(plan.nodeClasses.map((c) => [c.name, applierOf(c)]));
  return {
    terms: expectedTermsOf(plan, inventory),
    owner: (name) => appliers.get(name) ?? 'the GitOps tool',
    rollback: `karp-drift rollback${plan.nodeClasses.map((c) => ` --nodeclass ${c.name}`).join('')}`,
  };
}

async function primeAndApply(
  ctx: CommandContext,
  pacer: Pacer,
  run: UpgradeRun,
  writes: NodeClassWrites,
  rerun: 'the upgrade' | 'the rollback',
  ended: (end: EarlyEnd) => void,
): Promise<Record<string, number>> {
  const { inventory } = run;
  const applied: Record<string, number> = { ...writes.applied };
  if (!writes.dryRun) await validateApplies(run, writes);
  try {
    await pacer.prime(inventory, new Date(), ctx.signal);
    return await applyPlan(ctx, run, writes, applied);
  } catch (err) {
    throw await primeFailed(err, pacer, inventory, Object.keys(applied).length > 0, ctx.signal, rerun, ended);
  }
}

/**
 * The holds went on, then the run ended before the follow (interrupted, an apply refused). With no class applied
 * nothing will drift: the holds come off again and the cluster is as it was. With some applied, their nodes drift:
 * the rollout stays paused (held at 0), as a staged run that ends early always does. A run whose cluster lock lapsed
 * (`signal`'s reason: the API server gone for the lock's 30 s) writes neither: its holds stand as last written.
 */
export async function primeFailed(
  err: unknown,
  pacer: Pacer,
  inventory: Inventory,
  someApplied: boolean,
  signal: AbortSignal,
  rerun: 'the upgrade' | 'the rollback' = 'the upgrade',
  ended?: (end: EarlyEnd) => void,
): Promise<unknown> {
  if (signal.reason instanceof LockLost) return lockLapsed(err, signal.reason, rerun);
  const interrupted = wasInterrupted(signal);
  const cause = interrupted ? 'interrupted' : 'failed';
  // The error the run ends with: an interrupt said as one, else the failure with what became of the holds after it.
  const say = (when: 'before' | 'during', note: string): unknown => {
    if (!interrupted && err instanceof KarpDriftError) err.message += note;
    return interrupted ? new InterruptedError(`interrupted ${when} the EC2NodeClass apply${note}`) : err;
  };
  const text = (said: unknown) => (said instanceof Error ? said.message : String(said));
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  if (!someApplied) {
    const undone = await pacer.finish(nodes, new Date(), { quiet: true }).then(
      () => "karp-drift's holds were taken off again; nothing was changed",
      (e: unknown) =>
        `taking karp-drift's holds off again failed (${failureText(e)}): karp-drift resume releases them`,
    );
    const said = say('before', `; ${undone}`);
    ended?.({ result: cause, message: text(said) });
    return said;
  }
  const pools = await pacer
    .pause(inventory.nodeClaims, nodes, 'the run ended during the apply', new Date())
    .catch(() => undefined);
  const said = say(
    'during',
    `${pools !== undefined ? `; the staged rollout is paused: karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')}` : holdsAsLastWritten()} (re-run ${rerun} to go on, or karp-drift resume)`,
  );
  ended?.(pools !== undefined ? { result: 'paused', message: text(said), paused: pools, cause } : { result: cause, message: text(said) });
  return said;
}

/**
 * The lock lapsed before the follow: what failed, said as the API server's failure when it was one (the write that
 * met the outage, else the renewals'), and what the cluster is left with.
 */
function lockLapsed(err: unknown, lost: LockLost, rerun: string): RuntimeFailure {
  const said = err instanceof KarpDriftError && !(err instanceof LockLost) ? err : lost;
  return new RuntimeFailure(`${said.message}${holdsAsLastWritten()}`, {
    cause: err,
    hint:
      lost.cause !== undefined
        ? `when the API server answers again, re-run ${rerun}: it goes on from where the cluster stands`
        : `see which run holds the lock and what it holds: karp-drift status; once no other run is live, re-run ${rerun}`,
  });
}

/**
 * The health gates of a staged rollout, with their baseline taken from the inventory read before the first write;
 * none when every gate is off (--no-gates and no --gate-cmd).
 */
function gateKeeper(
  ctx: CommandContext,
  { cluster, discovery, inventory, plan }: UpgradeRun,
  staged: StagedPlan,
  runId: string,
  target: string,
): GateKeeper | undefined {
  const request = staged.gates;
  if (request === undefined || (!request.builtIn && request.command === undefined)) return undefined;
  const scope = { nodePools: plan.nodePools.map((n) => n.name), targetImageIds: targetIdsOf(plan) };
  return createGateKeeper({
    cluster,
    discovery,
    request,
    scope,
    baseline: takeBaseline(inventory, scope, new Date()),
    plan: staged.stagePlan,
    stageAmis: staged.stages.map((s) => s.amis),
    facts: {
      target,
      runId,
      amis: [...new Set(Object.values(scope.targetImageIds).flat())],
      context: cluster.context,
      ...(ctx.globals.kubeconfig !== undefined ? { kubeconfig: ctx.globals.kubeconfig } : {}),
    },
  });
}

/** Before the follow (the priming holds): the steps as NDJSON or log lines. */
export function stagedReporter(ctx: CommandContext, { json, log }: Pick<UpgradeRun, 'json' | 'log'>, staged: StagedPlan) {
  return (e: PacerEvent) => {
    const now = new Date();
    const event = pacerEventJson(e, staged.stagePlan, now);
    if (ctx.summary) recordSummary(ctx.summary, event); // the summary's chart and the run's record: stage 1, wave 1
    if (json) ctx.io.out(`${JSON.stringify(event)}\n`);
    else {
      const line = pacerLogLine(e, staged.stagePlan);
      if (line !== undefined) log.info(line);
    }
  };
}
