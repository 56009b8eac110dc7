// The pacer's state and the steps around its decision (stages/controller.ts decides): observe the NodePools' old
// nodes and counts, record each stage, wave and soak as Events on the NodePools, and say where the rollout stands for
// the follow loop. The writes are pacer-holds.ts.
import type { Cluster } from '../cluster/client.js';
import { recordNodePoolEvent, type StageEventReason } from '../cluster/events.js';
import type { KarpenterApi, NodeClaimView, NodePoolView, NodeView } from '../karpenter/views.js';
import type { Checkpoint } from '../gates/request.js';
import { stageEventText, type PacerEvent, type StageState } from '../report/stages.js';
import type { PoolAllowance, StageDecision, StageEvent, StagePosition } from '../stages/controller.js';
import { observePools, type PoolObservation, type StagedScope } from '../stages/counts.js';
import { liveEtaStages, observedReplacementMs, waveRounds, type EtaPosition, type EtaStage } from '../stages/eta.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { amiPicks, type AmiPickScope } from '../stages/ami-picks.js';
import type { PicksOf } from '../stages/controller.js';

export interface PacerSettings {
  cluster: Cluster;
  api: KarpenterApi;
  plan: StagedPlan;
  scope: StagedScope;
  runId: string;
  /** The target minor, recorded on the holds: a re-run for the same target counts waves alike. */
  target: string;
  /** user@host, for the Events. */
  who: string;
  /** The command as typed (after `karp-drift`), for the pause records. */
  command?: string;
  nodePools: ReadonlyArray<Pick<NodePoolView, 'name' | 'uid'>>;
  /** Whether the health gates passed at a checkpoint (the gate keeper's); without it, every checkpoint passes. */
  cleared?: (checkpoint: Checkpoint) => boolean;
  /** What goes on where a paused run stopped, in its Events (absent: `the upgrade`; a staged rollback's: `the rollback`). */
  rerun?: 'the upgrade' | 'the rollback';
  /** What a `1/ami` wave picks from (stages/ami-picks.ts); absent: the plan has no such wave. */
  picks?: AmiPickScope;
  /**
   * Which NodeClaims on a target AMI count for the picks (the gate keeper's `driftReplacement`: the built-in gates
   * take only a drift replacement as a test); absent: every one.
   */
  picksCount?: (claim: NodeClaimView) => boolean;
}

/** What the pacer knows between steps: where the stages stand, what it wrote, and how long it has soaked. */
export interface PacerState {
  /** How each NodePool is held (the plan's), and the stage it belongs to. */
  readonly mechanism: ReadonlyMap<string, HoldMechanism>;
  readonly stageOf: ReadonlyMap<string, number>;
  position: StagePosition | undefined;
  decision: StageDecision | undefined;
  /** What was last written per NodePool (undefined: not yet), and when budget holds were last read back. */
  readonly written: Map<string, PoolAllowance>;
  /** The `nodes` of the budget hold last written per NodePool: its allowance plus what Karpenter counts disrupting. */
  readonly writtenBudget: Map<string, number>;
  /** When each budget hold's dead man's switch fires unless this run moves it ahead (pacer-holds.ts). */
  readonly armedAt: Map<string, Date>;
  readonly lastWriteAt: Map<string, number>;
  /** The soak recorded with each budget hold (null: none), so a re-run can soak out the rest. */
  readonly writtenSoak: Map<string, string | null>;
  /** Nodes whose hold karp-drift wrote or removed, until the watched Node shows it. */
  readonly nodeWrites: Map<string, boolean>;
  /** Nodes this run put its hold on, by NodePool: a release frees them even before a watch has shown them. */
  readonly heldHere: Map<string, string>;
  /** Budget-held NodePools already looked at for a `1/ami` wave's node holds to take off (pacer-holds.ts). */
  readonly waveNodesChecked: Set<string>;
  /** Where each step is reported (Pacer.listen). */
  report: (event: PacerEvent) => void;
  /** Time spent soaking so far, and when the last step looked. */
  soakedMs: number;
  lastAt: number | undefined;
  /**
   * For the ETA (stages/eta.ts): the open wave's clock (its rounds; `counted` unless it was under way when this run
   * first saw it), and the time and rounds of the waves done.
   */
  waveClock: { key: string; openedAt: number; rounds: number; counted: boolean } | undefined;
  readonly wavesDone: { ms: number; rounds: number };
  /** Whether this run put a hold on or took one off (a `hold` or `release` it reported): only then does it end with an Event. */
  heldOrReleased?: boolean;
  /** Set by a pause because the upgrade windows are closed: the holds it writes say so (HoldRecord `pausedBy`). */
  pausedBy?: 'window';
}

export function newPacerState(plan: StagedPlan): PacerState {
  return {
    mechanism: new Map(plan.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold.mechanism] as const))),
    stageOf: new Map(plan.stagePlan.stages.flatMap((s, i) => s.nodePools.map((p) => [p, i] as const))),
    position: undefined,
    decision: undefined,
    written: new Map(),
    writtenBudget: new Map(),
    armedAt: new Map(),
    lastWriteAt: new Map(),
    writtenSoak: new Map(),
    nodeWrites: new Map(),
    heldHere: new Map(),
    waveNodesChecked: new Set(),
    report: () => undefined,
    soakedMs: 0,
    lastAt: undefined,
    waveClock: undefined,
    wavesDone: { ms: 0, rounds: 0 },
  };
}

/** The picks of a stage's `1/ami` wave as the cluster stands (computed only when the controller asks). */
export function picksOf(
  settings: PacerSettings,
  claims: readonly NodeClaimView[],
  nodes: ReadonlyMap<string, NodeView>,
): PicksOf {
  const scope = settings.picks;
  if (scope === undefined) return () => [];
  const pools = (stage: number) => settings.plan.stagePlan.stages[stage]?.nodePools ?? [];
  return (stage) => amiPicks(pools(stage), claims, nodes, scope, settings.picksCount);
}

/** The snapshot's Node hold state, corrected by what karp-drift wrote and the watch has not shown yet. */
export function observe(
  settings: PacerSettings,
  state: PacerState,
  claims: Iterable<NodeClaimView>,
  nodes: ReadonlyMap<string, NodeView>,
): PoolObservation {
  for (const [name, held] of state.nodeWrites)
    if ((nodes.get(name)?.heldBy !== undefined) === held) state.nodeWrites.delete(name);
  const o = observePools(claims, nodes, settings.scope);
  for (const list of o.oldNodes.values()) {
    for (const n of list) {
      const w = state.nodeWrites.get(n.name);
      if (w !== undefined) n.heldByUs = w;
    }
  }
  return o;
}

/** Each stage, wave and soak: reported to the caller, and recorded as an Event on the stage's NodePools. */
export async function recordStageEvents(
  settings: PacerSettings,
  state: PacerState,
  events: readonly StageEvent[],
  signal?: AbortSignal,
): Promise<void> {
  const { plan, runId, who } = settings;
  for (const e of events) {
    state.report({ type: e.type, event: e } as PacerEvent);
    const pools = plan.stagePlan.stages[e.stage]!.nodePools;
    const reason: StageEventReason =
      e.type === 'stage' ? 'StagedRolloutStage' : e.type === 'wave' ? 'StagedRolloutWave' : 'StagedRolloutSoak';
    const text = stageEventText(e, plan.stagePlan);
    await recordPoolEvents(settings, pools, reason, `${text} (karp-drift run ${runId}, ${who})`, 'Normal', signal);
  }
}

export function recordPoolEvents(
  settings: PacerSettings,
  pools: readonly string[],
  reason: StageEventReason,
  message: string,
  type: 'Normal' | 'Warning' = 'Normal',
  signal?: AbortSignal,
): Promise<boolean[]> {
  const { cluster, api } = settings;
  const poolView = (name: string) => settings.nodePools.find((p) => p.name === name) ?? { name, uid: '' };
  return Promise.all(
    pools.map((p) =>
      recordNodePoolEvent(cluster, { api, nodePool: poolView(p) }, reason, message, { type, ...(signal ? { signal } : {}) }),
    ),
  );
}

/** Where the staged rollout stands, for the follow loop (its display, its stall and timeout clocks). */
export function stageState(
  settings: PacerSettings,
  state: PacerState,
  d: StageDecision,
  o: PoolObservation,
  now: Date,
): StageState {
  const heldAtZero = Object.entries(d.allowances)
    .filter(([, a]) => a === 0)
    .map(([p]) => p);
  return {
    phase: d.phase,
    ...(d.stage !== undefined ? { stage: d.stage } : {}),
    stages: settings.plan.stagePlan.stages.length,
    wave: d.position.wave,
    ...(d.position.soakUntil !== undefined ? { soakUntil: d.position.soakUntil } : {}),
    ...(d.checkpoint !== undefined ? { checkpoint: d.checkpoint } : {}),
    heldAtZero,
    soakedMs: state.soakedMs,
    eta: etaOf(settings, state, d, o, now),
    at: now,
  };
}

/**
 * The ETA model's view of the rollout (stages/eta.ts): the stages from the open one on, where it stands in them, and
 * the replacement time observed so far. Starts the open wave's clock, and stops the last one's when it is done.
 */
export function etaOf(
  settings: PacerSettings,
  state: PacerState,
  d: StageDecision,
  o: PoolObservation,
  now: Date,
): StageState['eta'] {
  const { plan } = settings;
  const open = d.stage;
  const running = (d.phase === 'wave' || d.phase === 'finishing') && open !== undefined;
  const stages =
    open === undefined
      ? []
      : liveEtaStages(
          plan.stages,
          plan.stagePlan.waves,
          { index: open.index, targets: open.targets, poolSizes: d.position.poolSizes ?? {} },
          new Map(o.counts.map((c) => [c.name, c.untouched + c.inflight])),
        );
  const before = open?.targets[d.position.wave - 1] ?? 0;
  clockWaves(state, running ? { key: `${open.index}/${d.position.wave}`, stages, d, before } : undefined, now);
  const clock = state.waveClock;
  const pools = new Set(open ? plan.stagePlan.stages[open.index]!.nodePools : []);
  const inflight = o.counts.reduce((sum, c) => sum + (pools.has(c.name) ? c.inflight : 0), 0);
  const replacementMs = observedReplacementMs({
    doneMs: state.wavesDone.ms,
    doneRounds: state.wavesDone.rounds,
    ...(clock?.counted && open
      ? {
          open: {
            elapsedMs: now.getTime() - clock.openedAt,
            rounds: clock.rounds,
            replaced: open.started - inflight - before,
            size: (open.targets[d.position.wave] ?? before) - before,
          },
        }
      : {}),
  });
  return {
    stages,
    position: { stage: 0, wave: d.position.wave, phase: etaPhase(d) },
    ...(clock ? { waveOpenedAt: new Date(clock.openedAt) } : {}),
    ...(replacementMs !== undefined ? { replacementMs } : {}),
  };
}

/** The open wave's clock: a wave that was running and is not any more is done, and counts (time and rounds). */
function clockWaves(
  state: PacerState,
  running: { key: string; stages: EtaStage[]; d: StageDecision; before: number } | undefined,
  now: Date,
): void {
  const clock = state.waveClock;
  if (clock !== undefined && clock.key !== running?.key) {
    if (clock.counted) {
      state.wavesDone.ms += now.getTime() - clock.openedAt;
      state.wavesDone.rounds += clock.rounds;
    }
    state.waveClock = undefined;
  }
  if (running === undefined || state.waveClock !== undefined) return;
  const { stages, d, before } = running;
  state.waveClock = {
    key: running.key,
    openedAt: now.getTime(),
    rounds: waveRounds(stages[0]!)[d.position.wave] ?? 0,
    // A wave this run finds under way (a re-run): its time so far is not known.
    counted: (d.stage?.started ?? 0) <= before,
  };
}

function etaPhase(d: StageDecision): EtaPosition['phase'] {
  if (d.phase === 'done') return 'done';
  if (d.phase === 'soak') return 'soak';
  if (d.phase === 'gating') return d.checkpoint?.point === 'soak-end' ? 'soak-end' : 'wave-end';
  return 'wave';
}
