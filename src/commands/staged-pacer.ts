// The edge of a staged rollout: observes (counts from the inventory, then from the follow loop's snapshot), lets the
// pure controller decide (stages/controller.ts), and acts: writes the budget or node holds that let each NodePool
// start only its allowance (pacer-holds.ts), records the stage, wave, soak and release as Events on the NodePools,
// and reports each step to the caller (NDJSON, log lines, the live display) (pacer-steps.ts).
import { actOnHolds, takeOverBudgetHolds } from './pacer-holds.js';
import {
  etaOf,
  newPacerState,
  observe,
  picksOf,
  recordPoolEvents,
  recordStageEvents,
  stageState,
  type PacerSettings,
  type PacerState,
} from './pacer-steps.js';
import type { NodeClaimView, NodePoolView, NodeView } from '../karpenter/views.js';
import { PAUSE_ANNOTATION, type PausedBy, type PauseRecord } from '../apis/pause-record.js';
import { setPauseRecord } from '../cluster/holds.js';
import { decideStages, initialPosition, type StageDecision } from '../stages/controller.js';
import { resumePosition } from '../stages/resume-point.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import type { PacerEvent, StageState } from '../report/stages.js';
// Writes after the run was interrupted (to leave it paused) get this long: the run's own signal is aborted. Part of
// the worst case a CI job's limit must cover (stages/budget.ts).
import { PAUSE_WRITES_MS } from '../stages/budget.js';
import { callDeadline } from '../cluster/api-errors.js';

/**
 * The deadline of a run's last writes (its holds put back or left paused): a deadline of karp-drift's own, so a write
 * it cuts short says the API server did not answer, never the runtime's "The operation was aborted".
 */
const lastWrites = (): AbortSignal => callDeadline(PAUSE_WRITES_MS, "the staged rollout's last hold writes");

export type { PacerSettings } from './pacer-steps.js';

export interface Pacer {
  readonly plan: StagedPlan;
  /** Where each step is reported (the command's output before the follow, the follow loop's during it). */
  listen(report: (event: PacerEvent) => void): void;
  /**
   * Before the apply: hold every NodePool at what its first wave allows (the cluster counted from the inventory);
   * `closed` (outside the upgrade windows): at 0, with no stage begun, so the run can stop there.
   */
  prime(
    inventory: { nodeClaims: NodeClaimView[]; nodes: NodeView[]; nodePools: NodePoolView[] },
    now: Date,
    signal?: AbortSignal,
    options?: { closed?: boolean },
  ): Promise<void>;
  /** One step of the follow loop. */
  step(
    claims: Iterable<NodeClaimView>,
    nodes: ReadonlyMap<string, NodeView>,
    now: Date,
    signal?: AbortSignal,
  ): Promise<StageState>;
  /** The rollout is done (or never began, `quiet`: no Event): every hold released, the NodePools' own budgets back. */
  finish(nodes: ReadonlyMap<string, NodeView>, now: Date, options?: { quiet?: boolean }): Promise<void>;
  /**
   * The run ends early: hold whatever is not released at 0; returns the NodePools left paused. `byWindow`: because
   * the upgrade windows are closed, which the holds record (`status` and `wait` say when the next one opens).
   */
  pause(
    claims: Iterable<NodeClaimView>,
    nodes: ReadonlyMap<string, NodeView>,
    why: string,
    now: Date,
    options?: PauseOptions,
  ): Promise<string[]>;
}

/** Why the run pauses (recorded on each NodePool: apis/pause-record.ts): its window closed, a gate halted it, … */
export interface PauseOptions {
  byWindow?: boolean;
  by?: PausedBy;
  gate?: { code: string; subject?: string };
}

export function createPacer(settings: PacerSettings): Pacer {
  const state = newPacerState(settings.plan);
  return {
    plan: settings.plan,
    listen(report) {
      state.report = (event) => {
        if (event.type === 'hold' || event.type === 'release') state.heldOrReleased = true;
        report(event);
      };
    },
    prime: (inventory, now, signal, options = {}) => prime(settings, state, inventory, now, signal, options),
    step: (claims, nodes, now, signal) => step(settings, state, claims, nodes, now, signal),
    finish: (nodes, now, options = {}) => finish(settings, state, nodes, now, options),
    pause: (claims, nodes, why, now, options = {}) => {
      if (options.byWindow === true) state.pausedBy = 'window';
      return pause(settings, state, claims, nodes, why, now, options);
    },
  };
}

/** Where a re-run starts: the wave sizes and the soak recorded on the holds of an earlier run for this target. */
async function prime(
  settings: PacerSettings,
  state: PacerState,
  inventory: Parameters<Pacer['prime']>[0],
  now: Date,
  signal: AbortSignal | undefined,
  { closed = false }: { closed?: boolean },
): Promise<void> {
  const { plan } = settings;
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  const o = observe(settings, state, inventory.nodeClaims, nodes);
  const picks = picksOf(settings, inventory.nodeClaims, nodes);
  state.position = resumePosition(plan.stagePlan, o.counts, inventory.nodePools, settings.target, now, picks);
  const decided = decideStages(plan.stagePlan, o.counts, state.position, now, settings.cleared, picks);
  // Outside the windows nothing begins: every NodePool not done is held at 0 beside the windows' budgets.
  const decision = closed ? closedDecision(decided) : decided;
  state.decision = decision;
  state.position = decision.position;
  await takeOverBudgetHolds(settings, state, inventory.nodePools, signal);
  // This run takes the rollout on (a paused one only with the user's word: commands/resume-consent.ts).
  for (const p of inventory.nodePools)
    if (p.annotations?.[PAUSE_ANNOTATION] !== undefined && state.mechanism.has(p.name))
      await setPauseRecord(settings.cluster, settings.api, p.name, null, signal);
  if (!closed) etaOf(settings, state, decision, o, now); // the first wave's clock starts with its holds
  await actOnHolds(settings, state, decision, o, nodes, now, signal);
  await recordStageEvents(settings, state, decision.events, signal);
}

/** The decision as it stands, but nothing opened: no events, every allowance that is not a release 0. */
function closedDecision(d: StageDecision): StageDecision {
  const allowances = Object.fromEntries(Object.entries(d.allowances).map(([p, a]) => [p, a === 'release' ? a : 0]));
  const { free: _free, ...rest } = d;
  return { ...rest, allowances, events: [] };
}

/** One turn of the controller: observe → decide → act → record. */
async function step(
  settings: PacerSettings,
  state: PacerState,
  claims: Iterable<NodeClaimView>,
  nodes: ReadonlyMap<string, NodeView>,
  now: Date,
  signal: AbortSignal | undefined,
): Promise<StageState> {
  const { stagePlan } = settings.plan;
  const list = [...claims]; // read more than once (the counts, the picks): the caller may hand an iterator
  const o = observe(settings, state, list, nodes);
  const previousPhase = state.decision?.phase;
  const picks = picksOf(settings, list, nodes);
  const position = state.position ?? initialPosition(stagePlan, o.counts, [], undefined, {}, picks);
  const decision = decideStages(stagePlan, o.counts, position, now, settings.cleared, picks);
  state.decision = decision;
  if (previousPhase === 'soak' && state.lastAt !== undefined) state.soakedMs += now.getTime() - state.lastAt;
  state.lastAt = now.getTime();
  state.position = decision.position;
  await actOnHolds(settings, state, decision, o, nodes, now, signal);
  await recordStageEvents(settings, state, decision.events, signal);
  return stageState(settings, state, decision, o, now);
}

async function finish(
  settings: PacerSettings,
  state: PacerState,
  nodes: ReadonlyMap<string, NodeView>,
  now: Date,
  options: { quiet?: boolean },
): Promise<void> {
  const { plan, runId, who, target } = settings;
  const done = Object.fromEntries(
    plan.stagePlan.stages.flatMap((s) => s.nodePools.map((p) => [p, 'release' as const])),
  );
  const d: StageDecision = { position: state.position!, phase: 'done', allowances: done, events: [] };
  const nothingObserved = { counts: [], oldNodes: new Map(), disrupting: new Map() };
  // Its own deadline: the run's signal may be aborted (an interrupt before the apply).
  const signal = lastWrites();
  await actOnHolds(settings, state, d, nothingObserved, nodes, now, signal);
  // A run that found the rollout done and neither held nor released anything (a scheduler's tick after the end): no
  // Event, or every tick would record one more on every NodePool.
  if (options.quiet === true || !state.heldOrReleased) return;
  const all = plan.stagePlan.stages.flatMap((s) => s.nodePools);
  await recordPoolEvents(
    settings,
    all,
    'StagedRolloutCompleted',
    `staged drift rollout to Kubernetes ${target} complete; karp-drift's holds released (karp-drift run ${runId}, ${who})`,
    'Normal',
    signal,
  );
}

async function pause(
  settings: PacerSettings,
  state: PacerState,
  claims: Iterable<NodeClaimView>,
  nodes: ReadonlyMap<string, NodeView>,
  why: string,
  now: Date,
  options: PauseOptions,
): Promise<string[]> {
  const { plan, runId, who } = settings;
  const signal = lastWrites();
  const o = observe(settings, state, claims, nodes);
  const held = Object.fromEntries(
    plan.stagePlan.stages
      .flatMap((s) => s.nodePools)
      .filter((p) => state.written.get(p) !== 'release')
      .map((p) => [p, 0]),
  );
  const pools = Object.keys(held);
  if (pools.length === 0) return [];
  const phase = state.decision?.phase ?? 'wave';
  const d: StageDecision = { position: state.position!, phase, allowances: held, events: [] };
  // Every hold is written again: the last allowance of a wave must not let Karpenter start more after we left.
  for (const p of pools) {
    state.written.delete(p);
    state.lastWriteAt.delete(p);
  }
  await actOnHolds(settings, state, d, o, nodes, now, signal);
  const record: PauseRecord = {
    runId,
    at: now.toISOString(),
    by: options.by ?? (options.byWindow === true ? 'window' : 'ended'),
    why,
    ...(settings.command !== undefined ? { command: settings.command } : {}),
    who,
    ...(options.gate !== undefined ? { gate: options.gate } : {}),
  };
  for (const p of pools) await setPauseRecord(settings.cluster, settings.api, p, record, signal);
  await recordPoolEvents(
    settings,
    pools,
    'StagedRolloutPaused',
    `staged drift rollout paused: ${why}; re-run ${settings.rerun ?? 'the upgrade'} to go on, or karp-drift resume to release the hold (karp-drift run ${runId}, ${who})`,
    // A run that stopped before its end (a gate halted it, it was interrupted, it stalled) leaves drift held until
    // somebody acts: a Warning, which `kubectl get events --field-selector type=Warning` and alerting pick up.
    'Warning',
    signal,
  );
  return pools;
}
