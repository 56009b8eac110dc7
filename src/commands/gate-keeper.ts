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

export function createGateKeeper(settings: {
  cluster: Cluster;
  discovery: Discovery;
  request: GateRequest;
  scope: GateScope;
  baseline: GateBaseline;
  plan: StagePlan;
  facts: GateFacts;
}): GateKeeper {
  const { request, scope, baseline, plan } = settings;
  let tally: GateTally = { failures: 0 };
  let lastHealthAt = 0;
  let lastHealth: HealthVerdict | undefined;
  let healthEveryMs = HEALTH_EVERY_MS;
  /** When each checkpoint was first seen, and whether each gate has passed there since. */
  const reached = new Map<string, number>();
  const healthPassed = new Set<string>();
  const commandPassed = new Set<string>();
  const commandRan = new Set<string>();
  let running: { point: GatePoint; checkpoint?: Checkpoint; promise: Promise<GateCommandResult> } | undefined;
  let finished: { point: GatePoint; checkpoint?: Checkpoint; result: GateCommandResult } | undefined;
  let lastCommandAt = 0;
  let wake: () => void = () => undefined;
  const stopRuns = new AbortController();

  function startCommand(
    point: GatePoint,
    checkpoint: Checkpoint | undefined,
    stage: StageState | undefined,
    replaced: string[],
    now: Date,
  ): void {
    const env = commandEnv(settings.facts, plan, point, checkpoint, stage, replaced);
    lastCommandAt = now.getTime();
    const promise = runGateCommand(request.command!, env, request.commandTimeoutMs, stopRuns.signal);
    running = { point, ...(checkpoint ? { checkpoint } : {}), promise };
    void promise.then((result) => {
      finished = { point, ...(checkpoint ? { checkpoint } : {}), result };
      running = undefined;
      wake();
    });
  }

  return {
    request,
    cleared(checkpoint) {
      const key = checkpointKey(checkpoint);
      return (!request.builtIn || healthPassed.has(key)) && (request.command === undefined || commandPassed.has(key));
    },
    waiting(now) {
      if (running) return `--gate-cmd for ${humanDuration(now.getTime() - lastCommandAt)}`;
      const pending = lastHealth?.result === 'pending' ? lastHealth.pending : [];
      return pending.length > 0 ? `${pending.length} coming up, e.g. ${pending[0]}` : undefined;
    },
    onSettled(w) {
      wake = w;
    },
    stop() {
      stopRuns.abort();
    },
    async tick(claims, nodes, stage, now, signal) {
      const reports: GateReport[] = [];
      const checkpoint = stage?.phase === 'gating' ? stage.checkpoint : undefined;
      const key = checkpoint ? checkpointKey(checkpoint) : undefined;
      const fresh = key !== undefined && !reached.has(key);
      if (key !== undefined && fresh) reached.set(key, now.getTime());
      const all = [...claims]; // an iterator of the snapshot: read twice below
      const replaced = gatedClaims(all, scope, baseline).flatMap((c) => (c.nodeName ? [c.nodeName] : []));

      // A command run that ended: its verdict counts, and at a checkpoint it clears (or not) that checkpoint.
      if (finished) {
        const f = finished;
        finished = undefined;
        const result = f.result.result;
        const counted = tallyEvaluation(tally, result, request.failureLimit, now, 'command');
        tally = counted.tally;
        if (f.checkpoint) {
          // Passed: the checkpoint is cleared for the command. Failed below the limit: it runs again there.
          if (result === 'passed') commandPassed.add(checkpointKey(f.checkpoint));
          else commandRan.delete(checkpointKey(f.checkpoint));
        }
        const report: GateReport = {
          source: 'command',
          point: f.point,
          ...(f.checkpoint ? { checkpoint: f.checkpoint } : {}),
          result,
          findings: result === 'passed' ? [] : [commandFinding(f.result)],
          failures: tally.failures,
          failureLimit: request.failureLimit,
          command: f.result,
        };
        if (counted.halt) return { reports, halt: report };
        reports.push(report);
      }

      // The built-in gates: at once at a new checkpoint, again while one waits, else on their interval.
      // While a checkpoint waits on pods or nodes still coming up, look again soon; a failure is measured again on
      // the normal interval (each failed evaluation counts toward --failure-limit).
      const waitingHere =
        key !== undefined && request.builtIn && !healthPassed.has(key) && lastHealth?.result === 'pending';
      const due = now.getTime() - lastHealthAt >= (waitingHere ? Math.min(healthEveryMs, 2_000) : healthEveryMs);
      if (request.builtIn && (fresh || due)) {
        lastHealthAt = now.getTime();
        const started = performance.now();
        let verdict: HealthVerdict | undefined;
        let unreadable: string | undefined;
        try {
          const reads = await readGateReads(settings.cluster, settings.discovery, replaced, signal);
          verdict = evaluateHealth({ nodeClaims: all, nodes, ...reads }, scope, baseline, request, now);
        } catch (e) {
          if (signal.aborted) throw e;
          unreadable = e instanceof Error ? e.message : String(e);
        }
        healthEveryMs = Math.max(HEALTH_EVERY_MS, (performance.now() - started) * COST_FACTOR);
        lastHealth = verdict;
        const result = verdict?.result ?? 'inconclusive';
        const counted = tallyEvaluation(tally, result, request.failureLimit, now, 'health');
        tally = counted.tally;
        if (result === 'passed' && key !== undefined) healthPassed.add(key);
        const report: GateReport = {
          source: 'health',
          point: checkpoint ? checkpoint.point : 'continuous',
          ...(checkpoint ? { checkpoint } : {}),
          result,
          findings: verdict?.findings ?? [unreadableFinding(unreadable ?? 'unknown error')],
          ...(verdict
            ? {
                counts: verdict.counts,
                replacedNodes: verdict.replacedNodes.length,
                pods: verdict.pods,
                pdbs: verdict.pdbs,
              }
            : {}),
          failures: tally.failures,
          failureLimit: request.failureLimit,
        };
        if (counted.halt) return { reports, halt: report };
        // Reported: a checkpoint passed, and every failed or unreadable evaluation (a pass between is quiet).
        if ((result === 'passed' && key !== undefined) || result === 'failed' || result === 'inconclusive')
          reports.push(report);
      }

      // The command: once per checkpoint, and on its interval while waves run and soak.
      if (request.command !== undefined && running === undefined) {
        if (key !== undefined && !commandRan.has(key)) {
          commandRan.add(key);
          startCommand(checkpoint!.point, checkpoint, stage, replaced, now);
        } else if (
          request.commandIntervalMs !== undefined &&
          stage !== undefined &&
          stage.phase !== 'done' &&
          replaced.length > 0 &&
          now.getTime() - lastCommandAt >= request.commandIntervalMs
        ) {
          startCommand('interval', undefined, stage, replaced, now);
        }
      }
      return { reports };
    },
  };
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
