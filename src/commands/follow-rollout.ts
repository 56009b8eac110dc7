// The follow loop of `upgrade` and `rollback`: watches feed a snapshot (rollout/snapshot.ts), the pure tracker says
// where each NodePool stands, and this loop owns the rollout's timers: how often to redraw, when "no progress" becomes
// a stall (--stall-timeout), and when to give up (--timeout). Following only reads, so an interrupt stops it at once.
// `status --watch` shares the watches and the snapshot, without a rollout to judge (commands/status.ts).
import type { CommandContext } from './context.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { followCluster } from '../cluster/follow.js';
import { readDiagnosisReads } from '../cluster/inventory.js';
import type { ClusterChange, Inventory } from '../karpenter/views.js';
import {
  HaltedError,
  InterruptedError,
  KarpDriftError,
  RuntimeFailure,
  StalledError,
  TimeoutError,
} from '../errors.js';
import {
  blockedEvent,
  blockerText,
  doneEvent,
  eventTime,
  ndjsonLine,
  newProgressLog,
  progressEvent,
  progressFrame,
  progressLogLines,
  stallSummary,
  unreportedBlockers,
  type RolloutResult,
} from '../report/progress.js';
import { applyChange, emptySnapshot, karpenterNodesOf } from '../rollout/snapshot.js';
import { diagnose, type Blocker } from '../rollout/stalls.js';
import { humanDuration } from '../text/words.js';
import { liveDisplay } from './live-display.js';
import { fitLine } from '../report/screen.js';
import { recordSummary } from '../report/summary.js';
import { track, type RolloutProgress, type RolloutScope } from '../rollout/track.js';
import { nodeClassReadiness } from '../rollout/readiness.js';
import {
  pacerEventJson,
  pacerLogLine,
  stagedEta,
  stageLine,
  type PacerEvent,
  type StageState,
} from '../report/stages.js';
import type { Pacer } from './staged-pacer.js';
import type { GateKeeper } from './gate-keeper.js';
import { gateEventJson, gateLogLine, haltLines, type GateReport } from '../report/gates.js';

export interface FollowSettings {
  scope: RolloutScope;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** Shown on interrupt and timeout: how to pick the rollout up again. */
  resumeCommand: string;
  /** A staged rollout (--canary/--waves): its pacer holds and opens the NodePools as the rollout goes. */
  pacer?: Pacer;
  /** With a pacer: the health gates, evaluated before each pacer step; a failure halts the rollout (exit 6). */
  gates?: GateKeeper;
  /** With gates: --on-failure rollback, so the caller rolls back and reports the end (no `done` event here). */
  rollbackOnHalt?: boolean;
  /** Follow without a `done` event of its own (the rollback of a halted run: the run's `done` comes after it). */
  quietDone?: boolean;
  /**
   * `wait`: aborted when the rollout is found paused (karp-drift's holds with no run left to release them). The follow
   * ends with `done` `paused` (cause `held`) and throws the abort's reason.
   */
  endWhen?: AbortSignal;
}

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
/** While nothing moves, re-read PDBs and pods and diagnose at most this often. */
const DIAGNOSE_EVERY_MS = 30_000;
/**
 * While it moves, look this often for the blockers that read only what the watches keep current (no API call): a
 * replacement failing to launch or to register is worth a word even when the rollout goes on, or later recovers.
 */
const WATCHED_CHECK_EVERY_MS = 5_000;
const WATCHED_CODES = new Set<Blocker['code']>(['STALL-LAUNCH', 'STALL-REGISTRATION']);

type Emit = (text: string) => void;

export async function followRollout(
  ctx: CommandContext,
  cluster: Cluster,
  discovery: Discovery,
  inventory: Inventory,
  settings: FollowSettings,
): Promise<RolloutProgress> {
  const { scope } = settings;
  const json = ctx.globals.output === 'json';
  const display = !json && ctx.io.interactive && !ctx.globals.quiet ? liveDisplay(ctx.io, 'err') : undefined;
  const out: Emit = (t) => ctx.io.out(t);
  const err: Emit = (t) => ctx.io.err(t);
  const snapshot = emptySnapshot();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  settings.endWhen?.addEventListener('abort', onAbort, { once: true });

  let progress: RolloutProgress | undefined;
  /** The last full diagnosis (cleared when the rollout moves) and the last look at the watched blockers. */
  let diagnosed: Blocker[] = [];
  let watched: Blocker[] = [];
  const reported = new Map<string, string>();
  const log = newProgressLog(); // what the plain-text log printed (report/progress.ts throttles it)
  let lastDiagnosis = 0;
  let lastWatchedCheck = 0;
  let context = { pdbs: inventory.pdbs, pods: inventory.pods, nodePools: inventory.nodePools };
  let failure: Error | undefined;
  const readiness = new Map<string, string>();
  const { pacer } = settings;
  let stage: StageState | undefined;
  /** When the staged rollout last opened a wave or ended a soak: the stall clock starts again there. */
  let stageMovedAt = 0;
  // Once the display has ended (the follow is over), what the pacer still reports (a pause, a rollback's release)
  // goes to stderr as it is: the display would draw its last frame again under each line.
  let displayEnded = false;
  const logLine = (t: string) => (display && !displayEnded ? display.log(t) : err(t));
  pacer?.listen((e: PacerEvent) => {
    const now = new Date();
    if (json) out(`${JSON.stringify(pacerEventJson(e, pacer.plan.stagePlan, now))}\n`);
    else if (!ctx.globals.quiet) {
      const line = pacerLogLine(e, pacer.plan.stagePlan, now);
      if (line !== undefined) logLine(`[${humanDuration(now.getTime() - scope.startedAt.getTime())}] ${line}\n`);
    }
  });

  const { gates } = settings;
  let halt: GateReport | undefined;
  // --summary-file: the same documents as -o json, recorded whatever the output (report/summary.ts).
  const record = (e: object) => {
    if (ctx.summary) recordSummary(ctx.summary, e);
  };
  const reportGate = (r: GateReport, now: Date) => {
    if (!pacer) return;
    record(gateEventJson(r, pacer.plan.stagePlan, now));
    if (json) out(`${JSON.stringify(gateEventJson(r, pacer.plan.stagePlan, now))}\n`);
    else if (!ctx.globals.quiet)
      logLine(
        `[${humanDuration(now.getTime() - scope.startedAt.getTime())}] ${gateLogLine(r, pacer.plan.stagePlan)}\n`,
      );
  };
  gates?.onSettled(() => schedule(SETTLE_MS));

  const finish = (result: RolloutResult, now: Date, extra: Record<string, unknown> = {}) => {
    if (settings.quietDone === true || !progress) return;
    const done = { ...doneEvent(result, progress, cluster.identity, now), ...extra };
    record(done);
    if (json) out(`${JSON.stringify(done)}\n`);
  };
  /** Elapsed time that counts against --timeout: soaks are waiting by design, not slowness. */
  const activeMs = (now: Date) => now.getTime() - scope.startedAt.getTime() - (stage?.soakedMs ?? 0);

  const evaluate = async (): Promise<'continue' | RolloutResult> => {
    const now = new Date();
    for (const r of nodeClassReadiness(snapshot, scope)) {
      if (readiness.get(r.nodeClass) === r.state) continue;
      readiness.set(r.nodeClass, r.state);
      if (r.state === 'failed') throw new RuntimeFailure(`ec2nodeclass/${r.nodeClass}: ${r.message}`, { hint: r.next });
      if (r.state === 'ready') {
        if (json)
          out(
            `${JSON.stringify({ type: 'nodeclass-ready', time: eventTime(now), nodeClass: r.nodeClass, generation: r.generation, amis: r.amis })}\n`,
          );
        else if (!ctx.globals.quiet)
          (display ? (t: string) => display.log(t) : err)(
            `ec2nodeclass/${r.nodeClass}: AMIsReady with ${r.amis.map((a) => a.id).join(', ')} (generation ${r.generation})\n`,
          );
      }
    }
    const previous = progress;
    progress = track(previous, snapshot, scope, now);
    // Gates first: the pacer's step asks them whether a checkpoint is cleared. Once every node is on target the pacer
    // still steps, for the gates at the last wave's end.
    if (gates && progress.synced) {
      const g = await gates.tick(snapshot.nodeClaims.values(), snapshot.nodes, stage, now, stop.signal);
      for (const r of g.reports) reportGate(r, now);
      if (g.halt) {
        halt = g.halt;
        return 'halted';
      }
    }
    if (pacer && progress.synced && (!progress.done || (gates && stage?.phase !== 'done'))) {
      const before = stage;
      stage = await pacer.step(snapshot.nodeClaims.values(), snapshot.nodes, now, stop.signal);
      if (stage.phase === 'gating' && gates) {
        const waiting = gates.waiting(now);
        if (waiting !== undefined) stage = { ...stage, gateWaiting: waiting };
      }
      if (
        before === undefined ||
        before.phase !== stage.phase ||
        before.wave !== stage.wave ||
        before.stage?.index !== stage.stage?.index
      ) {
        stageMovedAt = now.getTime();
      }
    }
    // Soaking and waiting on the gates are waits by design: no stall, no diagnosis.
    const soaking = stage?.phase === 'soak' || stage?.phase === 'gating';
    const moved = previous !== undefined && progress.lastProgressAt.getTime() === now.getTime();
    if (moved) diagnosed = []; // it moved: whatever blocked it is stale
    const quietFor = now.getTime() - Math.max(progress.lastProgressAt.getTime(), stageMovedAt);
    if (
      progress.synced &&
      !progress.done &&
      !soaking &&
      quietFor >= Math.min(DIAGNOSE_EVERY_MS, settings.stallTimeoutMs / 2) &&
      now.getTime() - lastDiagnosis >= DIAGNOSE_EVERY_MS
    ) {
      lastDiagnosis = now.getTime();
      lastWatchedCheck = now.getTime();
      const fresh = await readDiagnosisReads(cluster, discovery, karpenterNodesOf(snapshot), stop.signal).catch(
        () => undefined,
      );
      if (fresh) context = fresh;
      diagnosed = diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now);
      watched = diagnosed.filter((b) => WATCHED_CODES.has(b.code));
    } else if (progress.synced && !progress.done && now.getTime() - lastWatchedCheck >= WATCHED_CHECK_EVERY_MS) {
      lastWatchedCheck = now.getTime();
      // The NodePools, PDBs and pods of the last read may be stale: only the checks of watched kinds are trusted here.
      watched = diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now).filter((b) =>
        WATCHED_CODES.has(b.code),
      );
    }
    const blockers = heldOnPurpose(
      [...diagnosed, ...watched.filter((w) => !diagnosed.some((d) => d.code === w.code && d.nodePool === w.nodePool))],
      stage,
    );
    // Each blocker is reported once as it is found, and again only when its evidence changes (report/progress.ts).
    const fresh = unreportedBlockers(blockers, reported);
    for (const b of fresh) record(blockedEvent(b, 'early', now));
    if (json) {
      for (const b of fresh) out(ndjsonLine(blockedEvent(b, 'early', now)));
      if (!previous || progress.lastProgressAt !== previous.lastProgressAt || progress.message !== previous.message) {
        out(
          `${JSON.stringify({ ...progressEvent(progress, now), ...(stage && pacer ? stageProgress(stage, progress, now, pacer.plan.soakMs) : {}) })}\n`,
        );
      }
    } else if (display) {
      const shown = progress;
      const line = stage && pacer ? stageLine(stage, eta(stage, progress, now, pacer.plan.soakMs)) : undefined;
      display.show((screen) => {
        // The stage line is one more row of the frame: cut to the width like every other, and counted in its height.
        const frame = progressFrame(shown, blockers, now, {
          color: ctx.globals.color,
          screen: line ? { ...screen, rows: screen.rows - 1 } : screen,
        });
        return line ? [frame[0]!, fitLine(line, screen.columns), ...frame.slice(1)] : frame;
      });
    } else if (!ctx.globals.quiet) {
      err(progressLogLines(log, progress, now));
      const elapsed = `[${humanDuration(now.getTime() - scope.startedAt.getTime())}]`;
      for (const b of fresh) err(`${elapsed} ${blockerText(b)}`);
    }
    if (progress.done && (!gates || stage?.phase === 'done')) return 'succeeded';
    if (activeMs(now) >= settings.timeoutMs) return 'timeout';
    if (progress.synced && !soaking && quietFor >= settings.stallTimeoutMs) return 'stalled';
    return 'continue';
  };

  const following = followCluster(cluster, {
    karpenterApi: discovery.karpenterApi,
    signal: stop.signal,
    onChange: (change: ClusterChange) => {
      applyChange(snapshot, change);
      schedule(settleMs);
    },
    onError: (e) => {
      failure = e;
      stop.abort();
    },
  });

  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running = false;
  let settleMs = SETTLE_MS;
  let wake: ((v: RolloutResult | undefined) => void) | undefined;
  const outcome = new Promise<RolloutResult | undefined>((resolve) => (wake = resolve));
  // A change runs the tracker within SETTLE_MS; without changes it runs every TICK_MS. An earlier run replaces a
  // later one, never the other way round, so a burst of changes costs one evaluation.
  function schedule(delay: number): void {
    const at = Date.now() + delay;
    if (timer !== undefined && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => void run(), delay);
  }
  async function run(): Promise<void> {
    timer = undefined;
    timerAt = Infinity;
    if (stop.signal.aborted) return;
    if (running) return schedule(SETTLE_MS); // an evaluation is reading the cluster: look again right after it
    running = true;
    try {
      const started = performance.now();
      const result = await evaluate();
      // An evaluation that read the cluster (a diagnosis) waited on the network: only a quick one says what one costs.
      const cost = performance.now() - started;
      if (cost < MAX_SETTLE_MS) settleMs = Math.min(MAX_SETTLE_MS, Math.max(SETTLE_MS, cost * SETTLE_COST_FACTOR));
      if (result !== 'continue') return wake?.(result);
      schedule(TICK_MS);
    } catch (e) {
      // A request cut short by the interrupt (a hold write on the wire) is the interrupt, not a failure.
      if (!stop.signal.aborted) failure = e instanceof Error ? e : new Error(String(e));
      wake?.(undefined);
    } finally {
      running = false;
    }
  }
  stop.signal.addEventListener('abort', () => wake?.(undefined), { once: true });
  schedule(TICK_MS);

  const result = await outcome;
  gates?.stop();
  clearTimeout(timer);
  stop.abort();
  await following;
  ctx.signal.removeEventListener('abort', onAbort);
  settings.endWhen?.removeEventListener('abort', onAbort);
  const now = new Date();
  display?.end();
  displayEnded = true;

  // A staged rollout that ends early stays paused: nobody is left to pace it, so every NodePool not released is
  // held at 0 (a wave's last allowance must not let Karpenter go on after we left).
  const paused = async (cause: RolloutResult, why: string): Promise<PausedNote | undefined> => {
    if (!pacer) return undefined;
    const pools = await pacer
      .pause(snapshot.nodeClaims.values(), snapshot.nodes, why, new Date())
      .catch((e: unknown) => {
        err(`warning: could not leave the staged rollout paused: ${e instanceof Error ? e.message : String(e)}\n`);
        return [] as string[];
      });
    if (pools.length === 0) return undefined;
    // A halt reports its own `done` (with the gate), below.
    if (cause !== 'halted') finish('paused', now, { cause, paused: pools });
    return {
      pools,
      text: `; the staged rollout is paused: karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')}`,
      hint: `go on with the same command, which resumes at the wave where the cluster stands: ${settings.resumeCommand}; or release the holds and let Karpenter go at the NodePools' own budgets: karp-drift resume`,
    };
  };

  if (failure) {
    const note = await paused('failed', `the run failed: ${failure.message}`);
    if (!note) finish('failed', now);
    else if (failure instanceof KarpDriftError) failure.message += note.text;
    throw failure;
  }
  if (
    result === undefined &&
    !ctx.signal.aborted &&
    settings.endWhen?.aborted &&
    settings.endWhen.reason instanceof HaltedError
  ) {
    finish('paused', now, { cause: 'held', paused: settings.endWhen.reason.paused });
    throw settings.endWhen.reason;
  }
  if (result === undefined) {
    const note = await paused('interrupted', 'the run was interrupted');
    if (!note) finish('interrupted', now);
    throw new InterruptedError(
      `interrupted while following the rollout${progress ? `: ${progress.message}` : ''}${note ? note.text : '; nothing more was changed'}`,
      {
        hint: note ? note.hint : `the rollout goes on in the cluster; follow it again with: ${settings.resumeCommand}`,
      },
    );
  }
  if (result === 'halted' && halt && pacer) {
    const h = halt;
    if (json) reportGate(h, now);
    else for (const line of haltLines(h, pacer.plan.stagePlan)) err(line);
    const first = h.findings[0];
    const what = first
      ? `${first.code} ${first.message}`
      : h.result === 'inconclusive'
        ? 'it could not be evaluated'
        : 'it failed';
    const gate = gateEventJson(h, pacer.plan.stagePlan, now);
    record(gate);
    const note = await paused('halted', `a health gate stopped it: ${what}`);
    // With --on-failure rollback the caller reports the end, once the rollback has one.
    if (settings.rollbackOnHalt !== true) finish('halted', now, { cause: 'gate', paused: note?.pools ?? [], gate });
    throw new HaltedError(`halted by a health gate: ${what}${note ? note.text : ''}`, {
      hint: `look at the evidence ${json ? "(the 'gate' event on stdout)" : 'above'}; roll the new AMIs back with karp-drift rollback, or, once you are sure they are fine, release the holds with karp-drift resume (re-running the upgrade evaluates the gates again from a fresh baseline)`,
      paused: note?.pools ?? [],
      gate,
    });
  }
  const final = progress!;
  if (result === 'succeeded' && pacer) await pacer.finish(snapshot.nodes, now);
  if (result === 'timeout') {
    const note = await paused('timeout', `--timeout ${humanDuration(settings.timeoutMs)} passed`);
    if (!note) finish(result, now);
    throw new TimeoutError(
      `timed out after ${humanDuration(settings.timeoutMs)} waiting for the drift rollout: ${final.message}${note ? note.text : ''}`,
      {
        hint: note ? note.hint : `Karpenter goes on replacing nodes; follow it again with: ${settings.resumeCommand}`,
      },
    );
  }
  if (result === 'stalled') {
    const fresh = await readDiagnosisReads(cluster, discovery, karpenterNodesOf(snapshot)).catch(() => undefined);
    if (fresh) context = fresh;
    const blockers = heldOnPurpose(
      diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now),
      stage,
    );
    for (const b of blockers) record(blockedEvent(b, 'stall', now));
    if (json) for (const b of blockers) out(ndjsonLine(blockedEvent(b, 'stall', now)));
    else err(stallSummary(final, blockers, now));
    const note = await paused('stalled', `no progress for ${humanDuration(settings.stallTimeoutMs)}`);
    if (!note) finish('stalled', now);
    throw new StalledError(
      `the rollout made no progress for ${humanDuration(settings.stallTimeoutMs)} (--stall-timeout)${blockers.length > 0 ? `: ${[...new Set(blockers.map((b) => b.code))].join(', ')}` : ''}; the changes stay applied${note ? note.text : ''}`,
      {
        hint: `resolve the blockers ${json ? "(the 'blocked' events on stdout)" : 'above'}, then ${note ? note.hint.replace(/^go on with/, 'go on with') : `follow again with: ${settings.resumeCommand}`}`,
      },
    );
  }
  finish(result, now);
  return final;
}

interface PausedNote {
  pools: string[];
  text: string;
  hint: string;
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

function eta(stage: StageState, progress: RolloutProgress, now: Date, soakMs: number): number | undefined {
  return stagedEta(stage, progress.totals.replaced, now.getTime() - progress.startedAt.getTime(), soakMs);
}

/** What a staged rollout adds to the NDJSON `progress` event. */
function stageProgress(
  stage: StageState,
  progress: RolloutProgress,
  now: Date,
  soakMs: number,
): Record<string, unknown> {
  const s = stage.stage;
  const left = eta(stage, progress, now, soakMs);
  return {
    stage:
      s === undefined
        ? { phase: stage.phase }
        : {
            stage: s.index + 1,
            stages: stage.stages,
            name: s.name,
            wave: Math.min(stage.wave + 1, s.targets.length),
            waves: s.targets.length,
            phase: stage.phase,
            size: s.size,
            started: s.started,
            ...(stage.soakUntil !== undefined ? { soakUntil: stage.soakUntil.toISOString() } : {}),
          },
    etaSeconds: left !== undefined && Number.isFinite(left) ? Math.round(left / 1000) : null,
  };
}
