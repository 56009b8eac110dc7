// What each stage must have tested: the target AMIs its old nodes move onto (per family, arch and variant), which of
// those nodes are empty (Karpenter deletes them without a replacement), the plan's CANARY-EMPTY refusal, and the
// stage's last checkpoint left untested.
import { describe, expect, it } from 'vitest';
import { canaryChecks, stageAmis, untestedAmis, untestedFinding } from '../../src/gates/coverage.js';
import { plan } from '../../src/plan/plan.js';
import type { NodeClaimView, PodView } from '../../src/karpenter/views.js';
import { NEW, NOW, inventory, nodeClaims, nodePool, nodesOf, pod, targetAmis } from '../plan/factories.js';

const canaryClaims = nodeClaims(2, { nodePool: 'canary' });
const armClaims = nodeClaims(1, { nodePool: 'general', arch: 'arm64', name: 'general-arm' }).map((c) => ({
  ...c,
  name: 'general-arm',
  nodeName: 'ip-general-arm',
}));
const generalClaims = [...nodeClaims(3), ...armClaims];
const daemon = (node: string): PodView => pod({ name: `fluent-bit-${node}`, nodeName: node, daemonSet: true });
const app = (node: string): PodView => pod({ name: `web-${node}`, nodeName: node });

function planned(pods: PodView[]) {
  const inv = inventory({
    nodePools: [
      nodePool({ name: 'canary' }),
      nodePool({ name: 'general', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] }),
    ],
    nodeClaims: [...canaryClaims, ...generalClaims],
    pods,
  });
  const p = plan(inv, targetAmis(), { to: '1.31', pin: 'id', release: 'latest', fieldManager: 'karp-drift' }, NOW);
  return { canary: stageAmis(p, inv, ['canary']), later: stageAmis(p, inv, ['general']) };
}

describe('the target AMIs of a stage', () => {
  it('one per family, arch and variant its old nodes move onto, with the empty nodes (only DaemonSet pods)', () => {
    const { canary, later } = planned([
      daemon('ip-canary-1'),
      app('ip-canary-2'),
      app('ip-general-1'),
      pod({ name: 'done', nodeName: 'ip-general-2', phase: 'Succeeded' }),
    ]);
    expect(canary).toEqual([
      {
        id: NEW['amd64/standard'],
        label: 'al2023 amd64 standard',
        nodePools: [{ name: 'canary', oldNodes: 2, emptyNodes: ['ip-canary-1'] }],
      },
    ]);
    expect(later).toEqual([
      {
        id: NEW['amd64/standard'],
        label: 'al2023 amd64 standard',
        nodePools: [{ name: 'general', oldNodes: 3, emptyNodes: ['ip-general-2', 'ip-general-3'] }],
      },
      {
        id: NEW['arm64/standard'],
        label: 'al2023 arm64 standard',
        nodePools: [{ name: 'general', oldNodes: 1, emptyNodes: ['ip-general-arm'] }],
      },
    ]);
  });
});

describe('CANARY-EMPTY', () => {
  it('a canary with a node that runs pods can test its AMI', () => {
    const { canary, later } = planned([app('ip-canary-2')]);
    expect(canaryChecks(canary, later, ['canary'])).toEqual([]);
  });

  it('a canary that can only delete empty nodes is refused, naming a NodePool that would test the AMI', () => {
    const { canary, later } = planned([daemon('ip-canary-1'), app('ip-general-1')]);
    expect(canaryChecks(canary, later, ['canary'])).toEqual([
      {
        code: 'CANARY-EMPTY',
        level: 'error',
        message: `--canary canary: every old node of the canary is empty, so it can only delete them: Karpenter deletes an empty drifted node without a replacement, and the canary would test nothing on al2023 amd64 standard AMI ${NEW['amd64/standard']}`,
        evidence: [
          'node ip-canary-1 (nodepool/canary): no pod but DaemonSet and static pods',
          'node ip-canary-2 (nodepool/canary): no pod but DaemonSet and static pods',
          'nodepool/general (a later stage): 1 old node with pods would get it untested',
        ],
        next: 'name a canary NodePool whose nodes run pods on that AMI, e.g. --canary general, or schedule pods onto the canary\'s nodes',
      },
    ]);
  });
});

describe('a stage that ends untested', () => {
  const amis = planned([app('ip-canary-2')]).canary;
  const replacement = (o: Partial<NodeClaimView>): NodeClaimView =>
    nodeClaims(1, { nodePool: 'canary', imageId: NEW['amd64/standard'], name: 'canary-new', nodeName: 'ip-canary-new', ...o })[0]!;
  const nodes = (claims: NodeClaimView[], ready = true) => new Map(nodesOf(claims).map((n) => [n.name, { ...n, ready }]));

  it.each<[string, NodeClaimView[], boolean, number]>([
    ['an Initialized, Ready replacement on the AMI tests it', [replacement({})], true, 0],
    ['nothing replaced (its nodes were deleted as empty): untested', [], true, 1],
    ['a replacement not Ready: untested', [replacement({})], false, 1],
    ['a replacement on its way out: untested', [replacement({ deleting: true })], true, 1],
  ])('%s', (_name, claims, ready, untested) => {
    expect(untestedAmis(amis, claims, nodes(claims, ready))).toHaveLength(untested);
  });

  it('says what the plan expected and what stands now', () => {
    expect(untestedFinding(amis[0]!, { index: 0, name: 'canary' }, 0)).toEqual({
      gate: 'replacements',
      code: 'STAGE-UNTESTED',
      subject: `ami/${NEW['amd64/standard']}`,
      nodePool: 'canary',
      ami: NEW['amd64/standard'],
      message: `stage 1 (canary) ends without a replacement on al2023 amd64 standard AMI ${NEW['amd64/standard']} that is Initialized and Ready: nothing has tested that AMI, so the next stage does not begin`,
      evidence: [
        'the plan: 2 old nodes of nodepool/canary move onto it, 1 of them empty then',
        'now: 0 replacements on it, none Initialized with its Node Ready (an empty node is deleted without a replacement)',
      ],
    });
  });
});
