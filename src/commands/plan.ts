// `karp-drift plan`: discover → inventory → resolve AMIs → plan → print. Changes nothing.
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { PlanOptions } from './options.js';
import { planJson, planText } from '../report/plan.js';
import { recordSummary } from '../report/summary.js';
import { stagedPlanLines } from '../report/stages.js';
import { reportResume, resumeOf, stagedDocument } from './resume-consent.js';
import { preparePlan, refuseIfBlocked } from './planning.js';

export async function planCommand(options: PlanOptions, ctx: CommandContext): Promise<void> {
  const planned = await preparePlan(options, ctx);
  const { plan, staged, cluster } = planned;
  try {
    const held = staged !== undefined ? resumeOf(planned, options.kubernetes.version, new Date()) : undefined;
    const doc = planJson(plan, cluster.identity, stagedDocument(staged, held));
    if (ctx.summary) recordSummary(ctx.summary, { type: 'plan', plan: JSON.parse(doc) as unknown });
    ctx.io.out(
      ctx.globals.output === 'json'
        ? `${doc}\n`
        : forScreen(ctx.io, 'out', planText(plan, { color: ctx.globals.color, ...(staged ? { staged: stagedPlanLines(staged) } : {}) })),
    );
    if (held !== undefined) reportResume(ctx, held, new Date());
    const where = ctx.globals.output === 'json' ? 'the checks with level error on stdout' : 'the checks above';
    refuseIfBlocked(plan, `fix what ${where} say, then plan again`);
  } finally {
    cluster.close();
  }
}
