// A batch's requests, at most N on the wire: the others wait their turn, in the order they came, and a failed request
// gives its place up like a finished one.
import { describe, expect, it } from 'vitest';
import { inFlight } from '../../src/cluster/in-flight.js';

/** A request that settles when the test says so, recording when it started. */
function requests(n: number, started: number[]) {
  return Array.from({ length: n }, (_, i) => {
    let settle: (ok: boolean) => void = () => undefined;
    const request = () =>
      new Promise<number>((resolve, reject) => {
        started.push(i);
        settle = (ok) => (ok ? resolve(i) : reject(new Error(`request ${i} failed`)));
      });
    return { request, settle: (ok = true) => settle(ok) };
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('inFlight', () => {
  it.each([1, 2, 3])('runs at most %i at once, the rest in the order they came', async (limit) => {
    const started: number[] = [];
    const slots = inFlight(limit);
    const rs = requests(5, started);
    const results = rs.map((r) => slots.run(r.request));
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4].slice(0, limit));
    for (const [i, r] of rs.entries()) {
      r.settle();
      await turn();
      expect(started).toEqual([0, 1, 2, 3, 4].slice(0, Math.min(5, limit + i + 1)));
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4]);
  });

  it('gives a failed request its place up, and its caller the failure', async () => {
    const started: number[] = [];
    const slots = inFlight(1);
    const [first, second] = requests(2, started);
    const failed = slots.run(first!.request);
    const next = slots.run(second!.request);
    await turn();
    first!.settle(false);
    await expect(failed).rejects.toThrow('request 0 failed');
    await turn();
    expect(started).toEqual([0, 1]);
    second!.settle();
    expect(await next).toBe(1);
  });

  it('never lets a newcomer past one that waits when a place frees', async () => {
    const started: number[] = [];
    const slots = inFlight(1);
    const [a, b, c] = requests(3, started);
    void slots.run(a!.request);
    void slots.run(b!.request);
    await turn();
    a!.settle();
    void slots.run(c!.request); // arrives in the same turn as the place a gave up
    await turn();
    expect(started).toEqual([0, 1]);
    b!.settle();
    await turn();
    expect(started).toEqual([0, 1, 2]);
  });
});
