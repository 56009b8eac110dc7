// `karp-drift plan`: discover → inventory → resolve AMIs → plan → print. Changes nothing.
import type { CommandContext } from '../cli.js';
import { RefusedError } from '../errors.js';
import type { PlanOptions } from '../options.js';
import { planJson, planText } from '../report/plan.js';
import { preparePlan } from './planning.js';

export async function planCommand(options: PlanOptions, ctx: CommandContext): Promise<void> {
  const { plan, cluster } = await preparePlan(options, ctx);
  try {
    ctx.io.out(ctx.globals.output === 'json' ? `${planJson(plan)}\n` : planText(plan, { color: ctx.globals.color }));
    const errors = plan.checks.filter((c) => c.level === 'error');
    if (errors.length > 0) {
      throw new RefusedError(`the plan has ${errors.length} error-level check(s): ${errors.map((c) => c.code).join(', ')}; an upgrade would change nothing`, {
        hint: 'fix what the checks above say, then plan again',
      });
    }
  } finally {
    cluster.close();
  }
}
