// The longest an `upgrade` can run by its flags: what a CI job's own limit (GitHub's timeout-minutes, an Argo
// activeDeadlineSeconds) must leave room for, so that karp-drift ends with its own exit 5 (the rollout paused, resumable)
// before the CI system cancels it. Pure; docs/ci-and-fleets.md "How long a run can take".
//
// What `--timeout` measures (commands/follow-steps.ts isTimedOut): the follow, from the moment the apply is done,
// minus the time spent soaking, which is waiting by design. Gate waits (the built-in gates' deadlines, --gate-cmd runs
// up to --gate-timeout) are not soaks: they count. Around the follow there are only fixed, bounded waits: the holds of
// a staged run put back at its end, and with --on-failure rollback a halt's restore, whose follow back gets a
// --timeout of its own.
import type { StagedRequest } from './request.js';

/** How long a staged run's last hold writes (pause on the way out, release when done) may take. */
export const PAUSE_WRITES_MS = 20_000;
/** --on-failure rollback: how long Karpenter gets to resolve the restored AMIs (AMIsReady for the new generation). */
export const ROLLBACK_READY_WAIT_MS = 120_000;
/** --on-failure rollback: how long Drifted may linger on NodeClaims of the restored AMIs before the holds come off. */
export const ROLLBACK_DRIFT_CLEARED_WAIT_MS = 120_000;

/**
 * The most soaks the flags allow: one after every wave but the very last, each stage (the canary's, then the rest's)
 * in at most one wave per --waves step, plus one for the remainder when the last step is not 100%. The plan's own
 * count (stage-plan.ts `soaks`) is this or fewer: a small stage merges waves, an empty one has none.
 */
export function maxSoaks(request: Pick<StagedRequest, 'canary' | 'waves' | 'soakMs'>): number {
  if (request.soakMs <= 0) return 0;
  const last = request.waves.at(-1);
  const perStage = request.waves.length + (last?.kind === 'percent' && last.value >= 100 ? 0 : 1);
  const stages = request.canary.length > 0 ? 2 : 1;
  return Math.max(0, stages * perStage - 1);
}

export interface BudgetPart {
  what: string;
  ms: number;
}

/**
 * The worst case of one `upgrade` by its flags, in parts that add up: --timeout, every soak, the fixed waits, and with
 * --on-failure rollback a halt just before --timeout followed by the rollback's own waits and --timeout. The time
 * before the follow (discovery, AMI lookups, the apply) is a few requests, each bounded by --request-timeout: the
 * margin a CI job keeps for its setup covers it.
 */
export function worstCaseParts(timeoutMs: number, staged: StagedRequest | undefined): BudgetPart[] {
  const parts: BudgetPart[] = [{ what: '--timeout (the follow, soaks left out)', ms: timeoutMs }];
  if (staged === undefined) return parts;
  const soaks = maxSoaks(staged);
  if (soaks > 0) parts.push({ what: `${soaks} soak${soaks === 1 ? '' : 's'} of --soak`, ms: soaks * staged.soakMs });
  parts.push({ what: "the holds' last writes", ms: PAUSE_WRITES_MS });
  if (staged.gates?.onFailure === 'rollback') {
    parts.push(
      {
        what: '--on-failure rollback: AMIs restored and Drifted cleared',
        ms: ROLLBACK_READY_WAIT_MS + ROLLBACK_DRIFT_CLEARED_WAIT_MS + PAUSE_WRITES_MS,
      },
      { what: '--on-failure rollback: its follow back (its own --timeout)', ms: timeoutMs },
    );
    // --rollback-waves: the follow back is a staged rollout of one stage, soaking --soak between its waves.
    const back = staged.rollbackWaves !== undefined ? maxSoaks({ canary: [], waves: staged.rollbackWaves, soakMs: staged.soakMs }) : 0;
    if (back > 0) parts.push({ what: `--rollback-waves: ${back} soak${back === 1 ? '' : 's'} of --soak`, ms: back * staged.soakMs });
    if (staged.rollbackWaves !== undefined) parts.push({ what: "--rollback-waves: its holds' last writes", ms: PAUSE_WRITES_MS });
  }
  return parts;
}

export const worstCaseMs = (timeoutMs: number, staged: StagedRequest | undefined): number =>
  worstCaseParts(timeoutMs, staged).reduce((sum, p) => sum + p.ms, 0);
