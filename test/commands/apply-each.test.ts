// applyEach (upgrade and rollback): classes in order; an interrupt stops before the next one, and a failure after
// some were applied names them with the way back.
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/cli/program.js';
import { applyEach, type ApplyEach } from '../../src/commands/upgrade-shared.js';
import { InterruptedError, RuntimeFailure } from '../../src/errors.js';

const how = (dryRun = false): ApplyEach => ({
  doing: 'applying',
  done: 'applied',
  dryRun,
  resume: 'resume with: karp-drift upgrade --to 1.30 --yes',
  undo: (done) => `undo with karp-drift rollback ${done.map((n) => `--nodeclass ${n}`).join(' ')}`,
});

function context(): { ctx: CommandContext; interrupt: () => void } {
  const controller = new AbortController();
  return { ctx: { signal: controller.signal } as CommandContext, interrupt: () => controller.abort() };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('applyEach', () => {
  it('applies every class in order', async () => {
    const seen: string[] = [];
    await applyEach(context().ctx, ['a', 'b', 'c'], how(), (n) => Promise.resolve(void seen.push(n)));
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('an interrupt lets the class in flight finish and applies no other, naming those applied', async () => {
    const { ctx, interrupt } = context();
    const seen: string[] = [];
    const err = await failure(
      applyEach(ctx, ['a', 'b', 'c'], how(), (n) => {
        seen.push(n);
        if (n === 'b') interrupt();
        return Promise.resolve();
      }),
    );
    expect(seen).toEqual(['a', 'b']);
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err.message).toBe('interrupted before applying ec2nodeclass/c; applied: a, b');
    expect((err as InterruptedError).hint).toBe('resume with: karp-drift upgrade --to 1.30 --yes');
  });

  it.each<[string, boolean, string[], string]>([
    ['a failure after two classes names them and the way back', false, ['a', 'b'], 'rejected\napplied before it: ec2nodeclass/a, ec2nodeclass/b (undo with karp-drift rollback --nodeclass a --nodeclass b)'],
    ['a failure on the first class changes nothing else', false, [], 'rejected'],
    ['a dry run applied nothing to take back', true, ['a', 'b'], 'rejected'],
  ])('%s', async (_name, dryRun, before, message) => {
    const err = await failure(
      applyEach(context().ctx, [...before, 'x'], how(dryRun), (n) =>
        n === 'x' ? Promise.reject(new RuntimeFailure('rejected')) : Promise.resolve(),
      ),
    );
    expect(err.message).toBe(message);
  });
});
