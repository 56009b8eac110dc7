// What a --to value that EKS never had most likely meant: YAML's float reading of an unquoted minor ending in 0.
import { describe, expect, it } from 'vitest';
import { likelyMinor, preEksMinor } from '../../src/ami/minors.js';

describe('likelyMinor', () => {
  it.each([
    ['1.3', '1.30'],
    ['1.2', '1.20'],
    ['1.1', '1.10'],
    ['v1.4', '1.40'],
    [' 1.3 ', '1.30'],
    ['1.3.0', '1.30'],
    ['1.30', undefined],
    ['1.31', undefined],
    ['1.0', undefined],
    ['1.03', undefined],
    ['2.3', undefined],
    ['latest', undefined],
    ['', undefined],
  ])('%j -> %s', (input, meant) => {
    expect(likelyMinor(input)).toBe(meant);
  });
});

describe('preEksMinor', () => {
  it.each([
    ['1.3', { minor: '1.3', meant: '1.30' }],
    ['1.0', { minor: '1.0' }],
    ['1.09', { minor: '1.9' }],
    ['1.10', undefined],
    ['1.31', undefined],
    ['nonsense', undefined],
  ])('%j -> %j', (input, expected) => {
    expect(preEksMinor(input)).toEqual(expected);
  });
});
