import { describe, expect, it } from 'vitest';
import { canaryNameRefusal, planStages, REPLACEMENT_MS, type StagePoolInput, type StagedRequest } from '../../src/stages/stage-plan.js';
import type { HoldWith } from '../../src/stages/hold-mechanism.js';
import { waves, MIN } from './helpers.js';


const input = (name: string, oldNodes: number, limit = Infinity, owned = false): StagePoolInput => ({
  pool: {
    name,
    budgetOwners: owned ? [{ manager: 'argocd-controller', operation: 'Apply' }] : [],
    labels: owned ? { 'app.kubernetes.io/instance': 'karpenter' } : {},
    annotations: owned ? { 'argocd.argoproj.io/tracking-id': `karpenter:karpenter.sh/NodePool:/${name}` } : {},
  },
  oldNodes,
  limit,
});
const request = (o: Partial<StagedRequest> = {}): StagedRequest => ({
  canary: [],
  waves: waves('100%'),
  soakMs: 0,
  holdWith: 'auto',
  ...o,
});
const planOf = (pools: StagePoolInput[], r: StagedRequest, force = false) => {
  const result = planStages(pools, r, force);
  if (!('plan' in result)) throw new Error(`expected a plan: ${JSON.stringify(result)}`);
  return result.plan;
};

const pools = [input('general', 10), input('canary', 4), input('batch', 6)];

describe('canaryNameRefusal: --canary against the NodePools listed, before any AMI is resolved', () => {
  const listed = [
    { name: 'general', nodeClass: 'default' },
    { name: 'canary', nodeClass: 'default' },
    { name: 'gpu', nodeClass: 'nvidia' },
  ];
  it.each<[string, string[], string[], ReturnType<typeof canaryNameRefusal>]>([
    ['a NodePool in scope', ['canary'], ['default'], undefined],
    ['every class in scope', ['gpu'], ['default', 'nvidia'], undefined],
    [
      'a typo: the NodePools that exist',
      ['canry'],
      ['default'],
      {
        usage: '--canary "canry": no such NodePool in context prod; its NodePools: canary, general, gpu; nothing was changed',
        next: 'name one of those NodePools with --canary (kubectl get nodepools lists them)',
      },
    ],
    [
      "a NodePool whose class --nodeclass leaves out: the ones in scope, and the flag that takes it in",
      ['gpu'],
      ['default'],
      {
        usage: '--canary "gpu" (EC2NodeClass nvidia): not a NodePool of the EC2NodeClasses in scope (default); nothing was changed',
        next: 'NodePools in scope: canary, general; or add --nodeclass nvidia',
      },
    ],
  ])('%s', (_name, canary, classes, refusal) => {
    expect(canaryNameRefusal(canary, listed, classes, 'context prod')).toEqual(refusal);
  });
});

describe('planStages: usage errors', () => {
  it('names a canary that is not in scope, and lists the NodePools that are', () => {
    expect(planStages(pools, request({ canary: ['canary', 'gpu'] }), false)).toEqual({
      usage: '--canary "gpu": not a NodePool of the EC2NodeClasses in scope',
      next: 'NodePools in scope: general, canary, batch (a canary must use one of the EC2NodeClasses being upgraded)',
    });
  });

  it('says "none" when nothing is in scope', () => {
    expect(planStages([], request({ canary: ['gpu'] }), false)).toMatchObject({
      next: 'NodePools in scope: none (a canary must use one of the EC2NodeClasses being upgraded)',
    });
  });

  it('refuses a canary naming every NodePool in scope', () => {
    expect(planStages(pools, request({ canary: ['batch', 'general', 'canary'] }), false)).toEqual({
      usage:
        '--canary names every NodePool in scope (general, canary, batch): nothing would be left for after the canary',
      next: 'name fewer canary NodePools, or use --waves alone to stage one rollout of them all',
    });
  });
});

describe('planStages: how each NodePool is held', () => {
  const argo = [input('general', 10), input('gitops', 5, Infinity, true)];

  it('refuses --hold-with budget on a GitOps-owned NodePool without --force-conflicts', () => {
    const result = planStages(argo, request({ waves: waves('1,100%'), holdWith: 'budget' }), false);
    expect(result).toEqual({
      refused: [
        {
          nodePool: 'gitops',
          error:
            '--hold-with budget: spec.disruption.budgets of nodepool/gitops is owned by Argo CD (field manager argocd-controller), which would put its own budgets back and lift the hold',
        },
      ],
      next: 'use --hold-with node (or auto), which holds the old nodes instead; or pass --force-conflicts to write the budget anyway',
    });
  });

  it.each<[string, HoldWith, boolean, Record<string, string>, boolean]>([
    [
      'budget --force-conflicts: a budget, with a warning',
      'budget',
      true,
      { general: 'budget', gitops: 'budget' },
      true,
    ],
    ['auto: node holds where Argo CD owns the budgets', 'auto', false, { general: 'budget', gitops: 'node' }, false],
    ['node: node holds everywhere', 'node', false, { general: 'node', gitops: 'node' }, false],
  ])('%s', (_name, holdWith, force, mechanisms, warned) => {
    const plan = planOf(argo, request({ waves: waves('1,100%'), holdWith }), force);
    const holds = plan.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold] as const));
    expect(Object.fromEntries(holds.map(([n, h]) => [n, h.mechanism]))).toEqual(mechanisms);
    const warning = holds.find(([n]) => n === 'gitops')![1].warning;
    if (warned) expect(warning).toMatch(/^spec\.disruption\.budgets of nodepool\/gitops is owned by Argo CD/);
    else expect(warning).toBeUndefined();
    expect(holds.find(([n]) => n === 'general')![1].warning).toBeUndefined();
  });
});

describe('planStages: stages and waves', () => {
  it.each<[string, StagedRequest, Array<{ name: string; nodePools: string[]; size: number; targets: number[] }>]>([
    [
      'no canary: one rollout stage in pool order',
      request({ waves: waves('1,10%,100%') }),
      [{ name: 'rollout', nodePools: ['general', 'canary', 'batch'], size: 20, targets: [1, 2, 20] }],
    ],
    [
      'canary first (in the order given), the rest in pool order',
      request({ canary: ['batch', 'canary'], waves: waves('1,50%,100%') }),
      [
        { name: 'canary', nodePools: ['batch', 'canary'], size: 10, targets: [1, 5, 10] },
        { name: 'rollout', nodePools: ['general'], size: 10, targets: [1, 5, 10] },
      ],
    ],
    [
      // 10% of 4 rounds up to 1, which the first wave already reached: the wave collapses.
      'canary only, waves collapse at a small size',
      request({ canary: ['canary'], waves: waves('1,10%,100%') }),
      [
        { name: 'canary', nodePools: ['canary'], size: 4, targets: [1, 4] },
        { name: 'rollout', nodePools: ['general', 'batch'], size: 16, targets: [1, 2, 16] },
      ],
    ],
    [
      'a list short of 100% gets a last wave for the rest',
      request({ waves: waves('2,5') }),
      [{ name: 'rollout', nodePools: ['general', 'canary', 'batch'], size: 20, targets: [2, 5, 20] }],
    ],
  ])('%s', (_name, r, expected) => {
    const plan = planOf(pools, r);
    expect(
      plan.stages.map((s) => ({
        name: s.name,
        nodePools: s.nodePools.map((p) => p.name),
        size: s.size,
        targets: s.targets,
      })),
    ).toEqual(expected);
    for (const s of plan.stages) {
      expect(s.sizes.reduce((a, b) => a + b, 0)).toBe(s.size);
      expect(s.sizes).toEqual(s.targets.map((t, i) => t - (i === 0 ? 0 : s.targets[i - 1]!)));
    }
    expect(plan.stagePlan).toEqual({
      stages: expected.map((s) => ({ name: s.name, nodePools: s.nodePools })),
      waves: r.waves,
      soakMs: r.soakMs,
    });
  });

  it("carries each NodePool's old nodes and limit", () => {
    const plan = planOf([input('a', 3, 2), input('b', 0)], request());
    expect(plan.stages[0]!.nodePools.map(({ name, oldNodes, limit }) => ({ name, oldNodes, limit }))).toEqual([
      { name: 'a', oldNodes: 3, limit: 2 },
      { name: 'b', oldNodes: 0, limit: Infinity },
    ]);
  });

  it('a stage with no old nodes has no waves', () => {
    const plan = planOf([input('c', 0), input('d', 3)], request({ canary: ['c'], waves: waves('1,100%') }));
    expect(plan.stages.map((s) => [s.size, s.targets, s.sizes])).toEqual([
      [0, [], []],
      [3, [1, 3], [1, 2]],
    ]);
  });
});

describe('planStages: soaks and the estimate', () => {
  // rounds: per wave, ceil(wave size / min(parallel, wave size)), parallel = Σ min(oldNodes, limit).
  it.each<[string, StagePoolInput[], StagedRequest, number, number]>([
    ['one wave, unlimited: one round, no soak', [input('a', 10)], request({ soakMs: 15 * MIN }), 0, REPLACEMENT_MS],
    [
      '1,10%,100% of 20 at a limit of 2 each (parallel 4): waves 1, 1, 18 → 1 + 1 + 5 rounds, 2 soaks',
      [input('a', 10, 2), input('b', 10, 2)],
      request({ waves: waves('1,10%,100%'), soakMs: 15 * MIN }),
      2,
      7 * REPLACEMENT_MS + 2 * 15 * MIN,
    ],
    [
      'soak 0: no soak counted',
      [input('a', 10, 2), input('b', 10, 2)],
      request({ waves: waves('1,10%,100%') }),
      0,
      7 * REPLACEMENT_MS,
    ],
    [
      // canary: waves 1, 3 (limit 1: 1 + 3 rounds); rollout of 6 at limit 10: waves 1, 5 (1 + 1 round). 4 waves.
      'canary and rollout: soaks between every wave and after the canary, none after the last',
      [input('canary', 4, 1), input('general', 6, 10)],
      request({ canary: ['canary'], waves: waves('1,100%'), soakMs: 10 * MIN }),
      3,
      6 * REPLACEMENT_MS + 3 * 10 * MIN,
    ],
    [
      'each NodePool replaces its share at its own limit: the slowest sets the pace',
      [input('a', 1, 5), input('b', 9, 1)],
      request({ waves: waves('100%') }),
      0,
      // "a" replaces its 1 in one round; "b" its 9 one at a time (its own limit): 9 rounds, not 10 over 2 in parallel.
      9 * REPLACEMENT_MS,
    ],
    [
      'a stage with nothing to do adds no round and no soak',
      [input('c', 0, 0), input('d', 4)],
      request({ canary: ['c'], waves: waves('1,100%'), soakMs: MIN }),
      1,
      2 * REPLACEMENT_MS + MIN,
    ],
    [
      'a NodePool whose limit is 0 with old nodes: never done',
      [input('a', 5, 0)],
      request({ soakMs: MIN }),
      0,
      Infinity,
    ],
    [
      // The wave is shared among the stage's NodePools; "a" never starts one, so the stage never finishes.
      'one NodePool of a stage at limit 0 with old nodes: never done, whatever the others allow',
      [input('a', 5, 0), input('b', 5, 10)],
      request({ waves: waves('1,100%') }),
      0,
      Infinity,
    ],
    [
      'a NodePool at limit 0 with no old nodes does not matter',
      [input('a', 0, 0), input('b', 2)],
      request(),
      0,
      REPLACEMENT_MS,
    ],
  ])('%s', (_name, ps, r, soaks, estimateMs) => {
    const plan = planOf(ps, r);
    expect(plan.soaks).toBe(soaks);
    expect(plan.soakMs).toBe(r.soakMs);
    expect(plan.estimateMs).toBe(estimateMs);
  });
});

describe('planStages: --rollback-waves', () => {
  it('rides along with the plan for the rollback of a halt, and only when asked', () => {
    expect(planOf(pools, request({ rollbackWaves: waves('1,100%') })).rollbackWaves).toEqual(waves('1,100%'));
    expect(planOf(pools, request())).not.toHaveProperty('rollbackWaves');
  });
});
