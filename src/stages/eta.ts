// How long a staged rollout takes, and how long it still has to go: one model for the plan's estimate and for the
// live display's ETA (and the progress event's etaSeconds), so the two never disagree on anything but what only the
// rollout can tell. Pure.
//
// Karpenter starts one drift command per disruption pass and requeues at once after a success (DOMAIN.md §2.5), so a
// wave's replacements start within seconds of each other up to each NodePool's own Drifted limit; the wave then lasts
// about one replacement (launch, readiness, drain) per round that limit forces, its slowest NodePool setting the pace,
// and a soak follows each wave but the last. How long a replacement takes on a cluster is not known before one has
// run: the plan assumes REPLACEMENT_MS and says so; the follow measures it on the waves done (their time from opening
// to their last replacement done, gates and soaks left out, over their rounds) and puts that in its place.
import { waveShares, waveTargets, type WaveStep } from './waves.js';

/** A replacement's duration assumed before any has been observed: launch, registration, readiness and drain. */
export const REPLACEMENT_MS = 5 * 60_000;

/** One NodePool of a stage: its old nodes when the stage begins and its own Drifted limit (Infinity: none). */
export interface EtaPool {
  oldNodes: number;
  limit: number;
}

/** A stage as the model sees it: its NodePools and its waves' cumulative targets. */
export interface EtaStage {
  pools: EtaPool[];
  targets: number[];
  /**
   * Each wave's cumulative share per NodePool (`[wave][pool]`) when the plan chose them (a `1/ami` wave takes the
   * nodes that test each AMI, not `waveShares`'); absent: `waveShares` of each target.
   */
  shares?: number[][];
}

/**
 * Rounds of replacements each wave of a stage needs: the slowest of its NodePools, each replacing its share of the
 * wave (`waveShares`) up to its own Drifted limit at once (karp-drift's hold lets a wave's replacements run side by
 * side up to that limit, and only ever lowers it). A NodePool with a share of a wave and a limit of 0 never replaces
 * it: that wave never ends.
 */
export function waveRounds(stage: EtaStage): number[] {
  const old = stage.pools.map((p) => p.oldNodes);
  const shares = stage.shares ?? stage.targets.map((t) => waveShares(t, old));
  return shares.map((share, w) =>
    Math.max(
      0,
      ...stage.pools.map((p, i) => {
        const added = share[i]! - (w > 0 ? shares[w - 1]![i]! : 0);
        if (added <= 0) return 0;
        return p.limit <= 0 ? Infinity : Math.ceil(added / Math.min(p.limit, added));
      }),
    ),
  );
}

/**
 * Where a rollout stands for the model. `wave`: replacements of the open wave may still start or run; `wave-end`:
 * they are done and the gates judge them; `soak` and `soak-end`: the soak after the wave, and the gates at its end.
 */
export interface EtaPosition {
  /** The open stage (an index into the stages given) and its wave. */
  stage: number;
  wave: number;
  phase: 'wave' | 'wave-end' | 'soak' | 'soak-end' | 'done';
  /** How long the open wave has run (phase `wave`). */
  waveElapsedMs?: number;
  /** What is left of the soak under way (phase `soak`). */
  soakLeftMs?: number;
}

/**
 * Time left from `at`: what the model gives the open wave beyond what it has run already, the rounds of every wave
 * after it, the rest of the soak under way and a soak before each wave still to open. The plan's estimate is this
 * from the first wave with REPLACEMENT_MS. Infinity when a wave left never ends.
 */
export function remainingMs(
  stages: readonly EtaStage[],
  at: EtaPosition,
  replacementMs: number,
  soakMs: number,
): number {
  if (at.phase === 'done') return 0;
  const rounds = stages.flatMap((s, i) => (i < at.stage ? [] : waveRounds(s).slice(i === at.stage ? at.wave : 0)));
  const [open = 0, ...later] = rounds;
  const openMs = at.phase === 'wave' ? Math.max(0, open * replacementMs - (at.waveElapsedMs ?? 0)) : 0;
  const soaking = at.phase === 'soak' ? Math.max(0, at.soakLeftMs ?? 0) : 0;
  const soaks = soakMs > 0 ? Math.max(0, later.length - (at.phase === 'soak' || at.phase === 'soak-end' ? 1 : 0)) : 0;
  const laterMs = later.reduce((sum, r) => sum + r * replacementMs, 0);
  return openMs + laterMs + soaking + soaks * soakMs;
}

/**
 * The stages as the follow sees them, from the open one on: the open stage with each NodePool's old nodes when it
 * began (what its waves are shared by) and its targets; the stages still to come with their NodePools' old nodes now.
 * Each NodePool's limit is the plan's.
 */
export function liveEtaStages(
  stages: ReadonlyArray<{ nodePools: ReadonlyArray<{ name: string; limit: number }> }>,
  waves: readonly WaveStep[],
  open: { index: number; targets: readonly number[]; poolSizes: Readonly<Record<string, number>> },
  oldNow: ReadonlyMap<string, number>,
): EtaStage[] {
  return stages.slice(open.index).map((s, i) => {
    const pools = s.nodePools.map((p) => ({
      oldNodes: i === 0 ? (open.poolSizes[p.name] ?? 0) : (oldNow.get(p.name) ?? 0),
      limit: p.limit,
    }));
    const size = pools.reduce((sum, p) => sum + p.oldNodes, 0);
    return { pools, targets: i === 0 ? [...open.targets] : waveTargets(waves, size) };
  });
}

/** What the follow has measured: the waves done (their time and rounds), and the open wave so far. */
export interface WaveTimes {
  doneMs: number;
  doneRounds: number;
  open?: { elapsedMs: number; rounds: number; replaced: number; size: number };
}

/**
 * One replacement's duration as the rollout shows it: the waves done, time over rounds; before any wave is done, the
 * open wave's time over the share of its rounds its replaced nodes make (a first estimate, until the wave ends).
 * Undefined before any replacement is done.
 */
export function observedReplacementMs(t: WaveTimes): number | undefined {
  if (t.doneRounds > 0 && Number.isFinite(t.doneRounds)) return Math.max(1, t.doneMs / t.doneRounds);
  const o = t.open;
  if (o === undefined || o.replaced <= 0 || o.size <= 0 || !Number.isFinite(o.rounds) || o.rounds <= 0) return undefined;
  return Math.max(1, o.elapsedMs / ((o.rounds * Math.min(o.replaced, o.size)) / o.size));
}
