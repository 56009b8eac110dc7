// `karp-drift wait`: read-only, follow the rollout the cluster is in until it is done (0), stalls (4), times out (5,
// run it again to go on waiting) or is paused by karp-drift (6). The target is what Karpenter resolved for each
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
import type { RolloutProgress } from '../rollout/track.js';
import { followRollout } from './follow-rollout.js';
import { holdNow, pausedRolloutError, windowPausedRollout, type Draining, type Paced, type Paused } from './paused-rollout.js';
import { windowEventJson } from '../report/windows.js';
import type { KarpDriftError } from '../errors.js';
import { holdStateNext, holdStateText } from '../apis/hold-state.js';
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
    const target = waitTarget(inventory, discovery.controlPlane.minor);
    const { karpenterApi } = discovery;
    const hold = await holdNow(cluster, karpenterApi, options.lockNamespace, target.pools, inventory.nodes, ctx.signal);
    if (hold?.state === 'paused') throw await pausedBefore(ctx, cluster, hold);
    reportWaiting(ctx, log, cluster, target, hold);
    const final = await followWhilePaced(ctx, { cluster, discovery, inventory }, target, options);
    // As upgrade ends: the result on stdout (the progress went to stderr).
    if (!json) {
      const done = final.nodePools.map((p) => `${p.name}: ${p.onTarget} on target`).join('; ');
      ctx.io.out(
        forScreen(ctx.io, 'out', `Rollout complete: every node runs the Kubernetes ${target.targetMinor} AMIs Karpenter resolved (${done}).\n`),
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

/**
 * Held already, with no run left to release the holds: nothing would move, so `wait` ends before it starts: paused
 * (exit 6), or paused by the window (exit 7, the rollout's way between windows).
 */
async function pausedBefore(ctx: CommandContext, cluster: Cluster, hold: Paused): Promise<KarpDriftError> {
  const json = ctx.globals.output === 'json';
  const now = new Date();
  if (hold.windowFlags !== undefined) {
    const { error, window } = windowPausedRollout(hold, hold.windowFlags, now);
    if (window !== undefined) {
      const w = windowEventJson('waiting', window, now);
      if (ctx.summary) recordSummary(ctx.summary, w);
      if (json) ctx.io.out(`${JSON.stringify(w)}\n`);
    }
    return reportPausedDone(ctx, cluster, error, { cause: 'window', paused: hold.pools });
  }
  const error = await pausedRolloutError(cluster, hold, ctx.signal);
  return reportPausedDone(ctx, cluster, error, { cause: 'held', paused: hold.pools });
}

function reportPausedDone<E extends KarpDriftError>(
  ctx: CommandContext,
  cluster: Cluster,
  error: E,
  { cause, paused }: { cause: 'held' | 'window'; paused: string[] },
): E {
  const done = { result: 'paused', cause, cluster: cluster.identity, paused };
  if (ctx.summary) recordSummary(ctx.summary, { type: 'done', ...done, message: error.message });
  if (ctx.globals.output === 'json') ctx.io.out(event('done', done));
  return error;
}

function reportWaiting(
  ctx: CommandContext,
  log: Logger,
  cluster: Cluster,
  { pools, classes, targetMinor }: WaitTarget,
  hold: Paced | Draining | undefined,
): void {
  if (ctx.summary) recordSummary(ctx.summary, { type: 'wait', cluster: cluster.identity, targetMinor });
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

/**
 * A dead run's hold that still lets Karpenter start replacements: `wait` follows them (nodes move), and says how to
 * stop them; once the hold's switch fires the rollout is paused and `wait` ends there.
 */
function drainingText(hold: Draining): string {
  const lines = hold.holds.map((h) => `nodepool/${h.nodePool}: ${holdStateText(h.hold, new Date())}`);
  const first = hold.holds[0]!;
  const next = holdStateNext(first.hold, hold.holds.length === 1 ? first.nodePool : undefined);
  return `karp-drift's hold was left by a run that is gone (run ${hold.runIds.join(', ') || 'unknown'}): ${lines.join('; ')}\n  next: ${next}`;
}

function drainingJson(hold: Draining) {
  return hold.holds.map((h) => ({
    nodePool: h.nodePool,
    ...(h.hold.state === 'draining' ? { allowance: h.hold.allowance, ...(h.hold.until !== undefined ? { until: h.hold.until } : {}) } : {}),
  }));
}

/**
 * Follows the rollout to its end. A staged upgrade may end early while we follow (a gate halts it, it is
 * interrupted): its holds then stay, and nothing would move again. Look whether the run is alive; when it is gone and
 * its holds are left, stop.
 */
async function followWhilePaced(
  ctx: CommandContext,
  { cluster, discovery, inventory }: { cluster: Cluster; discovery: Discovery; inventory: Inventory },
  { pools, classes, targetMinor }: WaitTarget,
  options: WaitOptions,
): Promise<RolloutProgress> {
  const ended = new AbortController();
  const look = setInterval(() => {
    void holdNow(cluster, discovery.karpenterApi, options.lockNamespace, pools, undefined, ctx.signal)
      .then(async (h) => {
        if (h?.state !== 'paused') return;
        // The run pacing it stopped: paused by its windows closing (exit 7), or for a reason to look into (exit 6).
        ended.abort(
          h.windowFlags !== undefined
            ? windowPausedRollout(h, h.windowFlags, new Date()).error
            : await pausedRolloutError(cluster, h, ctx.signal),
        );
      })
      .catch(() => undefined); // a failed look is tried again; the follow reports a cluster that stays unreachable
  }, HOLD_CHECK_MS);
  try {
    return await followRollout(ctx, cluster, discovery, inventory, {
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
  } finally {
    clearInterval(look);
  }
}
