import { describe, expect, it } from 'vitest';
import { nodeHoldChanges, type OldNode } from '../../src/apis/node-hold.js';

const node = (name: string, o: Partial<OldNode> = {}): OldNode => ({
  name,
  doNotDisrupt: false,
  heldByUs: false,
  empty: false,
  ...o,
});
const held = (name: string, o: Partial<OldNode> = {}) => node(name, { doNotDisrupt: true, heldByUs: true, ...o });

describe('nodeHoldChanges', () => {
  it.each<[string, OldNode[], number | 'release', { hold: string[]; release: string[] }]>([
    ['hold all: allowance 0', [node('a'), node('b')], 0, { hold: ['a', 'b'], release: [] }],
    [
      'the oldest Drifted stays free',
      [node('a', { driftedSince: '2026-11-25T12:00:05Z' }), node('b', { driftedSince: '2026-11-25T12:00:01Z' })],
      1,
      { hold: ['a'], release: [] },
    ],
    [
      'empty nodes first, as Karpenter',
      [
        node('a', { driftedSince: '2026-11-25T12:00:01Z' }),
        node('b', { empty: true, driftedSince: '2026-11-25T12:00:09Z' }),
      ],
      1,
      { hold: ['a'], release: [] },
    ],
    [
      'a node already free stays free (no flip)',
      [held('a', { driftedSince: '2026-11-25T12:00:01Z' }), node('b', { driftedSince: '2026-11-25T12:00:09Z' })],
      1,
      { hold: [], release: [] },
    ],
    [
      'opening a wave releases held nodes, oldest first',
      [
        held('a', { driftedSince: '2026-11-25T12:00:09Z' }),
        held('b', { driftedSince: '2026-11-25T12:00:01Z' }),
        held('c'),
      ],
      2,
      { hold: [], release: ['a', 'b'] },
    ],
    [
      "the user's own do-not-disrupt is never touched nor counted",
      [node('u', { doNotDisrupt: true }), held('a')],
      1,
      { hold: [], release: ['a'] },
    ],
    [
      'release: only our holds come off',
      [node('u', { doNotDisrupt: true }), held('a'), node('b')],
      'release',
      { hold: [], release: ['a'] },
    ],
    ['allowance beyond the nodes frees them all', [held('a'), node('b')], 5, { hold: [], release: ['a'] }],
  ])('%s', (_name, nodes, allowance, expected) => {
    expect(nodeHoldChanges(nodes, allowance)).toEqual(expected);
  });
});
