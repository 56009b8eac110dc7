// What re-running `upgrade` on a rollout karp-drift holds would take on: which NodePools are held and how, what paused
// them (a health gate, `pause`, an interrupt, a window, a run that died), and where the rollout stands (its stage and
// wave). A re-run never goes on without saying this and being told to (commands/resume-consent.ts): re-running to see
// the plan must never restart a bad AMI. Pure.
import { holdState, type HoldState, type RunLock } from '../apis/hold-state.js';
import { pauseOf, type PauseRecord } from '../apis/pause-record.js';
import type { NodeClaimView, NodePoolView, NodeView } from '../karpenter/views.js';
import type { PicksOf } from './controller.js';
import { observePools, type StagedScope } from './counts.js';
import { resumePosition } from './resume-point.js';
import type { StagedPlan } from './stage-plan.js';
import { opensWithAmiWave, waveTargets } from './waves.js';

export interface ResumePlan {
  /** The held NodePools in scope and the state of each hold (never `paced`: a live run is the lock's to refuse). */
  holds: Array<{ nodePool: string; hold: HoldState }>;
  /** What paused them, as recorded (the gate's halt first); absent: a run that died, or a record from before them. */
  pause?: PauseRecord;
  /** A health gate halted it: going on needs `--resume-halted`. */
  halted: boolean;
  /** Where the staged rollout goes on, when this run stages it. */
  at?: {
    stage: number;
    stages: number;
    name: string;
    wave: number;
    waves: number;
    /** The wave is the `1/ami` one. */
    amiWave: boolean;
    started: number;
    size: number;
    soakUntil?: string;
  };
}

export interface ResumeInput {
  pools: readonly NodePoolView[];
  nodes: readonly NodeView[];
  claims: readonly NodeClaimView[];
  lock: RunLock | undefined;
  /** This run's staged plan, its scope and target (absent: `--no-wait`, nothing is resumed by it). */
  staged?: { plan: StagedPlan; scope: StagedScope; target: string; picks?: PicksOf };
}

/** The resume plan, or undefined when karp-drift holds nothing in scope or a live run paces it. */
export function resumePlan(input: ResumeInput, now: Date): ResumePlan | undefined {
  if (input.lock === undefined) return undefined;
  const holds = input.pools.flatMap((p) => {
    const held = input.nodes.filter((n) => n.nodePool === p.name && n.heldBy !== undefined).length;
    const hold = holdState(p, held, input.lock!, now);
    return hold !== undefined ? [{ nodePool: p.name, hold }] : [];
  });
  if (holds.length === 0 || holds.some((h) => h.hold.state === 'paced' || h.hold.state === 'unknown')) return undefined;
  const held = input.pools.filter((p) => holds.some((h) => h.nodePool === p.name));
  const pause = pauseOf(held);
  return {
    holds,
    ...(pause !== undefined ? { pause } : {}),
    halted: pause?.by === 'gate',
    ...(input.staged !== undefined ? { at: standing(input, input.staged, now) } : {}),
  };
}

function standing(input: ResumeInput, s: NonNullable<ResumeInput['staged']>, now: Date): ResumePlan['at'] {
  const nodes = new Map(input.nodes.map((n) => [n.name, n]));
  const { counts } = observePools(input.claims, nodes, s.scope);
  const { stagePlan } = s.plan;
  const pos = resumePosition(stagePlan, counts, input.pools, s.target, now, s.picks);
  const stage = stagePlan.stages[Math.min(pos.stage, stagePlan.stages.length - 1)]!;
  const pools = counts.filter((c) => stage.nodePools.includes(c.name));
  const untouched = pools.reduce((n, p) => n + p.untouched, 0);
  const size = Math.max(pos.sizes[pos.stage] ?? 0, untouched + pools.reduce((n, p) => n + p.inflight, 0));
  const amiCount = stage.amiCount ?? 0;
  return {
    stage: Math.min(pos.stage, stagePlan.stages.length - 1),
    stages: stagePlan.stages.length,
    name: stage.name,
    wave: pos.wave,
    waves: Math.max(1, waveTargets(stagePlan.waves, size, amiCount).length),
    amiWave: pos.wave === 0 && opensWithAmiWave(stagePlan.waves, amiCount, size),
    started: size - untouched,
    size,
    ...(pos.soakUntil !== undefined ? { soakUntil: pos.soakUntil.toISOString() } : {}),
  };
}
