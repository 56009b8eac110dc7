// One evaluation of the built-in gates, put together: the replacements and drift commands that failed since the last
// look (attempts.ts), the health verdict over what stands now (health.ts), and at a stage's end the target AMIs left
// untested (coverage.ts). What it adds to the failure count is tally.ts's to weigh. Launches EC2 refused for capacity
// are notes beside it, never a failure. Pure.
import type { NodePoolView } from '../karpenter/views.js';
import type { FailedAttempt } from './attempts.js';
import type { GateBaseline } from './baseline.js';
import {
  MAX_PER_CODE,
  withRegistrationHealth,
  type FindingCode,
  type GateFinding,
  type HealthVerdict,
} from './health.js';
import type { EvaluationResult } from './tally.js';

export interface Judgement {
  result: EvaluationResult;
  /** At most MAX_PER_CODE per code (`counts` has them all). */
  findings: GateFinding[];
  counts: Partial<Record<FindingCode, number>>;
  /** What it adds to the failures: each failed attempt that counts, plus one for a failed verdict or stage. */
  failures: number;
  /** A stage ended untested: no later evaluation can pass it. */
  final: boolean;
  /** Launches refused for capacity (CAPACITY-REFUSED): shown with the evaluation, never counted. */
  notes: GateFinding[];
}

export function judge(
  verdict: HealthVerdict | undefined,
  attempts: readonly FailedAttempt[],
  untested: readonly GateFinding[],
  context: {
    nodePools?: readonly NodePoolView[];
    baseline: GateBaseline;
    /** Replacements and commands that still wait for Karpenter's event (attempts.ts `awaitingJudgement`): no pass meanwhile. */
    awaiting?: number;
  },
): Judgement {
  const counts: Partial<Record<FindingCode, number>> = { ...(verdict?.counts ?? {}) };
  const findings: GateFinding[] = [];
  const notes = attempts.filter((a) => a.kind === 'refusal').map((a) => a.finding);
  const failedAttempts = attempts.filter((a) => a.kind !== 'refusal');
  for (const f of [...failedAttempts.map((a) => a.finding), ...untested]) {
    counts[f.code] = (counts[f.code] ?? 0) + 1;
    if (counts[f.code]! <= MAX_PER_CODE) findings.push(f);
  }
  const quoted = context.nodePools ? withRegistrationHealth(findings, context.nodePools, context.baseline) : findings;
  const all = [...quoted, ...(verdict?.findings ?? [])];
  const failed = verdict?.result === 'failed';
  if (failedAttempts.length > 0 || failed || untested.length > 0) {
    return {
      result: 'failed',
      findings: all,
      counts,
      failures: failedAttempts.filter((a) => a.counts).length + (failed ? 1 : 0) + (untested.length > 0 ? 1 : 0),
      final: untested.length > 0,
      notes,
    };
  }
  const result = verdict?.result === 'passed' && (context.awaiting ?? 0) > 0 ? 'pending' : (verdict?.result ?? 'inconclusive');
  return { result, findings: all, counts, failures: 0, final: false, notes };
}
