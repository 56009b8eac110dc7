// The steps of one turn of the follow loop, shaped like Karpenter's disruption controller (STYLE.md): observe the
// snapshot the watches keep, let the gates and the stages decide (the pacer acts on its holds and records them),
// diagnose what blocks the rollout, and say whether the follow stops here: done, timed out or stalled. Reporting is
// follow-report.ts; the endings, interrupted among them, are follow-end.ts.
import { isWindowOpen } from '../windows/calendar.js';
import type { FollowRun, FollowState, Turn } from './follow-state.js';
import { reportClockSkew, reportGate, reportNodeClassReady } from './follow-report.js';
import { serverTime } from '../cluster/server-clock.js';
import { readDiagnosisReads } from '../cluster/inventory.js';
import { RuntimeFailure } from '../errors.js';
import type { RolloutResult } from '../report/progress.js';
import type { StageState } from '../report/stages.js';
import { nodeClassReadiness } from '../rollout/readiness.js';
import { karpenterNodesOf } from '../rollout/snapshot.js';
import { diagnose, type Blocker } from '../rollout/stalls.js';
import { track } from '../rollout/track.js';
import { termsChanges } from '../rollout/synced-terms.js';

/** While nothing moves, re-read PDBs and pods and diagnose at most this often. */
const DIAGNOSE_EVERY_MS = 30_000;
/**
 * While it moves, look this often for the blockers that read only what the watches keep current (no API call): a
 * replacement failing to launch or to register is worth a word even when the rollout goes on, or later recovers.
 */
const WATCHED_CHECK_EVERY_MS = 5_000;
const WATCHED_CODES = new Set<Blocker['code']>(['STALL-LAUNCH', 'STALL-REGISTRATION']);

/** Where the rollout stands in the snapshot now; an EC2NodeClass that cannot resolve its AMIs ends the follow. */
export function observe(run: FollowRun, state: FollowState, now: Date): Turn {
  for (const r of nodeClassReadiness(state.snapshot, run.settings.scope)) {
    if (state.readiness.get(r.nodeClass) === r.state) continue;
    state.readiness.set(r.nodeClass, r.state);
    if (r.state === 'failed') throw new RuntimeFailure(`ec2nodeclass/${r.nodeClass}: ${r.message}`, { hint: r.next });
    if (r.state === 'ready') reportNodeClassReady(run, r, now);
  }
  const previous = state.progress;
  state.progress = track(previous, state.snapshot, run.settings.scope, now);
  return { now, progress: state.progress, previous };
}

/**
 * `upgrade --apply-by git`: the GitOps tool keeps the classes' terms, and may put other ones back mid-rollout (a revert,
 * a sync rollback). Judged before the gates and the stages: nothing more opens on terms the plan did not choose.
 */
export function termsMoved(run: FollowRun, state: FollowState): boolean {
  const expected = run.settings.expectedTerms;
  if (expected === undefined || !state.snapshot.synced.has('EC2NodeClass')) return false;
  state.termsMoved = termsChanges(state.snapshot.nodeClasses, expected.terms);
  return state.termsMoved.length > 0;
}

/**
 * Gates first: the pacer's step asks them whether a checkpoint is cleared. Once every node is on target the pacer
 * still steps, for the gates at the last wave's end. True when the gates halt the rollout.
 */
export function decideGates(run: FollowRun, state: FollowState, turn: Turn): boolean {
  const { gates } = run.settings;
  if (!gates || !turn.progress.synced) return false;
  const { snapshot, stage, stop } = state;
  const look = {
    claims: snapshot.nodeClaims.values(),
    departed: snapshot.departed,
    nodes: snapshot.nodes,
    events: snapshot.events.values(),
  };
  const g = gates.tick(look, stage, turn.now, stop.signal);
  for (const r of g.reports) reportGate(run, state, r, turn.now);
  if (!g.halt) return false;
  state.halt = g.halt;
  return true;
}

/** The pacer's step: it decides where the stages stand and acts on its holds (staged-pacer.ts). */
export async function paceStages(run: FollowRun, state: FollowState, turn: Turn): Promise<void> {
  const { pacer, gates } = run.settings;
  const { progress, now } = turn;
  const gatesLeft = gates !== undefined && state.stage?.phase !== 'done';
  if (!pacer || !progress.synced || (progress.done && !gatesLeft)) return;
  reportClockSkew(run, state);
  const before = state.stage;
  state.stage = await pacer.step(state.snapshot.nodeClaims.values(), state.snapshot.nodes, now, state.stop.signal);
  if (state.stage.phase === 'gating' && gates) {
    const waiting = gates.waiting(now);
    if (waiting !== undefined) state.stage = { ...state.stage, gateWaiting: waiting };
  }
  if (stageMoved(before, state.stage)) state.stageMovedAt = now.getTime();
}

/**
 * What blocks the rollout: a full diagnosis, which reads PDBs and pods, while it stands still; between those, the
 * blockers the watches alone can show.
 */
export async function diagnoseBlockers(run: FollowRun, state: FollowState, turn: Turn): Promise<Blocker[]> {
  const { progress, previous, now } = turn;
  const moved = previous !== undefined && progress.lastProgressAt.getTime() === now.getTime();
  if (moved) state.diagnosed = []; // it moved: whatever blocked it is stale
  const looking = progress.synced && !progress.done;
  if (
    looking &&
    !waitsByDesign(state.stage) &&
    quietMs(state, turn) >= Math.min(DIAGNOSE_EVERY_MS, run.settings.stallTimeoutMs / 2) &&
    now.getTime() - state.lastDiagnosis >= DIAGNOSE_EVERY_MS
  ) {
    state.lastDiagnosis = now.getTime();
    state.lastWatchedCheck = now.getTime();
    await readContext(run, state, state.stop.signal);
    state.diagnosed = diagnoseNow(run, state, now);
    state.watched = state.diagnosed.filter((b) => WATCHED_CODES.has(b.code));
  } else if (looking && now.getTime() - state.lastWatchedCheck >= WATCHED_CHECK_EVERY_MS) {
    state.lastWatchedCheck = now.getTime();
    // The NodePools, PDBs and pods of the last read may be stale: only the checks of watched kinds are trusted here.
    state.watched = diagnoseNow(run, state, now).filter((b) => WATCHED_CODES.has(b.code));
  }
  const { diagnosed, watched } = state;
  return heldOnPurpose(
    [...diagnosed, ...watched.filter((w) => !diagnosed.some((d) => d.code === w.code && d.nodePool === w.nodePool))],
    state.stage,
  );
}

/** The stall's diagnosis, on a fresh read of PDBs and pods. */
export async function diagnoseStall(run: FollowRun, state: FollowState, now: Date): Promise<Blocker[]> {
  await readContext(run, state);
  return heldOnPurpose(diagnoseNow(run, state, now), state.stage);
}

/** Whether the follow stops after this turn, and why. */
export function stopReason(run: FollowRun, state: FollowState, turn: Turn): 'continue' | RolloutResult {
  if (isDone(run, state, turn)) return 'succeeded';
  // Karpenter already starts nothing once the windows close (their budgets); the run leaves the rollout held.
  if (isWindowClosed(run, turn)) return 'window';
  if (isTimedOut(run, state, turn)) return 'timeout';
  if (isStalled(run, state, turn)) return 'stalled';
  return 'continue';
}

/** The run has upgrade windows (`--window`), and they are closed now. */
export function isWindowClosed(run: FollowRun, turn: Turn): boolean {
  // By the API server's clock: Karpenter keeps the windows' budgets by it, not by this machine's.
  return run.settings.window !== undefined && !isWindowOpen(run.settings.window, serverTime(run.cluster, turn.now));
}

/** Every node is on target and, with gates, the last checkpoint is cleared. */
function isDone(run: FollowRun, state: FollowState, turn: Turn): boolean {
  return turn.progress.done && (!run.settings.gates || state.stage?.phase === 'done');
}

/** Soaks are waiting by design, not slowness: they do not count against --timeout. */
function isTimedOut(run: FollowRun, state: FollowState, turn: Turn): boolean {
  const { scope, timeoutMs } = run.settings;
  return turn.now.getTime() - scope.startedAt.getTime() - (state.stage?.soakedMs ?? 0) >= timeoutMs;
}

function isStalled(run: FollowRun, state: FollowState, turn: Turn): boolean {
  return turn.progress.synced && !waitsByDesign(state.stage) && quietMs(state, turn) >= run.settings.stallTimeoutMs;
}

/** Soaking and waiting on the gates are waits by design: no stall, no diagnosis. */
function waitsByDesign(stage: StageState | undefined): boolean {
  return stage?.phase === 'soak' || stage?.phase === 'gating';
}

/** How long neither the rollout nor its stages have moved. */
function quietMs(state: FollowState, turn: Turn): number {
  return turn.now.getTime() - Math.max(turn.progress.lastProgressAt.getTime(), state.stageMovedAt);
}

/**
 * A stage, wave or phase begun. A wave's `finishing` (every start of it made) counts as the wave still running: a drift
 * command Karpenter gives up takes the wave back from one to the other, and launches refused for capacity do so every
 * few seconds, which must not hide a rollout that stands still (it stalls, with STALL-LAUNCH).
 */
function stageMoved(before: StageState | undefined, after: StageState): boolean {
  const phase = (s: StageState) => (s.phase === 'finishing' ? 'wave' : s.phase);
  return (
    before === undefined ||
    phase(before) !== phase(after) ||
    before.wave !== after.wave ||
    before.stage?.index !== after.stage?.index
  );
}

/** A failed read keeps the last one: a diagnosis on older PDBs beats none. */
async function readContext(run: FollowRun, state: FollowState, signal?: AbortSignal): Promise<void> {
  const fresh = await readDiagnosisReads(run.cluster, run.discovery, karpenterNodesOf(state.snapshot), signal).catch(
    () => undefined,
  );
  if (fresh) state.context = fresh;
}

function diagnoseNow(run: FollowRun, state: FollowState, now: Date): Blocker[] {
  const { scope } = run.settings;
  return diagnose(state.snapshot, { scope, ...state.context, karpenterApi: run.discovery.karpenterApi }, now);
}

/** A NodePool karp-drift holds at 0 on purpose (a later stage, a soak) is not blocked by its budget: that is us. */
function heldOnPurpose(blockers: Blocker[], stage: StageState | undefined): Blocker[] {
  if (!stage) return blockers;
  return blockers.filter(
    (b) =>
      !(
        (b.code === 'STALL-BUDGET' || b.code === 'STALL-HELD') &&
        b.nodePool !== undefined &&
        stage.heldAtZero.includes(b.nodePool)
      ),
  );
}
