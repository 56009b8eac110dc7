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
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import type { StagedPlan } from '../stages/stage-plan.js';

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
  nodePools: ReadonlyArray<Pick<NodePoolView, 'name' | 'uid'>>;
  /** Whether the health gates passed at a checkpoint (the gate keeper's); without it, every checkpoint passes. */
  cleared?: (checkpoint: Checkpoint) => boolean;
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
  /** Where each step is reported (Pacer.listen). */
  report: (event: PacerEvent) => void;
  /** Time spent soaking so far, and when the last step looked. */
  soakedMs: number;
  lastAt: number | undefined;
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
    report: () => undefined,
    soakedMs: 0,
    lastAt: undefined,
  };
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
): Promise<void> {
  const { plan, runId, who } = settings;
  for (const e of events) {
    state.report({ type: e.type, event: e } as PacerEvent);
    const pools = plan.stagePlan.stages[e.stage]!.nodePools;
    const reason: StageEventReason =
      e.type === 'stage' ? 'StagedRolloutStage' : e.type === 'wave' ? 'StagedRolloutWave' : 'StagedRolloutSoak';
    const text = stageEventText(e, plan.stagePlan);
    await recordPoolEvents(settings, pools, reason, `${text} (karp-drift run ${runId}, ${who})`);
  }
}

export function recordPoolEvents(
  settings: PacerSettings,
  pools: readonly string[],
  reason: StageEventReason,
  message: string,
  type: 'Normal' | 'Warning' = 'Normal',
): Promise<boolean[]> {
  const { cluster, api } = settings;
  const poolView = (name: string) => settings.nodePools.find((p) => p.name === name) ?? { name, uid: '' };
  return Promise.all(
    pools.map((p) => recordNodePoolEvent(cluster, { api, nodePool: poolView(p) }, reason, message, { type })),
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
    oldLeft: o.counts.reduce((sum, c) => sum + c.untouched + c.inflight, 0),
    soakedMs: state.soakedMs,
    soaksLeft: soaksLeft(settings.plan, d),
    at: now,
  };
}

/** Each wave still to open is preceded by a soak (one under way is counted by its end time, not here). */
function soaksLeft(plan: StagedPlan, d: StageDecision): number {
  if (plan.soakMs <= 0 || d.stage === undefined) return 0;
  const later = plan.stages.slice(d.stage.index + 1).reduce((sum, s) => sum + s.targets.length, 0);
  const wavesAfter = Math.max(0, d.stage.targets.length - d.position.wave - 1) + later;
  return d.phase === 'soak' ? Math.max(0, wavesAfter - 1) : wavesAfter;
}
