// The pacer's writes: for each NodePool, what the decision allows (stages/controller.ts) becomes a budget hold, holds
// on its old nodes, or their release (cluster/holds.ts). A write happens only when the allowance changes, plus a
// periodic check that a budget hold is still there (a GitOps sync or a person may have put the list back).
import type { PacerSettings, PacerState } from './pacer-steps.js';
import { holdNode, holdWithBudget, releaseBudgetHold, releaseNode } from '../cluster/holds.js';
import { HOLD_ANNOTATION } from '../apis/budget-hold.js';
import type { NodePoolView, NodeView } from '../karpenter/views.js';
import { nodeHoldChanges, type OldNode } from '../apis/node-hold.js';
import type { StageDecision, StagePosition } from '../stages/controller.js';
import { heldNodesOf, type PoolObservation } from '../stages/counts.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import { windowFlags } from '../stages/request.js';
import type { Budget } from '../karpenter/budgets.js';
import { serverTime } from '../cluster/server-clock.js';

/** Budget holds are read back this often, so one a GitOps sync or a person removed is put back. */
const REASSERT_EVERY_MS = 15_000;
/**
 * The dead man's switch is armed for the start of the minute SWITCH_AHEAD_MS from now on the API server's clock (the
 * clock Karpenter reads it by: cluster/server-clock.ts), so a run that dies leaves Karpenter holding drift at 0 by
 * itself within SWITCH_AHEAD_MS of its last write. Karpenter reads schedules to the minute.
 *
 * Each move is a spec write: it bumps the NodePool's generation, and Karpenter resets NodeRegistrationHealthy at every
 * bump (DOMAIN.md §1.3). So the switch is moved no more often than the bound needs: only while the hold lets
 * Karpenter start something (a hold at 0 holds by itself, and a dead run leaves it so: a NodePool waiting for its
 * stage, soaking, or whose wave has started all it may is never written for the switch); then when less than
 * SWITCH_REARM_MS is left before it fires, which with whole minutes is every SWITCH_AHEAD_MS − 1 minute (2 minutes),
 * and with any write the hold needs anyway (a wave opens, a replacement starts or finishes), which moves it for free.
 * SWITCH_REARM_MS is what a move may take, its retries included (cluster/holds.ts, 15 s), before Karpenter's next look;
 * a move later than that lets the switch hold drift at 0 for a moment, never the other way.
 */
export const SWITCH_AHEAD_MS = 3 * 60_000;
export const SWITCH_REARM_MS = 60_000;

const switchMinute = (serverNow: Date): Date =>
  new Date(Math.floor((serverNow.getTime() + SWITCH_AHEAD_MS) / 60_000) * 60_000);

/** One round of writes: what the pacer needs to make them, and when. */
interface Acting {
  readonly settings: PacerSettings;
  readonly state: PacerState;
  readonly now: Date;
  readonly signal: AbortSignal | undefined;
}

export async function actOnHolds(
  settings: PacerSettings,
  state: PacerState,
  d: StageDecision,
  o: PoolObservation,
  nodes: ReadonlyMap<string, NodeView>,
  now: Date,
  signal: AbortSignal | undefined,
): Promise<void> {
  const acting: Acting = { settings, state, now, signal };
  for (const [pool, allowance] of Object.entries(d.allowances)) {
    const how = state.mechanism.get(pool)!;
    // A `1/ami` wave's picks in a NodePool whose budget alone would let Karpenter take another node (stages/ami-picks.ts).
    const free = d.free?.[pool];
    if (allowance === 'release') await releasePool(acting, pool, how, nodes);
    else if (how === 'node') await holdPoolNodes(acting, pool, allowance, o.oldNodes.get(pool) ?? [], free);
    else {
      const untouched = o.counts.find((c) => c.name === pool)?.untouched ?? 0;
      await holdPoolWithBudget(acting, pool, allowance, o.disrupting.get(pool) ?? 0, d.position, untouched);
      // The budget goes first: while it holds, freeing or holding nodes lets nothing start that should not.
      if (free !== undefined) await holdPoolNodes(acting, pool, allowance, o.oldNodes.get(pool) ?? [], free);
      else await releaseWaveNodeHolds(acting, pool, nodes);
    }
  }
}

/**
 * The do-not-disrupt a `1/ami` wave put on a budget-held NodePool's other old nodes (this run's, or an earlier run's
 * that was cut off during that wave) comes off once the wave no longer needs it: the budget paces the rest.
 */
async function releaseWaveNodeHolds(
  { settings, state, signal }: Acting,
  pool: string,
  nodes: ReadonlyMap<string, NodeView>,
): Promise<void> {
  // Looked for once per run and NodePool (an earlier run's), then only after this run held some there.
  if (state.waveNodesChecked.has(pool) && ![...state.heldHere.values()].includes(pool)) return;
  state.waveNodesChecked.add(pool);
  const held = new Set([
    ...heldNodesOf(nodes.values(), pool),
    ...[...state.heldHere].filter(([, p]) => p === pool).map(([n]) => n),
  ]);
  let freed = 0;
  for (const n of held) {
    if (await releaseNode(settings.cluster, n, signal)) freed++;
    state.nodeWrites.set(n, false);
    state.heldHere.delete(n);
  }
  if (freed > 0) state.report({ type: 'release', nodePool: pool, mechanism: 'node', nodes: freed, wave: true });
}

/**
 * A budget hold karp-drift left on a NodePool this run holds with its nodes (an earlier `pause` or run; on Karpenter
 * v1beta1, one an earlier karp-drift wrote there, which the server kept without its reasons) is taken over: it comes
 * off before the run holds the nodes, or it would keep the NodePool at its allowance (0) the whole rollout long.
 */
export async function takeOverBudgetHolds(
  settings: PacerSettings,
  state: PacerState,
  pools: readonly NodePoolView[],
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const p of pools) {
    if (state.mechanism.get(p.name) !== 'node' || p.annotations?.[HOLD_ANNOTATION] === undefined) continue;
    const r = await releaseBudgetHold(settings.cluster, settings.api, p.name, signal);
    if (r.changed) state.report({ type: 'release', nodePool: p.name, mechanism: 'budget', budgets: r.budgets });
  }
}

async function releasePool(
  { settings, state, signal }: Acting,
  pool: string,
  how: HoldMechanism,
  nodes: ReadonlyMap<string, NodeView>,
): Promise<void> {
  const { cluster, api } = settings;
  if (state.written.get(pool) === 'release') return;
  if (how === 'budget') {
    const r = await releaseBudgetHold(cluster, api, pool, signal);
    if (r.changed) state.report({ type: 'release', nodePool: pool, mechanism: 'budget', budgets: r.budgets });
    await releaseWaveNodeHolds({ settings, state, now: new Date(), signal }, pool, nodes);
  } else {
    let freed = 0;
    // What the nodes show, and what this run held that they may not show yet (the inventory before prime).
    const held = new Set([
      ...heldNodesOf(nodes.values(), pool),
      ...[...state.heldHere].filter(([, p]) => p === pool).map(([n]) => n),
    ]);
    for (const n of held) {
      if (await releaseNode(cluster, n, signal)) freed++;
      state.nodeWrites.set(n, false);
      state.heldHere.delete(n);
    }
    if (freed > 0) state.report({ type: 'release', nodePool: pool, mechanism: 'node', nodes: freed });
  }
  state.written.set(pool, 'release');
}

/**
 * Karpenter lets `min(budgets) − disrupting` start, and `disrupting` already counts every replacement in flight and
 * every NotReady node of the NodePool. So the hold is `allowance + disrupting`, which lets exactly `allowance` more
 * start, and never slows the wave's own replacements below the NodePool's own budgets (writing `allowance` alone
 * would subtract them twice); and `0` once the wave has started all it may, which is exact at any concurrency (a budget
 * never stops a command already started). Rewritten whenever `disrupting` changes (DOMAIN.md §2.6), except in a wave
 * that takes every old node the NodePool has left (the default rollout's second wave, any `100%`): there a hold at or
 * above `allowance + disrupting` can only let Karpenter start more of the NodePool's own old nodes, all of which the
 * wave takes anyway, so it stays as written while replacements start and finish. Each write bumps the NodePool's
 * generation, which resets Karpenter's NodeRegistrationHealthy (DOMAIN.md §1.3): a write per replacement of a 5,000-node
 * NodePool would keep it reset the whole rollout long.
 */
async function holdPoolWithBudget(
  { settings, state, now, signal }: Acting,
  pool: string,
  allowance: number,
  disrupting: number,
  position: StagePosition,
  untouched: number,
): Promise<void> {
  const before = state.written.get(pool);
  const needed = allowance > 0 ? allowance + disrupting : 0;
  const kept = state.writtenBudget.get(pool);
  const wholePool = allowance > 0 && allowance >= untouched && kept !== undefined && kept >= needed;
  const value = wholePool ? kept : needed;
  // The switch fires on Karpenter's clock: it is armed and judged by the API server's.
  const serverNow = serverTime(settings.cluster, now);
  const armed = state.armedAt.get(pool);
  const valueChanges = state.writtenBudget.get(pool) !== value;
  const rearm = value > 0 && (armed === undefined || armed.getTime() - serverNow.getTime() < SWITCH_REARM_MS);
  const due = now.getTime() - (state.lastWriteAt.get(pool) ?? 0) >= REASSERT_EVERY_MS || rearm;
  const soakUntil = position.soakUntil?.toISOString() ?? null;
  const same = (before === allowance || wholePool) && !valueChanges;
  if (same && !due && state.writtenSoak.get(pool) === soakUntil) {
    state.written.set(pool, allowance);
    return;
  }
  // A new value is a spec write anyway, which moves the switch at no cost; a soak's record alone is metadata, which
  // leaves the generation (and NodeRegistrationHealthy) alone, so it keeps the switch where it is. A hold at 0 keeps
  // the switch it has, fired or not: the list keeps its shape, and the next hold above 0 arms it anew.
  const armAt = rearm || (valueChanges && value > 0) || armed === undefined ? switchMinute(serverNow) : armed;
  // A stage not yet begun has no size: recording 0 would make a re-run count its waves from a shrinking size.
  const stageSize = position.sizes[state.stageOf.get(pool)!];
  const poolSize = position.poolSizes?.[pool];
  const record = {
    runId: settings.runId,
    now,
    target: settings.target,
    ...(stageSize ? { stageSize } : {}),
    ...(poolSize !== undefined ? { poolSize } : {}),
    soakUntil,
    armAt,
    ...(state.pausedBy !== undefined ? { pausedBy: state.pausedBy } : {}),
  };
  const r = await holdWithBudget(settings.cluster, settings.api, pool, value, { ...record, windows: windowsOf(settings) }, signal);
  state.written.set(pool, allowance);
  state.writtenBudget.set(pool, value);
  state.armedAt.set(pool, armAt);
  state.lastWriteAt.set(pool, now.getTime());
  state.writtenSoak.set(pool, soakUntil);
  if (r.changed && before !== allowance) state.report({ type: 'hold', nodePool: pool, mechanism: 'budget', allowance });
}

/** The windows' budgets this run writes with every hold (none without --window: a re-run without it drops them). */
function windowsOf(settings: PacerSettings): { budgets: Budget[]; flags: string[] } {
  const w = settings.plan.windows;
  return w === undefined ? { budgets: [], flags: [] } : { budgets: w.budgets, flags: windowFlags(w.request) };
}

async function holdPoolNodes(
  { settings, state, signal }: Acting,
  pool: string,
  allowance: number,
  old: OldNode[],
  free?: readonly string[],
): Promise<void> {
  const { cluster, runId } = settings;
  const before = state.written.get(pool);
  const changes = nodeHoldChanges(old, allowance, free);
  for (const n of changes.hold) {
    // Noted before the write: a write cut off by Ctrl-C may still land, and the release after it must look at the
    // node (it removes only karp-drift's annotation, so a write that never landed costs one read).
    state.heldHere.set(n, pool);
    await holdNode(cluster, n, runId, signal);
    state.nodeWrites.set(n, true);
  }
  for (const n of changes.release) {
    await releaseNode(cluster, n, signal);
    state.nodeWrites.set(n, false);
    state.heldHere.delete(n);
  }
  state.written.set(pool, allowance);
  if (before !== allowance || changes.hold.length > 0) {
    // `nodes`: how many of the NodePool's old nodes karp-drift holds now.
    const held = old.filter((n) => n.heldByUs).length + changes.hold.length - changes.release.length;
    state.report({ type: 'hold', nodePool: pool, mechanism: 'node', allowance, nodes: held });
  }
}
