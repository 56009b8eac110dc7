// What `plan` and `upgrade` show (and `upgrade` then runs) for `--canary`/`--waves`/`--soak`: the stages, each
// stage's waves at today's node counts, how each NodePool is held, and an estimate. Pure.
//
// The estimate is honest about what it cannot know: Karpenter starts one drift command per disruption pass and
// requeues at once after a success (DOMAIN.md §2.5), so a wave's replacements start within seconds of each other up
// to the NodePool's own Drifted limit, and the wave then lasts about as long as a replacement (launch, readiness,
// drain) times the rounds that limit forces. How long a replacement takes on this cluster is not known before one
// has run: the plan assumes REPLACEMENT_MS and says so; the follow loop replaces it with the rate it observes.
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import type { StagePlan } from './controller.js';
import { chooseHold, type HoldChoice, type HoldChoiceResult } from './hold-mechanism.js';
import type { StagedRequest } from './request.js';
import type { GateRequest } from '../gates/request.js';
import { waveShares, waveSizes, waveTargets } from './waves.js';

export type { StagedRequest } from './request.js';

/** A replacement's duration assumed before any has been observed: launch, registration, readiness and drain. */
export const REPLACEMENT_MS = 5 * 60_000;

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

export function planStages(
  pools: readonly StagePoolInput[],
  request: StagedRequest,
  forceConflicts: boolean,
  api: KarpenterApi = 'v1',
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
  const stages = groups.map((g): PlannedStage => {
    const inputs = g.nodePools.map((n) => byName.get(n)!);
    const size = inputs.reduce((sum, m) => sum + m.input.oldNodes, 0);
    const targets = waveTargets(request.waves, size);
    const shares = targets.map((t) => waveShares(t, inputs.map((m) => m.input.oldNodes)));
    const members = inputs.map(({ input, hold }, i) => ({
      name: input.pool.name,
      oldNodes: input.oldNodes,
      limit: input.limit,
      hold,
      waves: shares.map((s) => s[i]!),
    }));
    return { name: g.name, nodePools: members, size, targets, sizes: waveSizes(targets) };
  });
  const waves = stages.reduce((sum, s) => sum + s.targets.length, 0);
  const soaks = request.soakMs > 0 ? Math.max(0, waves - 1) : 0;
  return {
    plan: {
      stages,
      soakMs: request.soakMs,
      soaks,
      estimateMs: soaks * request.soakMs + stages.reduce((sum, s) => sum + stageRounds(s) * REPLACEMENT_MS, 0),
      stagePlan: { stages: groups, waves: request.waves, soakMs: request.soakMs },
      ...(request.gates ? { gates: request.gates } : {}),
    },
  };
}

/**
 * Rounds of replacements a stage needs: per wave, the slowest of its NodePools, each replacing its share of the wave
 * up to its own Drifted limit at once (karp-drift's hold lets a wave's replacements run side by side up to that limit,
 * and only ever lowers it). A NodePool with old nodes whose limit is 0 never replaces them, so the stage never ends,
 * whatever its other NodePools allow.
 */
function stageRounds(stage: PlannedStage): number {
  if (stage.nodePools.some((p) => p.oldNodes > 0 && p.limit <= 0)) return Infinity;
  return stage.targets.reduce((sum, _t, w) => {
    const rounds = stage.nodePools.map((p) => {
      const added = p.waves[w]! - (w > 0 ? p.waves[w - 1]! : 0);
      return added > 0 ? Math.ceil(added / Math.min(p.limit, added)) : 0;
    });
    return sum + Math.max(0, ...rounds);
  }, 0);
}
