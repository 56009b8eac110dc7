// What the follow loop says, in its three outputs: NDJSON events on stdout (-o json), the live display on a terminal,
// or plain log lines on stderr; and, whatever the output, the same documents as -o json in --summary-file. The words
// themselves are the pure printers' (report/); this file only picks the output and the moment.
import { windowState } from '../windows/calendar.js';
import { serverTime, skewWarning } from '../cluster/server-clock.js';
import { forScreen } from './screen-text.js';
import type { FollowRun, FollowState, Turn } from './follow-state.js';
import type { Readiness } from '../rollout/readiness.js';
import type { Blocker } from '../rollout/stalls.js';
import {
  blockedEvent,
  doneEvent,
  eventTime,
  ndjsonLine,
  progressEvent,
  progressFrame,
  followLogText,
  unreportedBlockers,
  type RolloutResult,
} from '../report/progress.js';
import { gateEventJson, gateLogLine, type GateReport } from '../report/gates.js';
import { fitLine } from '../report/screen.js';
import {
  pacerEventJson,
  pacerLogLine,
  stagedEta,
  stageLine,
  type PacerEvent,
} from '../report/stages.js';
import { recordSummary } from '../report/summary.js';
import { track } from '../rollout/track.js';
import { humanDuration, utcTime } from '../text/words.js';

/** Every blocker found this turn, the progress line or frame, and the stage of a staged rollout. */
export function report(run: FollowRun, state: FollowState, turn: Turn, blockers: Blocker[]): void {
  const { ctx, display } = run;
  const { now, progress, previous } = turn;
  // Each blocker is reported once as it is found, and again only when its evidence changes (report/progress.ts).
  const fresh = unreportedBlockers(blockers, state.reported);
  for (const b of fresh) record(run, blockedEvent(b, 'early', now));
  if (run.json) {
    for (const b of fresh) out(run, ndjsonLine(blockedEvent(b, 'early', now)));
    if (!previous || progress.lastProgressAt !== previous.lastProgressAt || progress.message !== previous.message) {
      out(run, `${JSON.stringify({ ...progressEvent(progress, now), ...stagedProgress(run, state, now) })}\n`);
    }
  } else if (display) {
    const { stage } = state;
    const { pacer } = run.settings;
    // Drawn at the clock's time, not the turn's: the display redraws it each second (follow-rollout.ts), so the
    // elapsed time and a soak's time left go on while the next turn waits on the cluster.
    display.show((screen) => {
      const at = new Date(Math.max(Date.now(), now.getTime()));
      const line = stage && pacer ? stageLine({ ...stage, at }, stagedEta(stage, at, pacer.plan.soakMs)) : undefined;
      // The stage line is one more row of the frame: cut to the width like every other, and counted in its height.
      const closesAt = windowClosesAt(run, at);
      const frame = progressFrame(progress, blockers, at, {
        color: ctx.globals.color,
        screen: line ? { ...screen, rows: screen.rows - 1 } : screen,
        ...(closesAt !== undefined ? { windowClosesAt: closesAt } : {}),
      });
      return line ? [frame[0]!, fitLine(line, screen.columns), ...frame.slice(1)] : frame;
    });
  } else if (!ctx.globals.quiet) {
    ctx.io.err(followLogText(state.log, progress, fresh, now));
  }
}

export function reportNodeClassReady(run: FollowRun, r: Extract<Readiness, { state: 'ready' }>, now: Date): void {
  const { ctx, display } = run;
  if (run.json)
    out(
      run,
      `${JSON.stringify({ type: 'nodeclass-ready', time: eventTime(now), nodeClass: r.nodeClass, generation: r.generation, amis: r.amis })}\n`,
    );
  else if (!ctx.globals.quiet)
    (display ? (t: string) => display.log(t) : (t: string) => ctx.io.err(forScreen(ctx.io, 'err', t)))(
      r.by === 'status.amis'
        ? `ec2nodeclass/${r.nodeClass}: status.amis has ${r.amis.map((a) => a.id).join(', ')} (generation ${r.generation}; this Karpenter sets no AMIsReady)\n`
        : `ec2nodeclass/${r.nodeClass}: ${r.by} with ${r.amis.map((a) => a.id).join(', ')} (generation ${r.generation})\n`,
    );
}

/** The pacer's holds, releases, waves and soaks, as they happen. */
export function reportPacerEvent(run: FollowRun, state: FollowState, e: PacerEvent): void {
  const { pacer } = run.settings;
  if (!pacer) return;
  const now = new Date();
  const json = pacerEventJson(e, pacer.plan.stagePlan, now);
  record(run, json); // the step summary's chart and the run's record draw the stages, waves and soaks
  if (run.json) out(run, `${JSON.stringify(json)}\n`);
  else if (!run.ctx.globals.quiet) {
    const line = pacerLogLine(e, pacer.plan.stagePlan);
    if (line !== undefined) logLine(run, state, `${elapsed(run, now)} ${line}\n`);
  }
}

export function reportGate(run: FollowRun, state: FollowState, r: GateReport, now: Date): void {
  const { pacer } = run.settings;
  if (!pacer) return;
  record(run, gateEventJson(r, pacer.plan.stagePlan, now));
  if (run.json) out(run, `${JSON.stringify(gateEventJson(r, pacer.plan.stagePlan, now))}\n`);
  else if (!run.ctx.globals.quiet) logLine(run, state, `${elapsed(run, now)} ${gateLogLine(r, pacer.plan.stagePlan)}\n`);
}

/** The `done` event (with what the ending adds: its cause, the NodePools left paused, the gate). */
export function reportDone(
  run: FollowRun,
  state: FollowState,
  result: RolloutResult,
  now: Date,
  extra: Record<string, unknown> = {},
): void {
  if (run.settings.quietDone === true) return;
  // A follow ended before its first turn (a SIGTERM as it began) has no progress yet: it is where the snapshot stands.
  // Without it the run ended with no `done` at all (seen in a whole run's upgrade-cronjob e2e).
  state.progress ??= track(undefined, state.snapshot, run.settings.scope, now);
  const done = { ...doneEvent(result, state.progress, run.cluster.identity, now), ...extra };
  record(run, done);
  if (run.json) out(run, `${JSON.stringify(done)}\n`);
}

/** --summary-file: the same documents as -o json, recorded whatever the output (report/summary.ts). */
export function record(run: FollowRun, e: object): void {
  if (run.ctx.summary) recordSummary(run.ctx.summary, e);
}

export function out(run: FollowRun, text: string): void {
  run.ctx.io.out(text);
}

/** Once per run, as soon as the answers show it: this machine's clock is more than a minute off the API server's. */
export function reportClockSkew(run: FollowRun, state: FollowState): void {
  const warning = skewWarning(run.cluster);
  if (warning !== undefined) logLine(run, state, `warning: ${warning}\n`);
}

function logLine(run: FollowRun, state: FollowState, text: string): void {
  if (run.display && !state.displayEnded) run.display.log(text);
  else run.ctx.io.err(forScreen(run.ctx.io, 'err', text));
}

function elapsed(run: FollowRun, now: Date): string {
  return `[${humanDuration(now.getTime() - run.settings.scope.startedAt.getTime())}]`;
}


/** What a staged rollout adds to the NDJSON `progress` event. */
/** With --window, while it is open: when it closes (undefined without windows, or one that never closes). */
function windowClosesAt(run: FollowRun, now: Date): Date | undefined {
  const { window } = run.settings;
  if (window === undefined) return undefined;
  // Open or not by the API server's clock, which Karpenter keeps the windows' budgets by.
  const state = windowState(window, serverTime(run.cluster, now));
  return state.open ? state.closesAt : undefined;
}

function stagedProgress(run: FollowRun, state: FollowState, now: Date): Record<string, unknown> {
  const { stage } = state;
  const { pacer } = run.settings;
  if (!stage || !pacer) return {};
  const s = stage.stage;
  const left = stagedEta(stage, now, pacer.plan.soakMs);
  const closesAt = windowClosesAt(run, now);
  const replacementMs = stage.eta.replacementMs;
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
    // With --window: when the open window closes, which an ETA past it will not meet (the run then leaves it held).
    ...(closesAt !== undefined ? { windowClosesAt: utcTime(closesAt) } : {}),
    // The ETA's replacement time, as observed (the plan assumed assumedReplacementSeconds), to a tenth of a second.
    replacementSeconds: replacementMs !== undefined ? Math.round(replacementMs / 100) / 10 : null,
  };
}
