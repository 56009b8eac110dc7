// A staged rollback (`rollback --canary/--waves`, `upgrade --on-failure rollback --rollback-waves`) is a staged rollout
// whose targets are the restored (previous) AMIs: the same stages, waves, holds and gates as a staged upgrade, paced and
// followed by upgrade-staged.ts `followStaged`. What is a rollback's own is planned here: which nodes go back (before
// the restore, those on the AMIs pinned now, rollback-plan.ts; once Karpenter has resolved the restored selection, those
// not on it: the previous terms may be an alias or selectors, so only Karpenter says which AMIs they are), the flags
// that go on where it stops, and what a halt advises.
import type { HoldChoice } from '../stages/hold-mechanism.js';
import { stagedFlags, type StagedRequest } from '../stages/request.js';
import { planStages, type StagedPlan } from '../stages/stage-plan.js';
import type { WaveStep } from '../stages/waves.js';
import { DEFAULT_GATES } from '../gates/request.js';
import { nodePoolPlan } from '../plan/pools.js';
import type { Inventory, NodePoolView } from '../karpenter/views.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { readInventory } from '../cluster/inventory.js';
import type { Logger } from '../logger.js';
import { RefusedError, UsageError } from '../errors.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import type { NodeClassWrites } from './upgrade-apply.js';
import type { RestoredPlan, UpgradeFollow, UpgradeRun } from './upgrade-follow.js';

/** What followStaged takes to follow a rollback back: the rollout whose targets are the restored AMIs. */
export interface StagedBack {
  run: UpgradeRun;
  staged: StagedPlan;
  writes: NodeClassWrites;
  follow: UpgradeFollow;
}

/**
 * The stages of a rollback, each NodePool with `oldNodes` to take back, planned as planStages plans an upgrade's and
 * refused as an upgrade's would be (a canary out of scope: exit 2; a hold that cannot work: exit 3). `holds`: how each
 * NodePool is held when that is already decided (the halted upgrade's own holds, which the rollback takes over).
 */
export function rollbackStages(
  inventory: Inventory,
  pools: readonly NodePoolView[],
  oldNodes: ReadonlyMap<string, number>,
  request: StagedRequest,
  now: Date,
  holds?: ReadonlyMap<string, HoldChoice>,
): StagedPlan {
  const inputs = pools.map((pool) => ({
    pool,
    oldNodes: oldNodes.get(pool.name) ?? 0,
    // The NodePool's own Drifted limit now (a hold karp-drift left is read through); no target changes it.
    limit: nodePoolPlan(pool, inventory, new Set(), now).limit,
  }));
  const result = planStages(inputs, request, false, inventory.karpenterApi);
  if ('usage' in result)
    throw new UsageError(result.usage, { hint: result.next.replace('being upgraded', 'being rolled back') });
  if ('refused' in result)
    throw new RefusedError(`${result.refused.map((r) => r.error).join('; ')}; nothing was changed`, { hint: result.next });
  if (holds === undefined) return result.plan;
  const stages = result.plan.stages.map((s) => ({
    ...s,
    nodePools: s.nodePools.map((p) => ({ ...p, hold: holds.get(p.name) ?? p.hold })),
  }));
  return { ...result.plan, stages };
}

/** Per NodePool, the nodes not on `targets` (their class's restored AMIs): what goes back once they are resolved. */
export function notOnTargets(inventory: Inventory, pools: readonly NodePoolView[], targets: Record<string, readonly string[]>): Map<string, number> {
  return new Map(
    pools.map((p) => {
      const on = new Set(targets[p.nodeClass] ?? []);
      const old = inventory.nodeClaims.filter((c) => c.nodePool === p.name && !c.deleting && c.imageId !== undefined && !on.has(c.imageId));
      return [p.name, old.length];
    }),
  );
}

/** The plan a staged rollback follows: each restored class's resolved AMIs as its targets, and its NodePools. */
export function restoredPlan(
  nodeClasses: readonly string[],
  targets: Record<string, readonly string[]>,
  nodePools: ReadonlyArray<{ name: string; nodeClass: string }>,
): RestoredPlan {
  return {
    restored: true,
    nodeClasses: nodeClasses.map((name) => ({ name, targets: (targets[name] ?? []).map((id) => ({ id })) })),
    nodePools: nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
  };
}

/**
 * The rollback of `upgrade --on-failure rollback --rollback-waves`: one stage of `waves` over the run's NodePools (the
 * nodes to take back are those the halted rollout replaced, most often all in its canary), soaked and gated as the
 * upgrade was; a gate that halts it leaves it paused, since nothing is recorded to roll a rollback back to.
 */
export function rollbackRequest(upgrade: Pick<StagedPlan, 'soakMs' | 'gates'>, waves: WaveStep[]): StagedRequest {
  return {
    canary: [],
    waves,
    soakMs: upgrade.soakMs,
    holdWith: 'auto',
    gates: { ...(upgrade.gates ?? DEFAULT_GATES), onFailure: 'pause' },
  };
}

/** How the upgrade held each NodePool: its rollback holds them alike. */
export function holdsOf(staged: StagedPlan): Map<string, HoldChoice> {
  return new Map(staged.stages.flatMap((s) => s.nodePools.map((p) => [p.name, p.hold] as const)));
}

/** The command that goes on where a staged rollback stops: the same rollback, confirmed (its records are still on the classes). */
export function rollbackResume(
  request: StagedRequest,
  scope: { nodeClasses: readonly string[]; lockNamespace?: string; context?: string },
): string {
  return [
    'karp-drift rollback',
    ...scope.nodeClasses.map((n) => `--nodeclass ${n}`),
    ...stagedFlags(request),
    ...(scope.lockNamespace !== undefined && scope.lockNamespace !== LEASE_NAMESPACE ? [`--lock-namespace ${scope.lockNamespace}`] : []),
    ...(scope.context ? [`--context ${scope.context}`] : []),
    '--yes',
  ].join(' ');
}

/**
 * What a halted staged rollback advises: the previous AMIs failed too, so neither direction is a given; going on needs
 * the user's word that they looked (rollback-consent.ts).
 */
export function rollbackHaltHint(resume: string): string {
  const halted = resume.replace(/ --yes$/, ' --resume-halted --yes');
  return `the previous AMIs failed the gates too: pin a release you trust (karp-drift plan/upgrade --to <minor> --release <release>), or, once you are sure they are fine, go on with the same rollback, which resumes at the wave where the cluster stands: ${halted} (karp-drift resume releases the holds and lets Karpenter take the rest back at the NodePools' own budgets)`;
}

/** A rollback whose classes are restored and resolved: what it follows back, and how. */
export interface RestoredBack {
  nodeClasses: readonly string[];
  nodePools: ReadonlyArray<{ name: string; nodeClass: string }>;
  /** The restored AMIs as Karpenter resolved them, per class, and their Kubernetes minor. */
  targets: Record<string, string[]>;
  targetMinor: string;
  generations: Record<string, number>;
  request: StagedRequest;
  /** How each NodePool is held, when a halted upgrade already decided it. */
  holds?: ReadonlyMap<string, HoldChoice>;
  runId: string;
  resume: string;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** The rollback of a halted upgrade: the upgrade reports the run's `done`. */
  quietDone?: boolean;
}

/**
 * The staged rollout of a restored rollback, read from the cluster as it is now (the holds, the nodes still Drifted
 * cleared): its stages counted from the nodes not on the restored AMIs, its gates' baseline from this inventory.
 */
export async function stagedBack(
  where: { cluster: Cluster; discovery: Discovery; json: boolean; log: Logger },
  back: RestoredBack,
  signal: AbortSignal,
): Promise<StagedBack> {
  const { cluster, discovery } = where;
  const inventory = await readInventory(cluster, { nodeClasses: [...back.nodeClasses], discovery, signal });
  const pools = inventory.nodePools.filter((p) => back.nodePools.some((b) => b.name === p.name));
  const staged = rollbackStages(inventory, pools, notOnTargets(inventory, pools, back.targets), back.request, new Date(), back.holds);
  return {
    run: { ...where, inventory, plan: restoredPlan(back.nodeClasses, back.targets, back.nodePools) },
    staged,
    writes: { changes: [], runId: back.runId, target: back.targetMinor, dryRun: false, resume: back.resume, applied: back.generations },
    follow: {
      wait: true,
      target: back.targetMinor,
      nodeClasses: back.nodeClasses,
      timeoutMs: back.timeoutMs,
      stallTimeoutMs: back.stallTimeoutMs,
      resume: back.resume,
      rollback: { haltHint: rollbackHaltHint(back.resume) },
      ...(back.quietDone === true ? { quietDone: true } : {}),
    },
  };
}
