// How a follow that paces nothing (`wait`, an `upgrade` without stage flags, `upgrade --templates`) reads
// karp-drift's holds on the NodePools it follows, so that every command says the same of a held rollout:
//   - paused (the holds' run is gone, or `pause` wrote them): nothing would move, so the follow never starts: exit 6
//     at once with the hold's story (7 when every hold was left by a run its upgrade windows stopped: the rollout's
//     way between windows, as that run itself exits);
//   - paced by a live run (a staged upgrade holds the cluster lock): not a stop. That run opens its holds wave by wave
//     and releases them when it ends, so the follow goes on as it does, and looks every HOLD_CHECK_MS whether the run
//     is still alive: once it is gone and its holds are left, the follow ends with exit 6 too;
//   - draining (a dead run's hold that still lets Karpenter start replacements): followed, with a warning;
//   - and when every node is on target, success only once no hold is left: a live run is given until --timeout to
//     release its own, anything else left ends the follow with exit 6, naming what is left and the `resume` that
//     clears it (report/holds-left.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../cluster/client.js';
import { listAll } from '../cluster/list.js';
import { readLease } from '../cluster/lock.js';
import { HaltedError, InterruptedError, TimeoutError, type KarpDriftError } from '../errors.js';
import { NODES, karpenterResources } from '../karpenter/resources.js';
import type { Inventory, KarpenterApi, NodePoolView, NodeView } from '../karpenter/views.js';
import { nodeClassReadiness } from '../rollout/readiness.js';
import { inventorySnapshot } from '../rollout/snapshot.js';
import { rolloutProgress, type RolloutScope } from '../rollout/track.js';
import { holdStateNext, holdStateText, runLock } from '../apis/hold-state.js';
import { LEASE_NAMESPACE, type LeaseView } from '../apis/lock.js';
import { rolloutHold } from '../stages/paused.js';
import { holdsLeft, holdsLeftMessage } from '../report/holds-left.js';
import { recordSummary } from '../report/summary.js';
import type { HeldAtDone } from './follow-state.js';
import { windowEventJson } from '../report/windows.js';
import { holdNow, pausedRolloutError, windowPausedRollout, type Draining, type Paced, type Paused } from './paused-rollout.js';
import { event } from './upgrade-shared.js';

/** While following, look this often whether the run pacing the rollout is still alive. */
const HOLD_CHECK_MS = 15_000;
/** Every node on target and a live run still holding: look this often whether it has released its holds. */
const RELEASE_CHECK_MS = 2_000;

/** The NodePools a follow reads, and where: the cluster lock's namespace, and the flags the commands it names need. */
export interface HeldScope {
  cluster: Cluster;
  api: KarpenterApi;
  lockNamespace: string;
  pools: readonly NodePoolView[];
  /** Appended to a `karp-drift resume` this names: ` --lock-namespace …`, ` --context …`, or ''. */
  flags: string;
}

/** The flags a command named for `scope` needs: the lock's namespace when not the default, the context when given. */
export function scopeFlags(ctx: CommandContext, lockNamespace: string, defaultNamespace: string): string {
  return `${lockNamespace !== defaultNamespace ? ` --lock-namespace ${lockNamespace}` : ''}${ctx.globals.context ? ` --context ${ctx.globals.context}` : ''}`;
}

/**
 * Is the rollout done already, as the follow would find it on its first turn: every class has taken the target AMIs
 * at its generation, and every node of the NodePools runs them, Ready, with the target kubelet.
 */
export function doneAlready(inventory: Inventory, scope: RolloutScope, now: Date): boolean {
  const snapshot = inventorySnapshot(inventory);
  return rolloutProgress(snapshot, scope, now).done && nodeClassReadiness(snapshot, scope).every((r) => r.state === 'ready');
}

/** The NodePools of `scope` and the Nodes karp-drift may hold, read now (or as the caller just read them), and the lock. */
async function readHolds(
  scope: HeldScope,
  signal: AbortSignal,
  given?: { pools: readonly NodePoolView[]; nodes: readonly NodeView[] },
): Promise<{ lease: LeaseView | undefined | 'unreadable'; pools: NodePoolView[]; nodes: NodeView[] }> {
  const lease = await readLease(scope.cluster, scope.lockNamespace, signal).catch(() => 'unreadable' as const);
  if (given !== undefined) return { lease, pools: [...given.pools], nodes: [...given.nodes] };
  const names = new Set(scope.pools.map((p) => p.name));
  const [pools, nodes] = await Promise.all([
    listAll(scope.cluster, karpenterResources(scope.api).nodePools, { signal }).then((r) => r.items.filter((p) => names.has(p.name))),
    listAll(scope.cluster, NODES, { query: { labelSelector: 'karpenter.sh/nodepool' }, signal }).then((r) => r.items),
  ]);
  return { lease, pools, nodes };
}

/**
 * Before the follow starts: a paused rollout ends the command here (its `done` event reported), as an error to throw;
 * `done`: every node is on target already, so what ends it is the holds left. Otherwise the hold the follow goes
 * through (paced by a live run, draining), or undefined.
 */
export async function heldBeforeFollow(
  ctx: CommandContext,
  scope: HeldScope,
  {
    done,
    given,
    note = '',
  }: {
    done: boolean;
    given?: { pools: readonly NodePoolView[]; nodes: readonly NodeView[] };
    /** Said after the hold's story: what this command did before it looked (an upgrade's apply). */
    note?: string;
  },
): Promise<{ error: KarpDriftError } | { hold: Paced | Draining | undefined }> {
  const read = await readHolds(scope, ctx.signal, given);
  const hold = rolloutHold(read.pools, read.nodes, read.lease, new Date());
  if (hold?.state !== 'paused') return { hold };
  if (done) return { error: reportHoldsLeft(ctx, scope, read, new Date()) };
  return { error: await pausedBefore(ctx, scope.cluster, hold, note) };
}

/** Held already, with no run left to release the holds: paused (exit 6), or paused by the window (exit 7). */
async function pausedBefore(ctx: CommandContext, cluster: Cluster, hold: Paused, note: string): Promise<KarpDriftError> {
  const json = ctx.globals.output === 'json';
  const now = new Date();
  if (hold.windowFlags !== undefined) {
    const { error, window } = windowPausedRollout(hold, hold.windowFlags, now);
    error.message += note;
    if (window !== undefined) {
      const w = windowEventJson('waiting', window, now);
      if (ctx.summary) recordSummary(ctx.summary, w);
      if (json) ctx.io.out(`${JSON.stringify(w)}\n`);
    }
    return reportPausedDone(ctx, cluster, error, { cause: 'window', paused: hold.pools });
  }
  const error = await pausedRolloutError(cluster, hold, ctx.signal);
  error.message += note;
  return reportPausedDone(ctx, cluster, error, { cause: 'held', paused: hold.pools });
}

function reportHoldsLeft(
  ctx: CommandContext,
  scope: HeldScope,
  read: { lease: LeaseView | undefined | 'unreadable'; pools: NodePoolView[]; nodes: NodeView[] },
  now: Date,
): HaltedError {
  const error = holdsLeftError(scope, read, now);
  return reportPausedDone(ctx, scope.cluster, error, { cause: 'holds-left', paused: error.paused });
}

function holdsLeftError(
  scope: HeldScope,
  { lease, pools, nodes }: { lease: LeaseView | undefined | 'unreadable'; pools: NodePoolView[]; nodes: NodeView[] },
  now: Date,
): HaltedError {
  const left = holdsLeft(pools, nodes, now);
  const { message, hint } = holdsLeftMessage(left, scope.flags);
  // A lock this identity may not read rules out nothing: a run may still be about to release them.
  const unread = lease === 'unreadable' ? ' (the cluster lock could not be read: a run still live would release them as it ends)' : '';
  return new HaltedError(`${message}${unread}`, { paused: left.map((h) => h.nodePool), gate: {}, hint });
}

function reportPausedDone<E extends KarpDriftError>(
  ctx: CommandContext,
  cluster: Cluster,
  error: E,
  { cause, paused }: { cause: 'held' | 'window' | 'holds-left'; paused: string[] },
): E {
  // Nothing was followed: no durationSeconds or nodePools; the message says why, as every `done`'s does.
  const done = { result: 'paused', cause, cluster: cluster.identity, message: error.message, paused };
  if (ctx.summary) recordSummary(ctx.summary, { type: 'done', ...done });
  if (ctx.globals.output === 'json') ctx.io.out(event('done', done));
  return error;
}

/**
 * While the follow runs: a staged upgrade pacing the rollout may end early (a gate halts it, it is interrupted); its
 * holds then stay and nothing would move again. Looks whether the run is alive; `signal` is aborted with the error to
 * end with once it is gone and its holds are left.
 */
export function lookWhileFollowing(ctx: CommandContext, scope: HeldScope): { signal: AbortSignal; stop(): void } {
  const ended = new AbortController();
  const look = setInterval(() => {
    void holdNow(scope.cluster, scope.api, scope.lockNamespace, scope.pools, undefined, ctx.signal)
      .then(async (h) => {
        if (h?.state !== 'paused') return;
        // The run pacing it stopped: paused by its windows closing (exit 7), or for a reason to look into (exit 6).
        ended.abort(
          h.windowFlags !== undefined
            ? windowPausedRollout(h, h.windowFlags, new Date()).error
            : await pausedRolloutError(scope.cluster, h, ctx.signal),
        );
      })
      .catch(() => undefined); // a failed look is tried again; the follow reports a cluster that stays unreachable
  }, HOLD_CHECK_MS);
  return { signal: ended.signal, stop: () => clearInterval(look) };
}

/**
 * Every node is on target: succeed only once karp-drift holds nothing on the NodePools. A live run still holding them
 * (finishing its last checkpoint) is given until `deadline` (ms since the epoch: --timeout) to release them; anything
 * else left ends the follow with exit 6, naming it and the `resume` that clears it.
 */
export function heldAtDone(ctx: CommandContext, scope: HeldScope, log: Logger, deadline: number): () => Promise<HeldAtDone | undefined> {
  const pools = scope.pools.map((p) => `nodepool/${p.name}`).join(', ');
  return async () => {
    let told = false;
    for (;;) {
      const live = await liveHolder(scope, ctx.signal).catch(() => 'unread' as const);
      if (live === undefined) {
        const read = await readHolds(scope, ctx.signal).catch(() => undefined);
        if (read !== undefined) {
          const error = holdsLeftError(scope, read, new Date());
          return error.paused.length === 0 ? undefined : { result: 'paused', extra: { cause: 'holds-left', paused: error.paused }, error };
        }
      } else if (live !== 'unread' && live.holds === 0) {
        return undefined;
      } else if (live !== 'unread' && !told) {
        log.info(`Every node runs the target AMIs; waiting for the live run ${live.holder}${live.command ? ` (karp-drift ${live.command})` : ''} to release karp-drift's holds on ${pools}`);
        told = true;
      }
      if (Date.now() >= deadline) {
        const who = live !== undefined && live !== 'unread' ? `the live run ${live.holder}` : 'a live run';
        return {
          result: 'timeout',
          extra: {},
          error: new TimeoutError(`timed out: every node runs the target AMIs, and ${who} still holds karp-drift's holds on ${pools}`, {
            hint: 'it releases them as it ends; follow it again with: karp-drift wait',
          }),
        };
      }
      try {
        await sleep(RELEASE_CHECK_MS, undefined, { signal: ctx.signal });
      } catch {
        return {
          result: 'interrupted',
          extra: {},
          error: new InterruptedError(`interrupted: every node runs the target AMIs, and a live run still holds karp-drift's holds on ${pools}`, {
            hint: 'it releases them as it ends; see them with: karp-drift status',
          }),
        };
      }
    }
  };
}

/**
 * The live run holding the cluster lock, and how many of the NodePools it holds with a budget (its node holds are on
 * old nodes, gone once every node is on target); undefined when no run is live. Only the NodePools are listed: a
 * Node list costs on a big fleet, and this is asked every few seconds while the run finishes.
 */
async function liveHolder(scope: HeldScope, signal: AbortSignal): Promise<{ holder: string; command?: string; holds: number } | undefined> {
  const lease = await readLease(scope.cluster, scope.lockNamespace, signal).catch(() => 'unreadable' as const);
  const lock = runLock(lease, new Date());
  if (lock.state !== 'live') return undefined;
  const names = new Set(scope.pools.map((p) => p.name));
  const pools = (await listAll(scope.cluster, karpenterResources(scope.api).nodePools, { signal })).items.filter((p) => names.has(p.name));
  const held = rolloutHold(pools, [], lease, new Date());
  return { holder: lock.holder, ...(lock.command !== undefined ? { command: lock.command } : {}), holds: held?.pools.length ?? 0 };
}

/**
 * Before a follow that paces nothing but `wait` (an upgrade without stages, `upgrade --templates`): a rollout karp-drift
 * holds with no run left to release it ends the command here, at once (exit 6, or 7 paused by its windows), instead
 * of being followed until --stall-timeout; a live run's holds are said and followed. Returns what the follow is given:
 * the look that ends it if that run stops early, and the check made once every node is on target.
 */
export async function followHeldAsWaitDoes(
  ctx: CommandContext,
  { cluster, api, pools, inventory, log }: { cluster: Cluster; api: KarpenterApi; pools: readonly NodePoolView[]; inventory: Inventory; log: Logger },
  scope: RolloutScope,
  { lockNamespace, timeoutMs, applied }: { lockNamespace: string; timeoutMs: number; /** What this run applied ('' for nothing). */ applied: string },
): Promise<{ look: { signal: AbortSignal; stop(): void }; atDone: () => Promise<HeldAtDone | undefined> }> {
  const names = new Set(scope.nodePools.map((p) => p.name));
  const held: HeldScope = {
    cluster,
    api,
    lockNamespace,
    pools: pools.filter((p) => names.has(p.name)),
    flags: scopeFlags(ctx, lockNamespace, LEASE_NAMESPACE),
  };
  const note = applied !== '' ? `; this run applied ${applied}, which Karpenter rolls out once the holds are released` : '';
  const before = await heldBeforeFollow(ctx, held, { done: doneAlready(inventory, scope, new Date()), note });
  if ('error' in before) throw before.error;
  const { hold } = before;
  if (hold?.state === 'paced') {
    log.info(
      `karp-drift's holds on ${hold.pools.map((p) => `nodepool/${p}`).join(', ')} are paced by the live run ${hold.holder}${hold.command ? ` (karp-drift ${hold.command})` : ''}: following it; it releases them as it goes and when it ends`,
    );
  }
  if (hold?.state === 'draining') log.warn(drainingText(hold));
  return { look: lookWhileFollowing(ctx, held), atDone: heldAtDone(ctx, held, log, scope.startedAt.getTime() + timeoutMs) };
}

/**
 * A dead run's hold that still lets Karpenter start replacements: followed (nodes move), with how to stop them; once
 * the hold's switch fires the rollout is paused and the follow ends there.
 */
export function drainingText(hold: Draining): string {
  const lines = hold.holds.map((h) => `nodepool/${h.nodePool}: ${holdStateText(h.hold, new Date())}`);
  const first = hold.holds[0]!;
  const next = holdStateNext(first.hold, hold.holds.length === 1 ? first.nodePool : undefined);
  return `karp-drift's hold was left by a run that is gone (run ${hold.runIds.join(', ') || 'unknown'}): ${lines.join('; ')}\n  next: ${next}`;
}

export function drainingJson(hold: Draining) {
  return hold.holds.map((h) => ({
    nodePool: h.nodePool,
    ...(h.hold.state === 'draining' ? { allowance: h.hold.allowance, ...(h.hold.until !== undefined ? { until: h.hold.until } : {}) } : {}),
  }));
}
