// Counting gate evaluations, as Argo Rollouts counts analysis measurements: every failed evaluation counts toward
// --failure-limit, consecutive or not (a flapping node fails again each time it is seen NotReady), and so does each
// failed replacement or drift command (gates/attempts.ts), once, however many turn up in one evaluation. A stage
// that ends with a target AMI untested (gates/coverage.ts) halts at once: nothing more starts to test it. A gate that
// cannot be evaluated is inconclusive: it never passes, and it halts the rollout (paused) once it has stayed so for
// INCONCLUSIVE_AFTER_MS (a read that fails once is tried again) or at once for the gate command (it ran to its
// timeout already). Pure.

/** What one run of --gate-cmd came to (commands/gate-command.ts runs it). */
export interface GateCommandResult {
  result: 'passed' | 'failed' | 'inconclusive';
  /** The exit code, or undefined when it was killed or could not start. */
  exitCode?: number;
  signal?: string;
  durationMs: number;
  /** The last lines it wrote (at most commands/gate-command.ts `OUTPUT_LINES`). */
  output: string[];
  /** Why it is inconclusive: timed out, interrupted, or could not be started. */
  why?: string;
}

export interface GateTally {
  /** Failed evaluations so far. */
  failures: number;
  /** When the built-in gates became unreadable, while they stay so. */
  unreadableSince?: number;
}

export type EvaluationResult = 'passed' | 'pending' | 'failed' | 'inconclusive';

export const INCONCLUSIVE_AFTER_MS = 60_000;

export function tallyEvaluation(
  tally: GateTally,
  result: EvaluationResult,
  failureLimit: number,
  now: Date,
  source: 'health' | 'command',
  /** `failures`: what a failed evaluation adds (default 1); `final`: a failure no later evaluation can undo. */
  counted: { failures?: number; final?: boolean } = {},
): { tally: GateTally; halt?: 'failed' | 'inconclusive' } {
  if (result === 'failed') {
    const next = { ...tally, failures: tally.failures + (counted.failures ?? 1) };
    return next.failures >= failureLimit || counted.final === true ? { tally: next, halt: 'failed' } : { tally: next };
  }
  if (result === 'inconclusive') {
    if (source === 'command') return { tally, halt: 'inconclusive' };
    const since = tally.unreadableSince ?? now.getTime();
    const next = { ...tally, unreadableSince: since };
    return now.getTime() - since >= INCONCLUSIVE_AFTER_MS ? { tally: next, halt: 'inconclusive' } : { tally: next };
  }
  if (source === 'health' && tally.unreadableSince !== undefined) {
    const { unreadableSince: _, ...rest } = tally;
    return { tally: rest };
  }
  return { tally };
}
