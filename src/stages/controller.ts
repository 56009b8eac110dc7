// The decision of a staged rollout: which stage and wave it is in, and how many more drift replacements each NodePool
// may start now. Pure, shaped like Karpenter's disruption controller (STYLE.md): the follow loop observes (counts
// from the snapshot), this decides, an edge file acts (writes budgets or node annotations) and records.
//
// Counting: a stage's size is the number of old NodeClaims its NodePools had when the stage began (recorded on the
// NodePools with the hold, so a re-run counts from the cluster, not from local state). "Started" is that size minus
// the old NodeClaims nobody has touched yet, so a node Karpenter is replacing, has replaced, or that went away for any
// other reason (consolidation, a manual delete) counts as started. A wave's allowance is what it may still START
// (target − started), lowered as each one starts, never raised as one finishes: a budget caps what is in flight, and a
// slot freed by a finished replacement would be taken by Karpenter's next pass before we could react (DOMAIN.md §2.6).
//
// The `1/ami` wave (waves.ts) is not counted but picked: while some target AMI of the stage is untested, the wave
// lets exactly its picks start (ami-picks.ts: one node per AMI, in the NodePools that test it), and it is over when no
// AMI is left to pick and its replacements are done. Its number (one per AMI with nodes that run pods, when the plan
// read the cluster) is what the later waves count on.
import type { Checkpoint } from '../gates/request.js';
import type { AmiPick } from './ami-picks.js';
import { opensWithAmiWave, waveShares, waveTargets, type WaveStep } from './waves.js';

export interface Stage {
  /** `canary` for the NodePools of `--canary`, `rollout` for the rest. */
  name: string;
  nodePools: string[];
  /** Target AMIs its old nodes with pods move onto, when the plan read the cluster: the size of a `1/ami` wave. */
  amiCount?: number;
}

/** The picks of a stage's `1/ami` wave now (ami-picks.ts), asked only while that wave is open. */
export type PicksOf = (stage: number) => readonly AmiPick[];

export interface StagePlan {
  stages: Stage[];
  waves: WaveStep[];
  soakMs: number;
}

/** One NodePool's old NodeClaims (not on a target AMI), as the snapshot shows them now. */
export interface PoolWaveCounts {
  name: string;
  /** Old, not disrupted, not being deleted: what a wave may still start. */
  untouched: number;
  /** Old and being disrupted or deleted. */
  inflight: number;
}

/** Where the rollout is: the wave that is open (or soaking), and each stage's size once it began. */
export interface StagePosition {
  stage: number;
  wave: number;
  /** Set while the wave (or the stage, after its last wave) soaks. */
  soakUntil?: Date;
  /** Old NodeClaims per stage when it began (index = stage). */
  sizes: Array<number | undefined>;
  /** Old NodeClaims per NodePool when its stage began: how a wave's target is shared among them (`waveShares`). */
  poolSizes?: Record<string, number>;
  /** The wave whose `wave` event has been emitted, so each opens once. */
  announced?: { stage: number; wave: number };
}

export type StageEvent =
  | {
      type: 'stage';
      stage: number;
      name: string;
      nodePools: string[];
      size: number;
      waves: number[];
    }
  | {
      type: 'wave';
      stage: number;
      wave: number;
      of: number;
      target: number;
      size: number;
      started: number;
      /** A `1/ami` wave: the AMIs it tests, and on which node each. */
      picks?: AmiPick[];
    }
  | {
      type: 'soak';
      stage: number;
      wave: number;
      until: Date;
      stageDone: boolean;
    };

/** `release`: put the NodePool's own budgets back (or drop node holds); a number: hold it to that many more starts. */
export type PoolAllowance = number | 'release';

export interface StageDecision {
  position: StagePosition;
  /** `gating`: a wave or soak is over and the health gates have not passed there yet: nothing more starts. */
  phase: 'wave' | 'finishing' | 'soak' | 'gating' | 'done';
  /** The checkpoint waited on while `gating`. */
  checkpoint?: Checkpoint;
  allowances: Record<string, PoolAllowance>;
  /**
   * A `1/ami` wave's NodePools whose budget alone cannot make Karpenter take the picked nodes: only these old nodes
   * may be disrupted, the others are held with do-not-disrupt while the wave is open (ami-picks.ts).
   */
  free?: Record<string, string[]>;
  events: StageEvent[];
  /** Of the open stage, for the display. */
  stage?: {
    index: number;
    name: string;
    size: number;
    started: number;
    targets: number[];
  };
}

const countsOf = (pools: readonly PoolWaveCounts[], names: readonly string[]) => {
  let untouched = 0;
  let inflight = 0;
  for (const p of pools) {
    if (!names.includes(p.name)) continue;
    untouched += p.untouched;
    inflight += p.inflight;
  }
  return { untouched, inflight };
};

/**
 * Where a rollout stands when karp-drift (re)starts: the first stage with old nodes left, at the first wave whose
 * target is not reached. `sizes` are the recorded stage sizes (from the hold annotations) where there are any.
 * `soakUntil` is a soak a run that ended early recorded on its holds: a re-run standing exactly where that soak
 * began (the wave's or the stage's last replacement done, nothing of the next one started) soaks out the rest of it
 * instead of opening the next wave early.
 */
export function initialPosition(
  plan: StagePlan,
  pools: readonly PoolWaveCounts[],
  recordedSizes: Array<number | undefined> = [],
  recordedSoak?: { until: Date; now: Date },
  recordedPoolSizes: Record<string, number> = {},
  picksOf: PicksOf = NO_PICKS,
): StagePosition {
  const sizes = plan.stages.map((_, i) => recordedSizes[i]);
  const poolSizes = poolSizesNow(pools, recordedPoolSizes);
  const soaking = recordedSoak !== undefined && recordedSoak.until.getTime() > recordedSoak.now.getTime();
  for (let s = 0; s < plan.stages.length; s++) {
    const { untouched, inflight } = countsOf(pools, plan.stages[s]!.nodePools);
    if (untouched + inflight === 0) continue;
    const size = Math.max(sizes[s] ?? 0, untouched + inflight);
    sizes[s] = size;
    const amiCount = plan.stages[s]!.amiCount ?? 0;
    const targets = waveTargets(plan.waves, size, amiCount);
    const started = size - untouched;
    const amiWave = opensWithAmiWave(plan.waves, amiCount, size);
    // An AMI still untested (a run cut off before its pick started, or a replacement launched on another arch) is
    // tested first, whatever the counts say: the `1/ami` wave is over only when nothing is left to pick.
    const found = amiWave && picksOf(s).length > 0 ? 0 : targets.findIndex((t, w) => started < t && !(amiWave && w === 0));
    const wave = found === -1 ? targets.length - 1 : Math.max(0, found);
    if (soaking && inflight === 0) {
      // At a wave boundary of this stage: the soak after the wave before; at its start: the soak after the last stage.
      if (wave > 0 && started === targets[wave - 1]) {
        return {
          stage: s,
          wave: wave - 1,
          soakUntil: recordedSoak.until,
          sizes,
          poolSizes,
          announced: { stage: s, wave: wave - 1 },
        };
      }
      if (started === 0 && s > 0) {
        const last = Math.max(0, waveTargets(plan.waves, sizes[s - 1] ?? 1).length - 1);
        return {
          stage: s - 1,
          wave: last,
          soakUntil: recordedSoak.until,
          sizes,
          poolSizes,
          announced: { stage: s - 1, wave: last },
        };
      }
    }
    return { stage: s, wave, sizes, poolSizes };
  }
  return { stage: plan.stages.length, wave: 0, sizes, poolSizes };
}

/** Health gates passed at every checkpoint: a rollout without gates. */
const NO_GATES = (): boolean => true;
/** No `1/ami` wave to pick for. */
const NO_PICKS: PicksOf = () => [];

/**
 * One decision: advance through soaks, waves and stages as far as `now`, the counts and the health gates allow.
 * `cleared` says whether the gates passed at a checkpoint (the end of a wave, the end of a soak): until they do, the
 * rollout stays there (`gating`), holding the open stage at 0.
 */
export function decideStages(
  plan: StagePlan,
  pools: readonly PoolWaveCounts[],
  position: StagePosition,
  now: Date,
  cleared: (checkpoint: Checkpoint) => boolean = NO_GATES,
  picksOf: PicksOf = NO_PICKS,
): StageDecision {
  const events: StageEvent[] = [];
  let pos: StagePosition = {
    ...position,
    sizes: [...position.sizes],
    poolSizes: poolSizesNow(pools, position.poolSizes ?? {}),
  };

  // A stage or wave can end and the next begin in one decision (a soak of 0, a stage with nothing left to do).
  for (let guard = 0; guard < 1000; guard++) {
    if (pos.stage >= plan.stages.length) {
      return {
        position: pos,
        phase: 'done',
        allowances: allReleased(plan),
        events,
      };
    }
    const stage = plan.stages[pos.stage]!;
    const { untouched, inflight } = countsOf(pools, stage.nodePools);
    // A stage's size is fixed when it begins (a size of 0 is none: a run before recorded a stage not yet begun).
    if (!pos.sizes[pos.stage]) pos.sizes[pos.stage] = untouched + inflight;
    const size = Math.max(pos.sizes[pos.stage]!, untouched + inflight);
    const amiCount = stage.amiCount ?? 0;
    const targets = waveTargets(plan.waves, size, amiCount);
    const started = size - untouched;
    const amiWave = pos.wave === 0 && opensWithAmiWave(plan.waves, amiCount, size);
    const picks = amiWave ? picksOf(pos.stage) : [];
    const summary = {
      index: pos.stage,
      name: stage.name,
      size,
      started,
      targets,
    };
    // Soaking, or waiting for a wave's last replacements: the open stage may start nothing more.
    const held = (
      position: StagePosition,
      phase: 'soak' | 'finishing' | 'gating',
      checkpoint?: Checkpoint,
    ): StageDecision => ({
      position,
      phase,
      ...(checkpoint ? { checkpoint } : {}),
      allowances: allowancesFor(plan, pools, position, undefined),
      events,
      stage: summary,
    });
    const last = pos.wave + 1 >= targets.length;
    // After the last wave of the last stage with old nodes nothing is left to protect: the rollout is done, not
    // soaking (later stages with nothing to replace are skipped, and the plan counts no soak before them).
    const lastOfAll =
      last &&
      plan.stages.slice(pos.stage + 1).every((s) => {
        const later = countsOf(pools, s.nodePools);
        return later.untouched + later.inflight === 0;
      });
    const gate = (point: Checkpoint['point']): Checkpoint | undefined => {
      const checkpoint = {
        stage: pos.stage,
        wave: pos.wave,
        point,
        ...(last && !lastOfAll ? { stageEnd: true } : {}),
        ...(amiWave ? { amiWave: true } : {}),
      };
      return cleared(checkpoint) ? undefined : checkpoint;
    };

    // A soak runs out first: after a stage's last wave its NodePools have no old nodes left to count.
    if (pos.soakUntil !== undefined) {
      if (now.getTime() < pos.soakUntil.getTime()) {
        return held(pos, 'soak');
      }
      const waiting = gate('soak-end');
      if (waiting) return held(pos, 'gating', waiting);
      pos = pos.wave + 1 < targets.length ? { ...pos, wave: pos.wave + 1, soakUntil: undefined } : nextStage(pos);
      continue;
    }
    if (targets.length === 0 || pos.wave >= targets.length) {
      pos = nextStage(pos);
      continue;
    }
    const target = targets[pos.wave]!;
    if (pos.announced?.stage !== pos.stage || pos.announced.wave !== pos.wave) {
      if (pos.announced?.stage !== pos.stage) {
        events.push({
          type: 'stage',
          stage: pos.stage,
          name: stage.name,
          nodePools: stage.nodePools,
          size,
          waves: targets,
        });
      }
      pos = { ...pos, announced: { stage: pos.stage, wave: pos.wave } };
      events.push({
        type: 'wave',
        stage: pos.stage,
        wave: pos.wave,
        of: targets.length,
        target,
        size,
        started,
        ...(amiWave ? { picks: [...picks] } : {}),
      });
    }
    if (amiWave && picks.length > 0) {
      return {
        position: pos,
        phase: 'wave',
        allowances: pickedAllowances(plan, pools, pos, picks),
        ...freeNodes(picks),
        events,
        stage: summary,
      };
    }
    if (!amiWave && started < target) {
      return {
        position: pos,
        phase: 'wave',
        allowances: allowancesFor(plan, pools, pos, { target, left: target - started }),
        events,
        stage: summary,
      };
    }
    if (inflight > 0) {
      return held(pos, 'finishing');
    }
    // The gates judge the wave's replacements before anything else starts (the last wave's too: the rollout is
    // not done while its new nodes fail).
    const waiting = gate('wave-end');
    if (waiting) return held(pos, 'gating', waiting);
    // The wave's replacements are all done: soak before the next wave, or before the next stage after the last one.
    if (plan.soakMs > 0 && !lastOfAll) {
      const until = new Date(now.getTime() + plan.soakMs);
      pos = { ...pos, soakUntil: until };
      events.push({
        type: 'soak',
        stage: pos.stage,
        wave: pos.wave,
        until,
        stageDone: last,
      });
      return held(pos, 'soak');
    }
    pos = last ? nextStage(pos) : { ...pos, wave: pos.wave + 1 };
  }
  throw new Error('decideStages did not settle');
}

function nextStage(pos: StagePosition): StagePosition {
  return {
    stage: pos.stage + 1,
    wave: 0,
    sizes: pos.sizes,
    ...(pos.poolSizes ? { poolSizes: pos.poolSizes } : {}),
    announced: pos.announced,
  };
}

/**
 * A `1/ami` wave's allowances: each NodePool of the open stage may start its picks (at most its untouched old nodes),
 * the rest of the stage nothing; earlier stages are released and later ones held, as in any wave.
 */
function pickedAllowances(
  plan: StagePlan,
  pools: readonly PoolWaveCounts[],
  position: StagePosition,
  picks: readonly AmiPick[],
): Record<string, PoolAllowance> {
  const result = allowancesFor(plan, pools, position, undefined);
  for (const name of plan.stages[position.stage]!.nodePools) {
    const untouched = pools.find((p) => p.name === name)?.untouched ?? 0;
    result[name] = Math.min(untouched, picks.filter((p) => p.nodePool === name).length);
  }
  return result;
}

/** The NodePools whose picks need the other old nodes held, and the nodes they leave free. */
function freeNodes(picks: readonly AmiPick[]): Pick<StageDecision, 'free'> {
  const free: Record<string, string[]> = {};
  for (const p of picks) if (!p.exact) (free[p.nodePool] ??= []).push(p.node);
  return Object.keys(free).length > 0 ? { free } : {};
}

function allReleased(plan: StagePlan): Record<string, PoolAllowance> {
  return Object.fromEntries(plan.stages.flatMap((s) => s.nodePools.map((p) => [p, 'release' as const])));
}

/**
 * Each NodePool's old NodeClaims when its stage began: the recorded size, or what it has now if that is more (or
 * nothing was recorded). A NodePool with none left and none recorded keeps no entry.
 */
function poolSizesNow(pools: readonly PoolWaveCounts[], recorded: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { ...recorded };
  for (const p of pools) {
    const now = p.untouched + p.inflight;
    if (now > (out[p.name] ?? 0)) out[p.name] = now;
  }
  return out;
}

/**
 * Earlier stages are released (their nodes are all replaced), later ones held at 0, and the open stage's NodePools
 * each allowed what is left of their share of the wave's target (`waveShares`, in proportion to their old nodes),
 * at most their untouched old nodes, and together never more than the wave has left to start. Without a wave (a
 * soak, a wave finishing, a gate) the open stage is held at 0.
 */
function allowancesFor(
  plan: StagePlan,
  pools: readonly PoolWaveCounts[],
  position: StagePosition,
  wave: { target: number; left: number } | undefined,
): Record<string, PoolAllowance> {
  const result: Record<string, PoolAllowance> = {};
  plan.stages.forEach((stage, index) => {
    for (const name of stage.nodePools) {
      if (index < position.stage) result[name] = 'release';
      else result[name] = 0;
    }
  });
  const open = plan.stages[position.stage];
  if (open === undefined || wave === undefined) return result;
  const sizes = open.nodePools.map((name) => position.poolSizes?.[name] ?? 0);
  const shares = waveShares(wave.target, sizes);
  let left = Math.max(0, wave.left);
  open.nodePools.forEach((name, i) => {
    const untouched = pools.find((p) => p.name === name)?.untouched ?? 0;
    const started = sizes[i]! - untouched;
    const share = Math.min(untouched, Math.max(0, shares[i]! - started), left);
    left -= share;
    result[name] = share;
  });
  return result;
}
