import { describe, expect, it } from 'vitest';
import { generatedName, instanceId, privateDnsName, seededUid } from '../../../src/sandbox/scenarios/names.js';
import { seededRandom } from '../../../src/sandbox/scenarios/random.js';

const draws = (rng: { next(): number }, n = 5) => Array.from({ length: n }, () => rng.next());

describe('seededRandom', () => {
  it('replays the same sequence for the same seed and stream, and another for another', () => {
    expect(draws(seededRandom(1))).toEqual(draws(seededRandom(1)));
    expect(draws(seededRandom(1))).not.toEqual(draws(seededRandom(2)));
    expect(draws(seededRandom(1, 'nodes'))).not.toEqual(draws(seededRandom(1, 'pods')));
  });

  it('draws floats in [0, 1) and integers in [lo, hi] inclusive', () => {
    const rng = seededRandom(7);
    const ints = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
      ints.add(rng.int(3, 6));
    }
    expect([...ints].sort()).toEqual([3, 4, 5, 6]);
  });

  it('picks from a list and draws characters from an alphabet', () => {
    const rng = seededRandom(3);
    expect(['a', 'b']).toContain(rng.pick(['a', 'b']));
    expect(() => rng.pick([])).toThrow('seededRandom.pick: nothing to pick from');
    expect(rng.chars(12, 'xy')).toMatch(/^[xy]{12}$/);
  });
});

describe('names', () => {
  it('never repeats a name it was told is taken', () => {
    const rng = seededRandom(1);
    const taken = new Set<string>();
    for (let i = 0; i < 20_000; i++) generatedName(rng, 'general-', taken);
    expect(taken.size).toBe(20_000);
  });

  it('shapes EC2 names and IDs as AWS does', () => {
    const rng = seededRandom(1);
    expect(privateDnsName(rng, 1, new Set())).toMatch(
      /^ip-10-0-(6[4-9]|[7-9]\d|1[01]\d|12[0-7])-\d+\.us-west-2\.compute\.internal$/,
    );
    expect(instanceId(rng, new Set())).toMatch(/^i-0[0-9a-f]{16}$/);
    expect(seededUid(rng)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
