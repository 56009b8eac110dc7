// `karp-drift plan`: discover → inventory → resolve AMIs → plan → print. Changes nothing.
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { PlanOptions } from './options.js';
import { planJson, planText } from '../report/plan.js';
import { recordSummary } from '../report/summary.js';
import { stagedPlanJson, stagedPlanLines } from '../report/stages.js';
import { preparePlan, refuseIfBlocked } from './planning.js';

export async function planCommand(options: PlanOptions, ctx: CommandContext): Promise<void> {
  const { plan, staged, cluster } = await preparePlan(options, ctx);
  try {
    const doc = planJson(plan, cluster.identity, staged ? stagedPlanJson(staged) : undefined);
    if (ctx.summary) recordSummary(ctx.summary, { type: 'plan', plan: JSON.parse(doc) as unknown });
    ctx.io.out(
      ctx.globals.output === 'json'
        ? `${doc}\n`
        : forScreen(ctx.io, 'out', planText(plan, { color: ctx.globals.color, ...(staged ? { staged: stagedPlanLines(staged) } : {}) })),
    );
    const where = ctx.globals.output === 'json' ? 'the checks with level error on stdout' : 'the checks above';
    refuseIfBlocked(plan, `fix what ${where} say, then plan again`);
  } finally {
    cluster.close();
  }
}
