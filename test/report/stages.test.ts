import { describe, expect, it } from 'vitest';
import {
  pacerEventJson,
  pacerLogLine,
  stagedEta,
  stagedPlanJson,
  stagedPlanLines,
  stageEventText,
  stageLine,
  type PacerEvent,
  type StageState,
} from '../../src/report/stages.js';
import type { StageEvent, StagePlan } from '../../src/stages/controller.js';
import { planStages, type StagedPlan, type StagedRequest, type StagePoolInput } from '../../src/stages/stage-plan.js';
import { waves, MIN, t0, at } from '../stages/helpers.js';
import { windowEtaJson, windowEtaLines } from '../../src/report/windows.js';
import { planWindows } from '../../src/stages/window-plan.js';
import type { WindowRequest } from '../../src/stages/request.js';
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../../src/windows/flags.js';

const plan: StagePlan = {
  stages: [
    { name: 'canary', nodePools: ['canary'] },
    { name: 'rollout', nodePools: ['general', 'batch'] },
  ],
  waves: waves('1,50%,100%'),
  soakMs: 15 * MIN,
};

const stageEvent: StageEvent = {
  type: 'stage',
  stage: 1,
  name: 'rollout',
  nodePools: ['general', 'batch'],
  size: 20,
  waves: [1, 10, 20],
};
const waveEvent: StageEvent = { type: 'wave', stage: 0, wave: 1, of: 3, target: 2, size: 4, started: 1 };
const soakEvent = (stage: number, wave: number, stageDone: boolean): StageEvent => ({
  type: 'soak',
  stage,
  wave,
  until: at(15),
  stageDone,
});

describe('stageEventText', () => {
  it.each<[string, StageEvent, string]>([
    [
      'a stage begins',
      stageEvent,
      'stage 2/2 (rollout) begins: 20 old nodes of nodepool/general, nodepool/batch in 3 waves (1, +9, +10)',
    ],
    [
      'a stage of one node in one wave',
      { type: 'stage', stage: 0, name: 'canary', nodePools: ['canary'], size: 1, waves: [1] },
      'stage 1/2 (canary) begins: 1 old node of nodepool/canary in 1 wave (1)',
    ],
    ['a wave opens', waveEvent, 'stage 1/2 (canary) wave 2/3 opens: up to 2 of 4 old nodes replaced (1 so far)'],
    [
      'a wave of a one-node stage opens',
      { type: 'wave', stage: 0, wave: 0, of: 1, target: 1, size: 1, started: 0 },
      'stage 1/2 (canary) wave 1/1 opens: up to 1 of 1 old node replaced (0 so far)',
    ],
    [
      'a soak before the next wave',
      soakEvent(0, 0, false),
      'stage 1/2 (canary) wave 1 done; soaking 15m until 2026-11-25T12:15:00Z before wave 2',
    ],
    [
      'a soak before the next stage',
      soakEvent(0, 2, true),
      'stage 1/2 (canary) wave 3 done; soaking 15m until 2026-11-25T12:15:00Z before stage 2',
    ],
    [
      'a soak after the last stage',
      soakEvent(1, 2, true),
      'stage 2/2 (rollout) wave 3 done; soaking 15m until 2026-11-25T12:15:00Z before the end',
    ],
  ])('%s', (_name, e, text) => {
    expect(stageEventText(e, plan)).toBe(text);
  });

  // Issue 23: `--soak 30s` was announced as "soaking 6s": the time left until the soak's end, measured when the line
  // was written, 24 s after the decision that began it (the gates had held that turn). The soak announced is the one
  // requested, and when it ends.
  it.each<[string, number, Date, string]>([
    ['--soak 30s', 30_000, new Date(t0.getTime() + 30_000), 'soaking 30s until 2026-11-25T12:00:30Z before wave 2'],
    [
      '--soak 30s, the decision made at 12:00:24',
      30_000,
      new Date(t0.getTime() + 54_000),
      'soaking 30s until 2026-11-25T12:00:54Z',
    ],
    ['--soak 15m', 15 * MIN, at(15), 'soaking 15m until 2026-11-25T12:15:00Z before wave 2'],
    ['--soak 90m', 90 * MIN, at(90), 'soaking 90m until 2026-11-25T13:30:00Z before wave 2'],
  ])('a soak is announced as requested: %s', (_name, soakMs, until, text) => {
    const e: StageEvent = { type: 'soak', stage: 0, wave: 0, until, stageDone: false };
    expect(stageEventText(e, { ...plan, soakMs })).toContain(text);
  });
});

describe('pacerEventJson', () => {
  it.each<[string, PacerEvent, Record<string, unknown>]>([
    [
      'stage: 1-based',
      { type: 'stage', event: stageEvent },
      {
        type: 'stage',
        time: '2026-11-25T12:00:00.000Z',
        stage: 2,
        stages: 2,
        name: 'rollout',
        nodePools: ['general', 'batch'],
        size: 20,
        waves: [1, 10, 20],
      },
    ],
    [
      'wave: 1-based, `waves` the count',
      { type: 'wave', event: waveEvent },
      {
        type: 'wave',
        time: '2026-11-25T12:00:00.000Z',
        stage: 1,
        stages: 2,
        name: 'canary',
        wave: 2,
        waves: 3,
        target: 2,
        size: 4,
        started: 1,
      },
    ],
    [
      'soak',
      { type: 'soak', event: soakEvent(0, 2, true) as Extract<StageEvent, { type: 'soak' }> },
      {
        type: 'soak',
        time: '2026-11-25T12:00:00.000Z',
        stage: 1,
        stages: 2,
        name: 'canary',
        wave: 3,
        until: '2026-11-25T12:15:00.000Z',
        stageDone: true,
      },
    ],
    [
      'hold',
      { type: 'hold', nodePool: 'general', mechanism: 'node', allowance: 2, nodes: 8 },
      {
        type: 'hold',
        time: '2026-11-25T12:00:00.000Z',
        nodePool: 'general',
        mechanism: 'node',
        allowance: 2,
        nodes: 8,
      },
    ],
    [
      'release',
      { type: 'release', nodePool: 'general', mechanism: 'budget', budgets: null },
      { type: 'release', time: '2026-11-25T12:00:00.000Z', nodePool: 'general', mechanism: 'budget', budgets: null },
    ],
  ])('%s', (_name, e, expected) => {
    const json = pacerEventJson(e, plan, t0);
    expect(json).toEqual(expected);
    expect(Object.keys(json).slice(0, 2)).toEqual(['type', 'time']);
    expect(Object.keys(json)).toEqual(Object.keys(expected));
  });
});

describe('pacerLogLine', () => {
  it.each<[string, PacerEvent, string | undefined]>([
    [
      'hold updates are NDJSON only',
      { type: 'hold', nodePool: 'general', mechanism: 'budget', allowance: 3 },
      undefined,
    ],
    [
      'a budget released',
      { type: 'release', nodePool: 'general', mechanism: 'budget', budgets: [{ nodes: '10%' }] },
      "nodepool/general: karp-drift's hold released, its own budgets are back",
    ],
    [
      'node holds released',
      { type: 'release', nodePool: 'batch', mechanism: 'node', nodes: 3 },
      "nodepool/batch: karp-drift's do-not-disrupt removed from 3 nodes",
    ],
    [
      'one node hold released',
      { type: 'release', nodePool: 'batch', mechanism: 'node', nodes: 1 },
      "nodepool/batch: karp-drift's do-not-disrupt removed from 1 node",
    ],
    [
      'a wave: its event text',
      { type: 'wave', event: waveEvent },
      'stage 1/2 (canary) wave 2/3 opens: up to 2 of 4 old nodes replaced (1 so far)',
    ],
  ])('%s', (_name, e, line) => {
    expect(pacerLogLine(e, plan)).toBe(line);
  });
});

// The open stage of 4 old nodes in one NodePool at a limit of 1 (waves 1, 2, 4: 1, 1 and 2 rounds), and a stage to
// come of 6 at a limit of 3 (waves 1, 6: 1 and 2 rounds).
const etaStages = [
  { pools: [{ oldNodes: 4, limit: 1 }], targets: [1, 2, 4] },
  { pools: [{ oldNodes: 6, limit: 3 }], targets: [1, 6] },
];
const state = (o: Partial<StageState> = {}, eta: Partial<StageState['eta']> = {}): StageState => ({
  phase: 'wave',
  stage: { index: 0, name: 'canary', size: 4, started: 1, targets: [1, 2, 4] },
  stages: 2,
  wave: 1,
  heldAtZero: [],
  soakedMs: 0,
  eta: {
    stages: etaStages,
    position: { stage: 0, wave: 1, phase: 'wave' },
    waveOpenedAt: at(58),
    replacementMs: 5 * MIN,
    ...eta,
  },
  at: at(60),
  ...o,
});

describe('stagedEta', () => {
  // The plan's model (stages/eta.ts) at the replacement time observed; the open wave opened 2 minutes ago.
  it.each<[string, StageState, number | undefined]>([
    // No replacement done yet: no ETA (the plan's estimate said what it assumed).
    ['before any replacement', state({}, { replacementMs: undefined }), undefined],
    [
      'a wave open: the rest of its round, the 2 + 1 + 2 rounds after it, a soak before each of the 3 waves after it',
      state(),
      3 * MIN + 5 * 5 * MIN + 3 * 15 * MIN,
    ],
    [
      'replacements observed at 1 minute: the rounds at that pace',
      state({}, { replacementMs: MIN, waveOpenedAt: at(60) }),
      MIN + 5 * MIN + 3 * 15 * MIN,
    ],
    [
      'a wave that has run past its rounds: nothing more for it',
      state({}, { waveOpenedAt: at(40) }),
      5 * 5 * MIN + 3 * 15 * MIN,
    ],
    [
      'the gates at the end of the wave: the waves after it and their soaks',
      state({ phase: 'gating' }, { position: { stage: 0, wave: 1, phase: 'wave-end' } }),
      5 * 5 * MIN + 3 * 15 * MIN,
    ],
    [
      'soaking: the rest of the soak under way, then a soak before each wave but the next',
      state({ phase: 'soak', soakUntil: at(70) }, { position: { stage: 0, wave: 1, phase: 'soak' } }),
      10 * MIN + 5 * 5 * MIN + 2 * 15 * MIN,
    ],
    [
      'the gates at the end of a soak',
      state({ phase: 'gating' }, { position: { stage: 0, wave: 1, phase: 'soak-end' } }),
      5 * 5 * MIN + 2 * 15 * MIN,
    ],
    [
      'a soak already over adds nothing',
      state({ phase: 'soak', soakUntil: at(50) }, { position: { stage: 0, wave: 1, phase: 'soak' } }),
      5 * 5 * MIN + 2 * 15 * MIN,
    ],
    ['done', state({ phase: 'done' }, { stages: [], position: { stage: 0, wave: 0, phase: 'done' } }), 0],
  ])('%s', (_name, s, expected) => {
    expect(stagedEta(s, at(60), 15 * MIN)).toBe(expected);
  });
});

describe('stageLine', () => {
  it.each<[string, StageState, number | undefined, string]>([
    [
      'a wave open',
      state({ stage: { index: 0, name: 'canary', size: 4, started: 1, targets: [1, 2, 4] } }),
      25 * MIN,
      'Stage 1/2 canary, wave 2/3: 1 of 4 started (wave: up to 2); ETA ~25m',
    ],
    [
      'the last replacements finishing',
      state({ phase: 'finishing', stage: { index: 0, name: 'canary', size: 4, started: 2, targets: [1, 2, 4] } }),
      20 * MIN,
      'Stage 1/2 canary, wave 2/3: 2 of 4 started, last ones finishing; ETA ~20m',
    ],
    [
      'soaking',
      state({ phase: 'soak', soakUntil: at(72) }),
      40 * MIN,
      'Stage 1/2 canary, wave 2/3: soaking, 12m left; ETA ~40m',
    ],
    [
      'the gates judging the end of a wave, a command running',
      state({
        phase: 'gating',
        checkpoint: { stage: 0, wave: 1, point: 'wave-end' },
        gateWaiting: '--gate-cmd for 3s',
      }),
      21 * MIN,
      'Stage 1/2 canary, wave 2/3: gates at wave end: --gate-cmd for 3s; ETA ~21m',
    ],
    [
      'the gates judging the end of a soak',
      state({ phase: 'gating', checkpoint: { stage: 0, wave: 1, point: 'soak-end' } }),
      undefined,
      'Stage 1/2 canary, wave 2/3: gates at soak end',
    ],
    ['no ETA', state(), undefined, 'Stage 1/2 canary, wave 2/3: 1 of 4 started (wave: up to 2)'],
    ['an infinite ETA is left out', state(), Infinity, 'Stage 1/2 canary, wave 2/3: 1 of 4 started (wave: up to 2)'],
    [
      'past the last wave: the wave number stays within the stage',
      state({ wave: 3 }),
      undefined,
      'Stage 1/2 canary, wave 3/3: 1 of 4 started (wave: up to 4)',
    ],
    ['done', state({ phase: 'done', stage: undefined }), undefined, 'Staged rollout: every stage done'],
    ['no stage yet', state({ stage: undefined }), undefined, ''],
  ])('%s', (_name, s, eta, line) => {
    expect(stageLine(s, eta)).toBe(line);
  });

  // The display cuts a line to the terminal's width at its end: a stage of up to 999 nodes keeps to 80 columns.
  it.each<[StageState['phase'], number, number, number]>([
    ['wave', 45, 120, 60],
    ['wave', 999, 999, 999],
    ['finishing', 45, 120, 60],
    ['finishing', 999, 999, 999],
    ['soak', 45, 120, 60],
    ['gating', 999, 999, 999],
  ])('fits in 80 columns: %s, %i of %i', (phase, started, size, target) => {
    const s = state({
      phase,
      checkpoint: { stage: 1, wave: 1, point: 'wave-end' },
      gateWaiting: '--gate-cmd for 4m59s',
      stage: { index: 1, name: 'rollout', size, started, targets: [1, target, size] },
      soakUntil: at(60 + 179),
    });
    const line = stageLine(s, (7 * 60 + 59) * MIN);
    expect(line).toMatch(/ETA ~7h59m$/);
    expect(line.length).toBeLessThanOrEqual(80);
  });
});

const input = (name: string, oldNodes: number, limit = Infinity, owned = false): StagePoolInput => ({
  pool: {
    name,
    budgetOwners: owned ? [{ manager: 'argocd-controller', operation: 'Apply' }] : [],
    labels: {},
    annotations: owned ? { 'argocd.argoproj.io/tracking-id': `karpenter:karpenter.sh/NodePool:/${name}` } : {},
  },
  oldNodes,
  limit,
});
const planOf = (pools: StagePoolInput[], r: Partial<StagedRequest>, force = false): StagedPlan => {
  const result = planStages(pools, { canary: [], waves: waves('100%'), soakMs: 0, holdWith: 'auto', ...r }, force);
  if (!('plan' in result)) throw new Error(JSON.stringify(result));
  return result.plan;
};

// Canary: 2 nodes, 1,50%,100% → 1, 2 (50 % of 2 is 1: collapses); 2 rounds. Rollout: 13 nodes → 1, 7, 13, of which
// general (limit 2) replaces 1, +4, +5: 1 + 2 + 3 rounds, the slowest. 8 rounds of 5m and 4 soaks of 15m: 100m.
const small = planOf([input('general', 10, 2), input('canary', 2), input('gitops', 3, Infinity, true)], {
  canary: ['canary'],
  waves: waves('1,50%,100%'),
  soakMs: 15 * MIN,
});

describe('stagedPlanLines', () => {
  it('a canary and a rollout with a soak', () => {
    expect(stagedPlanLines(small)).toEqual([
      'Staged rollout: 2 stages, soaking 15m after each wave',
      '  Stage 1 canary: 2 old nodes in 2 waves (1, +1)',
      '    nodepool/canary  2 old nodes  held with budget: no GitOps or IaC tool manages its budgets',
      '  Stage 2 rollout: 13 old nodes in 3 waves (1, +6, +6)',
      '    nodepool/general  10 old nodes  waves 1, +4, +5  held with budget: no GitOps or IaC tool manages its budgets',
      '    nodepool/gitops    3 old nodes  waves 0, +2, +1  held with node: its budgets are managed by Argo CD (field manager argocd-controller), which would put them back',
      '  Estimate: about 1h40m (4 soaks of 15m included), assuming 5m per replacement,',
      "  in parallel up to each NodePool's own budget; progress shows the real rate.",
    ]);
  });

  it('no soak, a stage with nothing to replace, one old node', () => {
    const p = planOf([input('canary', 0), input('general', 1)], { canary: ['canary'] });
    expect(stagedPlanLines(p)).toEqual([
      'Staged rollout: 2 stages, no soak between waves',
      '  Stage 1 canary: 0 old nodes, nothing to replace',
      '    nodepool/canary  0 old nodes  held with budget: no GitOps or IaC tool manages its budgets',
      '  Stage 2 rollout: 1 old node in 1 wave (1)',
      '    nodepool/general  1 old node  held with budget: no GitOps or IaC tool manages its budgets',
      '  Estimate: about 5m, assuming 5m per replacement,',
      "  in parallel up to each NodePool's own budget; progress shows the real rate.",
    ]);
  });

  it('a warning under a forced budget hold, and an unknown estimate', () => {
    const p = planOf([input('gitops', 3, 0, true)], { waves: waves('1,100%'), holdWith: 'budget' }, true);
    expect(stagedPlanLines(p)).toEqual([
      'Staged rollout: 1 stage, no soak between waves',
      '  Stage 1 rollout: 3 old nodes in 2 waves (1, +2)',
      '    nodepool/gitops  3 old nodes  held with budget: --hold-with budget --force-conflicts',
      '      warning: spec.disruption.budgets of nodepool/gitops is owned by Argo CD (field manager argocd-controller): it may put its own budgets back and lift the hold',
      '  Estimate: unknown (a NodePool allows no Drifted disruption), assuming 5m per replacement,',
      "  in parallel up to each NodePool's own budget; progress shows the real rate.",
    ]);
  });
});

describe('stagedPlanJson', () => {
  it('the stages, waves, holds and the estimate in seconds', () => {
    expect(stagedPlanJson(small)).toEqual({
      stages: [
        {
          name: 'canary',
          size: 2,
          waves: [1, 2],
          rounds: [1, 1],
          nodePools: [
            {
              name: 'canary',
              oldNodes: 2,
              waves: [1, 2],
              hold: { mechanism: 'budget', why: 'no GitOps or IaC tool manages its budgets' },
            },
          ],
        },
        {
          name: 'rollout',
          size: 13,
          waves: [1, 7, 13],
          rounds: [1, 2, 3],
          nodePools: [
            {
              name: 'general',
              oldNodes: 10,
              waves: [1, 5, 10],
              hold: { mechanism: 'budget', why: 'no GitOps or IaC tool manages its budgets' },
            },
            {
              name: 'gitops',
              oldNodes: 3,
              waves: [0, 2, 3],
              hold: {
                mechanism: 'node',
                why: 'its budgets are managed by Argo CD (field manager argocd-controller), which would put them back',
              },
            },
          ],
        },
      ],
      default: false,
      waveSteps: ['1', '50%', '100%'],
      soakSeconds: 900,
      soaks: 4,
      estimateSeconds: 100 * 60,
      assumedReplacementSeconds: 300,
    });
  });

  it('a warning, and no estimate when it is unknown', () => {
    const json = stagedPlanJson(
      planOf([input('gitops', 3, 0, true)], { waves: waves('1,100%'), holdWith: 'budget' }, true),
    );
    expect(json).toMatchObject({ soakSeconds: 0, soaks: 0, estimateSeconds: null });
    expect(
      (json.stages as Array<{ nodePools: Array<{ hold: Record<string, string> }> }>)[0]!.nodePools[0]!.hold,
    ).toEqual({
      mechanism: 'budget',
      why: '--hold-with budget --force-conflicts',
      warning:
        'spec.disruption.budgets of nodepool/gitops is owned by Argo CD (field manager argocd-controller): it may put its own budgets back and lift the hold',
    });
  });
});

describe('the plan’s ETA counted in windows', () => {
  // Saturday 09:00 UTC; windows Monday to Thursday 02:00–05:00 UTC.
  const saturday = new Date('2026-11-28T09:00:00Z');
  const issueWindow = { windows: [parseWindow('0 2 * * mon-thu/3h') as UpgradeWindow], exclusions: [] };
  const windowed = (p: StagedPlan, zone: string, now = saturday, request: WindowRequest = issueWindow): StagedPlan => {
    // Held with budgets (the windows need them; the ETA does not depend on it).
    const pools = p.stages.flatMap((s) => s.nodePools).map((n) => ({ pool: { name: n.name }, hold: { ...n.hold, mechanism: 'budget' as const } }));
    const r = planWindows(request, pools, 'v1', now, zone);
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    return { ...p, windows: r.plan };
  };
  const one = (oldNodes: number, limit: number) => planOf([input('general', oldNodes, limit)], {});
  it.each<[string, StagedPlan, string[], Record<string, unknown>]>([
    // 8 rounds of 5m and 4 soaks of 15m, all on Monday from 02:00.
    ['the small plan fits in the first window', windowed(small, 'UTC'), ['    ETA: 1 window: done by Mon 03:40 UTC'], { windows: 1, doneBy: '2026-11-30T03:40:00Z' }],
    [
      // 100 rounds of 5m: 8h20m of open time, Monday, Tuesday and 2h20m of Wednesday.
      'one node at a time: three windows, in the local zone too',
      windowed(one(100, 1), 'America/New_York'),
      ['    ETA: 3 windows: done by Wed 04:20 UTC (Tue 23:20 America/New_York)'],
      { windows: 3, doneBy: '2026-12-02T04:20:00Z' },
    ],
    [
      // 25h: Monday to Thursday twice, then an hour of the third Monday; a week away, so dated.
      'the local time on its own line when both do not fit in 80 columns',
      windowed(one(300, 1), 'America/Los_Angeles'),
      ['    ETA: 9 windows: done by Mon 2026-12-14 03:00 UTC', '      (Sun 2026-12-13 19:00 America/Los_Angeles)'],
      { windows: 9, doneBy: '2026-12-14T03:00:00Z' },
    ],
    [
      'inside a window: it counts, from now',
      windowed(one(8, 1), 'UTC', new Date('2026-11-30T04:30:00Z')),
      ['    ETA: 2 windows: done by Tue 02:10 UTC'],
      { windows: 2, doneBy: '2026-12-01T02:10:00Z' },
    ],
    [
      // The soak runs on over Thursday night's close; the second wave waits for Monday.
      'a soak spans the closed time, the next wave waits for a window',
      windowed(planOf([input('general', 2, 1)], { waves: waves('1,100%'), soakMs: 60 * MIN }), 'UTC', new Date('2026-12-03T04:00:00Z')),
      ['    ETA: 2 windows: done by Mon 02:05 UTC'],
      { windows: 2, doneBy: '2026-12-07T02:05:00Z' },
    ],
    [
      'an exclusion takes its windows out',
      windowed(one(100, 1), 'UTC', saturday, { ...issueWindow, exclusions: [parseExclusion('2026-12-01/2026-12-01') as Exclusion] }),
      ['    ETA: 3 windows: done by Thu 04:20 UTC'],
      { windows: 3, doneBy: '2026-12-03T04:20:00Z' },
    ],
    ['nothing to replace', windowed(one(0, 1), 'UTC'), ['    ETA: nothing to wait for, no replacement needs a window'], { windows: 0, doneBy: '2026-11-28T09:00:00Z' }],
    [
      'unknown when the estimate is',
      windowed(one(3, 0), 'UTC'),
      ['    ETA: unknown, as the estimate (a NodePool allows no Drifted disruption)'],
      { windows: null, doneBy: null, reason: 'estimate' },
    ],
  ])('%s', (_name, p, want, json) => {
    const lines = stagedPlanLines(p);
    expect(lines.filter((l) => /^ {4}ETA|^ {6}\(/.test(l))).toEqual(want);
    // Under the next windows, before the budgets.
    expect(lines[lines.indexOf(want[0]!) + want.length]).toMatch(/^ {2}Budgets added/);
    expect(lines.slice(lines.findIndex((l) => l.startsWith('  Windows'))).every((l) => l.length <= 80)).toBe(true);
    expect((stagedPlanJson(p).windows as Record<string, unknown>).eta).toEqual(json);
  });

  it('says so when the windows close for good before the rollout could finish', () => {
    const at = { timeZone: 'UTC', at: saturday };
    expect(windowEtaLines({ unknown: 'windows-end' }, at)).toEqual([
      '    ETA: none: the windows close for good before the rollout could finish',
    ]);
    expect(windowEtaJson({ unknown: 'windows-end' })).toEqual({ windows: null, doneBy: null, reason: 'windows-end' });
  });
});
