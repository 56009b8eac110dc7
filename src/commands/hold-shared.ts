// What pause, resume and a staged upgrade share: the cluster lock around their writes, and which NodePools a
// --nodepool list names.
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { logger, type CommandContext } from './context.js';
import type { Cluster } from '../cluster/client.js';
import { discoverCluster } from '../cluster/discovery.js';
import { listAll } from '../cluster/list.js';
import { acquireLock } from '../cluster/lock.js';
import { LOCKED_RETRY } from '../cluster/retry.js';
import { karpenterResources } from '../karpenter/resources.js';
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';
import { UsageError } from '../errors.js';
import type { LockOptions } from './options.js';
import type { LockHolder } from '../apis/lock.js';

export function lockHolder(command: string, runId = randomUUID()): LockHolder {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container running as an arbitrary uid): the run id still tells runs apart.
  }
  return { runId, user, host: hostname(), command };
}

/**
 * Runs `work` holding the cluster lock; the lock is released however `work` ends, and losing it aborts `work`.
 * `rideOut` (a staged run, which writes for as long as it follows): while the lock holds, every call on `cluster`
 * retries refused, reset and timed-out connections, 429 and 5xx (retry.ts LOCKED_RETRY), so an API server that is
 * gone for a few seconds does not end the run; once the lock lapses, every call in flight ends and none starts.
 * Without it (pause, resume, an apply), a refused connection fails the command at once, as a one-shot command should.
 */
export async function withClusterLock<T>(
  ctx: CommandContext,
  cluster: Cluster,
  options: LockOptions,
  holder: LockHolder,
  work: (signal: AbortSignal) => Promise<T>,
  { rideOut = false }: { rideOut?: boolean } = {},
): Promise<T> {
  const log = logger(ctx.io, ctx.globals);
  const lock = await acquireLock(cluster, options.lockNamespace, holder, ctx.signal, { onWatch: (m) => log.info(m) });
  if (rideOut) cluster.lease = { retry: LOCKED_RETRY, lost: lock.lost };
  try {
    // The run's record, before its first write: a run killed from here on leaves one that says it did not finish.
    await ctx.history?.begin(cluster, holder);
    return await work(AbortSignal.any([ctx.signal, lock.lost]));
  } finally {
    ctx.history?.released(holder);
    delete cluster.lease;
    await lock.release();
  }
}

/** The NodePools `names` picks (all when empty); a name that is not there is a usage error listing what is. */
export function selectNodePools(pools: readonly NodePoolView[], names: readonly string[]): NodePoolView[] {
  if (names.length === 0) return [...pools];
  const missing = names.filter((n) => !pools.some((p) => p.name === n));
  if (missing.length > 0) {
    throw new UsageError(`no NodePool ${missing.map((m) => JSON.stringify(m)).join(', ')} in this cluster`, {
      hint: `NodePools here: ${pools.map((p) => p.name).join(', ') || 'none'} (kubectl get nodepools)`,
    });
  }
  return pools.filter((p) => names.includes(p.name));
}

/** The Karpenter API the cluster serves and the NodePools `names` picks (all when empty). */
export async function nodePoolsInScope(
  ctx: CommandContext,
  cluster: Cluster,
  names: readonly string[],
): Promise<{ api: KarpenterApi; pools: NodePoolView[] }> {
  const api = (await discoverCluster(cluster, ctx.signal)).karpenterApi;
  const listed = await listAll(cluster, karpenterResources(api).nodePools, { signal: ctx.signal });
  return { api, pools: selectNodePools(listed.items, names) };
}
