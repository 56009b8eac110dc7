// How a follow ends, one function per ending: succeeded, failed, paused by `wait` (held), interrupted, halted by a
// gate, timed out, stalled. Each reports its `done` event and, but for success, throws the error whose exit code
// says it (errors.ts). A staged rollout that ends early is left paused first (pauseStaged).
import type { FollowRun, FollowState } from './follow-state.js';
import { forScreen } from './screen-text.js';
import { out, record, reportDone, reportGate } from './follow-report.js';
import { diagnoseStall } from './follow-steps.js';
import { clusterFailure, failureText, isApiFailure } from '../cluster/failures.js';
import {
  RefusedError,
  HaltedError,
  InterruptedError,
  KarpDriftError,
  RuntimeFailure,
  StalledError,
  TimeoutError,
  WindowPausedError,
} from '../errors.js';
import { nextWindowText, windowEventJson } from '../report/windows.js';
import { windowState } from '../windows/calendar.js';
import { serverTime } from '../cluster/server-clock.js';
import { HoldWriteFailed } from '../cluster/holds.js';
import { LockLost } from '../cluster/lock.js';
import { SWITCH_AHEAD_MS } from './pacer-holds.js';
import { gateEventJson, haltLines, type GateReport } from '../report/gates.js';
import { blockedEvent, doneEvent, ndjsonLine, stallSummary, type RolloutResult } from '../report/progress.js';
import { rollbackCommand } from '../rollout/readiness.js';
import { statusLineOf, type RolloutProgress } from '../rollout/track.js';
import { humanDuration } from '../text/words.js';
import type { Pacer } from './staged-pacer.js';
import type { PausedBy } from '../apis/pause-record.js';
import { syncEventJson, termsMovedLine } from '../report/sync.js';

interface PausedNote {
  pools: string[];
  text: string;
  hint: string;
}

/** `result`: what the loop's last turn said; undefined when the follow was stopped (a failure, an interrupt, `wait`). */
export async function endFollow(
  run: FollowRun,
  state: FollowState,
  result: RolloutResult | undefined,
  now: Date,
): Promise<RolloutProgress> {
  const { pacer } = run.settings;
  if (state.failure) return endFailed(run, state, state.failure, now);
  const lost = lockLost(run);
  if (result === undefined && lost) return endFailed(run, state, lost, now);
  if (result === undefined) return isHeld(run) ? endHeld(run, state, now) : endInterrupted(run, state, now);
  if (result === 'halted' && state.halt && pacer) return endHalted(run, state, state.halt, pacer, now);
  if (result === 'timeout') return endTimedOut(run, state, now);
  if (result === 'stalled') return endStalled(run, state, now);
  if (result === 'window') return endWindowClosed(run, state, now);
  if (result === 'sync') return endTermsMoved(run, state, now);
  if (result === 'succeeded' && pacer) await pacer.finish(state.snapshot.nodes, now);
  // A live run may have been given a while to release its holds: the run ends now, not when its nodes were done.
  if (result === 'succeeded' && !pacer && run.settings.atDone) await endHeldAtDone(run, state, run.settings.atDone);
  reportDone(run, state, result, run.settings.atDone ? new Date() : now);
  return state.progress!;
}

/**
 * The follow was stopped because the run lost its cluster lock (hold-shared.ts aborts the locked signal with it): a
 * failure, never an interrupt. Usually the API server stopped answering the renewals; then that is what is said.
 */
function lockLost(run: FollowRun): LockLost | undefined {
  const { signal } = run.ctx;
  return signal.aborted && signal.reason instanceof LockLost ? signal.reason : undefined;
}

/** `endWhen` stopped the follow (`wait`, an unpaced upgrade): the rollout is paused, with no run left to release the holds. */
function isHeld(run: FollowRun): boolean {
  const { endWhen } = run.settings;
  const reason: unknown = endWhen?.reason;
  return !run.ctx.signal.aborted && endWhen?.aborted === true && (reason instanceof HaltedError || reason instanceof WindowPausedError);
}

async function endFailed(run: FollowRun, state: FollowState, failure: Error, now: Date): Promise<never> {
  // A run whose lock lapsed writes nothing more, not even its pause: another run may hold the lock by now (apis/lock.ts),
  // and its holds as last written stand, with the dead man's switch behind them.
  const note = failure instanceof LockLost ? undefined : await pauseStaged(run, state, 'failed', `the run failed: ${failure.message}`, now);
  // A lock lost, or a hold not written, because the API server stopped answering is that API server's failure.
  const lockLost = failure instanceof LockLost && isApiFailure(failure.cause);
  const holdLost = failure instanceof HoldWriteFailed && isApiFailure(failure.cause);
  const apiCause = lockLost || holdLost ? (failure.cause as Error) : undefined;
  if (apiCause || (!(failure instanceof KarpDriftError) && isApiFailure(failure))) {
    const lost = lostCluster(run, apiCause ?? failure, note, lockLost ? 'renewing the cluster lock' : 'following the rollout');
    if (!note) reportDone(run, state, 'failed', now, { message: lost.message });
    throw lost;
  }
  if (failure instanceof LockLost) {
    const left = note ? note.text : holdsLeftText(run);
    const lost = new RuntimeFailure(`${failure.message}${left}`, {
      cause: failure,
      hint: `see which run holds it and what it holds: karp-drift status; once no other run is live, the same command goes on from where the cluster stands: ${run.settings.resumeCommand}`,
    });
    if (!note) reportDone(run, state, 'failed', now, { message: lost.message });
    throw lost;
  }
  if (!note) reportDone(run, state, 'failed', now);
  else if (failure instanceof KarpDriftError) failure.message += note.text;
  throw failure;
}

/**
 * The API server stopped answering (refused, reset, timed out, TLS) and the retries ran out: a runtime failure (exit
 * 1) that names it, says what the cluster is left with and until when, and how to go on, never a bug (exit 70).
 */
function lostCluster(run: FollowRun, err: Error, note: PausedNote | undefined, doing: string): RuntimeFailure {
  const { cluster } = run;
  const failure = clusterFailure(
    err,
    { doing, verb: doing.includes('lock') ? 'update' : 'watch', resource: doing.includes('lock') ? 'leases.coordination.k8s.io' : 'nodeclaims.karpenter.sh' },
    { context: cluster.context, server: cluster.server },
  );
  const left = !run.settings.pacer ? '; the rollout goes on in the cluster' : note ? note.text : holdsLeftText(run);
  return new RuntimeFailure(`${failure.message}${left}`, {
    cause: err,
    hint: `when the API server answers again, run the same command: it goes on from where the cluster stands: ${run.settings.resumeCommand}`,
  });
}

function haltedPools(run: FollowRun, state: FollowState, now: Date): Array<Record<string, unknown>> {
  const done = doneEvent('halted', state.progress!, run.cluster.identity, now);
  return 'nodePools' in done ? (done.nodePools as unknown as Array<Record<string, unknown>>) : [];
}

/** What a staged run that could not write its pause leaves: its last holds, and the switch that takes over. */
function holdsLeftText(run: FollowRun): string {
  if (!run.settings.pacer) return '; the rollout goes on in the cluster';
  return holdsAsLastWritten();
}

/** The clause a staged run's error ends with when it could not leave the rollout paused. */
export function holdsAsLastWritten(): string {
  return `; karp-drift could not write its holds, so they stay as its last write left them: each NodePool it holds with a budget holds Drifted disruption at 0 by itself within ${SWITCH_AHEAD_MS / 60_000} minutes (its dead man's switch), and node holds stay`;
}

function endHeld(run: FollowRun, state: FollowState, now: Date): never {
  const reason = run.settings.endWhen!.reason as HaltedError | WindowPausedError;
  const cause = reason instanceof WindowPausedError ? 'window' : 'held';
  reportDone(run, state, 'paused', now, { cause, paused: reason.paused ?? [] });
  throw reason;
}

/** Every node is on target, and karp-drift's holds are still on the NodePools: not a success (commands/held-follow.ts). */
async function endHeldAtDone(run: FollowRun, state: FollowState, atDone: NonNullable<FollowRun['settings']['atDone']>): Promise<void> {
  const held = await atDone();
  if (held === undefined) return;
  reportDone(run, state, held.result, new Date(), held.extra);
  throw held.error;
}

async function endInterrupted(run: FollowRun, state: FollowState, now: Date): Promise<never> {
  const note = await pauseStaged(run, state, 'interrupted', 'the run was interrupted', now);
  if (!note) reportDone(run, state, 'interrupted', now);
  const { progress } = state;
  throw new InterruptedError(
    `interrupted while following the rollout${progress ? `: ${statusLineOf(progress, openStagePools(run, state))}` : ''}${note ? note.text : run.settings.pacer ? holdsLeftText(run) : '; nothing more was changed'}`,
    {
      hint: note
        ? note.hint
        : run.settings.pacer
          ? `the warning above says why the holds could not be written; once they can, run the same command, which goes on from where the cluster stands: ${run.settings.resumeCommand}`
          : `the rollout goes on in the cluster; follow it again with: ${run.settings.resumeCommand}`,
    },
  );
}

async function endHalted(run: FollowRun, state: FollowState, h: GateReport, pacer: Pacer, now: Date): Promise<never> {
  const { json } = run;
  if (json) reportGate(run, state, h, now);
  // Wrapped at spaces to the terminal's width, hung under their indent (a kubelet message is one long line).
  else for (const line of haltLines(h, pacer.plan.stagePlan)) run.ctx.io.err(forScreen(run.ctx.io, 'err', line));
  const first = h.findings[0];
  const what = first
    ? `${first.code} ${first.message}`
    : h.result === 'inconclusive'
      ? 'it could not be evaluated'
      : 'it failed';
  const gate = gateEventJson(h, pacer.plan.stagePlan, now);
  record(run, gate);
  const note = await pauseStaged(run, state, 'halted', `a health gate stopped it: ${what}`, now, first ? { code: first.code, subject: first.subject } : { code: h.result === 'inconclusive' ? 'INCONCLUSIVE' : 'FAILED' });
  // With --on-failure rollback the caller reports the end, once the rollback has one.
  if (run.settings.rollbackOnHalt !== true)
    reportDone(run, state, 'halted', now, { cause: 'gate', paused: note?.pools ?? [], gate });
  // A gate that could not be evaluated because the API server is gone could not leave the holds at 0 either.
  throw new HaltedError(`halted by a health gate: ${what}${note ? note.text : holdsLeftText(run)}`, {
    hint: `look at the evidence ${json ? "(the 'gate' event on stdout)" : 'above'}; ${run.settings.haltHint ?? `roll the new AMIs back with karp-drift rollback, or, once you are sure they are fine, go on judged again from a fresh baseline: ${resumeHalted(run.settings.resumeCommand)} (or release the holds with karp-drift resume)`}`,
    paused: note?.pools ?? [],
    gate,
    // The replacements so far, for the `done` an --on-failure rollback reports: every report counts the same ones.
    ...(state.progress ? { nodePools: haltedPools(run, state, now) } : {}),
  });
}

/** A staged run's open stage: its NodePools (undefined: not staged, or no stage open). */
function openStagePools(run: FollowRun, state: FollowState): string[] | undefined {
  const index = state.stage?.stage?.index;
  const stage = index !== undefined ? run.settings.pacer?.plan.stages[index] : undefined;
  return stage?.nodePools.map((p) => p.name);
}

/** The command that goes on after a gate's halt: the same one with the user's word that they looked. */
const resumeHalted = (command: string): string =>
  command.includes(' --resume-halted') ? command : command.replace(/ --yes$/, ' --resume-halted --yes');

async function endTimedOut(run: FollowRun, state: FollowState, now: Date): Promise<never> {
  const { timeoutMs, resumeCommand } = run.settings;
  const final = state.progress!;
  const note = await pauseStaged(run, state, 'timeout', `--timeout ${humanDuration(timeoutMs)} passed`, now);
  if (!note) reportDone(run, state, 'timeout', now);
  throw new TimeoutError(
    `timed out after ${humanDuration(timeoutMs)} waiting for the drift rollout: ${statusLineOf(final, openStagePools(run, state))}${note ? note.text : ''}`,
    {
      hint: note ? note.hint : `Karpenter goes on replacing nodes; follow it again with: ${resumeCommand}`,
    },
  );
}

async function endStalled(run: FollowRun, state: FollowState, now: Date): Promise<never> {
  const { json } = run;
  const { stallTimeoutMs, resumeCommand } = run.settings;
  const final = state.progress!;
  const blockers = await diagnoseStall(run, state, now);
  // A failing AMI is the one thing not to "resolve and follow again": every way past the other blockers spreads it.
  const failingAmis = blockers.flatMap((b) => (b.code === 'STALL-BAD-AMI' && b.nodeClass ? [b.nodeClass] : []));
  for (const b of blockers) record(run, blockedEvent(b, 'stall', now));
  if (json) for (const b of blockers) out(run, ndjsonLine(blockedEvent(b, 'stall', now)));
  else run.ctx.io.err(stallSummary(final, blockers, now));
  const note = await pauseStaged(run, state, 'stalled', `no progress for ${humanDuration(stallTimeoutMs)}`, now);
  if (!note) reportDone(run, state, 'stalled', now);
  throw new StalledError(
    `the rollout made no progress for ${humanDuration(stallTimeoutMs)} (--stall-timeout)${blockers.length > 0 ? `: ${[...new Set(blockers.map((b) => b.code))].join(', ')}` : ''}; the changes stay applied${note ? note.text : ''}`,
    {
      hint: failingAmis.length > 0
        ? `the target AMI fails (STALL-BAD-AMI${json ? ", in the 'blocked' events on stdout" : ' above'}): roll it back before drift replaces more nodes: ${rollbackCommand(...failingAmis)}`
        : `resolve the blockers ${json ? "(the 'blocked' events on stdout)" : 'above'}, then ${note ? note.hint.replace(/^go on with/, 'go on with') : `follow again with: ${resumeCommand}`}`,
    },
  );
}

/**
 * The upgrade window closed mid-rollout: Karpenter starts nothing more (the windows' budgets), and the run leaves the
 * rollout held as every early end does; waves, soaks and gates stay recorded, and the same command goes on in the next
 * window. Success so far (exit 7, or --window-exit-code's: commands/upgrade.ts), not a failure.
 */
async function endWindowClosed(run: FollowRun, state: FollowState, now: Date): Promise<never> {
  const { resumeCommand } = run.settings;
  // Where the windows stand by the API server's clock (Karpenter's); the pause below is this run's, at its own time.
  const clusterNow = serverTime(run.cluster, now);
  const ws = windowState(run.settings.window!, clusterNow);
  const event = windowEventJson('closed', ws, clusterNow);
  record(run, event);
  if (run.json) out(run, `${JSON.stringify(event)}\n`);
  const next = nextWindowText(ws, clusterNow);
  const note = await pauseStaged(run, state, 'window', `the upgrade window closed; ${next}`, now);
  throw new WindowPausedError(`paused by the window, ${next}${note ? note.text : holdsLeftText(run)}`, {
    hint: `run the same command again in the next window (a scheduler or CI can run it every window): ${resumeCommand}`,
  });
}

/**
 * `upgrade --apply-by git`: the GitOps tool put other terms on a class mid-rollout. Back to the terms before the
 * upgrade is a revert (a `git revert` merged, an Argo CD sync rollback), said as one; anything else is another change.
 * Either way nothing more opens on terms the plan did not choose: the rollout is left held (exit 3), for a person to
 * follow the nodes back (`rollback`) or merge the planned terms again and re-run.
 */
async function endTermsMoved(run: FollowRun, state: FollowState, now: Date): Promise<never> {
  const expected = run.settings.expectedTerms!;
  const moved = state.termsMoved;
  for (const m of moved) {
    const event = syncEventJson(m.state === 'previous' ? 'reverted' : 'changed', m, expected.owner(m.nodeClass), now);
    record(run, event);
    if (run.json) out(run, `${JSON.stringify(event)}\n`);
    else run.ctx.io.err(forScreen(run.ctx.io, 'err', `${termsMovedLine(m, expected.owner(m.nodeClass))}\n`));
  }
  const reverted = moved.every((m) => m.state === 'previous');
  const what = moved.map((m) => `ec2nodeclass/${m.nodeClass}`).join(', ');
  const why = reverted
    ? `${expected.owner(moved[0]!.nodeClass)} put the terms from before the upgrade back on ${what} (a revert or a sync rollback)`
    : `${expected.owner(moved[0]!.nodeClass)} applied terms the plan did not choose on ${what}`;
  const note = await pauseStaged(run, state, 'sync', why, now);
  throw new RefusedError(`${why}: not a stall; nothing more opens on those terms${note ? note.text : holdsLeftText(run)}`, {
    hint: reverted
      ? `if the revert is meant, follow the nodes back: ${expected.rollback}; to go on with the upgrade, merge the planned terms again and run: ${run.settings.resumeCommand}`
      : `merge the planned terms (or plan again for what was merged), then run: ${run.settings.resumeCommand}; or release the holds: karp-drift resume`,
  });
}

/** How each early end is recorded on the paused NodePools (apis/pause-record.ts). */
const PAUSED_BY: Partial<Record<RolloutResult, PausedBy>> = {
  halted: 'gate',
  interrupted: 'interrupted',
  stalled: 'stalled',
  timeout: 'timeout',
  window: 'window',
  sync: 'sync',
};

/**
 * A staged rollout that ends early stays paused: nobody is left to pace it, so every NodePool not released is held
 * at 0 (a wave's last allowance must not let Karpenter go on after we left).
 */
async function pauseStaged(
  run: FollowRun,
  state: FollowState,
  cause: RolloutResult,
  why: string,
  now: Date,
  gate?: { code: string; subject?: string },
): Promise<PausedNote | undefined> {
  const { pacer, resumeCommand } = run.settings;
  if (!pacer) return undefined;
  const by = PAUSED_BY[cause] ?? 'ended';
  const pools = await pacer
    .pause(state.snapshot.nodeClaims.values(), state.snapshot.nodes, why, new Date(), {
      byWindow: cause === 'window',
      by,
      ...(gate !== undefined ? { gate } : {}),
    })
    .catch((e: unknown) => {
      run.ctx.io.err(`warning: could not leave the staged rollout paused: ${failureText(e)}\n`);
      return [] as string[];
    });
  if (pools.length === 0) return undefined;
  // A halt reports its own `done` (with the gate), in endHalted.
  if (cause !== 'halted') reportDone(run, state, 'paused', now, { cause, paused: pools });
  return {
    pools,
    text: `; the staged rollout is paused: karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')}`,
    hint: `go on with the same command, which resumes at the wave where the cluster stands: ${resumeCommand}; or release the holds and let Karpenter go at the NodePools' own budgets: karp-drift resume`,
  };
}
