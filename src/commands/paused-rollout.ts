// Whether karp-drift holds a rollout's NodePools, and whether a live run still paces them: `wait` follows a paced
// rollout, but a paused one (its run gone, the holds left behind) would never move again, so it ends there.
import type { Cluster } from '../cluster/client.js';
import { newestLast } from '../cluster/inventory.js';
import { listAll } from '../cluster/list.js';
import { readLease } from '../cluster/lock.js';
import { EVENTS, NODES, karpenterResources } from '../karpenter/resources.js';
import type { EventView, KarpenterApi, NodePoolView, NodeView } from '../karpenter/views.js';
import { HaltedError, WindowPausedError } from '../errors.js';
import { recordedWindowState } from '../stages/window-hold.js';
import { windowWaitText } from '../report/windows.js';
import type { WindowState } from '../windows/calendar.js';
import { rolloutHold, type RolloutHold } from '../stages/paused.js';
import { LEASE_NAME } from '../apis/lock.js';
import { holdStateText, runLock } from '../apis/hold-state.js';

export type Paced = Extract<RolloutHold, { state: 'paced' }>;
export type Paused = Extract<RolloutHold, { state: 'paused' }>;
export type Draining = Extract<RolloutHold, { state: 'draining' }>;

/**
 * karp-drift's holds on these NodePools and whether a live run paces them. `nodes` read already (the inventory), or
 * undefined to list them, which is done only when no live run holds the lock (on a big fleet a node list costs).
 */
export async function holdNow(
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
  if (runLock(lease, new Date()).state !== 'none') return rolloutHold(fresh, nodes ?? [], lease, new Date());
  const allNodes =
    nodes ?? (await listAll(cluster, NODES, { query: { labelSelector: 'karpenter.sh/nodepool' }, signal })).items;
  return rolloutHold(fresh, allNodes, lease, new Date());
}

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
  return newest?.message.replace(/^staged drift rollout paused: /, '').replace(/; re-run the (upgrade|rollback) to go on.*$/, '');
}

function pausedError(hold: Paused, why: string | undefined): HaltedError {
  const pools = hold.pools.map((p) => `nodepool/${p}`).join(', ');
  // A dead run's switch that took over is said as such: the run did not stop on purpose, it is gone.
  const switched = hold.switchedSince !== undefined ? `; ${holdStateText({ state: 'switched', since: hold.switchedSince }, new Date()).replace(/^paused: /, '')}` : '';
  return new HaltedError(
    `the rollout is paused: karp-drift holds Drifted disruption on ${pools}${hold.since ? ` since ${hold.since}` : ''} (run ${hold.runIds.join(', ') || 'unknown'}), and no karp-drift run holds the cluster lock (lease ${LEASE_NAME}) to release it${switched}${why ? `; the run said: ${why}` : ''}`,
    {
      paused: hold.pools,
      gate: {},
      hint: `see why: kubectl get events -A --field-selector reason=StagedRolloutPaused; then re-run the staged upgrade, roll back (karp-drift rollback), or release the holds (karp-drift resume)`,
    },
  );
}

/** The paused rollout as an error (exit 6), with what the run that left it said. */
export async function pausedRolloutError(cluster: Cluster, hold: Paused, signal: AbortSignal): Promise<HaltedError> {
  return pausedError(hold, await whyPaused(cluster, hold, signal));
}

/**
 * A rollout paused by its upgrade windows (every hold says so, `windowFlags`): the rollout's way over days, not a stop
 * to look into, so `wait` ends with the run's own exit 7 and says when the next window opens.
 */
export function windowPausedRollout(hold: Paused, windowFlags: string[], now: Date): { error: WindowPausedError; window?: WindowState } {
  const window = recordedWindowState(windowFlags, now);
  const pools = hold.pools.map((p) => `nodepool/${p}`).join(', ');
  const error = new WindowPausedError(
    `paused by the window: ${windowWaitText(window, now)}; karp-drift holds Drifted disruption on ${pools} (run ${hold.runIds.join(', ') || 'unknown'}) with its windows' budgets (${windowFlags.join(' ')})`,
    {
      paused: hold.pools,
      hint: 'run the same upgrade inside the next window (a scheduler or the CronJob of deploy/ runs it every window), then karp-drift wait; or release the holds (karp-drift resume) or roll back (karp-drift rollback)',
    },
  );
  return { error, ...(window !== undefined ? { window } : {}) };
}
