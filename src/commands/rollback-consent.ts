// Nothing resumes without consent (issue 33), a rollback included: once a staged rollback has restored its classes,
// running it again goes on toward the same previous AMIs. Where a health gate halted it, those AMIs failed: going on
// needs --resume-halted, the user's word that they looked at the evidence, as a halted upgrade's re-run does
// (resume-consent.ts). The first rollback over a halted upgrade needs no such word: rolling back is the way on.
import { pauseOf } from '../apis/pause-record.js';
import { HaltedError } from '../errors.js';
import { pausedByText } from '../report/resume.js';
import type { RollbackOptions } from './options.js';
import type { RollbackPlan } from './rollback-plan.js';
import type { HeldDrift } from './release-holds.js';

/** Refuses (exit 6, nothing written) to go on with a rollback a health gate halted, unless --resume-halted. */
export function refuseHaltedRollback(
  plan: Pick<RollbackPlan, 'restores'>,
  held: HeldDrift,
  options: Pick<RollbackOptions, 'resumeHalted' | 'dryRun'>,
  command: string,
): void {
  const underway = plan.restores.length > 0 && plan.restores.every((r) => r.restored);
  const pause = pauseOf(held.pools);
  if (!underway || pause?.by !== 'gate' || options.resumeHalted === true || options.dryRun) return;
  throw new HaltedError(`the rollback was ${pausedByText(pause)}; running it again does not restart it, and nothing was changed`, {
    paused: held.pools.map((p) => p.name),
    gate: pause.gate !== undefined ? { ...pause.gate } : {},
    hint: `look at the evidence first (karp-drift status; kubectl get events -A --field-selector reason=StagedRolloutPaused): the previous AMIs failed the gates too. Pin a release you trust (karp-drift upgrade --to <minor> --release <release>), or, once you are sure they are fine, go on: ${command} --resume-halted`,
  });
}
