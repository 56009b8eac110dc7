// The last two steps of `upgrade`: follow Karpenter's drift replacement of the planned NodePools, then say how it
// ended. Also what the other steps of an upgrade share: the cluster as the plan read it, and how the follow runs.
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import type { Inventory } from '../karpenter/views.js';
import type { Plan } from '../plan/plan.js';
import type { TargetAmi } from '../plan/pin.js';
import { humanDuration } from '../text/words.js';
import { followRollout, type FollowSettings } from './follow-rollout.js';
import type { GateKeeper } from './gate-keeper.js';
import type { Pacer } from './staged-pacer.js';
import type { RolloutProgress, RolloutScope } from '../rollout/track.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { followHeldAsWaitDoes } from './held-follow.js';

/**
 * A staged rollback's plan (commands/rollback-stages.ts): each restored EC2NodeClass's AMIs as Karpenter resolved them
 * (their IDs: the previous terms may be an alias or selectors, so nothing else is known of them), and its NodePools.
 */
export interface RestoredPlan {
  restored: true;
  nodeClasses: ReadonlyArray<{ name: string; targets: ReadonlyArray<Pick<TargetAmi, 'id'>> }>;
  nodePools: ReadonlyArray<{ name: string; nodeClass: string }>;
  source?: undefined;
}

/** What the apply, the follow and a staged rollout read: an upgrade's plan, or a staged rollback's. */
export type FollowedPlan = Plan | RestoredPlan;

/** The cluster as the plan read it, the plan, and where the run reports. */
export interface UpgradeRun {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  plan: FollowedPlan;
  json: boolean;
  log: Logger;
}

/** What the follow needs of upgrade's options, and the command line that goes on where this run stops. */
export interface UpgradeFollow {
  wait: boolean;
  /** The target Kubernetes minor (--to). */
  target: string;
  /** --nodeclass, for the `karp-drift wait` that --no-wait suggests. */
  nodeClasses: readonly string[];
  timeoutMs: number;
  stallTimeoutMs: number;
  resume: string;
  /** A rollback (absent: an upgrade): how the run words its end, and what a halt advises. */
  rollback?: { haltHint: string };
  /** No `done` of its own: the caller reports the run's (an --on-failure rollback after a halt). */
  quietDone?: boolean;
  /**
   * --lock-namespace: where the cluster lock is, which tells a live run's holds from holds left behind (default
   * kube-system); the rollback of a halt says it again in the command that goes on.
   */
  lockNamespace?: string;
}

/** What the apply left for the follow: each class's applied generation, and a staged rollout's pacer and gates. */
export interface Applied {
  generations: Record<string, number>;
  changed: number;
  pacer?: Pacer;
  gates?: GateKeeper;
  /** The follow ends held when the pacer's upgrade windows close (false: nothing was left to drift). */
  windowed?: boolean;
  /** `--apply-by git`: the terms the GitOps tool must keep on the classes (follow-state.ts). */
  expectedTerms?: FollowSettings['expectedTerms'];
}

export async function followAndReport(ctx: CommandContext, run: UpgradeRun, follow: UpgradeFollow, applied: Applied): Promise<void> {
  await followToEnd(ctx, run, follow, applied);
}

/** followAndReport, returning where the rollout ended (undefined: not followed, --no-wait). */
export async function followToEnd(
  ctx: CommandContext,
  { cluster, discovery, inventory, plan, json, log }: UpgradeRun,
  follow: UpgradeFollow,
  { generations, changed, pacer, gates, windowed = true, expectedTerms }: Applied,
): Promise<RolloutProgress | undefined> {
  if (changed === 0 && !json && follow.rollback === undefined)
    log.info(
      'Every EC2NodeClass in scope is already pinned to the target AMIs; following the rollout where it stands.',
    );
  if (!follow.wait) {
    if (!json)
      ctx.io.out(
        `Applied ${changed} EC2NodeClass change(s); not waiting (--no-wait). Follow with: karp-drift wait${follow.nodeClasses.map((n) => ` --nodeclass ${n}`).join('')} (or ${follow.resume})\n`,
      );
    return undefined;
  }

  const startedAt = new Date();
  const scope: RolloutScope = {
    // The plan's NodePools are those of the classes in scope.
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: targetIdsOf(plan),
    targetMinor: follow.target,
    startedAt,
    nodeClassGenerations: generations,
    ...(follow.rollback ? { back: true } : {}),
  };
  // A rollout this run does not pace reads karp-drift's holds as `wait` does (held-follow.ts); a staged one's are its own.
  const held = pacer
    ? undefined
    : await followHeldAsWaitDoes(ctx, { cluster, api: discovery.karpenterApi, pools: inventory.nodePools, inventory, log }, scope, {
        lockNamespace: follow.lockNamespace ?? LEASE_NAMESPACE,
        timeoutMs: follow.timeoutMs,
        applied: changed > 0 ? `${changed} EC2NodeClass change(s)` : '',
      });
  let final: RolloutProgress;
  try {
    final = await followRollout(ctx, cluster, discovery, inventory, {
      scope,
      timeoutMs: follow.timeoutMs,
      stallTimeoutMs: follow.stallTimeoutMs,
      resumeCommand: follow.resume,
      ...(pacer ? { pacer } : {}),
      ...(pacer?.plan.windows && windowed ? { window: pacer.plan.windows.calendar } : {}),
      ...(gates ? { gates, rollbackOnHalt: gates.request.onFailure === 'rollback' } : {}),
      ...(held ? { endWhen: held.look.signal, atDone: held.atDone } : {}),
      ...(follow.rollback ? { haltHint: follow.rollback.haltHint } : {}),
      ...(follow.quietDone === true ? { quietDone: true } : {}),
      ...(expectedTerms !== undefined ? { expectedTerms } : {}),
    });
  } finally {
    held?.look.stop();
  }
  if (!json && follow.quietDone !== true) {
    const pools = final.nodePools.map((p) => `${p.name}: ${p.replaced} replaced, ${p.onTarget} on target`).join('; ');
    const what = follow.rollback ? 'Rollback' : 'Rollout';
    const amis = follow.rollback ? `the previous Kubernetes ${follow.target} AMIs again` : `Kubernetes ${follow.target} AMIs`;
    ctx.io.out(
      forScreen(ctx.io, 'out', `${what} complete in ${humanDuration(Date.now() - startedAt.getTime())}: every node runs ${amis} (${pools}).${pacer ? " Every stage done; karp-drift's holds are released." : ''}\n`),
    );
  }
  return final;
}

/** Each planned EC2NodeClass's target image IDs: what its nodes must run when the rollout is done. */
export function targetIdsOf(plan: FollowedPlan): Record<string, string[]> {
  return Object.fromEntries(plan.nodeClasses.map((c) => [c.name, c.targets.map((t) => t.id)]));
}
