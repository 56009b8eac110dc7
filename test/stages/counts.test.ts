import { describe, expect, it } from 'vitest';
import type { NodeClaimView, NodeView } from '../../src/karpenter/views.js';
import { heldNodesOf, observePools, type StagedScope } from '../../src/stages/counts.js';
import { node, nodeClaim, nodeFor } from '../rollout/factories.js';

const scope: StagedScope = {
  nodePools: [
    { name: 'general', nodeClass: 'default' },
    { name: 'canary', nodeClass: 'canary' },
  ],
  targetImageIds: { default: ['ami-new', 'ami-new-arm'], canary: ['ami-canary-new'] },
};

/** A registered NodeClaim of `pool` and its Node, each with overrides. */
const pair = (
  name: string,
  claim: Parameters<typeof nodeClaim>[0] = {},
  n: Partial<NodeView> = {},
): [NodeClaimView, NodeView] => {
  const c = nodeClaim({ name, ...claim });
  return [c, nodeFor(c, n)];
};
const observe = (pairs: Array<[NodeClaimView, NodeView | undefined]>) =>
  observePools(
    pairs.map(([c]) => c),
    new Map(pairs.flatMap(([, n]) => (n !== undefined ? [[n.name, n] as const] : []))),
    scope,
  );
const countsOf = (pairs: Array<[NodeClaimView, NodeView | undefined]>) =>
  Object.fromEntries(observe(pairs).counts.map((c) => [c.name, [c.untouched, c.inflight]]));

describe('observePools: counts', () => {
  it.each<[string, Array<[NodeClaimView, NodeView | undefined]>, Record<string, [number, number]>]>([
    ['nothing', [], { general: [0, 0], canary: [0, 0] }],
    ['an old NodeClaim, untouched', [pair('g1')], { general: [1, 0], canary: [0, 0] }],
    [
      'on a target AMI: not old',
      [pair('g1', { imageId: 'ami-new' }), pair('g2', { imageId: 'ami-new-arm' })],
      { general: [0, 0], canary: [0, 0] },
    ],
    // A target of another EC2NodeClass is not this NodePool's target.
    [
      "on another NodeClass's target: old",
      [pair('g1', { imageId: 'ami-canary-new' })],
      { general: [1, 0], canary: [0, 0] },
    ],
    // A replacement still launching has no imageId yet: neither old nor counted.
    [
      'a NodeClaim without imageId (launching)',
      [[nodeClaim({ name: 'g1', phase: 'created' }), undefined]],
      { general: [0, 0], canary: [0, 0] },
    ],
    // Launched but not registered: old, untouched, no Node.
    [
      'an old NodeClaim without a Node yet',
      [[nodeClaim({ name: 'g1', phase: 'launched' }), undefined]],
      { general: [1, 0], canary: [0, 0] },
    ],
    ['DisruptionReason=True: in flight', [pair('g1', { disruptionReason: true })], { general: [0, 1], canary: [0, 0] }],
    ['a deleting NodeClaim: in flight', [pair('g1', { deleting: true })], { general: [0, 1], canary: [0, 0] }],
    [
      'its Node tainted karpenter.sh/disrupted: in flight',
      [pair('g1', {}, { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] })],
      { general: [0, 1], canary: [0, 0] },
    ],
    [
      'its Node tainted karpenter.sh/disruption (v1beta1): in flight',
      [pair('g1', {}, { taints: [{ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' }] })],
      { general: [0, 1], canary: [0, 0] },
    ],
    [
      'another taint: untouched',
      [pair('g1', {}, { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] })],
      { general: [1, 0], canary: [0, 0] },
    ],
    ['its Node being deleted: in flight', [pair('g1', {}, { deleting: true })], { general: [0, 1], canary: [0, 0] }],
    ['Drifted but not picked: untouched', [pair('g1', { drifted: true })], { general: [1, 0], canary: [0, 0] }],
    [
      'NodeClaims of a NodePool out of scope, or of none, are ignored',
      [pair('o1', { nodePool: 'other' }), pair('o2', { nodePool: undefined })],
      { general: [0, 0], canary: [0, 0] },
    ],
    [
      'a mix, per NodePool',
      [
        pair('g1'),
        pair('g2', { disruptionReason: true }),
        pair('g3', { imageId: 'ami-new' }),
        pair('c1', { nodePool: 'canary', nodeClass: 'canary' }),
        pair('c2', { nodePool: 'canary', nodeClass: 'canary', imageId: 'ami-canary-new' }),
        pair('c3', { nodePool: 'canary', nodeClass: 'canary' }, { deleting: true }),
      ],
      { general: [1, 1], canary: [1, 1] },
    ],
  ])('%s', (_name, pairs, expected) => {
    expect(countsOf(pairs)).toEqual(expected);
  });

  it('counts every NodePool in scope, in scope order', () => {
    expect(observe([pair('c1', { nodePool: 'canary' })]).counts).toEqual([
      { name: 'general', untouched: 0, inflight: 0 },
      { name: 'canary', untouched: 1, inflight: 0 },
    ]);
  });
});

describe('observePools: old Nodes', () => {
  it('lists the Nodes of old, untouched NodeClaims with their hold state and Drifted time', () => {
    const o = observe([
      pair('g1'),
      pair('g2', { drifted: true }, { doNotDisrupt: true, heldBy: 'run-1' }),
      pair('g3', { conditions: { Drifted: { status: 'False', reason: 'NotDrifted', message: '' } } }),
      pair('g4', {}, { doNotDisrupt: true }),
      pair('g5', { disruptionReason: true }),
      pair('g6', { imageId: 'ami-new' }),
      [nodeClaim({ name: 'g7', phase: 'launched' }), undefined],
      pair('o1', { nodePool: 'other' }),
    ]);
    expect(o.oldNodes).toEqual(
      new Map([
        [
          'general',
          [
            { name: 'ip-g1', doNotDisrupt: false, heldByUs: false, empty: false },
            {
              name: 'ip-g2',
              doNotDisrupt: true,
              heldByUs: true,
              driftedSince: '2025-08-20T14:01:00Z',
              empty: false,
            },
            { name: 'ip-g3', doNotDisrupt: false, heldByUs: false, empty: false },
            { name: 'ip-g4', doNotDisrupt: true, heldByUs: false, empty: false },
          ],
        ],
        ['canary', []],
      ]),
    );
  });

  it('a Drifted condition without a transition time gives no driftedSince', () => {
    const o = observe([pair('g1', { conditions: { Drifted: { status: 'True', reason: 'AMIDrift', message: '' } } })]);
    expect(o.oldNodes.get('general')).toEqual([{ name: 'ip-g1', doNotDisrupt: false, heldByUs: false, empty: false }]);
  });
});

describe('heldNodesOf', () => {
  it('lists the Nodes karp-drift holds in one NodePool, whatever their NodeClaim', () => {
    const nodes = [
      node({ name: 'a', heldBy: 'run-1', doNotDisrupt: true }),
      node({ name: 'b', doNotDisrupt: true }),
      node({ name: 'c', heldBy: 'run-2' }),
      node({ name: 'd', nodePool: 'canary', heldBy: 'run-1' }),
      node({ name: 'e', nodePool: undefined, heldBy: 'run-1' }),
    ];
    expect(heldNodesOf(nodes, 'general')).toEqual(['a', 'c']);
    expect(heldNodesOf(nodes, 'canary')).toEqual(['d']);
    expect(heldNodesOf(nodes, 'batch')).toEqual([]);
  });
});

// What a budget hold must add to its allowance: Karpenter's own `disrupting` for the NodePool (helpers.go
// BuildDisruptionBudgetMapping), old nodes and new alike.
describe('observePools: what Karpenter counts as disrupting', () => {
  it.each<[string, Array<[NodeClaimView, NodeView | undefined]>, number]>([
    ['nothing', [], 0],
    ['an old node, Ready and untouched', [pair('g1')], 0],
    ['a replacement in flight (its old node picked)', [pair('g1', { disruptionReason: true }), pair('g2')], 1],
    ['an old node being deleted', [pair('g1', { deleting: true })], 1],
    // statenode.go Deleted(): a Node's own deletion counts only for a Node without a NodeClaim (budget-mapping.ts).
    ['its Node being deleted, its NodeClaim not: Ready, so not disrupting', [pair('g1', {}, { deleting: true })], 0],
    ['its Node being deleted and NotReady', [pair('g1', {}, { deleting: true, ready: false })], 1],
    ['its Node tainted karpenter.sh/disrupted (picked)', [pair('g1', {}, { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] })], 1],
    // Not part of the rollout, yet it uses up budget all the same: the hold must not let it block the wave.
    ['a NotReady node on a target AMI', [pair('g1', { imageId: 'ami-new' }, { ready: false })], 1],
    ['a replacement not yet initialized is not counted at all', [pair('g1', { imageId: 'ami-new' }, { initialized: false, ready: false })], 0],
    ['a NodeClaim without its Node is not counted', [[nodeClaim({ name: 'g1', phase: 'launched' }), undefined]], 0],
  ])('%s: %i', (_name, pairs, disrupting) => {
    expect(observe(pairs).disrupting.get('general')).toBe(disrupting);
  });
});
