import { describe, expect, it } from 'vitest';
import { nodeHoldChanges, type NodeHoldChanges, type OldNode } from '../../src/apis/node-hold.js';

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

describe('nodeHoldChanges with the nodes to leave free named (a 1/ami wave’s picks)', () => {
  it.each<[string, OldNode[], number, string[], NodeHoldChanges]>([
    // Karpenter's order would free the empty node first; the pick is another one.
    ['exactly the picks are free, whatever the order', [node('a', { empty: true }), node('b'), node('c')], 1, ['c'], { hold: ['a', 'b'], release: [] }],
    ['a pick held by an earlier run is released', [held('a'), held('b'), node('c')], 1, ['b'], { hold: ['c'], release: ['b'] }],
    ['never more free than the allowance', [node('a'), node('b')], 1, ['a', 'b'], { hold: ['b'], release: [] }],
    ["a person's do-not-disrupt is never taken, even if named", [node('u', { doNotDisrupt: true }), node('a')], 1, ['u'], { hold: ['a'], release: [] }],
  ])('%s', (_name, nodes, allowance, only, expected) => {
    expect(nodeHoldChanges(nodes, allowance, only)).toEqual(expected);
  });
});
