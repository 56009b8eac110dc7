// The edge of the health gates: reads what the gates need (NodePools, PDBs, the pods on the replaced nodes) as
// often as the rollout needs, lets the pure gates judge (gates/health.ts; each turn, the replacements and drift
// commands that failed, gates/attempts.ts; at a stage's end, what it tested, gates/coverage.ts), runs --gate-cmd at
// the checkpoints and on its interval, counts failures (gates/tally.ts), and says when a checkpoint is cleared (the
// pacer waits on it) and when the rollout must halt. The follow loop calls `tick` before each pacer step.
//
// Both kinds of gate run beside the follow loop, never inside its turn: on a big fleet the built-in gates read tens of
// thousands of pods (10–50 s on the `large` sandbox), and a turn that waited on them would stop the live display's
// clock, the pacer's holds and the soak's start with it. A tick starts what is due and counts what has finished; the
// keeper wakes the loop (`onSettled`) when an evaluation or a command ends.
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { readGateReads } from '../cluster/inventory.js';
import { failureText } from '../cluster/failures.js';
import type { EventView, NodeClaimView, NodeView, PodView } from '../karpenter/views.js';
import {
  awaitingJudgement,
  isDriftReplacement,
  newAttemptLedger,
  observeAttempts,
  type AttemptLedger,
  type FailedAttempt,
} from '../gates/attempts.js';
import type { GateBaseline, GateScope } from '../gates/baseline.js';
import { amiTrials, untestedAmis, untestedByWave, untestedFinding, type StageAmi } from '../gates/coverage.js';
import { judge } from '../gates/judge.js';
import { runGateCommand } from './gate-command.js';
import type { GateCommandResult } from '../gates/tally.js';
import { evaluateHealth, gatedClaims, MAX_PER_CODE, type GateFinding, type HealthVerdict } from '../gates/health.js';
import { checkpointKey, type Checkpoint, type GateRequest } from '../gates/request.js';
import { tallyEvaluation, type GateTally } from '../gates/tally.js';
import type { GatePoint, GateReport } from '../report/gates.js';
import type { StageState } from '../report/stages.js';
import type { StagePlan } from '../stages/controller.js';
import { humanDuration } from '../text/words.js';

/** While a rollout runs, the built-in gates are evaluated this often (and at once at each checkpoint). */
const HEALTH_EVERY_MS = 10_000;
/** On a big fleet the reads cost: the interval grows to this many times the last evaluation's cost. */
const COST_FACTOR = 10;

export interface GateFacts {
  target: string;
  runId: string;
  amis: string[];
  context: string;
  kubeconfig?: string;
}

export interface GateKeeper {
  readonly request: GateRequest;
  /** For the pacer: have the gates passed at this checkpoint? */
  cleared(checkpoint: Checkpoint): boolean;
  /**
   * For a `1/ami` wave's picks: whether Karpenter launched this NodeClaim for a drift command, as the built-in gates
   * have seen it (gates/attempts.ts `isDriftReplacement`); only such a replacement tests an AMI for them. Without the
   * built-in gates nothing asks for that, and every NodeClaim on a target AMI counts.
   */
  driftReplacement(claim: NodeClaimView): boolean;
  /**
   * One look: count the evaluations and command runs that have finished, start what is due (beside the follow loop:
   * `onSettled` says when it ends); a halt when the gates say stop. `signal` ends what is started.
   */
  tick(
    look: GateLook,
    stage: StageState | undefined,
    now: Date,
    signal: AbortSignal,
  ): { reports: GateReport[]; halt?: GateReport };
  /** While a checkpoint waits: on what (a command running, pods or nodes still coming up), for the display. */
  waiting(now: Date): string | undefined;
  /** A command run or a built-in evaluation in flight: the follow loop looks again when it ends. */
  onSettled(wake: () => void): void;
  /** The run ends: a command still running is killed. */
  stop(): void;
}

/** What the watches show: live NodeClaims, those deleted since the follow began, Nodes, Karpenter's events. */
export interface GateLook {
  claims: Iterable<NodeClaimView>;
  departed: ReadonlyMap<string, NodeClaimView>;
  nodes: ReadonlyMap<string, NodeView>;
  events: Iterable<EventView>;
}

interface GateKeeperSettings {
  cluster: Cluster;
  discovery: Discovery;
  request: GateRequest;
  scope: GateScope;
  baseline: GateBaseline;
  plan: StagePlan;
  /** Per stage, the target AMIs its old nodes move onto: what it must have tested at its end. */
  stageAmis?: ReadonlyArray<readonly StageAmi[] | undefined>;
  facts: GateFacts;
}

/** A built-in evaluation: where it was started (a checkpoint, or on its interval) and, once done, what it found. */
interface HealthRun {
  checkpoint: Checkpoint | undefined;
  startedAt: number;
  /** The failed replacements and commands seen since the last evaluation began: this one counts them. */
  attempts: FailedAttempt[];
  /** At a stage's last checkpoint or a `1/ami` wave's, the target AMIs nothing has tested (gates/coverage.ts). */
  untested: GateFinding[];
}

interface HealthDone extends HealthRun {
  verdict: HealthVerdict | undefined;
  unreadable: string | undefined;
  /** The NodePools as read with it: NodeRegistrationHealthy quoted beside a failed replacement. */
  nodePools: Awaited<ReturnType<typeof readGateReads>>['nodePools'] | undefined;
  /** The time it judged at (the reads done), for the tally. */
  at: Date;
}

/** What the gate keeper remembers between ticks. */
interface GateKeeperState {
  readonly settings: GateKeeperSettings;
  tally: GateTally;
  /** The replacements and drift commands seen so far, and what became of them. */
  readonly ledger: AttemptLedger;
  /** Failures the watches showed that no evaluation has counted yet (one in flight counts the ones before it). */
  pendingAttempts: FailedAttempt[];
  /** Launches refused for capacity since the last health report: shown with the next one, never counted. */
  notes: GateFinding[];
  lastHealthAt: number;
  lastHealth: HealthVerdict | undefined;
  healthEveryMs: number;
  /** The built-in evaluation in flight, and the one finished that the next tick counts. */
  evaluating: HealthRun | undefined;
  evaluated: HealthDone | undefined;
  /** The checkpoints where a built-in evaluation began, and whether each gate has passed at each. */
  readonly healthLooked: Set<string>;
  readonly healthPassed: Set<string>;
  readonly commandPassed: Set<string>;
  readonly commandRan: Set<string>;
  running: { point: GatePoint; checkpoint?: Checkpoint; promise: Promise<GateCommandResult> } | undefined;
  finished: { point: GatePoint; checkpoint?: Checkpoint; result: GateCommandResult } | undefined;
  lastCommandAt: number;
  wake: () => void;
  readonly stopRuns: AbortController;
}

/** Where one tick stands: the checkpoint being gated (if any) and the nodes replaced so far. */
interface TickFacts {
  checkpoint: Checkpoint | undefined;
  key: string | undefined;
  claims: NodeClaimView[];
  look: GateLook;
  nodes: ReadonlyMap<string, NodeView>;
  stage: StageState | undefined;
  replaced: string[];
  now: Date;
}

type Step = { report?: GateReport; halt?: GateReport };

export function createGateKeeper(settings: GateKeeperSettings): GateKeeper {
  const { request } = settings;
  const state: GateKeeperState = {
    settings,
    tally: { failures: 0 },
    ledger: newAttemptLedger(),
    pendingAttempts: [],
    notes: [],
    lastHealthAt: 0,
    lastHealth: undefined,
    healthEveryMs: HEALTH_EVERY_MS,
    evaluating: undefined,
    evaluated: undefined,
    healthLooked: new Set(),
    healthPassed: new Set(),
    commandPassed: new Set(),
    commandRan: new Set(),
    running: undefined,
    finished: undefined,
    lastCommandAt: 0,
    wake: () => undefined,
    stopRuns: new AbortController(),
  };
  return {
    request,
    cleared(checkpoint) {
      const key = checkpointKey(checkpoint);
      return (
        (!request.builtIn || state.healthPassed.has(key)) && (request.command === undefined || state.commandPassed.has(key))
      );
    },
    driftReplacement(claim) {
      return !request.builtIn || isDriftReplacement(state.ledger, settings.baseline, claim.name);
    },
    waiting(now) {
      if (state.running) return `--gate-cmd for ${humanDuration(now.getTime() - state.lastCommandAt)}`;
      const pending = state.lastHealth?.result === 'pending' ? state.lastHealth.pending : [];
      if (pending.length > 0) return `${pending.length} coming up, e.g. ${pending[0]}`;
      const e = state.evaluating;
      return e?.checkpoint ? `health checks for ${humanDuration(now.getTime() - e.startedAt)}` : undefined;
    },
    onSettled(w) {
      state.wake = w;
    },
    stop() {
      state.stopRuns.abort();
    },
    tick: (look, stage, now, signal) => tick(state, look, stage, now, signal),
  };
}

/** One look: the verdicts of a finished command and evaluation, then what is due starts. */
function tick(
  state: GateKeeperState,
  look: GateLook,
  stage: StageState | undefined,
  now: Date,
  signal: AbortSignal,
): { reports: GateReport[]; halt?: GateReport } {
  const { scope, baseline, request } = state.settings;
  const checkpoint = stage?.phase === 'gating' ? stage.checkpoint : undefined;
  const key = checkpoint ? checkpointKey(checkpoint) : undefined;
  const claims = [...look.claims]; // an iterator of the snapshot: read more than once below
  const replaced = gatedClaims(claims, scope, baseline).flatMap((c) => (c.nodeName ? [c.nodeName] : []));
  const facts: TickFacts = { checkpoint, key, claims, look, nodes: look.nodes, stage, replaced, now };
  // Every turn: a replacement deleted before Initialized, a drift command given up (the watches show it, wherever
  // the wave stands); the next evaluation counts it, and starts at once for it.
  if (request.builtIn) state.pendingAttempts.push(...observeAttempts(state.ledger, { ...look, claims }, scope, baseline, now));

  const reports: GateReport[] = [];
  const command = countFinishedCommand(state, facts);
  if (command.halt) return { reports, halt: command.halt };
  if (command.report) reports.push(command.report);
  const health = countFinishedHealth(state);
  if (health.halt) return { reports, halt: health.halt };
  if (health.report) reports.push(health.report);
  startDueHealth(state, facts, signal);
  startDueCommand(state, facts);
  return { reports };
}

/** A command run that ended: its verdict counts, and at a checkpoint it clears (or not) that checkpoint. */
function countFinishedCommand(state: GateKeeperState, facts: TickFacts): Step {
  const f = state.finished;
  if (!f) return {};
  const { request } = state.settings;
  state.finished = undefined;
  const result = f.result.result;
  const counted = tallyEvaluation(state.tally, result, request.failureLimit, facts.now, 'command');
  state.tally = counted.tally;
  if (f.checkpoint) {
    // Passed: the checkpoint is cleared for the command. Failed below the limit: it runs again there.
    if (result === 'passed') state.commandPassed.add(checkpointKey(f.checkpoint));
    else state.commandRan.delete(checkpointKey(f.checkpoint));
  }
  const report: GateReport = {
    source: 'command',
    point: f.point,
    ...(f.checkpoint ? { checkpoint: f.checkpoint } : {}),
    result,
    findings: result === 'passed' ? [] : [commandFinding(f.result)],
    failures: state.tally.failures,
    failureLimit: request.failureLimit,
    command: f.result,
  };
  return counted.halt ? { halt: report } : { report };
}

/**
 * The built-in gates: at once at a checkpoint not evaluated yet, again soon while one waits, else on their interval;
 * one evaluation at a time, beside the follow loop. While a checkpoint waits on pods or nodes still coming up, look
 * again soon; a failure is measured again on the normal interval (each failed evaluation counts toward
 * --failure-limit). An evaluation started before a checkpoint was reached never clears it.
 */
function startDueHealth(state: GateKeeperState, facts: TickFacts, signal: AbortSignal): void {
  const { request, scope, baseline, cluster, discovery } = state.settings;
  const { checkpoint, key, now } = facts;
  if (!request.builtIn || state.evaluating !== undefined || state.evaluated !== undefined || signal.aborted) return;
  const waitingHere = key !== undefined && !state.healthPassed.has(key) && state.lastHealth?.result === 'pending';
  const every = waitingHere ? Math.min(state.healthEveryMs, 2_000) : state.healthEveryMs;
  const failed = state.pendingAttempts.some((a) => a.kind !== 'refusal');
  const due = (key !== undefined && !state.healthLooked.has(key)) || now.getTime() - state.lastHealthAt >= every || failed;
  if (!due) return;
  if (key !== undefined) state.healthLooked.add(key);
  state.lastHealthAt = now.getTime();
  const attempts = state.pendingAttempts;
  state.pendingAttempts = [];
  const run: HealthRun = { checkpoint, startedAt: now.getTime(), attempts, untested: [] };
  state.evaluating = run;
  const { claims, nodes, replaced } = facts;
  const started = performance.now();
  const evaluation = readGateReads(cluster, discovery, replaced, signal).then((reads) => {
    const at = new Date();
    const verdict = evaluateHealth({ nodeClaims: claims, nodes, ...reads }, scope, baseline, request, at);
    return { verdict, at, nodePools: reads.nodePools, untested: untestedAt(state, facts, reads.pods) };
  });
  void evaluation.then(
    ({ verdict, at, nodePools, untested }) =>
      settleHealth(state, { ...run, untested, verdict, unreadable: undefined, nodePools, at }, started),
    (e: unknown) => {
      // Cut short by the end of the follow: nothing to count.
      if (signal.aborted) return;
      const why = failureText(e);
      settleHealth(state, { ...run, verdict: undefined, unreadable: why, nodePools: undefined, at: new Date() }, started);
    },
  );
}

function settleHealth(state: GateKeeperState, done: HealthDone, started: number): void {
  state.healthEveryMs = Math.max(HEALTH_EVERY_MS, (performance.now() - started) * COST_FACTOR);
  state.evaluating = undefined;
  state.evaluated = done;
  state.wake();
}

/** A finished evaluation counts, and at the checkpoint it was started at, it clears (or not) that checkpoint. */
function countFinishedHealth(state: GateKeeperState): Step {
  const done = state.evaluated;
  if (!done) return {};
  state.evaluated = undefined;
  const { request } = state.settings;
  const { verdict, checkpoint, attempts } = done;
  const { baseline } = state.settings;
  const key = checkpoint ? checkpointKey(checkpoint) : undefined;
  state.lastHealth = verdict;
  const untested = verdict?.result === 'passed' && attempts.every((a) => a.kind === 'refusal') ? done.untested : [];
  const j = judge(verdict, attempts, untested, {
    ...(done.nodePools ? { nodePools: done.nodePools } : {}),
    baseline,
    awaiting: awaitingJudgement(state.ledger),
  });
  state.notes = [...state.notes, ...j.notes].slice(-MAX_PER_CODE);
  const result = j.result;
  const counted = tallyEvaluation(state.tally, result, request.failureLimit, done.at, 'health', j);
  state.tally = counted.tally;
  if (result === 'passed' && key !== undefined) state.healthPassed.add(key);
  const report: GateReport = {
    source: 'health',
    point: checkpoint ? checkpoint.point : 'continuous',
    ...(checkpoint ? { checkpoint } : {}),
    result,
    findings: result === 'inconclusive' ? [unreadableFinding(done.unreadable ?? 'unknown error')] : j.findings,
    ...(verdict
      ? { counts: j.counts, replacedNodes: verdict.replacedNodes.length, pods: verdict.pods, pdbs: verdict.pdbs }
      : Object.keys(j.counts).length > 0 ? { counts: j.counts } : {}),
    failures: state.tally.failures,
    failureLimit: request.failureLimit,
  };
  // Reported: a checkpoint passed, and every failed or unreadable evaluation (a pass between is quiet); the launches
  // refused for capacity since the last report go with it.
  const reported = (result === 'passed' && key !== undefined) || result === 'failed' || result === 'inconclusive';
  if (!counted.halt && !reported) return {};
  if (state.notes.length > 0) report.notes = state.notes;
  state.notes = [];
  return counted.halt ? { halt: report } : { report };
}

/**
 * At a stage's last checkpoint, the stage's target AMIs that no drift replacement of the stage has tested with a pod
 * the workloads gate judges; at a `1/ami` wave's, those a drift replacement runs without testing them (gates/coverage.ts).
 * `pods`: the gates' reads, the pods on the nodes of the NodeClaims on a target AMI.
 */
function untestedAt(state: GateKeeperState, facts: TickFacts, pods: readonly PodView[]): GateFinding[] {
  const c = facts.checkpoint;
  if (c === undefined || (c.stageEnd !== true && c.amiWave !== true)) return [];
  const { baseline, plan, stageAmis } = state.settings;
  const amis = stageAmis?.[c.stage] ?? [];
  const trials = amiTrials(
    {
      claims: facts.claims,
      nodes: facts.nodes,
      pods,
      drift: (x) => isDriftReplacement(state.ledger, baseline, x.name),
      failingWorkloads: baseline.failingWorkloads,
    },
    new Set(plan.stages[c.stage]?.nodePools ?? []),
    new Set(amis.map((a) => a.id)),
  );
  const name = plan.stages[c.stage]?.name ?? '';
  const byStage = c.stageEnd === true ? untestedAmis(amis, trials) : [];
  const byWave = c.amiWave === true ? untestedByWave(amis, trials).filter((a) => !byStage.includes(a)) : [];
  return [
    ...byStage.map((a) => untestedFinding(a, { index: c.stage, name }, trials.get(a.id) ?? [])),
    ...byWave.map((a) => untestedFinding(a, { index: c.stage, name, wave: c.wave }, trials.get(a.id) ?? [])),
  ];
}

/** The command: once per checkpoint, and on its interval while waves run and soak. */
function startDueCommand(state: GateKeeperState, facts: TickFacts): void {
  const { request } = state.settings;
  const { checkpoint, key, stage, replaced, now } = facts;
  if (request.command === undefined || state.running !== undefined) return;
  if (key !== undefined && !state.commandRan.has(key)) {
    state.commandRan.add(key);
    startCommand(state, checkpoint!.point, checkpoint, stage, replaced, now);
  } else if (
    request.commandIntervalMs !== undefined &&
    stage !== undefined &&
    stage.phase !== 'done' &&
    replaced.length > 0 &&
    now.getTime() - state.lastCommandAt >= request.commandIntervalMs
  ) {
    startCommand(state, 'interval', undefined, stage, replaced, now);
  }
}

function startCommand(
  state: GateKeeperState,
  point: GatePoint,
  checkpoint: Checkpoint | undefined,
  stage: StageState | undefined,
  replaced: string[],
  now: Date,
): void {
  const { request, facts, plan } = state.settings;
  const env = commandEnv(facts, plan, point, checkpoint, stage, replaced);
  state.lastCommandAt = now.getTime();
  const promise = runGateCommand(request.command!, env, request.commandTimeoutMs, state.stopRuns.signal);
  state.running = { point, ...(checkpoint ? { checkpoint } : {}), promise };
  void promise.then((result) => {
    state.finished = { point, ...(checkpoint ? { checkpoint } : {}), result };
    state.running = undefined;
    state.wake();
  });
}

function commandFinding(r: GateCommandResult): GateFinding {
  const timedOut = r.result === 'inconclusive';
  return {
    gate: 'command',
    code: timedOut ? 'GATE-CMD-TIMEOUT' : 'GATE-CMD-FAILED',
    subject: 'command/gate',
    message: timedOut
      ? `the gate command could not give a verdict: ${r.why ?? 'killed'}; its last lines of output:`
      : `the gate command exited ${r.exitCode ?? `on ${r.signal ?? 'a signal'}`} after ${humanDuration(r.durationMs)}; its last lines of output:`,
    // Its output is the evidence, all of what was kept.
    evidence: r.output.length > 0 ? r.output : ['(no output)'],
  };
}

function unreadableFinding(why: string): GateFinding {
  return {
    gate: 'workloads',
    code: 'GATE-UNREADABLE',
    subject: 'api/gate-reads',
    message: `the health gates could not read the cluster: ${why}`,
    evidence: [],
  };
}

/** The run's facts for --gate-cmd (docs/health-gates.md lists them). */
export function commandEnv(
  facts: GateFacts,
  plan: StagePlan,
  point: GatePoint,
  checkpoint: Checkpoint | undefined,
  stage: StageState | undefined,
  replaced: readonly string[],
): Record<string, string> {
  const index = checkpoint?.stage ?? stage?.stage?.index;
  const s = index !== undefined ? plan.stages[index] : undefined;
  return {
    KARP_DRIFT_RUN_ID: facts.runId,
    KARP_DRIFT_TARGET: facts.target,
    KARP_DRIFT_AMIS: facts.amis.join(','),
    KARP_DRIFT_GATE_POINT: point,
    KARP_DRIFT_STAGE: index !== undefined ? String(index + 1) : '',
    KARP_DRIFT_STAGE_NAME: s?.name ?? '',
    KARP_DRIFT_WAVE: String((checkpoint?.wave ?? stage?.wave ?? 0) + 1),
    KARP_DRIFT_NODEPOOLS: (s?.nodePools ?? []).join(','),
    KARP_DRIFT_ALL_NODEPOOLS: plan.stages.flatMap((x) => x.nodePools).join(','),
    KARP_DRIFT_REPLACED_NODES: [...replaced].sort().join(' '),
    KARP_DRIFT_CONTEXT: facts.context,
    ...(facts.kubeconfig !== undefined ? { KUBECONFIG: facts.kubeconfig } : {}),
  };
}
