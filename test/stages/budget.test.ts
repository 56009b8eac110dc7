// The worst case of one upgrade by its flags (what a CI job's own limit must leave room for): the soaks the flags allow
// at most, never fewer than the plan's own count at any node counts, and the parts that add up to it.
import { describe, expect, it } from 'vitest';
import {
  maxSoaks,
  PAUSE_WRITES_MS,
  ROLLBACK_DRIFT_CLEARED_WAIT_MS,
  ROLLBACK_READY_WAIT_MS,
  worstCaseMs,
  worstCaseParts,
} from '../../src/stages/budget.js';
import { planStages, type StagePoolInput, type StagedRequest } from '../../src/stages/stage-plan.js';
import { DEFAULT_GATES } from '../../src/gates/request.js';
import { waves, MIN } from './helpers.js';

const request = (o: Partial<StagedRequest> = {}): StagedRequest => ({
  canary: [],
  waves: waves('100%'),
  soakMs: 15 * MIN,
  holdWith: 'auto',
  ...o,
});
const input = (name: string, oldNodes: number): StagePoolInput => ({
  pool: { name, budgetOwners: [], labels: {}, annotations: {} },
  oldNodes,
  limit: Infinity,
});

describe('maxSoaks', () => {
  it.each<[string, Partial<StagedRequest>, number]>([
    ['a canary and --waves 1,25%,100%: three waves in each stage, a soak after all but the last', { canary: ['canary'], waves: waves('1,25%,100%') }, 5],
    ['--waves 1,10%,100% alone: one stage', { waves: waves('1,10%,100%') }, 2],
    ['--canary alone: one wave each, one soak between', { canary: ['canary'] }, 1],
    ['a list that stops short of 100% gets a wave for the rest', { waves: waves('1,10') }, 2],
    ['... in both stages', { canary: ['canary'], waves: waves('1,10%') }, 5],
    ['--soak 0: none', { canary: ['canary'], waves: waves('1,25%,100%'), soakMs: 0 }, 0],
  ])('%s', (_name, o, soaks) => {
    expect(maxSoaks(request(o))).toBe(soaks);
  });

  it("is never fewer than the plan's own count, whatever the node counts", () => {
    for (const text of ['100%', '1,100%', '1,25%,100%', '1,10', '2,5,50%']) {
      for (const canary of [[], ['canary']]) {
        for (const [a, b] of [[1, 1], [1, 40], [3, 7], [40, 400], [0, 12]] as const) {
          const r = request({ canary, waves: waves(text) });
          const result = planStages([input('canary', a), input('general', b)], r, false);
          if (!('plan' in result)) throw new Error(JSON.stringify(result));
          expect(result.plan.soaks, `${text} ${canary.join()} ${a}/${b}`).toBeLessThanOrEqual(maxSoaks(r));
        }
      }
    }
    // Stages big enough for every wave: exactly the plan's count.
    const r = request({ canary: ['canary'], waves: waves('1,25%,100%') });
    const result = planStages([input('canary', 40), input('general', 400)], r, false);
    expect('plan' in result && result.plan.soaks).toBe(maxSoaks(r));
  });
});

describe('worstCaseMs', () => {
  it('without stages: --timeout alone', () => {
    expect(worstCaseMs(60 * MIN, undefined)).toBe(60 * MIN);
  });

  it("staged: --timeout, every soak, the holds' last writes", () => {
    const r = request({ canary: ['canary'], soakMs: 30 * MIN, gates: DEFAULT_GATES });
    expect(worstCaseParts(270 * MIN, r)).toEqual([
      { what: '--timeout (the follow, soaks left out)', ms: 270 * MIN },
      { what: '1 soak of --soak', ms: 30 * MIN },
      { what: "the holds' last writes", ms: PAUSE_WRITES_MS },
    ]);
    expect(worstCaseMs(270 * MIN, r)).toBe(300 * MIN + 20_000);
  });

  it('--on-failure rollback: a halt just before --timeout, then the rollback waits and follows back for its own --timeout', () => {
    const r = request({
      canary: ['canary'],
      waves: waves('1,25%,100%'),
      gates: { ...DEFAULT_GATES, onFailure: 'rollback' },
    });
    expect(worstCaseMs(120 * MIN, r)).toBe(
      120 * MIN + 5 * 15 * MIN + PAUSE_WRITES_MS + ROLLBACK_READY_WAIT_MS + ROLLBACK_DRIFT_CLEARED_WAIT_MS + PAUSE_WRITES_MS + 120 * MIN,
    );
  });

  it('--rollback-waves: the staged rollback soaks between its own waves and writes its holds last too', () => {
    const r = request({
      canary: ['canary'],
      waves: waves('1,25%,100%'),
      gates: { ...DEFAULT_GATES, onFailure: 'rollback' },
      rollbackWaves: waves('1,10%,100%'),
    });
    expect(worstCaseParts(120 * MIN, r).slice(-2)).toEqual([
      { what: '--rollback-waves: 2 soaks of --soak', ms: 2 * 15 * MIN },
      { what: "--rollback-waves: its holds' last writes", ms: PAUSE_WRITES_MS },
    ]);
    expect(worstCaseMs(120 * MIN, r)).toBe(worstCaseMs(120 * MIN, { ...r, rollbackWaves: undefined }) + 30 * MIN + PAUSE_WRITES_MS);
  });
});
