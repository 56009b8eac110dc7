import { describe, expect, it } from 'vitest';
import { etaDuration, humanDuration } from '../../src/text/words.js';

describe('etaDuration: one form for a ticking ETA', () => {
  it.each([
    [0, '0s'],
    [-5_000, '0s'],
    [45_000, '45s'],
    [59_400, '59s'],
    [59_600, '1m'],
    [92_000, '1m32s'], // HumanDuration says 92s here and 3m15s a minute later: two formats in one countdown
    [195_000, '3m15s'],
    [600_000, '10m'],
    [3_599_000, '59m'],
    [3_600_000, '1h'],
    [3_900_000, '1h5m'],
    [47 * 3_600_000 + 59 * 60_000, '47h59m'],
    [2 * 86_400_000 + 4 * 3_600_000, '2d4h'],
  ])('%d ms is %s', (ms, text) => {
    expect(etaDuration(ms)).toBe(text);
  });

  it('differs from HumanDuration where HumanDuration changes form (under two minutes)', () => {
    expect(humanDuration(92_000)).toBe('92s');
    expect(etaDuration(92_000)).toBe('1m32s');
  });
});
