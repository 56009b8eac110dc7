// Quantities as the sandbox's objects write them, summed for a NodePool's status.resources and written back.
import { describe, expect, it } from 'vitest';
import { quantityText, quantityValue } from '../../../src/sandbox/karpenter/nodepool-counts.js';

describe('quantities for NodePool status.resources', () => {
  it.each([
    ['4', 4],
    ['3920m', 3.92],
    ['16384Mi', 16384 * 2 ** 20],
    ['20Gi', 20 * 2 ** 30],
    ['58', 58],
    [undefined, 0],
    ['lots', 0],
  ])('%s is %d', (q, value) => expect(quantityValue(q)).toBeCloseTo(value));

  it.each([
    [48, 'cpu', '48'],
    [3.92, 'cpu', '3920m'],
    [3 * 16384 * 2 ** 20, 'memory', '48Gi'],
    [1536 * 2 ** 20, 'memory', '1536Mi'],
    [0, 'memory', '0'],
    [60 * 2 ** 30, 'ephemeral-storage', '60Gi'],
    [174, 'pods', '174'],
  ])('%d of %s is %s', (value, resource, text) => expect(quantityText(value, resource)).toBe(text));
});
