// What both upgrade flows share: NDJSON event lines and the confirmation rule (a terminal asks; without one,
// --yes is required; --dry-run changes nothing and needs neither).
import { createInterface } from 'node:readline/promises';
import type { CommandContext } from '../cli.js';
import { RefusedError, UsageError } from '../errors.js';
import type { UpgradeOptions } from '../options.js';

export function event(type: string, body: Record<string, unknown>): string {
  return `${JSON.stringify({ type, time: new Date().toISOString(), ...body })}\n`;
}

async function confirmed(ctx: CommandContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`\n${question}\n  Only 'yes' will be accepted: `, { signal: ctx.signal });
    return answer.trim() === 'yes';
  } catch {
    return false; // interrupted at the prompt: nothing was changed
  } finally {
    rl.close();
  }
}

export async function confirmOrRefuse(ctx: CommandContext, options: Pick<UpgradeOptions, 'yes' | 'dryRun'>, question: string): Promise<void> {
  if (options.dryRun || options.yes) return;
  if (!ctx.io.interactive) {
    throw new UsageError('upgrade changes the cluster and there is no terminal to confirm on; nothing was changed', {
      hint: 'pass --yes to apply without asking, or --dry-run to have the API server validate the change',
    });
  }
  if (!(await confirmed(ctx, question))) throw new RefusedError('not confirmed; nothing was changed');
}
