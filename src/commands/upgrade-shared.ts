// What upgrade and rollback share: NDJSON event lines, the confirmation rule (a terminal asks; without one, --yes is
// required; --dry-run changes nothing and needs neither), and applying classes one after another.
import { wasInterrupted } from '../cluster/api-errors.js';
import { openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { WriteStream } from 'node:tty';
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import { InterruptedError, KarpDriftError, RefusedError, UsageError } from '../errors.js';
import type { UpgradeOptions } from './options.js';

export function event(type: string, body: Record<string, unknown>): string {
  return `${JSON.stringify({ type, time: new Date().toISOString(), ...body })}\n`;
}

/**
 * The answer typed at the prompt, or null when the input ended (Ctrl-D). The question goes to stderr (or, when stderr
 * is a pipe, to the terminal itself: `2>&1 | tee log` keeps the log and still asks) and the answer comes from stdin,
 * so stdout may be a pipe. Ctrl-C reaches readline as a key (the terminal is in raw mode), not as
 * a signal, so it is handled here as well as SIGINT/SIGTERM from outside (ctx.signal).
 */
function ask(ctx: CommandContext, question: string): Promise<string | null> {
  const tty = ctx.io.promptOn === 'tty' ? new WriteStream(openSync('/dev/tty', 'w')) : undefined;
  const rl = createInterface({ input: process.stdin, output: tty ?? process.stderr, terminal: true });
  // The cursor is still after the question when it ends unanswered: what follows starts on a line of its own.
  const newline = () => (tty ? tty.write('\n') : ctx.io.err('\n'));
  return new Promise<string | null>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener('abort', onAbort);
      rl.close();
      fn();
      tty?.end();
    };
    const interrupted = () =>
      settle(() => {
        newline();
        reject(new InterruptedError('interrupted at the confirmation; nothing was changed'));
      });
    const onAbort = () => interrupted();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    rl.on('SIGINT', interrupted);
    rl.on('close', () =>
      settle(() => {
        newline();
        resolve(null);
      }),
    );
    // Wrapped at spaces to the terminal it is asked on (stderr's width; the terminal itself is as wide when tty).
    const shown = forScreen(ctx.io, 'err', question);
    rl.question(`\n${shown}\n  Only 'yes' will be accepted: `, (answer: string) => settle(() => resolve(answer)));
    if (ctx.signal.aborted) interrupted();
  });
}

/** `upgrade` or `rollback`: the command that asks, named in its messages. */
export type ConfirmingCommand = 'upgrade' | 'rollback';

export async function confirmOrRefuse(
  ctx: CommandContext,
  options: Pick<UpgradeOptions, 'yes' | 'dryRun'>,
  question: string,
  command: ConfirmingCommand = 'upgrade',
): Promise<void> {
  if (options.dryRun || options.yes) return;
  if (ctx.io.canPrompt !== true) {
    throw new UsageError(`${command} changes the cluster and there is no terminal to confirm on (stdin must be one); nothing was changed`, {
      hint: 'pass --yes to apply without asking, or --dry-run to have the API server validate the change',
    });
  }
  const answer = await ask(ctx, question);
  // Asked on the terminal itself (stderr is the log): the log says what was asked and answered.
  if (ctx.io.promptOn === 'tty') {
    const answered = answer == null ? '(nothing: the input ended)' : JSON.stringify(answer.trim());
    ctx.io.err(`${question}\nAsked at the terminal; answered ${answered}\n`);
  }
  if (answer == null) {
    throw new RefusedError(`${command} not confirmed (the input ended); nothing was changed`);
  }
  if (answer.trim() !== 'yes') throw new RefusedError(`${command} not confirmed (answered ${JSON.stringify(answer.trim())}, not yes); nothing was changed`);
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
      // The cluster lock lapsed (a staged run): that is what stopped it, not an interrupt.
      if (!wasInterrupted(ctx.signal)) throw ctx.signal.reason;
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
