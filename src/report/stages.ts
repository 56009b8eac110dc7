// How a staged rollout reads: the plan's stages and waves, each step as a log line, an NDJSON event and a Kubernetes
// Event message, and the live display's stage line with an ETA. Pure.
import { windowPlanJson, windowPlanLines } from './windows.js';
import type { Checkpoint } from '../gates/request.js';
import type { Budget } from '../karpenter/budgets.js';
import { etaDuration, humanDuration, plural, utcTime } from '../text/words.js';
import type { StageDecision, StageEvent, StagePlan } from '../stages/controller.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import type { AmiPick } from '../stages/ami-picks.js';
import { remainingMs, type EtaPosition, type EtaStage } from '../stages/eta.js';
import { REPLACEMENT_MS, type StagedPlan } from '../stages/stage-plan.js';
import { windowEta, type WindowEta } from '../stages/window-plan.js';
import { eventTime } from './progress.js';
import { gatePlanJson, gatePlanLines } from './gates.js';

/** What the pacer reports as it goes. */
export type PacerEvent =
  | { type: 'stage'; event: Extract<StageEvent, { type: 'stage' }> }
  | { type: 'wave'; event: Extract<StageEvent, { type: 'wave' }> }
  | { type: 'soak'; event: Extract<StageEvent, { type: 'soak' }> }
  | { type: 'hold'; nodePool: string; mechanism: HoldMechanism; allowance: number; nodes?: number }
  | {
      type: 'release';
      nodePool: string;
      mechanism: HoldMechanism;
      budgets?: Budget[] | null;
      nodes?: number;
      /** The do-not-disrupt a `1/ami` wave put on a budget-held NodePool's other old nodes: its budget holds them now. */
      wave?: true;
    };

/** Where a staged rollout stands, for progress and the stall clock. */
export interface StageState {
  phase: StageDecision['phase'];
  stage?: NonNullable<StageDecision['stage']>;
  stages: number;
  wave: number;
  soakUntil?: Date;
  /** NodePools karp-drift holds at 0 on purpose now (later stages, a soak): not a blocker to diagnose. */
  heldAtZero: string[];
  /** Time spent soaking so far (not counted against --timeout). */
  soakedMs: number;
  /**
   * What the ETA model (stages/eta.ts) needs: the stages from the open one on, where the rollout stands in them
   * (`stage` 0 is the open one), when the open wave opened, and one replacement's duration as observed (none yet:
   * no replacement done).
   */
  eta: {
    stages: EtaStage[];
    position: Pick<EtaPosition, 'stage' | 'wave' | 'phase'>;
    waveOpenedAt?: Date;
    replacementMs?: number;
  };
  /** While `gating`: where, and what the gates still wait for (set by the follow loop). */
  checkpoint?: Checkpoint;
  gateWaiting?: string;
  at: Date;
}

const waveList = (targets: readonly number[]) =>
  targets.map((t, i) => (i === 0 ? `${t}` : `+${t - targets[i - 1]!}`)).join(', ');

/**
 * One step, as a log line and as the message of its Event on the NodePools. A soak is announced as the soak requested
 * (--soak) and when it ends: it begins at the decision that saw the wave done, and the line may be written later.
 */
export function stageEventText(e: StageEvent, plan: StagePlan): string {
  const stage = plan.stages[e.stage]!;
  const label = `stage ${e.stage + 1}/${plan.stages.length} (${stage.name})`;
  if (e.type === 'stage') {
    return `${label} begins: ${plural(e.size, 'old node')} of ${stage.nodePools.map((p) => `nodepool/${p}`).join(', ')} in ${plural(e.waves.length, 'wave')} (${waveList(e.waves)})`;
  }
  if (e.type === 'wave' && e.picks !== undefined) {
    const held = [...new Set(e.picks.filter((p) => !p.exact).map((p) => `nodepool/${p.nodePool}`))];
    return `${label} wave ${e.wave + 1}/${e.of} opens: one node per target AMI first: ${e.picks.length === 0 ? 'none left untested' : pickList(e.picks)} (${e.started} of ${plural(e.size, 'old node')} replaced so far)${held.length > 0 ? `; the other old nodes of ${held.join(', ')} held with do-not-disrupt until the wave is done` : ''}`;
  }
  if (e.type === 'wave') {
    return `${label} wave ${e.wave + 1}/${e.of} opens: up to ${e.target} of ${plural(e.size, 'old node')} replaced (${e.started} so far)`;
  }
  const next = e.stageDone
    ? e.stage + 1 < plan.stages.length
      ? `stage ${e.stage + 2}`
      : 'the end'
    : `wave ${e.wave + 2}`;
  return `${label} wave ${e.wave + 1} done; soaking ${humanDuration(plan.soakMs)} until ${utcTime(e.until)} before ${next}`;
}

/** "al2023 amd64 standard ami-1 on nodepool/canary, al2023 arm64 standard ami-2 on nodepool/general (node n), …". */
export const pickList = (picks: readonly AmiPick[]): string =>
  picks.map((p) => `${p.label} ${p.ami} on nodepool/${p.nodePool}${p.exact ? '' : ` (node ${p.node})`}`).join(', ');

/** The NDJSON line of a pacer event (`type` and `time` first, as every event). */
export function pacerEventJson(e: PacerEvent, plan: StagePlan, now: Date): Record<string, unknown> {
  const time = eventTime(now);
  if (e.type === 'hold' || e.type === 'release') {
    const { type, ...rest } = e;
    return { type, time, ...rest };
  }
  const ev = e.event;
  const stage = { stage: ev.stage + 1, stages: plan.stages.length, name: plan.stages[ev.stage]!.name };
  if (ev.type === 'stage')
    return { type: 'stage', time, ...stage, nodePools: ev.nodePools, size: ev.size, waves: ev.waves };
  if (ev.type === 'wave') {
    return {
      type: 'wave',
      time,
      ...stage,
      wave: ev.wave + 1,
      waves: ev.of,
      target: ev.target,
      size: ev.size,
      started: ev.started,
      ...(ev.picks !== undefined
        ? { picks: ev.picks.map((p) => ({ ami: p.ami, amiLabel: p.label, nodePool: p.nodePool, node: p.node, othersHeld: !p.exact })) }
        : {}),
    };
  }
  return { type: 'soak', time, ...stage, wave: ev.wave + 1, until: eventTime(ev.until), stageDone: ev.stageDone };
}

/** A plain-text log line for the steps a reader follows (stage, wave, soak, release); hold updates only in NDJSON. */
export function pacerLogLine(e: PacerEvent, plan: StagePlan): string | undefined {
  if (e.type === 'hold') return undefined;
  if (e.type === 'release') {
    if (e.wave === true)
      return `nodepool/${e.nodePool}: the first wave's do-not-disrupt removed from ${plural(e.nodes ?? 0, 'node')} (karp-drift's budget holds the NodePool)`;
    return e.mechanism === 'budget'
      ? `nodepool/${e.nodePool}: karp-drift's hold released, its own budgets are back`
      : `nodepool/${e.nodePool}: karp-drift's do-not-disrupt removed from ${plural(e.nodes ?? 0, 'node')}`;
  }
  return stageEventText(e.event, plan);
}

/**
 * Time left at `now`, by the plan's model (stages/eta.ts) with the replacement time observed in place of the one the
 * plan assumed: the rest of the open wave, the rounds of the waves after it, the rest of the soak under way and the
 * soaks to come. Undefined before any replacement is done (the plan's estimate said what it assumed).
 */
export function stagedEta(state: StageState, now: Date, soakMs: number): number | undefined {
  const { eta } = state;
  if (eta.position.phase === 'done') return 0;
  if (eta.replacementMs === undefined) return undefined;
  const at: EtaPosition = {
    ...eta.position,
    waveElapsedMs: eta.waveOpenedAt !== undefined ? now.getTime() - eta.waveOpenedAt.getTime() : 0,
    soakLeftMs: state.soakUntil !== undefined ? state.soakUntil.getTime() - now.getTime() : 0,
  };
  return remainingMs(eta.stages, at, eta.replacementMs, soakMs);
}

/**
 * The live display's and progress event's stage line, within 80 columns for stages of up to 999 nodes (the display
 * cuts a longer line at its end): `Stage 1/2 canary, wave 2/3: 2 of 4 started (wave: up to 2); ETA ~25m`, or while
 * the gates judge a checkpoint `Stage 1/2 canary, wave 1/1: gates at wave end: --gate-cmd for 3s; ETA ~21s`.
 */
export function stageLine(state: StageState, etaMs: number | undefined): string {
  if (state.stage === undefined) return state.phase === 'done' ? 'Staged rollout: every stage done' : '';
  const s = state.stage;
  const head = `Stage ${s.index + 1}/${state.stages} ${s.name}, wave ${Math.min(state.wave + 1, s.targets.length)}/${s.targets.length}`;
  const what =
    state.phase === 'soak' && state.soakUntil !== undefined
      ? `soaking, ${etaDuration(state.soakUntil.getTime() - state.at.getTime())} left`
      : state.phase === 'finishing'
        ? `${s.started} of ${s.size} started, last ones finishing`
        : state.phase === 'gating'
          ? `gates at ${state.checkpoint?.point === 'soak-end' ? 'soak' : 'wave'} end${state.gateWaiting ? `: ${state.gateWaiting}` : ''}`
          : `${s.started} of ${s.size} started (wave: up to ${s.targets[state.wave] ?? s.size})`;
  return `${head}: ${what}${etaMs !== undefined && Number.isFinite(etaMs) ? `; ETA ~${etaDuration(etaMs)}` : ''}`;
}

/** The plan's stages section (plan and upgrade, before asking). */
export function stagedPlanLines(p: StagedPlan): string[] {
  const soak = p.soakMs > 0 ? `, soaking ${humanDuration(p.soakMs)} after each wave` : ', no soak between waves';
  const lines = [
    p.defaulted === true
      ? `Staged rollout (the default): each target AMI tested on one node first, then the rest at the NodePools' own budgets${soak}`
      : `Staged rollout: ${plural(p.stages.length, 'stage')}${soak}`,
  ];
  p.stages.forEach((s, i) => {
    lines.push(
      `  Stage ${i + 1} ${s.name}: ${plural(s.size, 'old node')}${s.size > 0 ? ` in ${plural(s.targets.length, 'wave')} (${waveList(s.targets)})` : ', nothing to replace'}`,
    );
    if (s.picks !== undefined) lines.push(...pickLines(s.picks));
    const width = Math.max(...s.nodePools.map((n) => n.name.length));
    const counts = s.nodePools.map((n) => plural(n.oldNodes, 'old node'));
    const countWidth = Math.max(...counts.map((c) => c.length));
    const splits = s.nodePools.map((n) => (s.nodePools.length > 1 && s.targets.length > 1 ? `  waves ${waveList(n.waves)}` : ''));
    const splitWidth = Math.max(...splits.map((x) => x.length));
    s.nodePools.forEach((n, j) => {
      lines.push(
        `    nodepool/${n.name.padEnd(width)}  ${counts[j]!.padStart(countWidth)}${splits[j]!.padEnd(splitWidth)}  held with ${n.hold.mechanism}: ${n.hold.why}`,
      );
      if (n.hold.warning !== undefined) lines.push(`      warning: ${n.hold.warning}`);
    });
  });
  const estimate = Number.isFinite(p.estimateMs)
    ? `about ${etaDuration(p.estimateMs)}`
    : 'unknown (a NodePool allows no Drifted disruption)';
  lines.push(
    `  Estimate: ${estimate}${p.soaks > 0 ? ` (${plural(p.soaks, 'soak')} of ${humanDuration(p.soakMs)} included)` : ''}, assuming ${humanDuration(REPLACEMENT_MS)} per replacement,`,
    `  in parallel up to each NodePool's own budget; progress shows the real rate.`,
  );
  if (p.gates) lines.push(...gatePlanLines(p.gates));
  if (p.windows) lines.push(...windowPlanLines(p.windows, planWindowEta(p)));
  if (p.defaulted === true) {
    lines.push(
      "  Otherwise: --waves 100% for Karpenter's pace alone (still gated), --canary/--waves/--soak for stages of your own, --no-gates to turn the health gates off.",
    );
  }
  return lines;
}

/** The first wave of a `1/ami` stage: which node tests which AMI, and where the other old nodes are held for it. */
function pickLines(picks: readonly AmiPick[]): string[] {
  if (picks.length === 0) return ['    wave 1 tests nothing: every target AMI already runs on a node, or only empty nodes move onto it'];
  return [
    '    wave 1 tests each target AMI on one node:',
    ...picks.map(
      (p) =>
        `      ${p.label} ${p.ami} on nodepool/${p.nodePool}, ${p.exact ? 'any of its old nodes (each moves onto it)' : `node ${p.node} (its other old nodes held with do-not-disrupt meanwhile)`}`,
    ),
  ];
}

export function stagedPlanJson(p: StagedPlan): Record<string, unknown> {
  return {
    stages: p.stages.map((s) => ({
      name: s.name,
      size: s.size,
      waves: s.targets,
      // The estimate's rounds of replacements per wave (null: a wave that never ends, a NodePool allowing none).
      rounds: s.rounds.map((r) => (Number.isFinite(r) ? r : null)),
      ...(s.amis ? { amis: s.amis.map((a) => ({ id: a.id, label: a.label, nodePools: a.nodePools })) } : {}),
      ...(s.picks ? { picks: s.picks.map((k) => ({ ami: k.ami, amiLabel: k.label, nodePool: k.nodePool, node: k.node, othersHeld: !k.exact })) } : {}),
      nodePools: s.nodePools.map((n) => ({
        name: n.name,
        oldNodes: n.oldNodes,
        waves: n.waves,
        hold: {
          mechanism: n.hold.mechanism,
          why: n.hold.why,
          ...(n.hold.warning !== undefined ? { warning: n.hold.warning } : {}),
        },
      })),
    })),
    default: p.defaulted === true,
    waveSteps: p.stagePlan.waves.map((w) => w.text),
    soakSeconds: p.soakMs / 1000,
    soaks: p.soaks,
    estimateSeconds: Number.isFinite(p.estimateMs) ? Math.round(p.estimateMs / 1000) : null,
    assumedReplacementSeconds: REPLACEMENT_MS / 1000,
    ...(p.gates ? { gates: gatePlanJson(p.gates) } : {}),
    ...(p.windows ? { windows: windowPlanJson(p.windows, planWindowEta(p)) } : {}),
  };
}

/** The estimate counted in windows: the plan's rounds at the assumed replacement time, its soaks on the wall clock. */
function planWindowEta(p: StagedPlan): WindowEta | undefined {
  if (p.windows === undefined) return undefined;
  return windowEta(p.windows, p.stages.flatMap((s) => s.rounds), REPLACEMENT_MS, p.soakMs);
}
