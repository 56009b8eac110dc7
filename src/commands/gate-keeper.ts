// The edge of the health gates: reads what the gates need (NodePools, PDBs, the pods on the replaced nodes) as
// often as the rollout needs, lets the pure gates judge (gates/health.ts), runs --gate-cmd at the checkpoints and on
// its interval, counts failed evaluations (gates/tally.ts), and says when a checkpoint is cleared (the pacer waits on
// it) and when the rollout must halt. The follow loop calls `tick` before each pacer step.
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { readGateReads } from '../cluster/inventory.js';
import type { NodeClaimView, NodeView } from '../karpenter/views.js';
import type { GateBaseline, GateScope } from '../gates/baseline.js';
import { runGateCommand } from './gate-command.js';
import type { GateCommandResult } from '../gates/tally.js';
import { evaluateHealth, gatedClaims, type GateFinding, type HealthVerdict } from '../gates/health.js';
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
  /** One look: evaluate what is due, collect finished command runs; a halt when the gates say stop. */
  tick(
    claims: Iterable<NodeClaimView>,
    nodes: ReadonlyMap<string, NodeView>,
    stage: StageState | undefined,
    now: Date,
    signal: AbortSignal,
  ): Promise<{ reports: GateReport[]; halt?: GateReport }>;
  /** While a checkpoint waits: on what (a command running, pods or nodes still coming up), for the display. */
  waiting(now: Date): string | undefined;
  /** A command run in flight: the follow loop looks again when it ends. */
  onSettled(wake: () => void): void;
  /** The run ends: a command still running is killed. */
  stop(): void;
}

interface GateKeeperSettings {
  cluster: Cluster;
  discovery: Discovery;
  request: GateRequest;
  scope: GateScope;
  baseline: GateBaseline;
  plan: StagePlan;
  facts: GateFacts;
}

/** What the gate keeper remembers between ticks. */
interface GateKeeperState {
  readonly settings: GateKeeperSettings;
  tally: GateTally;
  lastHealthAt: number;
  lastHealth: HealthVerdict | undefined;
  healthEveryMs: number;
  /** When each checkpoint was first seen, and whether each gate has passed there since. */
  readonly reached: Map<string, number>;
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
  fresh: boolean;
  claims: NodeClaimView[];
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
    lastHealthAt: 0,
    lastHealth: undefined,
    healthEveryMs: HEALTH_EVERY_MS,
    reached: new Map(),
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
    waiting(now) {
      if (state.running) return `--gate-cmd for ${humanDuration(now.getTime() - state.lastCommandAt)}`;
      const pending = state.lastHealth?.result === 'pending' ? state.lastHealth.pending : [];
      return pending.length > 0 ? `${pending.length} coming up, e.g. ${pending[0]}` : undefined;
    },
    onSettled(w) {
      state.wake = w;
    },
    stop() {
      state.stopRuns.abort();
    },
    tick: (claims, nodes, stage, now, signal) => tick(state, { claims, nodes, stage, now }, signal),
  };
}

/** One look: a finished command's verdict, then the built-in gates if due, then the command if due. */
async function tick(
  state: GateKeeperState,
  look: { claims: Iterable<NodeClaimView>; nodes: ReadonlyMap<string, NodeView>; stage: StageState | undefined; now: Date },
  signal: AbortSignal,
): Promise<{ reports: GateReport[]; halt?: GateReport }> {
  const { scope, baseline } = state.settings;
  const checkpoint = look.stage?.phase === 'gating' ? look.stage.checkpoint : undefined;
  const key = checkpoint ? checkpointKey(checkpoint) : undefined;
  const fresh = key !== undefined && !state.reached.has(key);
  if (key !== undefined && fresh) state.reached.set(key, look.now.getTime());
  const claims = [...look.claims]; // an iterator of the snapshot: read twice below
  const replaced = gatedClaims(claims, scope, baseline).flatMap((c) => (c.nodeName ? [c.nodeName] : []));
  const facts: TickFacts = { checkpoint, key, fresh, claims, nodes: look.nodes, stage: look.stage, replaced, now: look.now };

  const reports: GateReport[] = [];
  const command = countFinishedCommand(state, facts);
  if (command.halt) return { reports, halt: command.halt };
  if (command.report) reports.push(command.report);
  const health = await evaluateBuiltInGates(state, facts, signal);
  if (health.halt) return { reports, halt: health.halt };
  if (health.report) reports.push(health.report);
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
 * The built-in gates: at once at a new checkpoint, again while one waits, else on their interval. While a checkpoint
 * waits on pods or nodes still coming up, look again soon; a failure is measured again on the normal interval (each
 * failed evaluation counts toward --failure-limit).
 */
async function evaluateBuiltInGates(state: GateKeeperState, facts: TickFacts, signal: AbortSignal): Promise<Step> {
  const { request, scope, baseline } = state.settings;
  const { checkpoint, key, now } = facts;
  const waitingHere =
    key !== undefined && request.builtIn && !state.healthPassed.has(key) && state.lastHealth?.result === 'pending';
  const due =
    now.getTime() - state.lastHealthAt >= (waitingHere ? Math.min(state.healthEveryMs, 2_000) : state.healthEveryMs);
  if (!request.builtIn || !(facts.fresh || due)) return {};
  state.lastHealthAt = now.getTime();
  const started = performance.now();
  let verdict: HealthVerdict | undefined;
  let unreadable: string | undefined;
  try {
    const reads = await readGateReads(state.settings.cluster, state.settings.discovery, facts.replaced, signal);
    verdict = evaluateHealth({ nodeClaims: facts.claims, nodes: facts.nodes, ...reads }, scope, baseline, request, now);
  } catch (e) {
    if (signal.aborted) throw e;
    unreadable = e instanceof Error ? e.message : String(e);
  }
  state.healthEveryMs = Math.max(HEALTH_EVERY_MS, (performance.now() - started) * COST_FACTOR);
  state.lastHealth = verdict;
  const result = verdict?.result ?? 'inconclusive';
  const counted = tallyEvaluation(state.tally, result, request.failureLimit, now, 'health');
  state.tally = counted.tally;
  if (result === 'passed' && key !== undefined) state.healthPassed.add(key);
  const report: GateReport = {
    source: 'health',
    point: checkpoint ? checkpoint.point : 'continuous',
    ...(checkpoint ? { checkpoint } : {}),
    result,
    findings: verdict?.findings ?? [unreadableFinding(unreadable ?? 'unknown error')],
    ...(verdict
      ? { counts: verdict.counts, replacedNodes: verdict.replacedNodes.length, pods: verdict.pods, pdbs: verdict.pdbs }
      : {}),
    failures: state.tally.failures,
    failureLimit: request.failureLimit,
  };
  if (counted.halt) return { halt: report };
  // Reported: a checkpoint passed, and every failed or unreadable evaluation (a pass between is quiet).
  const reported = (result === 'passed' && key !== undefined) || result === 'failed' || result === 'inconclusive';
  return reported ? { report } : {};
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

/** The run's facts for --gate-cmd (README "Health gates" lists them). */
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
