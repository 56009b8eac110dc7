// The last two steps of `upgrade`: follow Karpenter's drift replacement of the planned NodePools, then say how it
// ended. Also what the other steps of an upgrade share: the cluster as the plan read it, and how the follow runs.
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import type { Inventory } from '../karpenter/views.js';
import type { Plan } from '../plan/plan.js';
import { humanDuration } from '../text/words.js';
import { followRollout } from './follow-rollout.js';
import type { GateKeeper } from './gate-keeper.js';
import type { Pacer } from './staged-pacer.js';
import type { RolloutProgress, RolloutScope } from '../rollout/track.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { followHeldAsWaitDoes } from './held-follow.js';

/** The cluster as the plan read it, the plan, and where the run reports. */
export interface UpgradeRun {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  plan: Plan;
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
  /** --lock-namespace: where the cluster lock is, which tells a live run's holds from holds left behind (default kube-system). */
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
}

export async function followAndReport(
  ctx: CommandContext,
  { cluster, discovery, inventory, plan, json, log }: UpgradeRun,
  follow: UpgradeFollow,
  { generations, changed, pacer, gates, windowed = true }: Applied,
): Promise<void> {
  if (changed === 0 && !json)
    log.info(
      'Every EC2NodeClass in scope is already pinned to the target AMIs; following the rollout where it stands.',
    );
  if (!follow.wait) {
    if (!json)
      ctx.io.out(
        `Applied ${changed} EC2NodeClass change(s); not waiting (--no-wait). Follow with: karp-drift wait${follow.nodeClasses.map((n) => ` --nodeclass ${n}`).join('')} (or ${follow.resume})\n`,
      );
    return;
  }

  const startedAt = new Date();
  const scope: RolloutScope = {
    // The plan's NodePools are those of the classes in scope.
    nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: targetIdsOf(plan),
    targetMinor: follow.target,
    startedAt,
    nodeClassGenerations: generations,
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
    });
  } finally {
    held?.look.stop();
  }
  if (!json) {
    const pools = final.nodePools.map((p) => `${p.name}: ${p.replaced} replaced, ${p.onTarget} on target`).join('; ');
    ctx.io.out(
      forScreen(ctx.io, 'out', `Rollout complete in ${humanDuration(Date.now() - startedAt.getTime())}: every node runs Kubernetes ${follow.target} AMIs (${pools}).${pacer ? " Every stage done; karp-drift's holds are released." : ''}\n`),
    );
  }
}

/** Each planned EC2NodeClass's target image IDs: what its nodes must run when the rollout is done. */
export function targetIdsOf(plan: Plan): Record<string, string[]> {
  return Object.fromEntries(plan.nodeClasses.map((c) => [c.name, c.targets.map((t) => t.id)]));
}
