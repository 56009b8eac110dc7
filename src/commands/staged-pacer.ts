// The edge of a staged rollout: observes (counts from the inventory, then from the follow loop's snapshot), lets the
// pure controller decide (stages/controller.ts), and acts: writes the budget or node holds that let each NodePool
// start only its allowance, records the stage, wave, soak and release as Events on the NodePools, and reports each
// step to the caller (NDJSON, log lines, the live display). Writes happen only when what is wanted changes, plus a
// periodic check that the budget holds are still there (a GitOps sync or a person may have put the list back).
import type { Cluster } from '../cluster/client.js';
import { recordNodePoolEvent, type StageEventReason } from '../cluster/events.js';
import { holdNode, holdWithBudget, releaseBudgetHold, releaseNode } from '../cluster/holds.js';
import type { KarpenterApi, NodeClaimView, NodePoolView, NodeView } from '../karpenter/views.js';
import { decodeHoldRecord, HOLD_ANNOTATION, type HoldRecord } from '../apis/budget-hold.js';
import {
  decideStages,
  initialPosition,
  type PoolAllowance,
  type StageDecision,
  type StageEvent,
  type StagePosition,
} from '../stages/controller.js';
import { heldNodesOf, observePools, type PoolObservation, type StagedScope } from '../stages/counts.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import { nodeHoldChanges } from '../apis/node-hold.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import type { Checkpoint } from '../gates/request.js';
import { stageEventText, type PacerEvent, type StageState } from '../report/stages.js';

/** Budget holds are read back this often, so one a GitOps sync or a person removed is put back. */
const REASSERT_EVERY_MS = 15_000;
/** Writes after the run was interrupted (to leave it paused) get this long: the run's own signal is aborted. */
const PAUSE_WRITES_MS = 20_000;

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

export interface Pacer {
  readonly plan: StagedPlan;
  /** Where each step is reported (the command's output before the follow, the follow loop's during it). */
  listen(report: (event: PacerEvent) => void): void;
  /** Before the apply: hold every NodePool at what its first wave allows (the cluster counted from the inventory). */
  prime(
    inventory: { nodeClaims: NodeClaimView[]; nodes: NodeView[]; nodePools: NodePoolView[] },
    now: Date,
    signal?: AbortSignal,
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
  /** The run ends early: hold whatever is not released at 0; returns the NodePools left paused. */
  pause(
    claims: Iterable<NodeClaimView>,
    nodes: ReadonlyMap<string, NodeView>,
    why: string,
    now: Date,
  ): Promise<string[]>;
}

export function createPacer(settings: PacerSettings): Pacer {
  const { cluster, api, plan, scope, runId } = settings;
  const mechanism = new Map<string, HoldMechanism>(
    plan.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold.mechanism] as const)),
  );
  const stageOf = new Map(plan.stagePlan.stages.flatMap((s, i) => s.nodePools.map((p) => [p, i] as const)));
  let position: StagePosition | undefined;
  let decision: StageDecision | undefined;
  /** What was last written per NodePool (undefined: not yet), and when budget holds were last read back. */
  const written = new Map<string, PoolAllowance>();
  const lastWriteAt = new Map<string, number>();
  /** The soak recorded with each budget hold (null: none), so a re-run can soak out the rest. */
  const writtenSoak = new Map<string, string | null>();
  /** Nodes whose hold karp-drift wrote or removed, until the watched Node shows it. */
  const nodeWrites = new Map<string, boolean>();
  /** Nodes this run put its hold on, by NodePool: a release frees them even before a watch has shown them. */
  const heldHere = new Map<string, string>();
  const emitter = { report: (_event: PacerEvent): void => undefined };
  const observedAt = { soakedMs: 0, lastAt: undefined as number | undefined };

  const poolView = (name: string) => settings.nodePools.find((p) => p.name === name) ?? { name, uid: '' };
  const kubeEvent = (pools: readonly string[], reason: StageEventReason, message: string) =>
    Promise.all(pools.map((p) => recordNodePoolEvent(cluster, { api, nodePool: poolView(p) }, reason, message)));

  /** The snapshot's Node hold state, corrected by what karp-drift wrote and the watch has not shown yet. */
  function observe(claims: Iterable<NodeClaimView>, nodes: ReadonlyMap<string, NodeView>): PoolObservation {
    for (const [name, held] of nodeWrites)
      if ((nodes.get(name)?.heldBy !== undefined) === held) nodeWrites.delete(name);
    const o = observePools(claims, nodes, scope);
    for (const list of o.oldNodes.values()) {
      for (const n of list) {
        const w = nodeWrites.get(n.name);
        if (w !== undefined) n.heldByUs = w;
      }
    }
    return o;
  }

  async function act(
    d: StageDecision,
    o: PoolObservation,
    nodes: ReadonlyMap<string, NodeView>,
    now: Date,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const soakUntil = d.position.soakUntil?.toISOString() ?? null;
    for (const [pool, allowance] of Object.entries(d.allowances)) {
      const how = mechanism.get(pool)!;
      const before = written.get(pool);
      const due = how === 'budget' && now.getTime() - (lastWriteAt.get(pool) ?? 0) >= REASSERT_EVERY_MS;
      if (allowance === 'release') {
        if (before === 'release') continue;
        if (how === 'budget') {
          const r = await releaseBudgetHold(cluster, api, pool, signal);
          if (r.changed) emitter.report({ type: 'release', nodePool: pool, mechanism: 'budget', budgets: r.budgets });
        } else {
          let freed = 0;
          // What the nodes show, and what this run held that they may not show yet (the inventory before prime).
          const held = new Set([
            ...heldNodesOf(nodes.values(), pool),
            ...[...heldHere].filter(([, p]) => p === pool).map(([n]) => n),
          ]);
          for (const n of held) {
            if (await releaseNode(cluster, n, signal)) freed++;
            nodeWrites.set(n, false);
            heldHere.delete(n);
          }
          if (freed > 0) emitter.report({ type: 'release', nodePool: pool, mechanism: 'node', nodes: freed });
        }
        written.set(pool, 'release');
        continue;
      }
      if (how === 'budget') {
        if (before === allowance && !due && writtenSoak.get(pool) === soakUntil) continue;
        const stage = stageOf.get(pool)!;
        const r = await holdWithBudget(
          cluster,
          api,
          pool,
          allowance,
          { runId, now, target: settings.target, stageSize: d.position.sizes[stage] ?? 0, soakUntil },
          signal,
        );
        written.set(pool, allowance);
        lastWriteAt.set(pool, now.getTime());
        writtenSoak.set(pool, soakUntil);
        if (r.changed && before !== allowance)
          emitter.report({ type: 'hold', nodePool: pool, mechanism: 'budget', allowance });
      } else {
        const old = o.oldNodes.get(pool) ?? [];
        const changes = nodeHoldChanges(old, allowance);
        for (const n of changes.hold) {
          await holdNode(cluster, n, runId, signal);
          nodeWrites.set(n, true);
          heldHere.set(n, pool);
        }
        for (const n of changes.release) {
          await releaseNode(cluster, n, signal);
          nodeWrites.set(n, false);
          heldHere.delete(n);
        }
        written.set(pool, allowance);
        if (before !== allowance || changes.hold.length > 0) {
          // `nodes`: how many of the NodePool's old nodes karp-drift holds now.
          const held = old.filter((n) => n.heldByUs).length + changes.hold.length - changes.release.length;
          emitter.report({ type: 'hold', nodePool: pool, mechanism: 'node', allowance, nodes: held });
        }
      }
    }
  }

  async function announce(events: readonly StageEvent[], now: Date): Promise<void> {
    for (const e of events) {
      emitter.report({ type: e.type, event: e } as PacerEvent);
      const pools = plan.stagePlan.stages[e.stage]!.nodePools;
      const reason: StageEventReason =
        e.type === 'stage' ? 'StagedRolloutStage' : e.type === 'wave' ? 'StagedRolloutWave' : 'StagedRolloutSoak';
      await kubeEvent(
        pools,
        reason,
        `${stageEventText(e, plan.stagePlan, now)} (karp-drift run ${runId}, ${settings.who})`,
      );
    }
  }

  function state(d: StageDecision, o: PoolObservation, now: Date): StageState {
    const heldAtZero = Object.entries(d.allowances)
      .filter(([, a]) => a === 0)
      .map(([p]) => p);
    return {
      phase: d.phase,
      ...(d.stage !== undefined ? { stage: d.stage } : {}),
      stages: plan.stagePlan.stages.length,
      wave: d.position.wave,
      ...(d.position.soakUntil !== undefined ? { soakUntil: d.position.soakUntil } : {}),
      ...(d.checkpoint !== undefined ? { checkpoint: d.checkpoint } : {}),
      heldAtZero,
      oldLeft: o.counts.reduce((sum, c) => sum + c.untouched + c.inflight, 0),
      soakedMs: observedAt.soakedMs,
      soaksLeft: soaksLeft(d),
      at: now,
    };
  }

  /** Each wave still to open is preceded by a soak (one under way is counted by its end time, not here). */
  function soaksLeft(d: StageDecision): number {
    if (plan.soakMs <= 0 || d.stage === undefined) return 0;
    const later = plan.stages.slice(d.stage.index + 1).reduce((sum, s) => sum + s.targets.length, 0);
    const wavesAfter = Math.max(0, d.stage.targets.length - d.position.wave - 1) + later;
    return d.phase === 'soak' ? Math.max(0, wavesAfter - 1) : wavesAfter;
  }

  return {
    plan,
    listen(report) {
      emitter.report = report;
    },

    async prime(inventory, now, signal) {
      const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
      const o = observe(inventory.nodeClaims, nodes);
      const records = recordsOf(inventory.nodePools, settings.target);
      const sizes = plan.stagePlan.stages.map((s) => {
        const recorded = s.nodePools.map((p) => records.get(p)?.stageSize).filter((n): n is number => n !== undefined);
        return recorded.length > 0 ? Math.max(...recorded) : undefined;
      });
      const soaks = [...records.values()].map((r) => r.soakUntil).filter((s): s is string => s !== undefined);
      const soak = soaks.length > 0 ? { until: new Date(soaks.sort().at(-1)!), now } : undefined;
      position = initialPosition(plan.stagePlan, o.counts, sizes, soak);
      decision = decideStages(plan.stagePlan, o.counts, position, now, settings.cleared);
      position = decision.position;
      await act(decision, o, nodes, now, signal);
      await announce(decision.events, now);
    },

    async step(claims, nodes, now, signal) {
      const o = observe(claims, nodes);
      const previousPhase = decision?.phase;
      decision = decideStages(
        plan.stagePlan,
        o.counts,
        position ?? initialPosition(plan.stagePlan, o.counts),
        now,
        settings.cleared,
      );
      if (previousPhase === 'soak' && observedAt.lastAt !== undefined)
        observedAt.soakedMs += now.getTime() - observedAt.lastAt;
      observedAt.lastAt = now.getTime();
      position = decision.position;
      await act(decision, o, nodes, now, signal);
      await announce(decision.events, now);
      return state(decision, o, now);
    },

    async finish(nodes, now, options = {}) {
      const done = Object.fromEntries(
        plan.stagePlan.stages.flatMap((s) => s.nodePools.map((p) => [p, 'release' as const])),
      );
      const d: StageDecision = { position: position!, phase: 'done', allowances: done, events: [] };
      // Its own deadline: the run's signal may be aborted (an interrupt before the apply).
      await act(d, { counts: [], oldNodes: new Map() }, nodes, now, AbortSignal.timeout(PAUSE_WRITES_MS));
      if (options.quiet === true) return;
      const all = plan.stagePlan.stages.flatMap((s) => s.nodePools);
      await kubeEvent(
        all,
        'StagedRolloutCompleted',
        `staged drift rollout to Kubernetes ${settings.target} complete; karp-drift's holds released (karp-drift run ${runId}, ${settings.who})`,
      );
    },

    async pause(claims, nodes, why, now) {
      const signal = AbortSignal.timeout(PAUSE_WRITES_MS);
      const o = observe(claims, nodes);
      const held = Object.fromEntries(
        plan.stagePlan.stages
          .flatMap((s) => s.nodePools)
          .filter((p) => written.get(p) !== 'release')
          .map((p) => [p, 0]),
      );
      const pools = Object.keys(held);
      if (pools.length === 0) return [];
      const d: StageDecision = { position: position!, phase: decision?.phase ?? 'wave', allowances: held, events: [] };
      // Every hold is written again: the last allowance of a wave must not let Karpenter start more after we left.
      for (const p of pools) {
        written.delete(p);
        lastWriteAt.delete(p);
      }
      await act(d, o, nodes, now, signal);
      await kubeEvent(
        pools,
        'StagedRolloutPaused',
        `staged drift rollout paused: ${why}; re-run the upgrade to go on, or karp-drift resume to release the hold (karp-drift run ${runId}, ${settings.who})`,
      );
      return pools;
    },
  };
}

/** Hold records of this target on the NodePools (a pause's record, or one for another target, says nothing of waves). */
function recordsOf(pools: readonly NodePoolView[], target: string): Map<string, HoldRecord> {
  const out = new Map<string, HoldRecord>();
  for (const p of pools) {
    const r = decodeHoldRecord(p.annotations?.[HOLD_ANNOTATION]);
    if (r !== undefined && !('error' in r) && r.target === target) out.set(p.name, r);
  }
  return out;
}
