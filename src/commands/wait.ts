// `karp-drift wait`: read-only, follow the rollout the cluster is in until it is done (0), stalls (4), times out (5,
// run it again to go on waiting), is paused by karp-drift (6), or is done with karp-drift's holds still on its
// NodePools (6, naming the resume that clears them: commands/held-follow.ts). The target is what Karpenter resolved for each
// class's current spec (`status.amis` of the generation it observed): whoever changed the class (an `upgrade
// --no-wait` in an earlier CI job, an Argo CD sync of a Git commit), `wait` follows the drift it caused. It writes
// nothing, so it needs only the read-only role (and `get` on the lock's Lease, to tell a staged upgrade pacing the
// rollout from holds left behind).
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import type { Logger } from '../logger.js';
import { minorInAmiNames } from '../ami/families.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import type { Inventory, NodePoolView } from '../karpenter/views.js';
import { UsageError } from '../errors.js';
import type { WaitOptions } from './options.js';
import type { RolloutProgress, RolloutScope } from '../rollout/track.js';
import { followRollout } from './follow-rollout.js';
import type { Draining, Paced } from './paused-rollout.js';
import { doneAlready, drainingJson, drainingText, heldAtDone, heldBeforeFollow, lookWhileFollowing, scopeFlags, type HeldScope } from './held-follow.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { connect, readScope } from './connect.js';
import { event } from './upgrade-shared.js';
import { recordSummary } from '../report/summary.js';

export async function wait(options: WaitOptions, ctx: CommandContext): Promise<void> {
  const json = ctx.globals.output === 'json';
  const { cluster, log } = await connect(ctx);
  try {
    const { discovery, inventory } = await readScope(ctx, cluster, options.nodeClasses);
    const target = waitTarget(inventory, discovery.controlPlane.minor);
    const scope: HeldScope = {
      cluster,
      api: discovery.karpenterApi,
      lockNamespace: options.lockNamespace,
      pools: target.pools,
      flags: scopeFlags(ctx, options.lockNamespace, LEASE_NAMESPACE),
    };
    // Every node on target already, and held: what is left is said, never a success.
    const done = doneAlready(inventory, rolloutScope(target, new Date()), new Date());
    const held = await heldBeforeFollow(ctx, scope, { done, given: { pools: target.pools, nodes: inventory.nodes } });
    if ('error' in held) throw held.error;
    reportWaiting(ctx, log, cluster, target, held.hold);
    const final = await followWhilePaced(ctx, { cluster, discovery, inventory }, target, options, scope, log);
    // As upgrade ends: the result on stdout (the progress went to stderr).
    if (!json) {
      const finished = final.nodePools.map((p) => `${p.name}: ${p.onTarget} on target`).join('; ');
      ctx.io.out(
        forScreen(ctx.io, 'out', `Rollout complete: every node runs the Kubernetes ${target.targetMinor} AMIs Karpenter resolved (${finished}).\n`),
      );
    }
  } finally {
    cluster.close();
  }
}

/** The NodePools that use the classes in scope, those classes, and the one Kubernetes minor their AMIs are for. */
interface WaitTarget {
  pools: NodePoolView[];
  classes: Inventory['nodeClasses'];
  targetMinor: string;
}

/** What to wait for: whatever Karpenter resolved for each class (`status.amis`); several minors at once is refused. */
function waitTarget(inventory: Inventory, controlPlaneMinor: string): WaitTarget {
  const pools = inventory.nodePools.filter((p) => inventory.nodeClasses.some((c) => c.name === p.nodeClass));
  if (pools.length === 0) {
    throw new UsageError(
      `nothing to wait for: no NodePool uses ${inventory.nodeClasses.map((c) => `ec2nodeclass/${c.name}`).join(', ') || 'an EC2NodeClass here'}`,
      {
        hint: 'kubectl get nodepools -o custom-columns=NAME:.metadata.name,NODECLASS:.spec.template.spec.nodeClassRef.name',
      },
    );
  }
  const classes = inventory.nodeClasses.filter((c) => pools.some((p) => p.nodeClass === c.name));
  const minors = new Set(
    classes.map((c) => minorInAmiNames(c.statusAmis.map((a) => a.name))).filter((m) => m !== undefined),
  );
  if (minors.size > 1) {
    throw new UsageError(
      `the EC2NodeClasses resolve AMIs of several Kubernetes minors (${[...minors].sort().join(', ')}): wait for them one at a time`,
      { hint: classes.map((c) => `karp-drift wait --nodeclass ${c.name}`).join('; ') },
    );
  }
  return { pools, classes, targetMinor: [...minors][0] ?? controlPlaneMinor };
}

function reportWaiting(
  ctx: CommandContext,
  log: Logger,
  cluster: Cluster,
  { pools, classes, targetMinor }: WaitTarget,
  hold: Paced | Draining | undefined,
): void {
  if (ctx.summary)
    recordSummary(ctx.summary, {
      type: 'wait',
      cluster: cluster.identity,
      targetMinor,
      // The run's record: the AMIs it waited for (the summary's Markdown reads only the cluster and the minor).
      nodeClasses: classes.map((c) => ({ name: c.name, amis: c.statusAmis.map((a) => a.id) })),
    });
  if (ctx.globals.output === 'json') {
    ctx.io.out(
      event('wait', {
        cluster: cluster.identity,
        targetMinor,
        nodeClasses: classes.map((c) => ({
          name: c.name,
          generation: c.generation,
          amis: c.statusAmis.map((a) => a.id),
        })),
        nodePools: pools.map((p) => p.name),
        ...(hold?.state === 'paced' ? { pacedBy: hold.holder } : {}),
        ...(hold?.state === 'draining' ? { draining: drainingJson(hold) } : {}),
      }),
    );
  } else {
    log.info(
      `Waiting for ${pools.map((p) => `nodepool/${p.name}`).join(', ')} to run the AMIs Karpenter resolved for ${classes.map((c) => `ec2nodeclass/${c.name}`).join(', ')} (Kubernetes ${targetMinor})${hold?.state === 'paced' ? `; paced by ${hold.holder}${hold.command ? ` (karp-drift ${hold.command})` : ''}` : ''}`,
    );
    if (hold?.state === 'draining') log.warn(drainingText(hold));
  }
}

/** What the follow counts as done: every NodePool on the AMIs Karpenter resolved for its class, with the target kubelet. */
function rolloutScope({ pools, classes, targetMinor }: WaitTarget, startedAt: Date): RolloutScope {
  return {
    nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds: Object.fromEntries(classes.map((c) => [c.name, c.statusAmis.map((a) => a.id)])),
    targetMinor,
    startedAt,
    nodeClassGenerations: Object.fromEntries(classes.map((c) => [c.name, c.generation])),
  };
}

/**
 * Follows the rollout to its end. A staged upgrade may end early while we follow (a gate halts it, it is
 * interrupted): its holds then stay, and nothing would move again; held-follow.ts looks whether the run is alive, and
 * whether any hold is left once every node is on target.
 */
async function followWhilePaced(
  ctx: CommandContext,
  { cluster, discovery, inventory }: { cluster: Cluster; discovery: Discovery; inventory: Inventory },
  target: WaitTarget,
  options: WaitOptions,
  scope: HeldScope,
  log: Logger,
): Promise<RolloutProgress> {
  const look = lookWhileFollowing(ctx, scope);
  const startedAt = new Date();
  try {
    return await followRollout(ctx, cluster, discovery, inventory, {
      scope: rolloutScope(target, startedAt),
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      resumeCommand: `karp-drift wait${options.nodeClasses.map((n) => ` --nodeclass ${n}`).join('')}`,
      endWhen: look.signal,
      atDone: heldAtDone(ctx, scope, log, startedAt.getTime() + options.timeoutMs),
    });
  } finally {
    look.stop();
  }
}
