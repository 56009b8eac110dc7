// How the health gates read: the NDJSON `gate` event, a log line per checkpoint and command run, and the block a
// halt prints with its evidence and next step. Pure.
import type { GateCommandResult } from '../gates/tally.js';
import type { FindingCode, GateFinding } from '../gates/health.js';
import type { Checkpoint, GateRequest } from '../gates/request.js';
import type { EvaluationResult } from '../gates/tally.js';
import { humanDuration, plural } from '../text/words.js';
import type { StagePlan } from '../stages/controller.js';
import { eventTime } from './progress.js';

export type GatePoint = Checkpoint['point'] | 'interval' | 'continuous';

/** One gate evaluation worth reporting: at a checkpoint, a command run, or a failure. */
export interface GateReport {
  /** `health`: the built-in gates; `command`: --gate-cmd. */
  source: 'health' | 'command';
  point: GatePoint;
  checkpoint?: Checkpoint;
  result: EvaluationResult;
  findings: GateFinding[];
  counts?: Partial<Record<FindingCode, number>>;
  /** Failed evaluations so far, and the limit. */
  failures: number;
  failureLimit: number;
  replacedNodes?: number;
  pods?: number;
  pdbs?: number;
  command?: GateCommandResult;
  /** Launches EC2 refused for capacity since the last report (CAPACITY-REFUSED): shown, never counted. */
  notes?: GateFinding[];
}

const where = (r: GateReport, plan: StagePlan): string => {
  const c = r.checkpoint;
  if (c === undefined) return r.point === 'interval' ? 'on its interval' : 'while the rollout runs';
  const stage = plan.stages[c.stage];
  return `at the end of ${c.point === 'soak-end' ? 'the soak after ' : ''}stage ${c.stage + 1}/${plan.stages.length}${stage ? ` (${stage.name})` : ''} wave ${c.wave + 1}`;
};

export function gateEventJson(r: GateReport, plan: StagePlan, now: Date): Record<string, unknown> {
  return {
    type: 'gate',
    time: eventTime(now),
    gate: r.source,
    point: r.point,
    ...(r.checkpoint
      ? { stage: r.checkpoint.stage + 1, stageName: plan.stages[r.checkpoint.stage]?.name, wave: r.checkpoint.wave + 1 }
      : {}),
    result: r.result,
    failures: r.failures,
    failureLimit: r.failureLimit,
    ...(r.replacedNodes !== undefined ? { replacedNodes: r.replacedNodes, pods: r.pods, pdbs: r.pdbs } : {}),
    findings: r.findings.map((f) => ({ ...f })),
    ...(r.counts && Object.keys(r.counts).length > 0 ? { counts: r.counts } : {}),
    ...(r.notes && r.notes.length > 0 ? { notes: r.notes.map((f) => ({ ...f })) } : {}),
    ...(r.command
      ? {
          command: {
            ...(r.command.exitCode !== undefined ? { exitCode: r.command.exitCode } : {}),
            ...(r.command.signal ? { signal: r.command.signal } : {}),
            ...(r.command.why ? { why: r.command.why } : {}),
            durationSeconds: Math.round(r.command.durationMs / 100) / 10,
            output: r.command.output,
          },
        }
      : {}),
  };
}

/** The line a checkpoint or a command run logs (a failure's detail is the halt block's, or the next line's). */
export function gateLogLine(r: GateReport, plan: StagePlan): string {
  const at = where(r, plan);
  if (r.source === 'command') {
    const c = r.command!;
    const how = c.exitCode !== undefined ? `exit ${c.exitCode}` : (c.why ?? `killed by ${c.signal ?? 'a signal'}`);
    return `gate command ${r.result} ${at} (${how}, ${humanDuration(c.durationMs)})${r.result === 'failed' ? `: failure ${r.failures} of --failure-limit ${r.failureLimit}` : ''}`;
  }
  if (r.result === 'passed') {
    return `health gates passed ${at}: ${plural(r.replacedNodes ?? 0, 'replaced node')}, ${plural(r.pods ?? 0, 'pod')}, ${plural(r.pdbs ?? 0, 'PDB')}${refusedText(r)}`;
  }
  if (r.result === 'inconclusive')
    return `health gates could not be evaluated ${at}: ${r.findings[0]?.message ?? 'the reads failed'}${refusedText(r)}`;
  const first = r.findings[0];
  return `health gate failed ${at}: ${first ? `${first.code} ${first.message}` : 'see the findings'} (failure ${r.failures} of --failure-limit ${r.failureLimit})${refusedText(r)}`;
}

/** The launches refused for capacity a report carries, named (their evidence is in the NDJSON `notes`). */
function refusedText(r: GateReport): string {
  const notes = r.notes ?? [];
  if (notes.length === 0) return '';
  const names = notes.map((n) => n.subject).slice(0, PER_CODE_SHOWN);
  const more = notes.length > names.length ? `, … ${notes.length - names.length} more` : '';
  return `; not counted: ${plural(notes.length, 'launch', 'launches')} EC2 refused for capacity (${names.join(', ')}${more})`;
}

/** What to run next for each kind of finding. */
function nextStep(f: GateFinding): string | undefined {
  // subject: kind/name, or kind/namespace/name
  const [, first, second] = f.subject.split('/');
  const ns = first ?? '';
  const name = second ?? '';
  switch (f.code) {
    case 'POD-FAILING':
    case 'POD-RESTARTING':
    case 'POD-NOT-READY':
      return `kubectl describe pod -n ${ns} ${name}; kubectl logs -n ${ns} ${name} --previous`;
    case 'NODE-NOT-READY':
      return `kubectl describe node ${ns}`;
    case 'REPLACEMENT-NOT-INITIALIZED':
      return `kubectl describe nodeclaim ${ns}`;
    case 'REPLACEMENT-DELETED':
      // The NodeClaim is gone; its events stay (an hour by default), and Karpenter's log says why it deleted it.
      return `kubectl get events -A --field-selector involvedObject.name=${ns}; Karpenter's log for ${ns} ("terminating due to timeout")`;
    case 'COMMAND-FAILED':
      return `kubectl describe nodeclaim ${ns}; Karpenter's log: "failed terminating nodes while executing a disruption command"`;
    case 'PDB-BELOW-DESIRED':
      return `kubectl get pdb -n ${ns} ${name} -o yaml`;
    default:
      return undefined;
  }
}

const PER_CODE_SHOWN = 3;

/** The halt's evidence, for stderr: each failed gate with what failed, in Karpenter's and the kubelet's words. */
export function haltLines(r: GateReport, plan: StagePlan): string[] {
  const lines = [
    r.result === 'inconclusive'
      ? `Health gate inconclusive ${where(r, plan)}: it could not be evaluated, so the rollout stops here (it never passes)`
      : `Health gate failed ${where(r, plan)} (${plural(r.failures, 'failure')}, --failure-limit ${r.failureLimit})`,
  ];
  const byCode = new Map<FindingCode, GateFinding[]>();
  for (const f of r.findings) byCode.set(f.code, [...(byCode.get(f.code) ?? []), f]);
  for (const [code, findings] of byCode) {
    for (const f of findings.slice(0, PER_CODE_SHOWN)) {
      lines.push(`  ${code} ${f.message}`);
      for (const e of f.evidence) lines.push(`      ${e}`);
      const next = nextStep(f);
      if (next) lines.push(`      next: ${next}`);
    }
    const total = r.counts?.[code] ?? findings.length;
    if (total > PER_CODE_SHOWN) lines.push(`  … and ${total - PER_CODE_SHOWN} more ${code}`);
  }
  const notes = r.notes ?? [];
  for (const n of notes.slice(0, PER_CODE_SHOWN)) {
    lines.push(`  not counted: ${n.code} ${n.message}`);
    for (const e of n.evidence) lines.push(`      ${e}`);
  }
  if (notes.length > PER_CODE_SHOWN) lines.push(`  … and ${notes.length - PER_CODE_SHOWN} more ${notes[0]!.code}`);
  return lines.map((l) => `${l}\n`);
}

/** The plan's gates line: what will be checked, and what a failure does. */
export function gatePlanLines(g: GateRequest): string[] {
  if (!g.builtIn && g.command === undefined) {
    return ['  Health gates: off (--no-gates): nothing judges the new nodes, and a bad AMI is not halted'];
  }
  const builtIn = g.builtIn
    ? `replacements Initialized within ${humanDuration(g.initDeadlineMs)} of their creation and staying Ready; pods on them Ready within ${humanDuration(g.podReadyDeadlineMs)}, ≤ ${g.maxRestarts} restarts, PDBs kept`
    : 'built-in gates off (--no-gates)';
  return [
    `  Health gates: ${builtIn}`,
    ...(g.command
      ? [
          `    and the gate command after each wave and soak${g.commandIntervalMs ? ` and every ${humanDuration(g.commandIntervalMs)}` : ''} (timeout ${humanDuration(g.commandTimeoutMs)})`,
        ]
      : []),
    `    ${g.failureLimit === 1 ? 'one failure halts' : `${g.failureLimit} failures halt`} the rollout (exit 6), leaving it paused${g.onFailure === 'rollback' ? ', then roll the changed classes back' : ''}`,
    '    (a failure: a replacement deleted before it was Initialized, a drift command given up, a failed evaluation;',
    '    not a launch EC2 refused for capacity)',
  ];
}

export function gatePlanJson(g: GateRequest): Record<string, unknown> {
  return {
    builtIn: g.builtIn,
    initDeadlineSeconds: g.initDeadlineMs / 1000,
    podReadyDeadlineSeconds: g.podReadyDeadlineMs / 1000,
    maxRestarts: g.maxRestarts,
    failureLimit: g.failureLimit,
    ...(g.command ? { command: g.command, commandTimeoutSeconds: g.commandTimeoutMs / 1000 } : {}),
    ...(g.commandIntervalMs ? { commandIntervalSeconds: g.commandIntervalMs / 1000 } : {}),
    onFailure: g.onFailure,
  };
}
