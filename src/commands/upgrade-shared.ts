// What upgrade and rollback share: NDJSON event lines, the confirmation rule (a terminal asks; without one, --yes is
// required; --dry-run changes nothing and needs neither), and applying classes one after another.
import { createInterface } from 'node:readline/promises';
import type { CommandContext } from '../cli.js';
import { InterruptedError, KarpDriftError, RefusedError, UsageError } from '../errors.js';
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

export interface ApplyEach {
  /** `applying` / `restoring`, and what the classes done are: `applied` / `restored`. */
  doing: string;
  done: string;
  dryRun: boolean;
  /** Interrupted between two classes: how to go on from there. */
  resume: string;
  /** A failure after some classes: how to take those back. */
  undo: (done: string[]) => string;
}

/**
 * Applies the classes in order. An interrupt stops before the next one (the request in flight finishes); a failure
 * after some were applied says which ones, whose nodes now drift, and how to take them back.
 */
export async function applyEach(ctx: CommandContext, names: readonly string[], how: ApplyEach, apply: (name: string) => Promise<void>): Promise<void> {
  const done: string[] = [];
  for (const name of names) {
    if (ctx.signal.aborted) {
      throw new InterruptedError(`interrupted before ${how.doing} ec2nodeclass/${name}; ${how.done}: ${done.join(', ') || 'none'}`, { hint: how.resume });
    }
    try {
      await apply(name);
    } catch (err) {
      if (err instanceof KarpDriftError && done.length > 0 && !how.dryRun) {
        err.message += `\n${how.done} before it: ${done.map((n) => `ec2nodeclass/${n}`).join(', ')} (${how.undo(done)})`;
      }
      throw err;
    }
    done.push(name);
  }
}
