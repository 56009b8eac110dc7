// `karp-drift wait`: read-only, follow the rollout the cluster is in until it is done (0), stalls (4), times out (5,
// run it again to go on waiting) or is paused by karp-drift (6). The target is what Karpenter resolved for each
// class's current spec (`status.amis` of the generation it observed): whoever changed the class (an `upgrade
// --no-wait` in an earlier CI job, an Argo CD sync of a Git commit), `wait` follows the drift it caused. It writes
// nothing, so it needs only the read-only role (and `get` on the lock's Lease, to tell a staged upgrade pacing the
// rollout from holds left behind).
import type { CommandContext } from './context.js';
import { minorInAmiNames } from '../ami/families.js';
import type { Cluster } from '../cluster/client.js';
import { newestLast } from '../cluster/inventory.js';
import { listAll } from '../cluster/list.js';
import { readLease } from '../cluster/lock.js';
import { EVENTS, NODES, karpenterResources } from '../karpenter/resources.js';
import type { EventView, KarpenterApi, NodePoolView, NodeView } from '../karpenter/views.js';
import { HaltedError, UsageError } from '../errors.js';
import type { WaitOptions } from './options.js';
import { lockAlive, rolloutHold, type RolloutHold } from '../stages/paused.js';
import { LEASE_NAME } from '../apis/lock.js';
import { followRollout } from './follow-rollout.js';
import { connect, readScope } from './planning.js';
import { event } from './upgrade-shared.js';
import { recordSummary } from '../report/summary.js';

/** While following, look this often whether the run pacing the rollout is still alive. */
const HOLD_CHECK_MS = 15_000;

export async function wait(options: WaitOptions, ctx: CommandContext): Promise<void> {
  const json = ctx.globals.output === 'json';
  const { cluster, log } = await connect(ctx);
  try {
    const { discovery, inventory } = await readScope(ctx, cluster, options.nodeClasses);
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
    const targetMinor = [...minors][0] ?? discovery.controlPlane.minor;

    const hold = await holdNow(
      cluster,
      discovery.karpenterApi,
      options.lockNamespace,
      pools,
      inventory.nodes,
      ctx.signal,
    );
    if (hold?.state === 'paused') {
      const error = pausedError(hold, await whyPaused(cluster, hold, ctx.signal));
      const done = { result: 'paused', cause: 'held', cluster: cluster.identity, paused: hold.pools };
      if (ctx.summary) recordSummary(ctx.summary, { type: 'done', ...done, message: error.message });
      if (json) ctx.io.out(event('done', done));
      throw error;
    }
    if (ctx.summary) recordSummary(ctx.summary, { type: 'wait', cluster: cluster.identity, targetMinor });
    if (json) {
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
          ...(hold ? { pacedBy: hold.holder } : {}),
        }),
      );
    } else {
      log.info(
        `Waiting for ${pools.map((p) => `nodepool/${p.name}`).join(', ')} to run the AMIs Karpenter resolved for ${classes.map((c) => `ec2nodeclass/${c.name}`).join(', ')} (Kubernetes ${targetMinor})${hold ? `; paced by ${hold.holder}${hold.command ? ` (karp-drift ${hold.command})` : ''}` : ''}`,
      );
    }

    // A staged upgrade may end early while we follow (a gate halts it, it is interrupted): its holds then stay, and
    // nothing would move again. Look whether the run is alive; when it is gone and its holds are left, stop.
    const ended = new AbortController();
    const look = setInterval(() => {
      void holdNow(cluster, discovery.karpenterApi, options.lockNamespace, pools, undefined, ctx.signal)
        .then(async (h) => {
          if (h?.state === 'paused') ended.abort(pausedError(h, await whyPaused(cluster, h, ctx.signal)));
        })
        .catch(() => undefined); // a failed look is tried again; the follow reports a cluster that stays unreachable
    }, HOLD_CHECK_MS);
    try {
      const final = await followRollout(ctx, cluster, discovery, inventory, {
        scope: {
          nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
          targetImageIds: Object.fromEntries(classes.map((c) => [c.name, c.statusAmis.map((a) => a.id)])),
          targetMinor,
          startedAt: new Date(),
          nodeClassGenerations: Object.fromEntries(classes.map((c) => [c.name, c.generation])),
        },
        timeoutMs: options.timeoutMs,
        stallTimeoutMs: options.stallTimeoutMs,
        resumeCommand: `karp-drift wait${options.nodeClasses.map((n) => ` --nodeclass ${n}`).join('')}`,
        endWhen: ended.signal,
      });
      // As upgrade ends: the result on stdout (the progress went to stderr).
      if (!json) {
        const done = final.nodePools.map((p) => `${p.name}: ${p.onTarget} on target`).join('; ');
        ctx.io.out(
          `Rollout complete: every node runs the Kubernetes ${targetMinor} AMIs Karpenter resolved (${done}).\n`,
        );
      }
    } finally {
      clearInterval(look);
    }
  } finally {
    cluster.close();
  }
}

/**
 * karp-drift's holds on these NodePools and whether a live run paces them. `nodes` read already (the inventory), or
 * undefined to list them, which is done only when no live run holds the lock (on a big fleet a node list costs).
 */
async function holdNow(
  cluster: Cluster,
  api: KarpenterApi,
  lockNamespace: string,
  pools: readonly NodePoolView[],
  nodes: readonly NodeView[] | undefined,
  signal: AbortSignal,
): Promise<RolloutHold | undefined> {
  const lease = await readLease(cluster, lockNamespace, signal).catch(() => 'unreadable' as const);
  const names = new Set(pools.map((p) => p.name));
  const fresh =
    nodes === undefined
      ? (await listAll(cluster, karpenterResources(api).nodePools, { signal })).items.filter((p) => names.has(p.name))
      : pools;
  // A live run's holds pace the rollout, whichever way they are held: the nodes need no look.
  if (lockAlive(lease, new Date())) return rolloutHold(fresh, nodes ?? [], lease, new Date());
  const allNodes =
    nodes ?? (await listAll(cluster, NODES, { query: { labelSelector: 'karpenter.sh/nodepool' }, signal })).items;
  return rolloutHold(fresh, allNodes, lease, new Date());
}

type Paused = Extract<RolloutHold, { state: 'paused' }>;

/**
 * Why the run that left the holds paused, in its own words: its newest StagedRolloutPaused Event on these NodePools
 * ("a health gate stopped it: POD-FAILING …", "the run was interrupted"). Events expire (an hour on EKS): none, then.
 */
async function whyPaused(cluster: Cluster, hold: Paused, signal: AbortSignal): Promise<string | undefined> {
  const events = await listAll(cluster, EVENTS, { query: { fieldSelector: 'reason=StagedRolloutPaused' }, signal })
    .then((r) => r.items)
    .catch(() => [] as EventView[]);
  const mine = events.filter((e) => e.involvedKind === 'NodePool' && hold.pools.includes(e.involvedName ?? ''));
  const newest = newestLast(mine).at(-1);
  return newest?.message.replace(/^staged drift rollout paused: /, '').replace(/; re-run the upgrade to go on.*$/, '');
}

function pausedError(hold: Paused, why: string | undefined): HaltedError {
  const pools = hold.pools.map((p) => `nodepool/${p}`).join(', ');
  return new HaltedError(
    `the rollout is paused: karp-drift holds Drifted disruption on ${pools}${hold.since ? ` since ${hold.since}` : ''} (run ${hold.runIds.join(', ') || 'unknown'}), and no karp-drift run holds the cluster lock (lease ${LEASE_NAME}) to release it${why ? `; the run said: ${why}` : ''}`,
    {
      paused: hold.pools,
      gate: {},
      hint: `see why: kubectl get events -A --field-selector reason=StagedRolloutPaused; then re-run the staged upgrade, roll back (karp-drift rollback), or release the holds (karp-drift resume)`,
    },
  );
}
