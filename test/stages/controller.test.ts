import { describe, expect, it } from 'vitest';
import {
  decideStages,
  initialPosition,
  type PicksOf,
  type PoolWaveCounts,
  type StagePlan,
  type StagePosition,
} from '../../src/stages/controller.js';
import { waveTargets } from '../../src/stages/waves.js';
import { waves, MIN, t0, at } from './helpers.js';
import type { AmiPick } from '../../src/stages/ami-picks.js';

const pool = (name: string, untouched: number, inflight = 0): PoolWaveCounts => ({ name, untouched, inflight });

const canaryPlan: StagePlan = {
  stages: [
    { name: 'canary', nodePools: ['canary'] },
    { name: 'rollout', nodePools: ['general', 'batch'] },
  ],
  waves: waves('1,50%,100%'),
  soakMs: 15 * MIN,
};

describe('decideStages: one step at a time', () => {
  it('opens the canary stage with its first wave; holds every later stage', () => {
    const pools = [pool('canary', 4), pool('general', 10), pool('batch', 10)];
    const d = decideStages(canaryPlan, pools, initialPosition(canaryPlan, pools), t0);
    expect(d.phase).toBe('wave');
    expect(d.allowances).toEqual({ canary: 1, general: 0, batch: 0 });
    expect(d.events).toEqual([
      {
        type: 'stage',
        stage: 0,
        name: 'canary',
        nodePools: ['canary'],
        size: 4,
        waves: [1, 2, 4],
      },
      {
        type: 'wave',
        stage: 0,
        wave: 0,
        of: 3,
        target: 1,
        size: 4,
        started: 0,
      },
    ]);
  });

  it.each<[string, PoolWaveCounts[], StagePosition, number, string, Record<string, number | 'release'>]>([
    // The one canary node started: nothing more may start, whatever finishes.
    [
      'wave 1 started its node',
      [pool('canary', 3, 1), pool('general', 10), pool('batch', 10)],
      { stage: 0, wave: 0, sizes: [4], announced: { stage: 0, wave: 0 } },
      1,
      'finishing',
      { canary: 0, general: 0, batch: 0 },
    ],
    [
      'wave 2 (50% of 4 = 2): one more may start',
      [pool('canary', 3), pool('general', 10), pool('batch', 10)],
      { stage: 0, wave: 1, sizes: [4], announced: { stage: 0, wave: 1 } },
      20,
      'wave',
      { canary: 1, general: 0, batch: 0 },
    ],
    [
      'soaking: everything held',
      [pool('canary', 3), pool('general', 10), pool('batch', 10)],
      {
        stage: 0,
        wave: 0,
        sizes: [4],
        soakUntil: at(16),
        announced: { stage: 0, wave: 0 },
      },
      10,
      'soak',
      { canary: 0, general: 0, batch: 0 },
    ],
    // Stage 2, wave 2 of 20 nodes: 50 % = 10, 3 started: 7 more. general had 9 old nodes and batch 10, so the 10 are
    // shared 5 and 5 (waveShares); each has started 1: 4 more each, but together no more than the 7 the wave has left.
    [
      'a stage of two NodePools shares the wave in proportion to their old nodes',
      [pool('canary', 0), pool('general', 8, 1), pool('batch', 9, 1)],
      { stage: 1, wave: 1, sizes: [4, 20], poolSizes: { general: 9, batch: 10 }, announced: { stage: 1, wave: 1 } },
      90,
      'wave',
      { canary: 'release', general: 4, batch: 3 },
    ],
    // 13 untouched of 20: 7 started, 3 more to reach 10. general's 1 old node is its share at once; batch the rest.
    [
      'never more together than the wave has left',
      [pool('canary', 0), pool('general', 1), pool('batch', 12)],
      { stage: 1, wave: 1, sizes: [4, 20], announced: { stage: 1, wave: 1 } },
      90,
      'wave',
      { canary: 'release', general: 1, batch: 2 },
    ],
  ])('%s', (_name, pools, position, minute, phase, allowances) => {
    const d = decideStages(canaryPlan, pools, position, at(minute));
    expect(d.phase).toBe(phase);
    expect(d.allowances).toEqual(allowances);
  });
});

// A whole rollout played against a tiny model of Karpenter: each step, every NodePool starts as many replacements as
// its allowance lets (Karpenter's budget caps what is in flight: allowance − in flight), and in-flight ones finish
// after one step. The model records the most replacements ever started within one wave.
describe('decideStages: a whole rollout', () => {
  it.each<[string, StagePlan, Record<string, number>, string[], number]>([
    [
      'canary + 1,50%,100% with a soak',
      canaryPlan,
      { canary: 4, general: 10, batch: 7 },
      ['canary:1/3→1', 'canary:2/3→2', 'canary:3/3→4', 'rollout:1/3→1', 'rollout:2/3→9', 'rollout:3/3→17'],
      5, // after every wave but the very last: nothing is left to protect then
    ],
    [
      'no canary, 1,10%,100%, no soak',
      {
        stages: [{ name: 'rollout', nodePools: ['a', 'b'] }],
        waves: waves('1,10%,100%'),
        soakMs: 0,
      },
      { a: 30, b: 13 },
      ['rollout:1/3→1', 'rollout:2/3→5', 'rollout:3/3→43'],
      0,
    ],
    [
      'canary only, one wave',
      {
        stages: [
          { name: 'canary', nodePools: ['c'] },
          { name: 'rollout', nodePools: ['d'] },
        ],
        waves: waves('100%'),
        soakMs: 5 * MIN,
      },
      { c: 2, d: 3 },
      ['canary:1/1→2', 'rollout:1/1→3'],
      1,
    ],
    [
      'a stage with nothing to do is skipped',
      {
        stages: [
          { name: 'canary', nodePools: ['c'] },
          { name: 'rollout', nodePools: ['d'] },
        ],
        waves: waves('1,100%'),
        soakMs: MIN,
      },
      { c: 0, d: 3 },
      ['rollout:1/2→1', 'rollout:2/2→3'],
      1,
    ],
  ])('%s', (_name, plan, sizes, expectedWaves, expectedSoaks) => {
    const untouched = { ...sizes };
    const inflight: Record<string, number> = Object.fromEntries(Object.keys(sizes).map((k) => [k, 0]));
    const counts = () => Object.keys(sizes).map((k) => pool(k, untouched[k]!, inflight[k]));
    let position = initialPosition(plan, counts());
    const startedPerWave = new Map<string, number>();
    const waveEvents: string[] = [];
    let soaks = 0;
    let minute = 0;
    let decision;
    for (; minute < 10_000; minute++) {
      decision = decideStages(plan, counts(), position, at(minute));
      position = decision.position;
      for (const e of decision.events) {
        if (e.type === 'wave') waveEvents.push(`${plan.stages[e.stage]!.name}:${e.wave + 1}/${e.of}→${e.target}`);
        if (e.type === 'soak') soaks++;
      }
      if (decision.phase === 'done') break;
      // In-flight replacements finish.
      for (const k of Object.keys(inflight)) inflight[k] = 0;
      // Karpenter starts what the budgets allow.
      for (const [name, allowance] of Object.entries(decision.allowances)) {
        const cap = allowance === 'release' ? Infinity : allowance;
        const start = Math.min(untouched[name]!, Math.max(0, cap - inflight[name]!));
        untouched[name]! -= start;
        inflight[name]! += start;
        const key = `${position.stage}/${position.wave}`;
        startedPerWave.set(key, (startedPerWave.get(key) ?? 0) + start);
      }
    }
    expect(decision?.phase).toBe('done');
    expect(Object.values(untouched).every((n) => n === 0)).toBe(true);
    // Never more started in a wave than the wave's size.
    for (const [key, started] of startedPerWave) {
      const [stage, wave] = key.split('/').map(Number) as [number, number];
      const size = position.sizes[stage] ?? 0;
      const targets = waveTargets(plan.waves, size);
      expect(started).toBeLessThanOrEqual(targets[wave]! - (wave === 0 ? 0 : targets[wave - 1]!));
    }
    expect(waveEvents).toEqual(expectedWaves);
    expect(soaks).toBe(expectedSoaks);
  });
});

describe('initialPosition: a re-run resumes where the cluster stands', () => {
  it.each<[string, PoolWaveCounts[], Array<number | undefined>, { stage: number; wave: number }]>([
    ['nothing replaced', [pool('canary', 4), pool('general', 10), pool('batch', 10)], [], { stage: 0, wave: 0 }],
    [
      'canary done: the rollout stage',
      [pool('canary', 0), pool('general', 10), pool('batch', 10)],
      [4],
      { stage: 1, wave: 0 },
    ],
    // Recorded size 20, 12 untouched: 8 started, past wave 2 (1) but short of 50% (10).
    [
      'mid-stage, from the recorded size',
      [pool('canary', 0), pool('general', 5, 1), pool('batch', 7)],
      [4, 20],
      { stage: 1, wave: 1 },
    ],
    ['everything replaced', [pool('canary', 0), pool('general', 0), pool('batch', 0)], [4, 20], { stage: 2, wave: 0 }],
  ])('%s', (_name, pools, sizes, expected) => {
    const p = initialPosition(canaryPlan, pools, sizes);
    expect({ stage: p.stage, wave: p.wave }).toEqual(expected);
  });
});

describe('a later stage recorded with no size (0) by a run that died in the canary', () => {
  // The run before wrote its hold on `general` while stage 2 had not begun: no size yet. A re-run that took that 0
  // for the stage's size counted it from the old nodes left, so each finished replacement shrank the stage and the
  // wave's "started" fell back to 0: a wave of 1 waited forever with its hold at 0.
  it("the stage's size is fixed when it begins: a finished replacement counts as started", () => {
    // Re-run while the canary's last replacement is in flight: the rollout stage has not begun yet.
    const position0 = initialPosition(canaryPlan, [pool('canary', 0, 1), pool('general', 24), pool('batch', 6)], [3, 0]);
    expect(position0.stage).toBe(0);
    const start = [pool('canary', 0), pool('general', 24), pool('batch', 6)];
    let d = decideStages(canaryPlan, start, position0, at(0));
    d = decideStages(canaryPlan, start, d.position, at(20)); // the canary's soak is over: the rollout stage begins
    expect(d.allowances).toMatchObject({ general: 1 });
    const position = d.position;
    const oneDone = [pool('canary', 0), pool('general', 23), pool('batch', 6)];
    d = decideStages(canaryPlan, oneDone, position, at(10));
    expect(d.stage).toMatchObject({ size: 30, started: 1 });
    expect(d.phase).not.toBe('wave');
  });
});

describe('initialPosition: a soak recorded by a run that ended early', () => {
  const soak = (untilMinute: number, nowMinute = 0) => ({ until: at(untilMinute), now: at(nowMinute) });

  it.each<[string, PoolWaveCounts[], Array<number | undefined>, { until: Date; now: Date }, StagePosition]>([
    // Canary of 4: wave 1 (1 node) done, nothing of wave 2 started.
    [
      'at a wave boundary, nothing in flight: soaks out that wave',
      [pool('canary', 3), pool('general', 10), pool('batch', 10)],
      [4],
      soak(10),
      { stage: 0, wave: 0, soakUntil: at(10), sizes: [4, undefined], announced: { stage: 0, wave: 0 } },
    ],
    [
      'at a later wave boundary of stage 2',
      [pool('canary', 0), pool('general', 5), pool('batch', 5)],
      [4, 20],
      soak(10),
      { stage: 1, wave: 1, soakUntil: at(10), sizes: [4, 20], announced: { stage: 1, wave: 1 } },
    ],
    [
      "at the start of stage 2, nothing started: soaks after stage 1's last wave",
      [pool('canary', 0), pool('general', 10), pool('batch', 10)],
      [4],
      soak(10),
      { stage: 0, wave: 2, soakUntil: at(10), sizes: [4, 20], announced: { stage: 0, wave: 2 } },
    ],
    [
      "at the start of stage 2, stage 1's size not recorded",
      [pool('canary', 0), pool('general', 10), pool('batch', 10)],
      [],
      soak(10),
      { stage: 0, wave: 0, soakUntil: at(10), sizes: [undefined, 20], announced: { stage: 0, wave: 0 } },
    ],
    [
      'a soak in the past is ignored',
      [pool('canary', 3), pool('general', 10), pool('batch', 10)],
      [4],
      soak(10, 11),
      { stage: 0, wave: 1, sizes: [4, undefined] },
    ],
    [
      'a soak ending now is over',
      [pool('canary', 3), pool('general', 10), pool('batch', 10)],
      [4],
      soak(10, 10),
      { stage: 0, wave: 1, sizes: [4, undefined] },
    ],
    // 2 of 4 started (the wave-2 target) but one still in flight: the wave is not done, so its soak has not begun.
    [
      'nodes in flight: ignored',
      [pool('canary', 2, 1), pool('general', 10), pool('batch', 10)],
      [4],
      soak(10),
      { stage: 0, wave: 2, sizes: [4, undefined] },
    ],
    // Its first node in flight counts as started: wave 1's target is reached, wave 2 is open.
    [
      'in flight at the start of stage 2: ignored',
      [pool('canary', 0), pool('general', 9, 1), pool('batch', 10)],
      [4],
      soak(10),
      { stage: 1, wave: 1, sizes: [4, 20] },
    ],
    // 2 of 20 started: past wave 1's target (1), short of wave 2's (10): mid-wave, not where a soak began.
    [
      'mid-wave: ignored',
      [pool('canary', 0), pool('general', 8), pool('batch', 10)],
      [4, 20],
      soak(10),
      { stage: 1, wave: 1, sizes: [4, 20] },
    ],
    [
      'the very start of the rollout: ignored',
      [pool('canary', 4), pool('general', 10), pool('batch', 10)],
      [],
      soak(10),
      { stage: 0, wave: 0, sizes: [4, undefined] },
    ],
  ])('%s', (_name, pools, sizes, recorded, expected) => {
    // What the position says of each NodePool's size is checked on its own below.
    const { poolSizes: _sizes, ...position } = initialPosition(canaryPlan, pools, sizes, recorded);
    expect(position).toEqual(expected);
  });

  it("each NodePool's size is what was recorded on its hold, or what it has now if that is more", () => {
    const pools = [pool('canary', 0), pool('general', 4, 1), pool('batch', 10)];
    expect(initialPosition(canaryPlan, pools, [4, 20], undefined, { canary: 4, general: 10 }).poolSizes).toEqual({
      canary: 4,
      general: 10,
      batch: 10,
    });
  });

  it('a resumed wave soak holds until it passes, then opens the next wave (no stage event)', () => {
    const pools = [pool('canary', 3), pool('general', 10), pool('batch', 10)];
    const position = initialPosition(canaryPlan, pools, [4], soak(10));
    const soaking = decideStages(canaryPlan, pools, position, at(5));
    expect(soaking.phase).toBe('soak');
    expect(soaking.allowances).toEqual({ canary: 0, general: 0, batch: 0 });
    expect(soaking.events).toEqual([]);
    expect(soaking.position.soakUntil).toEqual(at(10));

    const opened = decideStages(canaryPlan, pools, soaking.position, at(10));
    expect(opened.phase).toBe('wave');
    expect(opened.allowances).toEqual({ canary: 1, general: 0, batch: 0 });
    expect(opened.events).toEqual([{ type: 'wave', stage: 0, wave: 1, of: 3, target: 2, size: 4, started: 1 }]);
    expect(opened.position).toMatchObject({ stage: 0, wave: 1, announced: { stage: 0, wave: 1 } });
    expect(opened.position.soakUntil).toBeUndefined();
  });

  it.each<[string, Array<number | undefined>]>([
    ['stage 1 size recorded', [4]],
    ['stage 1 size not recorded', []],
  ])('a resumed stage soak holds until it passes, then begins stage 2 (%s)', (_name, sizes) => {
    const pools = [pool('canary', 0), pool('general', 10), pool('batch', 10)];
    const position = initialPosition(canaryPlan, pools, sizes, soak(10));
    const soaking = decideStages(canaryPlan, pools, position, at(9));
    expect(soaking.phase).toBe('soak');
    expect(soaking.allowances).toEqual({ canary: 0, general: 0, batch: 0 });
    expect(soaking.events).toEqual([]);

    const begun = decideStages(canaryPlan, pools, soaking.position, at(10));
    expect(begun.phase).toBe('wave');
    expect(begun.allowances).toEqual({ canary: 'release', general: 1, batch: 0 });
    expect(begun.events.map((e) => [e.type, e.stage, 'wave' in e ? e.wave : undefined])).toEqual([
      ['stage', 1, undefined],
      ['wave', 1, 0],
    ]);
  });
});

describe('decideStages: the soak after a wave', () => {
  it.each<
    [string, PoolWaveCounts[], StagePosition, string, { stage: number; wave: number; stageDone: boolean } | null]
  >([
    [
      'a wave of stage 1 done: soaks before the next wave',
      [pool('canary', 2), pool('general', 10), pool('batch', 10)],
      { stage: 0, wave: 1, sizes: [4], announced: { stage: 0, wave: 1 } },
      'soak',
      { stage: 0, wave: 1, stageDone: false },
    ],
    [
      "stage 1's last wave done: soaks before stage 2",
      [pool('canary', 0), pool('general', 10), pool('batch', 10)],
      { stage: 0, wave: 2, sizes: [4], announced: { stage: 0, wave: 2 } },
      'soak',
      { stage: 0, wave: 2, stageDone: true },
    ],
    [
      "the last stage's last wave done: done, no soak",
      [pool('canary', 0), pool('general', 0), pool('batch', 0)],
      { stage: 1, wave: 2, sizes: [4, 20], announced: { stage: 1, wave: 2 } },
      'done',
      null,
    ],
    // Stage 2 has no old nodes: nothing is left to protect after stage 1 (and the plan counts no soak there).
    [
      "stage 1's last wave done, stage 2 with nothing to replace: done, no soak",
      [pool('canary', 0), pool('general', 0), pool('batch', 0)],
      { stage: 0, wave: 2, sizes: [4], announced: { stage: 0, wave: 2 } },
      'done',
      null,
    ],
    [
      'the last wave still finishing: no soak yet',
      [pool('canary', 0), pool('general', 0, 2), pool('batch', 0)],
      { stage: 1, wave: 2, sizes: [4, 20], announced: { stage: 1, wave: 2 } },
      'finishing',
      null,
    ],
  ])('%s', (_name, pools, position, phase, soakEvent) => {
    const d = decideStages(canaryPlan, pools, position, at(30));
    expect(d.phase).toBe(phase);
    const soaks = d.events.filter((e) => e.type === 'soak');
    expect(soaks).toEqual(soakEvent == null ? [] : [{ type: 'soak', ...soakEvent, until: at(45) }]);
    if (phase === 'soak') expect(d.position.soakUntil).toEqual(at(45));
    if (phase === 'done') expect(Object.values(d.allowances).every((a) => a === 'release')).toBe(true);
  });
});

describe('decideStages: health-gate checkpoints', () => {
  // The canary's single node is replaced (started 1 of 1, nothing in flight): the wave is over.
  const plan: StagePlan = { stages: canaryPlan.stages, waves: waves('100%'), soakMs: 15 * MIN };
  const pools = [pool('canary', 0), pool('general', 10), pool('batch', 10)];
  const opened: StagePosition = { stage: 0, wave: 0, sizes: [1], announced: { stage: 0, wave: 0 } };
  const only = (cleared: string[]) => (c: { stage: number; wave: number; point: string }) =>
    cleared.includes(`${c.stage}/${c.wave}/${c.point}`);

  it.each<[string, StagePosition, Date, string[], string, Record<string, number | 'release'>, string | undefined]>([
    [
      'the wave is over, the gates not yet passed: gating, all held',
      opened,
      t0,
      [],
      'gating',
      { canary: 0, general: 0, batch: 0 },
      '0/0/wave-end',
    ],
    [
      "passed at the wave's end: the soak begins",
      opened,
      t0,
      ['0/0/wave-end'],
      'soak',
      { canary: 0, general: 0, batch: 0 },
      undefined,
    ],
    [
      'the soak is over, its gates not yet passed: gating',
      { ...opened, soakUntil: at(15) },
      at(16),
      ['0/0/wave-end'],
      'gating',
      { canary: 0, general: 0, batch: 0 },
      '0/0/soak-end',
    ],
    [
      "passed at the soak's end: the next stage opens",
      { ...opened, soakUntil: at(15) },
      at(16),
      ['0/0/wave-end', '0/0/soak-end'],
      'wave',
      { canary: 'release', general: 10, batch: 10 },
      undefined,
    ],
  ])('%s', (_name, position, now, cleared, phase, allowances, checkpoint) => {
    const d = decideStages(plan, pools, position, now, only(cleared));
    expect(d.phase).toBe(phase);
    expect(d.allowances).toEqual(allowances);
    expect(d.checkpoint ? `${d.checkpoint.stage}/${d.checkpoint.wave}/${d.checkpoint.point}` : undefined).toBe(
      checkpoint,
    );
  });

  it('the last wave of all is judged too: not done until its gates pass', () => {
    const last: StagePosition = { stage: 1, wave: 0, sizes: [1, 20], announced: { stage: 1, wave: 0 } };
    const done = [pool('canary', 0), pool('general', 0), pool('batch', 0)];
    expect(decideStages(plan, done, last, t0, only([])).phase).toBe('gating');
    expect(decideStages(plan, done, last, t0, only(['1/0/wave-end'])).phase).toBe('done');
    // Nothing is left to protect after it: no stage end to test (gates/coverage.ts).
    expect(decideStages(plan, done, last, t0, only([])).checkpoint?.stageEnd).toBeUndefined();
  });

  it("a stage's last wave, with a later stage to begin, is its end: the gates must see each target AMI tested", () => {
    const two: StagePlan = { ...plan, waves: waves('1,100%') };
    const first: StagePosition = { stage: 0, wave: 0, sizes: [2], announced: { stage: 0, wave: 0 } };
    const oneOfTwo = [pool('canary', 1), pool('general', 10), pool('batch', 10)];
    expect(decideStages(two, oneOfTwo, first, t0, only([])).checkpoint).toEqual({ stage: 0, wave: 0, point: 'wave-end' });
    const second: StagePosition = { ...first, wave: 1, announced: { stage: 0, wave: 1 } };
    expect(decideStages(two, pools, second, t0, only([])).checkpoint).toEqual({
      stage: 0,
      wave: 1,
      point: 'wave-end',
      stageEnd: true,
    });
    const soaked = { ...second, soakUntil: at(15) };
    expect(decideStages(two, pools, soaked, at(16), only(['0/1/wave-end'])).checkpoint).toEqual({
      stage: 0,
      wave: 1,
      point: 'soak-end',
      stageEnd: true,
    });
  });
});

describe('decideStages: the 1/ami wave tests each target AMI on one node first', () => {
  const amiPlan: StagePlan = { stages: [{ name: 'rollout', nodePools: ['canary', 'general'], amiCount: 2 }], waves: waves('1/ami,100%'), soakMs: 0 };
  const pick = (nodePool: string, node: string, exact: boolean, ami = 'ami-x'): AmiPick => ({ ami, label: 'al2023 amd64 standard', nodePool, node, exact });
  const picks = (list: AmiPick[]): PicksOf => () => list;
  const only = (cleared: string[]) => (c: { stage: number; wave: number; point: string }) =>
    cleared.includes(`${c.stage}/${c.wave}/${c.point}`);
  const fresh = [pool('canary', 3), pool('general', 14)];

  it('opens with the picks: each NodePool may start its picks, and a NodePool whose budget alone is not exact names them', () => {
    const list = [pick('canary', 'c1', true, 'ami-amd'), pick('general', 'g7', false, 'ami-arm')];
    const d = decideStages(amiPlan, fresh, initialPosition(amiPlan, fresh, [], undefined, {}, picks(list)), t0, undefined, picks(list));
    expect(d.phase).toBe('wave');
    expect(d.allowances).toEqual({ canary: 1, general: 1 });
    expect(d.free).toEqual({ general: ['g7'] });
    expect(d.events.find((e) => e.type === 'wave')).toMatchObject({ wave: 0, of: 2, target: 2, size: 17, started: 0, picks: list });
  });

  it.each<[string, PoolWaveCounts[], AmiPick[], string[], string, Record<string, number>]>([
    // Both picks started (each AMI is being tested): nothing more starts until they are done and judged.
    ['both picks in flight: finishing', [pool('canary', 2, 1), pool('general', 13, 1)], [], [], 'finishing', { canary: 0, general: 0 }],
    ['both done, not yet judged: gating', [pool('canary', 2), pool('general', 13)], [], [], 'gating', { canary: 0, general: 0 }],
    // Judged: the rest at the NodePools' own budgets (all they have left: their budget hold is then the larger).
    ['judged: the rest opens', [pool('canary', 2), pool('general', 13)], [], ['0/0/wave-end'], 'wave', { canary: 2, general: 13 }],
    // The replacement came up on another arch (Karpenter's choice): the AMI left untested is picked again, alone.
    ['an AMI still untested: picked again', [pool('canary', 2), pool('general', 13)], [pick('general', 'g9', false)], [], 'wave', { canary: 0, general: 1 }],
  ])('%s', (_name, counts, list, cleared, phase, allowances) => {
    const opened: StagePosition = { stage: 0, wave: 0, sizes: [17], poolSizes: { canary: 3, general: 14 }, announced: { stage: 0, wave: 0 } };
    const d = decideStages(amiPlan, counts, opened, t0, only(cleared), picks(list));
    expect(d.phase).toBe(phase);
    expect(d.allowances).toEqual(allowances);
  });

  it("the 1/ami wave's checkpoint says so (the gates ask each AMI a drift replacement runs to be tested there); the next wave's does not", () => {
    const opened: StagePosition = { stage: 0, wave: 0, sizes: [17], poolSizes: { canary: 3, general: 14 }, announced: { stage: 0, wave: 0 } };
    const done = [pool('canary', 2), pool('general', 13)];
    expect(decideStages(amiPlan, done, opened, t0, only([]), picks([])).checkpoint).toEqual({
      stage: 0,
      wave: 0,
      point: 'wave-end',
      amiWave: true,
    });
    const rest: StagePosition = { ...opened, wave: 1, announced: { stage: 0, wave: 1 } };
    expect(decideStages(amiPlan, [pool('canary', 0), pool('general', 0)], rest, t0, only([]), picks([])).checkpoint).toEqual({
      stage: 0,
      wave: 1,
      point: 'wave-end',
    });
  });

  it('a re-run starts at the 1/ami wave while an AMI is untested, whatever the counts; at the next wave once none is', () => {
    const counts = [pool('canary', 2), pool('general', 10)];
    expect(initialPosition(amiPlan, counts, [17], undefined, {}, picks([pick('general', 'g9', false)])).wave).toBe(0);
    expect(initialPosition(amiPlan, counts, [17], undefined, {}, picks([])).wave).toBe(1);
    // Nothing started yet and every AMI tested already (the canary stage of an earlier run did): straight to the rest.
    expect(initialPosition(amiPlan, fresh, [], undefined, {}, picks([])).wave).toBe(1);
  });

  it('no AMI to test (only empty nodes move): the 1/ami wave collapses into the rest', () => {
    const none: StagePlan = { ...amiPlan, stages: [{ ...amiPlan.stages[0]!, amiCount: 0 }] };
    const d = decideStages(none, fresh, initialPosition(none, fresh), t0);
    expect(d.phase).toBe('wave');
    expect(d.allowances).toEqual({ canary: 3, general: 14 });
    expect(d.events.find((e) => e.type === 'wave')).toMatchObject({ of: 1, target: 17 });
  });
});
