// The follow loop of `upgrade` and `rollback`: watches feed a snapshot (rollout/snapshot.ts), the pure tracker says
// where each NodePool stands, and this loop owns the rollout's timers: how often to redraw, when "no progress" becomes
// a stall (--stall-timeout), and when to give up (--timeout). Following only reads, so an interrupt stops it at once.
// `status --watch` shares the watches and the snapshot, without a rollout to judge (commands/status.ts).
// Each turn is a controller's: observe → decide (gates, then stages) → act (the pacer's holds) → report, then the stop
// conditions (follow-steps.ts); the endings are follow-end.ts.
import type { CommandContext } from './context.js';
import { endFollow } from './follow-end.js';
import { report, reportPacerEvent } from './follow-report.js';
import { newFollowState, type FollowRun, type FollowSettings, type FollowState } from './follow-state.js';
import { decideGates, diagnoseBlockers, isWindowClosed, observe, paceStages, stopReason, termsMoved } from './follow-steps.js';
import { liveDisplay } from './live-display.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { followCluster } from '../cluster/follow.js';
import type { Inventory } from '../karpenter/views.js';
import type { RolloutResult } from '../report/progress.js';
import { applyChange } from '../rollout/snapshot.js';
import type { RolloutProgress } from '../rollout/track.js';

export type { FollowSettings } from './follow-state.js';

/** How often the loop re-evaluates without a change: elapsed time, stall and timeout clocks. */
const TICK_MS = 1000;
/** A change is folded in at once, but the tracker runs at most this often (a rollout is thousands of changes). */
const SETTLE_MS = 50;
/**
 * On a big fleet an evaluation costs milliseconds (5,000 NodeClaims) and changes come without pause: the wait after a
 * change grows to SETTLE_COST_FACTOR times the last evaluation's cost, so the tracker takes at most ~5 % of a core,
 * and never beyond MAX_SETTLE_MS, so done is still reported well within a second of the change that completes it.
 */
const SETTLE_COST_FACTOR = 20;
const MAX_SETTLE_MS = 250;
/**
 * The live display draws its last frame again this often, where the clock in it changed: a turn may wait on the
 * cluster for seconds (a diagnosis reading 50,000 pods, a hold write the API server is slow to answer), and the frame's
 * clock must not stop meanwhile.
 */
const REDRAW_MS = 250;

/** The loop's timer: when the next turn runs, whether one is running, and how to hand the outcome back. */
interface Loop {
  readonly run: FollowRun;
  readonly state: FollowState;
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
  running: boolean;
  /** The turn under way, if any: the end waits for it, so nothing it reports (a hold written) comes after `done`. */
  turn?: Promise<void>;
  settleMs: number;
  wake?: (result: RolloutResult | undefined) => void;
}

export async function followRollout(
  ctx: CommandContext,
  cluster: Cluster,
  discovery: Discovery,
  inventory: Inventory,
  settings: FollowSettings,
): Promise<RolloutProgress> {
  const json = ctx.globals.output === 'json';
  const display = !json && ctx.io.interactive && !ctx.globals.quiet ? liveDisplay(ctx.io, 'err') : undefined;
  const run: FollowRun = { ctx, cluster, discovery, settings, json, display };
  const state = newFollowState(inventory);
  // The run's record reads the replacements from the snapshot (a follow without the lock, as `wait`, begins it here).
  await ctx.history?.begin(cluster);
  ctx.history?.follow(state.snapshot, settings.scope.nodePools.map((p) => p.name));
  const onAbort = () => state.stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  settings.endWhen?.addEventListener('abort', onAbort, { once: true });
  settings.pacer?.listen((e) => reportPacerEvent(run, state, e));

  const loop: Loop = { run, state, timer: undefined, timerAt: Infinity, running: false, settleMs: SETTLE_MS };
  settings.gates?.onSettled(() => schedule(loop, SETTLE_MS));
  const following = watch(loop);
  const outcome = new Promise<RolloutResult | undefined>((resolve) => (loop.wake = resolve));
  state.stop.signal.addEventListener('abort', () => loop.wake?.(undefined), { once: true });
  schedule(loop, TICK_MS);
  const redraw = display ? setInterval(() => display.redraw(), REDRAW_MS) : undefined;

  const result = await outcome;
  clearInterval(redraw);
  settings.gates?.stop();
  clearTimeout(loop.timer);
  state.stop.abort();
  await following;
  await loop.turn; // its requests end with the stop; what it did is reported before the end is
  ctx.signal.removeEventListener('abort', onAbort);
  settings.endWhen?.removeEventListener('abort', onAbort);
  const now = new Date();
  display?.end();
  state.displayEnded = true;
  return endFollow(run, state, result, now);
}

/** One turn of the controller; the follow goes on while it says 'continue'. */
async function evaluate(run: FollowRun, state: FollowState): Promise<'continue' | RolloutResult> {
  const turn = observe(run, state, new Date());
  // Outside the upgrade windows nothing is judged and no stage moves (issue 26: a gate evaluation never runs outside
  // one): the run ends held, and the next window's run judges what this one left.
  if (isWindowClosed(run, turn)) return stopReason(run, state, turn);
  if (termsMoved(run, state)) return 'sync';
  if (decideGates(run, state, turn)) return 'halted';
  await paceStages(run, state, turn);
  const blockers = await diagnoseBlockers(run, state, turn);
  report(run, state, turn, blockers);
  return stopReason(run, state, turn);
}

/** The watches fold each change into the snapshot and ask for a turn; a watch that fails ends the follow. */
function watch(loop: Loop): Promise<void> {
  const { run, state } = loop;
  return followCluster(run.cluster, {
    karpenterApi: run.discovery.karpenterApi,
    signal: state.stop.signal,
    onChange: (change) => {
      applyChange(state.snapshot, change);
      schedule(loop, loop.settleMs);
    },
    onError: (e) => {
      state.failure = e;
      state.stop.abort();
    },
  });
}

// A change runs the tracker within SETTLE_MS; without changes it runs every TICK_MS. An earlier run replaces a
// later one, never the other way round, so a burst of changes costs one evaluation.
function schedule(loop: Loop, delay: number): void {
  const at = Date.now() + delay;
  if (loop.timer !== undefined && loop.timerAt <= at) return;
  clearTimeout(loop.timer);
  loop.timerAt = at;
  loop.timer = setTimeout(() => {
    loop.turn = runTurn(loop);
  }, delay);
}

async function runTurn(loop: Loop): Promise<void> {
  const { run, state } = loop;
  loop.timer = undefined;
  loop.timerAt = Infinity;
  if (state.stop.signal.aborted) return;
  if (loop.running) return schedule(loop, SETTLE_MS); // an evaluation is reading the cluster: look again right after it
  loop.running = true;
  try {
    const started = performance.now();
    const result = await evaluate(run, state);
    // An evaluation that read the cluster (a diagnosis) waited on the network: only a quick one says what one costs.
    const cost = performance.now() - started;
    if (cost < MAX_SETTLE_MS) loop.settleMs = Math.min(MAX_SETTLE_MS, Math.max(SETTLE_MS, cost * SETTLE_COST_FACTOR));
    if (result !== 'continue') return loop.wake?.(result);
    schedule(loop, TICK_MS);
  } catch (e) {
    // A request cut short by the interrupt (a hold write on the wire) is the interrupt, not a failure.
    if (!state.stop.signal.aborted) state.failure = e instanceof Error ? e : new Error(String(e));
    loop.wake?.(undefined);
  } finally {
    loop.running = false;
  }
}
