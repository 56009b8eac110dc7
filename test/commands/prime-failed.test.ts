// A staged run that ends before its follow (interrupted or failed while its holds go on or its classes are applied)
// ends with a `done` as every -o json run does (docs/reference/json-output.md): `paused` with its cause when some class
// was applied and the pause written, else what it was. Found with eight test files at a time: a run interrupted during
// the apply printed none.
import { describe, expect, it } from 'vitest';
import { primeFailed } from '../../src/commands/upgrade-staged.js';
import type { EarlyEnd } from '../../src/commands/early-done.js';
import type { Pacer } from '../../src/commands/staged-pacer.js';
import { RuntimeFailure } from '../../src/errors.js';
import type { Inventory } from '../../src/karpenter/views.js';

const inventory = { nodes: [], nodeClaims: [] } as unknown as Inventory;

function pacer(pause: () => Promise<string[]>): Pacer {
  return { finish: () => Promise.resolve(), pause } as unknown as Pacer;
}

const interrupted = () => {
  const c = new AbortController();
  c.abort(new Error('received SIGINT'));
  return c.signal;
};
const live = () => new AbortController().signal;

/** What the run's `done` says besides its message: interrupted or failed carry no cause or held NodePools. */
type DoneWithoutMessage = { result: 'paused'; cause: string; paused: string[] } | { result: 'interrupted' | 'failed' };

describe('primeFailed: the done of a run that ends before its follow', () => {
  it.each<[string, boolean, AbortSignal, () => Promise<string[]>, DoneWithoutMessage, RegExp]>([
    ['interrupted after a class was applied', true, interrupted(), () => Promise.resolve(['canary', 'general']), { result: 'paused', cause: 'interrupted', paused: ['canary', 'general'] }, /^interrupted during the EC2NodeClass apply; the staged rollout is paused: karp-drift holds Drifted disruption on nodepool\/canary, nodepool\/general/],
    ['interrupted before any class', false, interrupted(), () => Promise.resolve([]), { result: 'interrupted' }, /^interrupted before the EC2NodeClass apply; karp-drift's holds were taken off again; nothing was changed$/],
    ['an apply refused after a class was applied', true, live(), () => Promise.resolve(['canary']), { result: 'paused', cause: 'failed', paused: ['canary'] }, /^the API server refused.*; the staged rollout is paused/],
    ['interrupted after a class was applied, the pause not written', true, interrupted(), () => Promise.reject(new Error('connection refused')), { result: 'interrupted' }, /could not write its holds/],
  ])('%s', async (_, someApplied, signal, pause, done, message) => {
    const ended: EarlyEnd[] = [];
    const err = new RuntimeFailure('the API server refused the apply');
    const said = await primeFailed(err, pacer(pause), inventory, someApplied, signal, 'the upgrade', (e) => ended.push(e));
    expect(ended).toHaveLength(1);
    expect(ended[0]).toEqual({ ...done, message: (said as Error).message });
    expect(ended[0]!.message).toMatch(message);
  });
});
