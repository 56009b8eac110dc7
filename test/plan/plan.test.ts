import { describe, expect, it } from 'vitest';
import type { ResolvedAmi } from '../../src/ami/verify.js';
import type { Inventory, NodeClassView } from '../../src/karpenter/views.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { plan, type AmiSpec, type PlanOptions } from '../../src/plan/plan.js';
import {
  NEW,
  NOW,
  OLD,
  aliasStatusAmis,
  idStatusAmis,
  inventory,
  node,
  nodeClaim,
  nodeClaims,
  nodeClass,
  nodePool,
  nodesOf,
  resolvedAmi,
  targetAmis,
} from './factories.js';

const options = (overrides: Partial<PlanOptions> = {}): PlanOptions => ({
  to: '1.31',
  pin: 'id',
  release: 'latest',
  fieldManager: 'karp-drift',
  ...overrides,
});
const run = (inv: Inventory = inventory(), overrides: Partial<PlanOptions> = {}, amis: ResolvedAmi[] = targetAmis()) =>
  plan(inv, amis, options(overrides), NOW);

const bottlerocket = (pair: 'amd64/standard' | 'arm64/standard'): ResolvedAmi =>
  resolvedAmi(pair, {
    family: 'bottlerocket',
    release: '1.26.1',
    name: `bottlerocket-aws-k8s-1.31-${pair.startsWith('amd64') ? 'x86_64' : 'aarch64'}-v1.26.1-943d9a41`,
  });

describe('plan: the pin', () => {
  it.each<[string, Partial<NodeClassView>, PlanOptions['pin'], AmiSpec, boolean, ResolvedAmi[]?]>([
    [
      // The v1 CRD needs amiFamily without an alias; the same family keeps Karpenter's hash (AMIDrift only).
      'alias → id: amiFamily becomes explicit',
      {},
      'id',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ id: NEW['amd64/standard'] }] },
      true,
    ],
    [
      'alias → alias: the resolved release, never latest',
      {},
      'alias',
      { amiSelectorTerms: [{ alias: 'al2023@v20241109' }] },
      true,
    ],
    [
      'alias with amiFamily Custom → id: Custom stays (the class owns its user data)',
      { amiFamily: 'Custom' },
      'id',
      { amiFamily: 'Custom', amiSelectorTerms: [{ id: NEW['amd64/standard'] }] },
      true,
    ],
    [
      'id → alias: amiFamily is kept',
      {
        amiFamily: 'AL2023',
        amiSelectorTerms: [{ id: OLD['amd64/standard'] }],
        statusAmis: idStatusAmis(['amd64/standard']),
      },
      'alias',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ alias: 'al2023@v20241109' }] },
      true,
    ],
    [
      'already pinned by id: unchanged',
      {
        amiFamily: 'AL2023',
        amiSelectorTerms: [{ id: NEW['amd64/standard'] }],
        statusAmis: idStatusAmis(['amd64/standard'], NEW, '1.31', 'v20241109'),
      },
      'id',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ id: NEW['amd64/standard'] }] },
      false,
    ],
    [
      'already pinned by alias: unchanged',
      { amiSelectorTerms: [{ alias: 'al2023@v20241109' }], statusAmis: aliasStatusAmis(NEW, '1.31', 'v20241109') },
      'alias',
      { amiSelectorTerms: [{ alias: 'al2023@v20241109' }] },
      false,
    ],
    [
      'Bottlerocket alias versions take a v',
      { amiSelectorTerms: [{ alias: 'bottlerocket@v1.20.4' }], statusAmis: [] },
      'alias',
      { amiSelectorTerms: [{ alias: 'bottlerocket@v1.26.1' }] },
      true,
      [bottlerocket('amd64/standard')],
    ],
    [
      'Bottlerocket by id',
      { amiSelectorTerms: [{ alias: 'bottlerocket@v1.20.4' }], statusAmis: [] },
      'id',
      { amiFamily: 'Bottlerocket', amiSelectorTerms: [{ id: NEW['amd64/standard'] }] },
      true,
      [bottlerocket('amd64/standard')],
    ],
  ])('%s', (_name, classOverrides, pin, after, changed, amis = targetAmis()) => {
    const p = run(inventory({ nodeClasses: [nodeClass(classOverrides)] }), { pin }, amis);
    expect(p.nodeClasses[0]).toMatchObject({ name: 'default', after, changed });
    expect(p.blocked).toBe(false);
  });

  it('pins one id per arch, in arch order, for a pool allowing both', () => {
    const pool = nodePool({
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64', 'amd64'] },
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
      ],
    });
    const p = run(inventory({ nodePools: [pool] }));
    expect(p.nodeClasses[0]!.after.amiSelectorTerms).toEqual([
      { id: NEW['amd64/standard'] },
      { id: NEW['arm64/standard'] },
    ]);
  });

  it('treats the same terms in another order as unchanged (a re-run resumes)', () => {
    const pool = nodePool({
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
      ],
    });
    const pinned = nodeClass({
      amiFamily: 'AL2023',
      amiSelectorTerms: [{ id: NEW['arm64/standard'] }, { id: NEW['amd64/standard'] }],
      statusAmis: idStatusAmis(['amd64/standard', 'arm64/standard'], NEW, '1.31', 'v20241109'),
    });
    const claims = [nodeClaim({ name: 'general-1', imageId: NEW['amd64/standard'] }), nodeClaim({ name: 'general-2' })];
    const p = run(inventory({ nodeClasses: [pinned], nodePools: [pool], nodeClaims: claims }));
    expect(p.nodeClasses[0]!.changed).toBe(false);
    expect(p.nodePools[0]).toMatchObject({ nodes: 2, toDrift: 1, onTarget: 1 });
    expect(p.checks).toEqual([
      {
        code: 'ALREADY-PINNED',
        level: 'info',
        message:
          'ec2nodeclass/default already selects the target AMIs: nothing to apply, and a rollout in progress is followed from where it is',
        evidence: [],
      },
    ]);
  });

  it('refuses to id-pin a standard and a GPU AMI of one arch, and alias-pins them', () => {
    const inv = inventory({
      nodePools: [
        nodePool({
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m', 'g'] },
          ],
        }),
      ],
    });
    const byId = run(inv, { pin: 'id' });
    expect(byId.blocked).toBe(true);
    expect(byId.checks).toEqual([
      {
        code: 'MIXED-GPU-ID-PIN',
        level: 'error',
        message:
          'ec2nodeclass/default needs standard and nvidia AMIs for amd64, which --pin id cannot express: Karpenter knows only the architecture of an id term and keeps one AMI per architecture (the newest), so every amd64 node would launch from the same one',
        evidence: [
          'amd64 standard: ami-0new0amd64std (amazon-eks-node-al2023-x86_64-standard-1.31-v20241109)',
          'amd64 nvidia: ami-0new0amd64gpu (amazon-eks-node-al2023-x86_64-nvidia-1.31-v20241109)',
        ],
        next: 'use --pin alias (an alias keeps the variant), or split the class: one EC2NodeClass per variant, with NodePools that select GPU instances by karpenter.k8s.aws/instance-gpu-count',
      },
    ]);
    const byAlias = run(inv, { pin: 'alias' });
    expect([byAlias.blocked, byAlias.nodeClasses[0]!.after]).toEqual([
      false,
      { amiSelectorTerms: [{ alias: 'al2023@v20241109' }] },
    ]);
  });

  it('--pin name: one exact name term per image with the owner EC2 reports, amiFamily as for id; a name that selects several images is refused', () => {
    const EKS = '602401143452';
    const amis = targetAmis().map((a) => ({ ...a, owner: EKS, nameMatches: 1 }));
    const p = run(inventory(), { pin: 'name' }, amis);
    expect([p.blocked, p.nodeClasses[0]!.after]).toEqual([
      false,
      { amiFamily: 'AL2023', amiSelectorTerms: [{ name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20241109', owner: EKS }] },
    ]);
    expect(p.nodeClasses[0]!.targets[0]).toMatchObject({ id: NEW['amd64/standard'], owner: EKS });
    // The exact name under its owner names fixed images: the pin does not float, so SELECTOR-REPLACED says nothing of it.
    const again = run(inventory({ nodeClasses: [nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: p.nodeClasses[0]!.after.amiSelectorTerms })] }), { pin: 'id' }, amis);
    expect(again.checks.filter((c) => c.code === 'SELECTOR-REPLACED')).toEqual([]);

    const ambiguous = run(inventory(), { pin: 'name' }, amis.map((a) => ({ ...a, nameMatches: 2 })));
    expect(ambiguous.blocked).toBe(true);
    expect(ambiguous.checks.filter((c) => c.code === 'NAME-AMBIGUOUS')).toEqual([
      {
        code: 'NAME-AMBIGUOUS',
        level: 'error',
        message: `ec2nodeclass/default: --pin name would select 2 images named amazon-eks-node-al2023-x86_64-standard-1.31-v20241109 owned by ${EKS}, and Karpenter keeps only the newest of them`,
        evidence: [`al2023 amd64 standard: ${NEW['amd64/standard']} is the one resolved`],
        next: 'pin it with --pin id (the image ID is unique)',
      },
    ]);
  });

  it('plans only the classes asked for, and their pools', () => {
    const inv = inventory({
      nodeClasses: [nodeClass(), nodeClass({ name: 'batch', amiSelectorTerms: [{ alias: 'al2023@v20241109' }] })],
      nodePools: [nodePool(), nodePool({ name: 'batch', nodeClass: 'batch' })],
    });
    const p = run(inv, { nodeClasses: ['batch'] });
    expect([p.nodeClasses.map((c) => c.name), p.nodePools.map((n) => n.name)]).toEqual([['batch'], ['batch']]);
  });
});

describe('plan: NodePools, budgets and waves', () => {
  const budgets = (...b: Budget[]) => b;
  const twoNotReady = (count: number) => {
    const claims = nodeClaims(count);
    return { nodeClaims: claims, nodes: nodesOf(claims).map((n, i) => (i < 1 ? node({ ...n, ready: false }) : n)) };
  };

  it.each<
    [
      string,
      Budget[] | undefined,
      Partial<Inventory>,
      { nodes: number; toDrift: number; onTarget?: number; allowedDisruptions: number; limit: number; waves: number; budgetless?: true },
    ]
  >([
    [
      '20% of 6 → 2 now → 3 waves',
      budgets({ nodes: '20%' }),
      { nodeClaims: nodeClaims(6) },
      { nodes: 6, toDrift: 6, onTarget: 0, allowedDisruptions: 2, limit: 2, waves: 3 },
    ],
    [
      'the default 10% of 6 → 1 → 6 waves',
      undefined,
      { nodeClaims: nodeClaims(6) },
      { nodes: 6, toDrift: 6, onTarget: 0, allowedDisruptions: 1, limit: 1, waves: 6 },
    ],
    [
      'no budgets at all: unlimited, one wave',
      [],
      { nodeClaims: nodeClaims(6) },
      { nodes: 6, toDrift: 6, onTarget: 0, allowedDisruptions: Infinity, limit: Infinity, waves: 1 },
    ],
    [
      'nodes "0": no drift, Infinity waves',
      budgets({ nodes: '0' }),
      { nodeClaims: nodeClaims(6) },
      { nodes: 6, toDrift: 6, onTarget: 0, allowedDisruptions: 0, limit: 0, waves: Infinity },
    ],
    [
      'a NotReady node uses up budget now',
      budgets({ nodes: '20%' }),
      twoNotReady(6),
      { nodes: 6, toDrift: 6, onTarget: 0, allowedDisruptions: 1, limit: 2, waves: 3 },
    ],
    [
      'NodeClaims on a target AMI are on target',
      budgets({ nodes: '50%' }),
      { nodeClaims: [...nodeClaims(2), nodeClaim({ name: 'general-new', imageId: NEW['amd64/standard'] })] },
      { nodes: 3, toDrift: 2, onTarget: 1, allowedDisruptions: 2, limit: 2, waves: 1 },
    ],
    [
      'a deleting NodeClaim is not counted, and uses up budget',
      budgets({ nodes: '2' }),
      { nodeClaims: [...nodeClaims(3), nodeClaim({ name: 'general-old', deleting: true })] },
      { nodes: 3, toDrift: 3, onTarget: 0, allowedDisruptions: 1, limit: 2, waves: 2 },
    ],
    [
      // helpers.go counts a node once statenode.go `Initialized()` holds, which asks the Node for its initialized
      // label: an Initialized NodeClaim whose Node is gone is not a NotReady node using up budget.
      'an Initialized NodeClaim without its Node neither counts nor uses budget',
      budgets({ nodes: '1' }),
      (() => {
        const claims = nodeClaims(10);
        return { nodeClaims: claims, nodes: nodesOf(claims).slice(1) };
      })(),
      { nodes: 10, toDrift: 10, onTarget: 0, allowedDisruptions: 1, limit: 1, waves: 10 },
    ],
    [
      // An uninitialized replacement neither counts for the percentage nor uses budget.
      'a launching NodeClaim counts as a node, not for the budget',
      budgets({ nodes: '20%' }),
      {
        nodeClaims: [
          ...nodeClaims(5),
          nodeClaim({ name: 'general-new', imageId: undefined, nodeName: undefined, conditions: {} }),
        ],
      },
      { nodes: 6, toDrift: 5, onTarget: 0, allowedDisruptions: 1, limit: 1, waves: 5 },
    ],
    [
      // v0.32–v0.33: the NodePool has no budgets field, and the controller runs one command at a time cluster-wide.
      'Karpenter v0.32–v0.33 (v1beta1 without budgets): one at a time, not the default 10%',
      undefined,
      { karpenterApi: 'v1beta1', nodeClaims: nodeClaims(30) },
      { nodes: 30, toDrift: 30, onTarget: 0, allowedDisruptions: 1, limit: 1, waves: 30, budgetless: true },
    ],
    [
      'Karpenter v0.32–v0.33 with a drift under way anywhere: none more now',
      undefined,
      {
        karpenterApi: 'v1beta1',
        nodeClaims: [
          ...nodeClaims(3),
          nodeClaim({ name: 'other-old', nodePool: 'other', conditions: { ...nodeClaim().conditions, DisruptionReason: { status: 'True', reason: 'Drifted', message: '' } } }),
        ],
      },
      { nodes: 3, toDrift: 3, allowedDisruptions: 0, limit: 1, waves: 3, budgetless: true },
    ],
    [
      'Karpenter v0.34–v0.37 stores the default 10%: budgets as usual',
      budgets({ nodes: '10%' }),
      { karpenterApi: 'v1beta1', nodeClaims: nodeClaims(30) },
      { nodes: 30, toDrift: 30, allowedDisruptions: 3, limit: 3, waves: 10 },
    ],
  ])('%s', (_name, poolBudgets, overrides, expected) => {
    const pool = nodePool(poolBudgets !== undefined ? { budgets: poolBudgets } : {});
    expect(run(inventory({ nodePools: [pool], ...overrides })).nodePools[0]).toMatchObject({
      name: 'general',
      nodeClass: 'default',
      ...expected,
    });
  });

  it('refuses a budget Karpenter cannot parse: it fails closed, so the drifted nodes would never be replaced', () => {
    const pool = nodePool({ budgets: [{ nodes: '10%', schedule: '0 25 * * *', duration: '1h' }] });
    const p = run(inventory({ nodePools: [pool], nodeClaims: nodeClaims(6) }));
    expect(p.blocked).toBe(true);
    expect(p.checks).toEqual([
      {
        code: 'BUDGET-INVALID',
        level: 'error',
        message:
          'nodepool/general: spec.disruption.budgets[0] {nodes: "10%", schedule: "0 25 * * *", duration: 1h} is invalid (invalid cron "0 25 * * *": end of range (25) above maximum (23): 25); Karpenter fails closed and allows no disruption in the pool, so its 6 nodes would drift and never be replaced',
        evidence: [
          'Karpenter logs "detected disruption budget errors" and reports a DisruptionBlocked event on the NodePool: "No allowed disruptions for disruption reason Drifted due to blocking budget"',
        ],
        next: 'fix the budget first (kubectl edit nodepool general); budgets are not hashed, so editing one never causes drift',
      },
    ]);
  });

  it('names the budget that blocks drift now and when its window ends, in UTC', () => {
    const pool = nodePool({
      budgets: [{ nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * *', duration: '8h' }, { nodes: '10%' }],
    });
    const p = run(inventory({ nodePools: [pool], nodeClaims: nodeClaims(6) }));
    expect(p.nodePools[0]).toMatchObject({
      allowedDisruptions: 0,
      waves: Infinity,
      blockingBudget: {
        index: 0,
        nodes: '0',
        reasons: ['Drifted'],
        schedule: '0 9 * * *',
        duration: '8h',
        windowEnd: '2024-11-13T17:00:00.000Z',
      },
    });
    expect(p.checks).toEqual([
      {
        code: 'BUDGET-BLOCKS-DRIFT',
        level: 'warning',
        message:
          'nodepool/general: the disruption budget allows no Drifted disruptions now, so its 6 nodes to drift wait: spec.disruption.budgets[0] {nodes: "0", reasons: [Drifted], schedule: "0 9 * * *", duration: 8h} is active until 2024-11-13 17:00 UTC',
        evidence: [
          'Karpenter reports a DisruptionBlocked event on the NodePool: "No allowed disruptions for disruption reason Drifted due to blocking budget"',
        ],
        next: 'wait for the window to close at 2024-11-13 17:00 UTC, or change the budget (budgets are not hashed: editing one never causes drift)',
      },
    ]);
  });
});

describe('a plan made without a cluster (pin on files)', () => {
  it('does not make the checks that judge the control plane and the nodes, and makes the others', () => {
    const inv = inventory({ controlPlane: { minor: '1.30', gitVersion: 'v1.30.4-eks-a737599' } });
    const codes = (p: ReturnType<typeof plan>) => p.checks.map((c) => c.code);
    expect(codes(plan(inv, targetAmis(), options({ to: '1.31' }), NOW))).toContain('TARGET-NEWER-THAN-CONTROL-PLANE');
    const offline = plan(inv, targetAmis(), options({ to: '1.31', withoutCluster: true }), NOW);
    expect(codes(offline)).not.toContain('TARGET-NEWER-THAN-CONTROL-PLANE');
    expect(plan(inv, [], options({ to: '1.31', withoutCluster: true }), NOW).checks.map((c) => c.code)).toContain('AMI-MISSING');
  });
});
