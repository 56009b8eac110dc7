// What `plan` and `upgrade` show (and `upgrade` then runs) for `--canary`/`--waves`/`--soak`: the stages, each
// stage's waves at today's node counts, how each NodePool is held, and an estimate. Pure.
//
// The estimate is honest about what it cannot know: it is the ETA model's (eta.ts, the live display's too) from the
// first wave, at an assumed REPLACEMENT_MS per replacement, which the follow loop replaces with what it observes.
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import type { StagePlan } from './controller.js';
import { chooseHold, type HoldChoice, type HoldChoiceResult } from './hold-mechanism.js';
import type { StagedRequest } from './request.js';
import type { GateRequest } from '../gates/request.js';
import { withPods, type StageAmi } from '../gates/coverage.js';
import type { AmiPick } from './ami-picks.js';
import { opensWithAmiWave, waveShares, waveSizes, waveTargets } from './waves.js';
import { REPLACEMENT_MS, remainingMs, waveRounds, type EtaStage } from './eta.js';

import type { WindowPlan } from './window-plan.js';
export type { StagedRequest } from './request.js';
export { REPLACEMENT_MS } from './eta.js';

export interface PlannedStagePool {
  name: string;
  /** Old NodeClaims that will drift (the plan's toDrift). */
  oldNodes: number;
  /** The NodePool's own Drifted limit now (Infinity: none active). */
  limit: number;
  hold: HoldChoice;
  /** Its share of each wave's cumulative target (`waveShares`): how many of its old nodes are replaced by then. */
  waves: number[];
}

export interface PlannedStage {
  name: string;
  nodePools: PlannedStagePool[];
  size: number;
  /** Cumulative targets of the waves at this size, and how many each adds. */
  targets: number[];
  sizes: number[];
  /** Rounds of replacements each wave needs (eta.ts `waveRounds`): its slowest NodePool at its own limit. */
  rounds: number[];
  /** The target AMIs its old nodes move onto, with the empty ones (gates/coverage.ts); absent in a plan built by hand. */
  amis?: StageAmi[];
  /** A `1/ami` first wave: the node that tests each AMI, as the cluster stands now (ami-picks.ts). */
  picks?: AmiPick[];
}

export interface StagedPlan {
  stages: PlannedStage[];
  soakMs: number;
  /** Soaks between waves and after each stage but the last (after the last one there is nothing left to hold). */
  soaks: number;
  /** At the assumed replacement time; soaks included. */
  estimateMs: number;
  /** For the controller. */
  stagePlan: StagePlan;
  /** The health gates judging each wave (absent: none asked for, as in a plan built by hand in a test). */
  gates?: GateRequest;
  /** --window/--exclude: the budgets that keep drift shut outside the windows, and when they open. */
  windows?: WindowPlan;
  /** --rollback-waves: the rollback of a halt (--on-failure rollback) is staged in these waves too. */
  rollbackWaves?: StagedRequest['rollbackWaves'];
  /** No --canary/--waves/--window was given: the default rollout (docs/staged-rollouts.md), which the plan says. */
  defaulted?: boolean;
}

/** What a `1/ami` wave needs of the cluster: each stage's target AMIs, and the node that would test each. */
export interface StageAmisOf {
  amis(nodePools: readonly string[]): StageAmi[];
  picks(nodePools: readonly string[], holds: ReadonlyMap<string, HoldChoice['mechanism']>): AmiPick[];
}

export interface StagePoolInput {
  pool: Pick<NodePoolView, 'name' | 'budgetOwners' | 'labels' | 'annotations'>;
  oldNodes: number;
  limit: number;
}

export type StagedPlanResult =
  | { plan: StagedPlan }
  | { usage: string; next: string }
  | { refused: Array<{ nodePool: string; error: string }>; next: string };

/**
 * The --canary names checked against the cluster's NodePools as soon as they are listed, before any AMI is resolved: a
 * typo is refused before the SSM and EC2 calls, with the NodePools that exist. `planStages` checks them again against
 * the plan's NodePools (a class the plan leaves out).
 */
export function canaryNameRefusal(
  canary: readonly string[],
  nodePools: ReadonlyArray<Pick<NodePoolView, 'name' | 'nodeClass'>>,
  nodeClassesInScope: readonly string[],
  where: string,
): { usage: string; next: string } | undefined {
  const names = nodePools.map((p) => p.name).sort();
  const unknown = canary.filter((c) => !names.includes(c));
  if (unknown.length > 0) {
    return {
      usage: `--canary ${unknown.map((c) => JSON.stringify(c)).join(', ')}: no such NodePool in ${where}; its NodePools: ${names.join(', ') || 'none'}; nothing was changed`,
      next: 'name one of those NodePools with --canary (kubectl get nodepools lists them)',
    };
  }
  const outside = nodePools.filter((p) => canary.includes(p.name) && !nodeClassesInScope.includes(p.nodeClass));
  if (outside.length === 0) return undefined;
  const inScope = nodePools.filter((p) => nodeClassesInScope.includes(p.nodeClass)).map((p) => p.name).sort();
  return {
    usage: `--canary ${outside.map((p) => `${JSON.stringify(p.name)} (EC2NodeClass ${p.nodeClass})`).join(', ')}: not a NodePool of the EC2NodeClasses in scope (${nodeClassesInScope.join(', ')}); nothing was changed`,
    next: `NodePools in scope: ${inScope.join(', ') || 'none'}; or add ${[...new Set(outside.map((p) => `--nodeclass ${p.nodeClass}`))].join(' ')}`,
  };
}

export function planStages(
  pools: readonly StagePoolInput[],
  request: StagedRequest,
  forceConflicts: boolean,
  api: KarpenterApi = 'v1',
  amisOf?: StageAmisOf,
): StagedPlanResult {
  const names = pools.map((p) => p.pool.name);
  const missing = request.canary.filter((c) => !names.includes(c));
  if (missing.length > 0) {
    return {
      usage: `--canary ${missing.map((m) => JSON.stringify(m)).join(', ')}: not a NodePool of the EC2NodeClasses in scope`,
      next: `NodePools in scope: ${names.join(', ') || 'none'} (a canary must use one of the EC2NodeClasses being upgraded)`,
    };
  }
  if (request.canary.length > 0 && request.canary.length === names.length) {
    return {
      usage: `--canary names every NodePool in scope (${names.join(', ')}): nothing would be left for after the canary`,
      next: 'name fewer canary NodePools, or use --waves alone to stage one rollout of them all',
    };
  }
  const choices: HoldChoiceResult[] = pools.map((p) => chooseHold(p.pool, request.holdWith, forceConflicts, api));
  const refused = choices.filter((c): c is Extract<HoldChoiceResult, { error: string }> => 'error' in c);
  if (refused.length > 0) {
    return { refused: refused.map((r) => ({ nodePool: r.nodePool, error: r.error })), next: refused[0]!.next };
  }
  const byName = new Map(pools.map((p, i) => [p.pool.name, { input: p, hold: choices[i] as HoldChoice }]));
  const groups =
    request.canary.length > 0
      ? [
          { name: 'canary', nodePools: request.canary },
          { name: 'rollout', nodePools: names.filter((n) => !request.canary.includes(n)) },
        ]
      : [{ name: 'rollout', nodePools: names }];
  const holds = new Map(choices.map((c) => [c.nodePool, (c as HoldChoice).mechanism]));
  const stages = groups.map((g): PlannedStage => {
    const inputs = g.nodePools.map((n) => byName.get(n)!);
    const size = inputs.reduce((sum, m) => sum + m.input.oldNodes, 0);
    const amis = amisOf?.amis(g.nodePools);
    const amiCount = amis?.filter((a) => withPods(a) > 0).length ?? 0;
    const amiWave = opensWithAmiWave(request.waves, amiCount, size);
    const picks = amiWave ? amisOf!.picks(g.nodePools, holds) : undefined;
    const targets = waveTargets(request.waves, size, amiCount);
    const old = inputs.map((m) => m.input.oldNodes);
    // The `1/ami` wave replaces the picks; a later wave never gives a NodePool fewer than it did.
    const picked = inputs.map((m) => picks?.filter((p) => p.nodePool === m.input.pool.name).length ?? 0);
    const shares = targets.map((t, w) =>
      amiWave && w === 0 ? picked : waveShares(t, old).map((n, i) => (amiWave ? Math.max(n, picked[i]!) : n)),
    );
    const members = inputs.map(({ input, hold }, i) => ({
      name: input.pool.name,
      oldNodes: input.oldNodes,
      limit: input.limit,
      hold,
      waves: shares.map((s) => s[i]!),
    }));
    const stage = {
      name: g.name,
      nodePools: members,
      size,
      targets,
      sizes: waveSizes(targets),
      ...(amis !== undefined ? { amis } : {}),
      ...(picks !== undefined ? { picks } : {}),
    };
    return { ...stage, rounds: waveRounds(etaStage(stage)) };
  });
  const waves = stages.reduce((sum, s) => sum + s.targets.length, 0);
  const soaks = request.soakMs > 0 ? Math.max(0, waves - 1) : 0;
  const first = { stage: 0, wave: 0, phase: 'wave' as const };
  return {
    plan: {
      stages,
      soakMs: request.soakMs,
      soaks,
      estimateMs: remainingMs(stages.map(etaStage), first, REPLACEMENT_MS, request.soakMs),
      stagePlan: {
        stages: groups.map((g, i) => {
          const amis = stages[i]!.amis;
          return { ...g, ...(amis !== undefined ? { amiCount: amis.filter((a) => withPods(a) > 0).length } : {}) };
        }),
        waves: request.waves,
        soakMs: request.soakMs,
      },
      ...(request.gates ? { gates: request.gates } : {}),
      ...(request.rollbackWaves ? { rollbackWaves: request.rollbackWaves } : {}),
      ...(request.defaulted === true ? { defaulted: true } : {}),
    },
  };
}

/** A planned stage as the ETA model sees it. */
export function etaStage(stage: Pick<PlannedStage, 'nodePools' | 'targets'>): EtaStage {
  return {
    pools: stage.nodePools.map((p) => ({ oldNodes: p.oldNodes, limit: p.limit })),
    targets: stage.targets,
    // The shares the plan chose (a `1/ami` wave's picks), wave by wave.
    shares: stage.targets.map((_, w) => stage.nodePools.map((p) => p.waves[w] ?? 0)),
  };
}
