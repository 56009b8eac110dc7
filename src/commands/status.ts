// `karp-drift status`: where the nodes of each NodePool stand (kubelet versions, AMIs, drift) and what blocks them.
// --watch reads the cluster once, then keeps NodeClaims, Nodes, EC2NodeClasses and Karpenter's events current with
// the watches the rollout follow uses (cluster/follow.ts), and re-lists only what watches do not cover (NodePools,
// PDBs, pods) every REREAD_MS: polling the whole inventory would re-list every pod of the cluster every few seconds.
// The cluster lock's Lease, one small object, is read every LEASE_LOOK_MS, and at once when the holds shown change:
// a run takes the lock before it writes a hold, so a hold is never shown with a read of the lock older than it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from './context.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { followCluster } from '../cluster/follow.js';
import { readDiagnosisReads } from '../cluster/inventory.js';
import type { DiagnosisReads, Inventory } from '../karpenter/views.js';
import type { StatusOptions } from './options.js';
import { snapshotStatus, statusFrame, statusJson, statusTable, type StatusContext } from '../report/status.js';
import { applyChange, inventorySnapshot, karpenterNodesOf, type Snapshot } from '../rollout/snapshot.js';
import { fullScreenDisplay } from './live-display.js';
import { readLease } from '../cluster/lock.js';
import { runLock, type RunLock } from '../apis/hold-state.js';
import { leaseWatch, seeLease, type LeaseSeen, type LeaseView } from '../apis/lock.js';
import { connect, readScope } from './connect.js';

/** How often --watch looks for a change to show: a burst of changes is one redraw. */
const REDRAW_MS = 1000;
/** How often --watch re-lists NodePools, PDBs and pods (what the blockers read), as the rollout follow does. */
const REREAD_MS = 30_000;
/**
 * How often --watch reads the cluster lock's Lease. A live run renews it every 10 s (apis/lock.ts RENEW_EVERY_MS) and
 * it lapses 30 s after the last renewal: read every 30 s with the age counted on from that read, a healthy run was
 * shown "lease renewed 29s ago" and then as gone ("resume releases them") until the next read.
 */
const LEASE_LOOK_MS = 2_000;

export async function status(options: StatusOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = await connect(ctx);
  try {
    // The lock's Lease beside the inventory: one round trip fewer (a failed read is 'unreadable', never a rejection).
    const leaseRead = readLockLease(cluster, options, ctx.signal);
    const { discovery, inventory } = await readScope(ctx, cluster, options.nodeClasses);
    const lease = await leaseRead;
    if (!options.watch) {
      const s = snapshotStatus(inventorySnapshot(inventory), scoped({ ...inventory, lock: runLock(lease, new Date()) }, options), new Date());
      if (ctx.summary) {
        // Only with --summary-file or --result-file: the summary's printers are most of a plan's report.
        const { recordSummary } = await import('../report/summary.js');
        recordSummary(ctx.summary, { type: 'status', ...(JSON.parse(statusJson(s, cluster.identity)) as object) });
      }
      ctx.io.out(render(ctx, cluster, s));
      return;
    }
    await watch(cluster, discovery, { inventory, lease }, options, ctx);
  } finally {
    cluster.close();
  }
}

/**
 * The cluster lock's Lease, which says whether a live run paces the holds shown (apis/hold-state.ts). One that cannot
 * be read (no RBAC for it, a failed request) rules out nothing: 'unreadable', and status says so.
 */
async function readLockLease(cluster: Cluster, options: StatusOptions, signal: AbortSignal): Promise<LeaseView | undefined | 'unreadable'> {
  return readLease(cluster, options.lockNamespace, signal).catch(() => 'unreadable' as const);
}

/** --nodeclass narrows the NodePools shown to those of the named classes. */
function scoped(reads: StatusContext, options: StatusOptions): StatusContext {
  if (options.nodeClasses.length === 0) return reads;
  return { ...reads, nodePools: reads.nodePools.filter((p) => options.nodeClasses.includes(p.nodeClass)) };
}

function render(ctx: CommandContext, cluster: Cluster, s: ReturnType<typeof snapshotStatus>, stream = false): string {
  return ctx.globals.output === 'json'
    ? statusJson(s, cluster.identity, stream)
    : statusTable(s, { wide: ctx.globals.wide }, ctx.io.screen?.('out')?.columns);
}

async function watch(
  cluster: Cluster,
  discovery: Discovery,
  first: { inventory: Inventory; lease: LeaseView | undefined | 'unreadable' },
  options: StatusOptions,
  ctx: CommandContext,
): Promise<void> {
  const { inventory } = first;
  const snapshot = inventorySnapshot(inventory);
  let reads: StatusContext = inventory;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let failure: Error | undefined;
  const following = followCluster(cluster, {
    karpenterApi: discovery.karpenterApi,
    signal: stop.signal,
    onChange: (change) => void applyChange(snapshot, change),
    onError: (err) => {
      failure = err;
      stop.abort();
    },
  });
  const display = ctx.globals.output !== 'json' && ctx.io.interactive ? fullScreenDisplay(ctx.io, 'out') : undefined;
  const lock = leaseLooks(cluster, options, first.lease, stop.signal);
  let shown: string | undefined;
  let heldShown = '';
  let readAt = Date.now();
  try {
    for (;;) {
      // A view says "N minutes ago" and budget windows open and close: it is recomputed every time, printed on change.
      let s = frame(snapshot, reads, lock, options);
      // Holds appeared or changed since the last frame: the lock is read again before they are shown (a read from
      // before they appeared may be from before the run that wrote them took the lock).
      if (heldKey(s) !== heldShown) {
        await lock.look();
        s = frame(snapshot, reads, lock, options);
      }
      heldShown = heldKey(s);
      const next = render(ctx, cluster, s, true);
      if (next !== shown) {
        if (display) display.show((screen) => statusFrame(s, screen, { wide: ctx.globals.wide }));
        else ctx.io.out(next);
        shown = next;
      }
      try {
        await sleep(REDRAW_MS, undefined, { signal: stop.signal });
      } catch {
        break; // interrupted, or following failed
      }
      if (Date.now() - readAt >= REREAD_MS) {
        readAt = Date.now();
        const fresh: DiagnosisReads | undefined = await readDiagnosisReads(cluster, discovery, karpenterNodesOf(snapshot), stop.signal).catch(() => undefined);
        if (fresh) reads = { ...reads, ...fresh };
      }
      if (lock.due()) await lock.look();
    }
  } finally {
    display?.end();
    stop.abort();
    await following;
    ctx.signal.removeEventListener('abort', onAbort);
  }
  if (failure) throw failure; // an interrupt ends --watch quietly; a follow that gave up does not
}

function frame(snapshot: Snapshot, reads: StatusContext, lock: LeaseLooks, options: StatusOptions) {
  const now = new Date();
  return snapshotStatus(snapshot, scoped({ ...reads, lock: lock.now(now) }, options), now);
}

/** Which holds a frame shows, by NodePool, mechanism and run: a change calls for a fresh read of the lock. */
const heldKey = (s: ReturnType<typeof snapshotStatus>): string => s.holds.map((h) => `${h.nodePool}/${h.mechanism}/${h.runId ?? ''}`).join(' ');

/** The cluster lock as --watch reads it, again and again: what the latest read says, judged by what the reads saw. */
interface LeaseLooks {
  look(): Promise<void>;
  /** Time for another read. */
  due(): boolean;
  now(now: Date): RunLock;
}

function leaseLooks(cluster: Cluster, options: StatusOptions, first: LeaseView | undefined | 'unreadable', signal: AbortSignal): LeaseLooks {
  let lease = first;
  let readAt = performance.now();
  let seen: LeaseSeen = seeLease(undefined, first, readAt);
  return {
    async look() {
      lease = await readLockLease(cluster, options, signal);
      readAt = performance.now();
      seen = seeLease(seen, lease, readAt);
    },
    due: () => performance.now() - readAt >= LEASE_LOOK_MS,
    now: (now) => runLock(lease, now, leaseWatch(seen, performance.now())),
  };
}
