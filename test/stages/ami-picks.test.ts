// The `1/ami` wave's picks: one node per target AMI not tested yet, on a node that runs pods, where Karpenter will take
// exactly it (DOMAIN.md §2.5: empty nodes first, then the oldest Drifted; do-not-disrupt is read every pass).
import { describe, expect, it } from 'vitest';
import type { NodeClaimView, NodeView } from '../../src/karpenter/views.js';
import { amiPicks, type AmiPickScope } from '../../src/stages/ami-picks.js';
import type { HoldMechanism } from '../../src/stages/hold-mechanism.js';
import { nodeClaim, nodeFor } from '../rollout/factories.js';

const AMD = 'ami-new';
const ARM = 'ami-new-arm';

const scopeOf = (holds: Record<string, HoldMechanism> = {}, empty: string[] = []): AmiPickScope => ({
  nodePools: ['canary', 'general', 'arm'].map((name) => ({ name, nodeClass: 'default', hold: holds[name] ?? 'budget' })),
  classes: new Map([
    [
      'default',
      {
        family: 'al2023' as const,
        targets: [
          { id: AMD, arch: 'amd64' as const, variant: 'standard' as const },
          { id: ARM, arch: 'arm64' as const, variant: 'standard' as const },
        ],
      },
    ],
  ]),
  emptyNodes: new Set(empty.map((n) => `ip-${n}`)),
});

interface Spec {
  pool: string;
  arch?: 'amd64' | 'arm64';
  image?: string;
  drifted?: number;
  disrupting?: boolean;
  deleting?: boolean;
  userHold?: boolean;
  ourHold?: boolean;
}

function cluster(specs: Record<string, Spec>): { claims: NodeClaimView[]; nodes: Map<string, NodeView> } {
  const claims: NodeClaimView[] = [];
  const nodes = new Map<string, NodeView>();
  for (const [name, s] of Object.entries(specs)) {
    const c = nodeClaim({ name, disruptionReason: s.disrupting === true, deleting: s.deleting === true });
    const claim: NodeClaimView = {
      ...c,
      nodePool: s.pool,
      arch: s.arch ?? 'amd64',
      imageId: s.image ?? 'ami-old',
      ...(s.drifted !== undefined
        ? {
            conditions: {
              ...c.conditions,
              Drifted: { status: 'True', reason: 'AMIDrift', message: 'AMIDrift', lastTransitionTime: `2026-11-25T12:0${s.drifted}:00Z` },
            },
          }
        : {}),
    };
    claims.push(claim);
    const n = nodeFor(claim, {
      nodePool: s.pool,
      doNotDisrupt: s.userHold === true || s.ourHold === true,
      ...(s.ourHold === true ? { heldBy: 'run-1' } : {}),
    });
    nodes.set(n.name, n);
  }
  return { claims, nodes };
}

const picks = (stage: string[], specs: Record<string, Spec>, scope = scopeOf()) => {
  const { claims, nodes } = cluster(specs);
  return amiPicks(stage, claims, nodes, scope).map((p) => `${p.ami} ${p.nodePool} ${p.node}${p.exact ? '' : ' (others held)'}`);
};

describe('amiPicks: one node per target AMI, where Karpenter takes exactly it', () => {
  it.each<[string, string[], Record<string, Spec>, string[], AmiPickScope?]>([
    ['nothing old: nothing to pick', ['general'], { g1: { pool: 'general', image: AMD } }, []],
    // A NodePool whose old nodes all move onto the one AMI and run pods: its budget of one is exact.
    [
      'a single-AMI NodePool: exact by its budget alone',
      ['general'],
      { g1: { pool: 'general' }, g2: { pool: 'general' } },
      [`${AMD} general ip-g1`],
    ],
    // Two AMIs in one NodePool: a budget of 2 could take two amd64 nodes, so the others are held for the wave.
    [
      'a mixed NodePool: each AMI on one node, the others held',
      ['general'],
      { g1: { pool: 'general' }, g2: { pool: 'general', arch: 'arm64' }, g3: { pool: 'general' } },
      [`${AMD} general ip-g1 (others held)`, `${ARM} general ip-g2 (others held)`],
    ],
    // The exact NodePool first (no node writes), then the smallest: canary (amd64 only) for amd64, general for arm64.
    [
      'exact NodePools first, the smallest next',
      ['canary', 'general'],
      {
        c1: { pool: 'canary' },
        c2: { pool: 'canary' },
        g1: { pool: 'general' },
        g2: { pool: 'general', arch: 'arm64' },
        g3: { pool: 'general', arch: 'arm64' },
      },
      [`${AMD} canary ip-c1`, `${ARM} general ip-g2 (others held)`],
    ],
    [
      'among inexact NodePools, the one with the fewest old nodes (the fewest node writes)',
      ['general', 'arm'],
      {
        g1: { pool: 'general' },
        g2: { pool: 'general', arch: 'arm64' },
        g3: { pool: 'general' },
        a1: { pool: 'arm', arch: 'arm64' },
        a2: { pool: 'arm' },
      },
      [`${AMD} arm ip-a2 (others held)`, `${ARM} arm ip-a1 (others held)`],
    ],
    // Karpenter deletes an empty drifted node without a replacement (and takes it first): it would test nothing.
    [
      'an empty node is never the pick, and makes its NodePool inexact',
      ['general'],
      { g1: { pool: 'general' }, g2: { pool: 'general' } },
      [`${AMD} general ip-g2 (others held)`],
      scopeOf({}, ['g1']),
    ],
    ['only empty nodes on the AMI: nothing to test it with', ['general'], { g1: { pool: 'general' } }, [], scopeOf({}, ['g1'])],
    // Karpenter's own order among the nodes that test it: the oldest Drifted first.
    [
      'the oldest Drifted first',
      ['general'],
      { g1: { pool: 'general', drifted: 5 }, g2: { pool: 'general', drifted: 2 }, g3: { pool: 'general', arch: 'arm64' } },
      [`${AMD} general ip-g2 (others held)`, `${ARM} general ip-g3 (others held)`],
    ],
    // Tested: a NodeClaim runs it, or an old node moving onto it is being replaced (its replacement has no imageID
    // until it launches: picking again would start a second one).
    [
      'an AMI a NodeClaim runs is tested',
      ['general'],
      { g1: { pool: 'general' }, g2: { pool: 'general', arch: 'arm64' }, r1: { pool: 'general', image: ARM } },
      [`${AMD} general ip-g1 (others held)`],
    ],
    [
      'an AMI whose old node is being replaced is tested',
      ['general'],
      // …and the NodePool's only untouched old node moves onto the other AMI: its budget is exact again.
      { g1: { pool: 'general', disrupting: true }, g2: { pool: 'general', arch: 'arm64' } },
      [`${ARM} general ip-g2`],
    ],
    [
      'an AMI whose old node is being deleted is tested',
      ['canary', 'general'],
      { g1: { pool: 'general', deleting: true }, c1: { pool: 'canary' } },
      [],
    ],
    // Tested in an earlier stage (another NodePool in scope) counts: the canary stage tested it.
    [
      'tested by a NodeClaim of a NodePool outside the stage',
      ['general'],
      { g1: { pool: 'general' }, c9: { pool: 'canary', image: AMD } },
      [],
    ],
    // A person's do-not-disrupt is never taken over: Karpenter will not take that node.
    [
      "a person's do-not-disrupt: not a pick",
      ['general'],
      { g1: { pool: 'general', userHold: true }, g2: { pool: 'general' } },
      [`${AMD} general ip-g2`],
    ],
    // karp-drift's own hold (an earlier run's wave) is lifted from the pick.
    ["karp-drift's own hold: still a pick", ['general'], { g1: { pool: 'general', ourHold: true } }, [`${AMD} general ip-g1`]],
    // Held with its nodes anyway (GitOps owns the budgets): always exact.
    [
      'a NodePool held with its nodes is exact',
      ['general'],
      { g1: { pool: 'general' }, g2: { pool: 'general', arch: 'arm64' } },
      [`${AMD} general ip-g1`, `${ARM} general ip-g2`],
      scopeOf({ general: 'node' }),
    ],
  ])('%s', (_name, stage, specs, expected, scope) => {
    expect(picks(stage, specs, scope)).toEqual(expected);
  });
});

// With the built-in gates only a drift replacement tests an AMI (gates/coverage.ts), so the picks count only those
// (the gate keeper's `driftReplacement`): a scale-up on the AMI leaves it to be picked.
describe('amiPicks: which NodeClaims on a target count', () => {
  const specs: Record<string, Spec> = { g1: { pool: 'general' }, up1: { pool: 'general', image: AMD } };
  it.each<[string, ((c: NodeClaimView) => boolean) | undefined, string[]]>([
    ['every one, by default (no built-in gates)', undefined, []],
    ['a drift replacement on it: tested', (c) => c.name === 'up1', []],
    ['only a scale-up on it: picked all the same', () => false, [`${AMD} general ip-g1`]],
  ])('%s', (_name, counts, expected) => {
    const { claims, nodes } = cluster(specs);
    expect(amiPicks(['general'], claims, nodes, scopeOf(), counts).map((p) => `${p.ami} ${p.nodePool} ${p.node}`)).toEqual(expected);
  });
});
