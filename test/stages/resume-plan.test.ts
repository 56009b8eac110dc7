// What a re-run of `upgrade` would take on (issue 33: nothing resumes without consent): the holds in scope, what
// paused them, whether a gate halted them (then --resume-halted is needed), and where the rollout goes on.
import { describe, expect, it } from 'vitest';
import { HOLD_ANNOTATION, switchBudget } from '../../src/apis/budget-hold.js';
import { decodePauseRecord, encodePauseRecord, PAUSE_ANNOTATION, pauseOf, type PauseRecord } from '../../src/apis/pause-record.js';
import type { RunLock } from '../../src/apis/hold-state.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { pausedByText, resumePlanLines } from '../../src/report/resume.js';
import { resumePlan, type ResumeInput } from '../../src/stages/resume-plan.js';
import type { StagedPlan } from '../../src/stages/stage-plan.js';
import { node, nodeClaim, nodeFor, nodePool } from '../rollout/factories.js';
import { waves } from './helpers.js';

const now = new Date('2026-11-26T10:00:00Z');
const NONE: RunLock = { state: 'none' };
const record = (o: Record<string, unknown> = {}) =>
  JSON.stringify({ runId: 'run-a', since: '2026-11-26T09:40:00Z', budgets: [{ nodes: '10%' }], target: '1.30', stageSize: 4, ...o });
const gateHalt: PauseRecord = {
  runId: 'run-a-1234567',
  at: '2026-11-26T09:50:00Z',
  by: 'gate',
  why: 'a health gate stopped it: POD-FAILING pod shop/web-1 on replaced node ip-x is in CrashLoopBackOff',
  command: 'upgrade --to 1.30 --yes',
  who: 'alice@laptop',
  gate: { code: 'POD-FAILING', subject: 'pod shop/web-1' },
};
const held = (name: string, pause?: PauseRecord, budgets: Budget[] = [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }]) =>
  nodePool({
    name,
    budgets,
    annotations: { [HOLD_ANNOTATION]: record(), ...(pause !== undefined ? { [PAUSE_ANNOTATION]: encodePauseRecord(pause) } : {}) },
  });

describe('pause records', () => {
  it('round-trips, and a hand-edited one says nothing', () => {
    expect(decodePauseRecord(encodePauseRecord(gateHalt))).toEqual(gateHalt);
    expect(decodePauseRecord('not json')).toBeUndefined();
    expect(decodePauseRecord(JSON.stringify({ ...gateHalt, by: 'somebody' }))).toBeUndefined();
    expect(decodePauseRecord(JSON.stringify({ runId: 'x', at: 'y' }))).toBeUndefined();
  });

  it("a gate's halt is the one that counts among several NodePools' records, however old", () => {
    const paused: PauseRecord = { runId: 'run-b', at: '2026-11-26T09:59:00Z', by: 'pause', why: 'karp-drift pause by bob@ci' };
    const pools = [
      { annotations: { [PAUSE_ANNOTATION]: encodePauseRecord(paused) } },
      { annotations: { [PAUSE_ANNOTATION]: encodePauseRecord(gateHalt) } },
    ];
    expect(pauseOf(pools)?.by).toBe('gate');
    expect(pauseOf([pools[0]!])?.by).toBe('pause');
    expect(pauseOf([{}])).toBeUndefined();
  });

  it('says what paused it, who, with which command, without repeating itself', () => {
    expect(pausedByText(gateHalt)).toBe(
      'halted by a health gate at 2026-11-26 09:50 UTC (run run-a-12, alice@laptop: karp-drift upgrade --to 1.30 --yes): POD-FAILING pod shop/web-1 on replaced node ip-x is in CrashLoopBackOff',
    );
  });
});

const input = (pools: ResumeInput['pools'], o: Partial<ResumeInput> = {}): ResumeInput => ({ pools, nodes: [], claims: [], lock: NONE, ...o });

describe('resumePlan', () => {
  it.each<[string, ResumeInput, Partial<ReturnType<typeof resumePlan>> | undefined]>([
    ['nothing held: nothing to resume', input([nodePool({ name: 'general' })]), undefined],
    // Read only when karp-drift holds something (commands/planning.ts): no lock read is nothing held.
    ['no lock read: nothing held', input([held('general')], { lock: undefined }), undefined],
    // A live run paces it: the cluster lock refuses this run, as it always did.
    ['a live run paces it: not this run to take on', input([held('general')], { lock: { state: 'live', holder: 'bob', durationSeconds: 30 } }), undefined],
    ['the lock cannot be read: not known, left to the lock', input([held('general')], { lock: { state: 'unreadable' } }), undefined],
    ['paused by a gate: halted', input([held('general', gateHalt), held('canary', gateHalt)]), { halted: true, pause: gateHalt }],
    [
      'paused by karp-drift pause: asks, not halted',
      input([held('general', { runId: 'r', at: '2026-11-26T09:55:00Z', by: 'pause', why: 'karp-drift pause by bob@ci' })]),
      { halted: false, pause: { runId: 'r', at: '2026-11-26T09:55:00Z', by: 'pause', why: 'karp-drift pause by bob@ci' } },
    ],
    // A run that died: no record, its switch holds drift at 0 since 09:57.
    [
      'a dead run whose switch fired',
      input([held('general', undefined, [{ nodes: '10%' }, switchBudget(new Date('2026-11-26T09:57:00Z')), { nodes: '2', reasons: ['Drifted'] }])]),
      { halted: false, holds: [{ nodePool: 'general', hold: { state: 'switched', since: '2026-11-26T09:57:00.000Z' } }] },
    ],
    // Held with do-not-disrupt on its nodes, a record on the NodePool all the same.
    [
      'node holds, paused by a gate',
      input([nodePool({ name: 'general', annotations: { [PAUSE_ANNOTATION]: encodePauseRecord(gateHalt) } })], {
        nodes: [node({ name: 'n1', nodePool: 'general', doNotDisrupt: true, heldBy: 'run-a' })],
      }),
      { halted: true, holds: [{ nodePool: 'general', hold: { state: 'paused' } }] },
    ],
  ])('%s', (_name, given, expected) => {
    const r = resumePlan(given, now);
    if (expected === undefined) expect(r).toBeUndefined();
    else expect(r).toMatchObject(expected);
  });

  it('where it goes on: the stage and wave the cluster is in, counted with the recorded stage size', () => {
    const claims = ['g1', 'g2', 'g3'].map((name) => nodeClaim({ name, drifted: true }));
    const plan = {
      stagePlan: { stages: [{ name: 'rollout', nodePools: ['general'], amiCount: 1 }], waves: waves('1/ami,100%'), soakMs: 0 },
    } as unknown as StagedPlan;
    const r = resumePlan(
      {
        ...input([held('general', gateHalt)]),
        claims,
        nodes: claims.map((c) => nodeFor(c)),
        staged: {
          plan,
          scope: { nodePools: [{ name: 'general', nodeClass: 'default' }], targetImageIds: { default: ['ami-new'] } },
          target: '1.30',
          picks: () => [],
        },
      },
      now,
    )!;
    // 4 old nodes when the stage began (the hold's record), 3 left: one replaced; every AMI tested: the 100% wave.
    expect(r.at).toEqual({ stage: 0, stages: 1, name: 'rollout', wave: 1, waves: 2, amiWave: false, started: 1, size: 4 });
    expect(resumePlanLines(r, now)).toEqual([
      'This rollout is held: karp-drift holds Drifted disruption on nodepool/general.',
      `  It was ${pausedByText(gateHalt)}.`,
      '  Now: paused: no karp-drift run is live.',
      '  Going on resumes it at stage 1/1 (rollout) wave 2/2: 1 of 4 old nodes replaced or under way.',
    ]);
  });
});
