// What each stage must have tested: the target AMIs its old nodes move onto (per family, arch and variant), which of
// those nodes are empty (Karpenter deletes them without a replacement), the plan's CANARY-EMPTY refusal, and the
// stage's last checkpoint left untested.
import { describe, expect, it } from 'vitest';
import {
  amiTrials,
  canaryChecks,
  stageAmis,
  untestedAmis,
  untestedByWave,
  untestedFinding,
  type AmiTrial,
  type CoverageLook,
} from '../../src/gates/coverage.js';
import { plan } from '../../src/plan/plan.js';
import type { NodeClaimView, PodView } from '../../src/karpenter/views.js';
import { NEW, NOW, condition, inventory, nodeClaim, nodeClaims, nodePool, nodesOf, pod, targetAmis } from '../plan/factories.js';

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

describe('what tests an AMI: a drift replacement of the stage that runs a judged pod, Ready', () => {
  const amis = planned([app('ip-canary-2')]).canary;
  const AMI = NEW['amd64/standard'];
  const replacement = (o: Partial<NodeClaimView> = {}): NodeClaimView =>
    nodeClaim({ nodePool: 'canary', imageId: AMI, name: 'canary-new', nodeName: 'ip-canary-new', ...o });
  const ready = (p: Partial<PodView> = {}) => pod({ name: 'edge-1', nodeName: 'ip-canary-new', ready: true, owner: 'ReplicaSet/edge-6d4b9c7f8', ...p });
  const look = (
    claims: NodeClaimView[],
    pods: PodView[],
    o: { drift?: boolean; nodeReady?: boolean; failing?: string[] } = {},
  ): CoverageLook => ({
    claims,
    nodes: new Map(nodesOf(claims).map((n) => [n.name, { ...n, ready: o.nodeReady ?? true }])),
    pods,
    drift: () => o.drift ?? true,
    failingWorkloads: new Set(o.failing ?? []),
  });
  const trialsOf = (l: CoverageLook, pools = ['canary']) => amiTrials(l, new Set(pools), new Set([AMI]));

  it.each<[string, CoverageLook, AmiTrial['state'] | undefined]>([
    ['a drift replacement, Initialized and Ready, running a pod Ready: tested', look([replacement()], [ready()]), 'tested'],
    // Issue 35 item 4: a Ready node is not a test by itself.
    ['one running only DaemonSet pods: not tested', look([replacement()], [daemon('ip-canary-new'), ready({ daemonSet: true, name: 'agent' })]), 'no pod'],
    ['one running no pod at all: not tested', look([replacement()], []), 'no pod'],
    ['its pod not Ready yet: not tested', look([replacement()], [ready({ ready: false })]), 'no pod'],
    ['its pod a static (mirror) pod: not tested', look([replacement()], [ready({ mirror: true })]), 'no pod'],
    ['its pod on its way out: not tested', look([replacement()], [ready({ deleting: true })]), 'no pod'],
    ['its pod Succeeded (a Job done): not tested', look([replacement()], [ready({ phase: 'Succeeded' })]), 'no pod'],
    // The workloads gate leaves out a workload already failing before the rollout: it judges nothing here either.
    ['its pod of a workload failing at the baseline: not tested', look([replacement()], [ready()], { failing: ['shop/ReplicaSet/edge-6d4b9c7f8'] }), 'no pod'],
    ['its pod on another node: not tested', look([replacement()], [ready({ nodeName: 'ip-canary-2' })]), 'no pod'],
    // A node Karpenter's provisioner launched for pending pods: the stage moved none of its pods there.
    ['a scale-up running a pod Ready: not tested', look([replacement()], [ready()], { drift: false }), 'scale-up'],
    [
      'a drift replacement not Initialized',
      look([replacement({ conditions: { Launched: condition(), Registered: condition(), Initialized: condition('Unknown') } })], [ready()]),
      'not Initialized',
    ],
    ['a drift replacement whose Node is NotReady', look([replacement()], [ready()], { nodeReady: false }), 'NotReady'],
    ['a drift replacement on its way out', look([replacement({ deleting: true })], [ready()]), 'deleting'],
    ["another stage's NodePool: not the stage's trial", look([replacement({ nodePool: 'general' })], [ready()]), undefined],
    ['on an AMI that is no target of the stage: not a trial', look([replacement({ imageId: 'ami-other' })], [ready()]), undefined],
  ])('%s', (_name, l, state) => {
    expect(trialsOf(l).get(AMI)?.[0]?.state).toBe(state);
  });

  it('the stage end asks each AMI with old nodes that run pods, whatever was replaced; the 1/ami wave only those a drift replacement runs', () => {
    const none = trialsOf(look([], []));
    const scaleUp = trialsOf(look([replacement()], [ready()], { drift: false }));
    const daemons = trialsOf(look([replacement()], [daemon('ip-canary-new')]));
    const good = trialsOf(look([replacement(), replacement({ name: 'canary-other', nodeName: 'ip-canary-other' })], [ready()]));
    expect(untestedAmis(amis, none)).toEqual(amis);
    expect(untestedAmis(amis, scaleUp)).toEqual(amis);
    expect(untestedAmis(amis, daemons)).toEqual(amis);
    expect(untestedAmis(amis, good)).toEqual([]);
    // The wave picks again while the AMI has no drift replacement (stages/ami-picks.ts): only one that tests nothing halts it.
    expect(untestedByWave(amis, none)).toEqual([]);
    expect(untestedByWave(amis, scaleUp)).toEqual([]);
    expect(untestedByWave(amis, daemons)).toEqual(amis);
    expect(untestedByWave(amis, good)).toEqual([]);
    // An AMI whose old nodes were all empty at the plan: nothing to test at the stage end.
    const emptyOnly = planned([daemon('ip-canary-1')]).canary;
    expect(untestedAmis(emptyOnly, none)).toEqual([]);
  });

  it('says what the plan expected and what each NodeClaim on the AMI shows', () => {
    const trials = trialsOf(
      look(
        [replacement(), replacement({ name: 'canary-up', nodeName: 'ip-canary-up' })],
        [daemon('ip-canary-new')],
        {},
      ),
    ).get(AMI)!;
    trials[1] = { ...trials[1]!, drift: false, state: 'scale-up' };
    expect(untestedFinding(amis[0]!, { index: 0, name: 'canary' }, trials)).toEqual({
      gate: 'replacements',
      code: 'STAGE-UNTESTED',
      subject: `ami/${AMI}`,
      nodePool: 'canary',
      ami: AMI,
      message: `stage 1 (canary) ends without a drift replacement on al2023 amd64 standard AMI ${AMI} that runs a pod Ready (not a DaemonSet's): nothing has tested that AMI with a workload, so the next stage does not begin`,
      evidence: [
        'the plan: 2 old nodes of nodepool/canary move onto it, 1 of them empty then',
        "nodeclaim/canary-new (node ip-canary-new) in nodepool/canary: a drift replacement, Initialized and Ready, that runs only DaemonSet pods (1): its old node's pods were scheduled elsewhere, or are not Ready",
        'nodeclaim/canary-up (node ip-canary-up) in nodepool/canary: not a drift replacement (no DisruptionLaunching event, not created with a drift command): Karpenter launched it for pending pods, so it tests nothing of this stage',
      ],
    });
    expect(untestedFinding(amis[0]!, { index: 0, name: 'rollout', wave: 0 }, []).message).toBe(
      `stage 1 (rollout) wave 1 (1/ami) ends without a drift replacement on al2023 amd64 standard AMI ${AMI} that runs a pod Ready (not a DaemonSet's): nothing has tested that AMI with a workload, so the next wave does not begin`,
    );
    expect(untestedFinding(amis[0]!, { index: 0, name: 'canary' }, []).evidence[1]).toBe(
      'now: no NodeClaim of the stage runs it (an empty node is deleted without a replacement)',
    );
  });
});
