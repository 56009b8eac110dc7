// Nothing resumes without consent (issue 33): a re-run of `upgrade` on a rollout karp-drift holds says what it would
// take on — what paused it and why, where it stands — and asks exactly as a first apply does (a terminal asks; without
// one it needs --yes). A rollout a health gate halted needs more: --resume-halted, the user's word that they looked at
// the evidence, at a terminal too, because re-running the command to see its plan must never restart a bad AMI.
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { Planned } from './planning.js';
import type { UpgradeOptions } from './options.js';
import { HaltedError } from '../errors.js';
import { pausedByText, resumePlanJson, resumePlanLines } from '../report/resume.js';
import { stagedPlanJson } from '../report/stages.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { amiPickScope, amiPicks } from '../stages/ami-picks.js';
import { resumePlan, type ResumePlan } from '../stages/resume-plan.js';

/** The resume plan of this run, when karp-drift holds the rollout in its scope and no live run paces it. */
export function resumeOf(planned: Planned, target: string, now: Date): ResumePlan | undefined {
  const { inventory, plan, staged, lock } = planned;
  const inScope = new Set(plan.nodePools.map((p) => p.name));
  const pools = inventory.nodePools.filter((p) => inScope.has(p.name));
  const scope = {
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: Object.fromEntries(plan.nodeClasses.map((c) => [c.name, c.targets.map((t) => t.id)])),
  };
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  const holds = new Map(staged?.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold.mechanism] as const)) ?? []);
  const picks = amiPickScope(plan, inventory, holds, nodes.keys());
  return resumePlan(
    {
      pools,
      nodes: inventory.nodes,
      claims: inventory.nodeClaims,
      lock,
      ...(staged !== undefined
        ? {
            staged: {
              plan: staged,
              scope,
              target,
              picks: (stage) => amiPicks(staged.stagePlan.stages[stage]?.nodePools ?? [], inventory.nodeClaims, nodes, picks),
            },
          }
        : {}),
    },
    now,
  );
}

/** The resume plan under the plan, as text (in JSON it is the plan document's `staged.resume`). */
export function reportResume(ctx: CommandContext, resume: ResumePlan, now: Date): void {
  if (ctx.globals.output !== 'json') ctx.io.out(forScreen(ctx.io, 'out', `\n${resumePlanLines(resume, now).join('\n')}\n`));
}

/**
 * A halted rollout is not taken on without --resume-halted (exit 6, nothing written), whatever the terminal: the
 * message is the halt's, as `wait` and `status` tell it, with the ways on.
 */
export function refuseHalted(resume: ResumePlan, options: Pick<UpgradeOptions, 'resumeHalted'>, command: string): void {
  if (!resume.halted || options.resumeHalted === true) return;
  const pools = resume.holds.map((h) => h.nodePool);
  throw new HaltedError(
    `the rollout was ${resume.pause !== undefined ? pausedByText(resume.pause) : 'halted by a health gate'}; re-running the upgrade does not restart it, and nothing was changed`,
    {
      paused: pools,
      gate: resume.pause?.gate !== undefined ? { ...resume.pause.gate } : {},
      hint: `look at the evidence first (karp-drift status; kubectl get events -A --field-selector reason=StagedRolloutPaused), then roll the AMIs back (karp-drift rollback), or, once you are sure they are fine, go on: ${command} --resume-halted`,
    },
  );
}

/** The question of a re-run that applies nothing but takes a held rollout on. */
export function resumeQuestion(resume: ResumePlan): string {
  const left = resume.at !== undefined ? resume.at.size - resume.at.started : undefined;
  return `Resume the held rollout? karp-drift will release its holds wave by wave, gated, and Karpenter will replace ${left !== undefined ? `the ${left} old node(s) left` : 'the old nodes left'} through drift.`;
}

/** The plan document's `staged`, with what a re-run would resume (`resume`) when it would. */
export function stagedDocument(staged: StagedPlan | undefined, held: ResumePlan | undefined): Record<string, unknown> | undefined {
  if (staged === undefined) return undefined;
  return { ...stagedPlanJson(staged), ...(held !== undefined ? { resume: resumePlanJson(held) } : {}) };
}
