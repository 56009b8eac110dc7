// Takes, renews and releases the cluster lock (apis/lock.ts decides; this file talks to the API server).
// Every write carries the read resourceVersion (or is a create), so two runs racing for the Lease cannot both win:
// the loser's write answers 409 and it reads the Lease again.
import { RefusedError, RuntimeFailure } from '../errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  holderIdentity,
  leaseBody,
  takeVerdict,
  LEASE_NAME,
  LEASE_SECONDS,
  RENEW_EVERY_MS,
  RENEW_RETRY_MS,
  type LeaseView,
  type LockHolder,
} from '../apis/lock.js';
import type { Cluster } from './client.js';
import { clusterFailure, isApiFailure } from './failures.js';
import { NoAnswer } from './api-errors.js';
import { ApiError, getJson, sendJson } from './request.js';

interface LeaseObject {
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
  spec?: Omit<LeaseView, 'resourceVersion' | 'annotations'>;
}

export interface ClusterLock {
  /** Aborted when the lock is lost (another run took it after this one could not renew it in time). */
  lost: AbortSignal;
  /** Stops renewing and gives the Lease up (holder cleared), so the next run need not wait for it to expire. */
  release(): Promise<void>;
}

const leasePath = (namespace: string, name = '') =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases${name ? `/${encodeURIComponent(name)}` : ''}`;

function view(o: LeaseObject): LeaseView {
  return {
    ...(o.spec ?? {}),
    resourceVersion: o.metadata?.resourceVersion ?? '',
    annotations: o.metadata?.annotations ?? {},
  };
}

/** The Lease of the cluster lock, or undefined when there is none. */
export async function readLease(cluster: Cluster, namespace: string, signal?: AbortSignal): Promise<LeaseView | undefined> {
  try {
    return view(await getJson<LeaseObject>(cluster, leasePath(namespace, LEASE_NAME), {}, signal));
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** How often a run watching another's Lease reads it again (client-go's RetryPeriod is 2 s). */
const WATCH_EVERY_MS = 2_000;

export interface AcquireOptions {
  /** This run's wall clock, written as the Lease's times (tests skew it). */
  now?: () => Date;
  /** Told once when the lock is held by a run not yet seen alive or dead: the wait that follows, up to the lease's duration. */
  onWatch?: (message: string) => void;
}

/**
 * Takes the lock or throws RefusedError (exit 3) naming the run that holds it. Another run's lease is taken only after
 * this run has watched it go unrenewed for its whole duration (apis/lock.ts says why), and refused as soon as this run
 * sees it renewed.
 */
export async function acquireLock(
  cluster: Cluster,
  namespace: string,
  me: LockHolder,
  signal?: AbortSignal,
  options: AcquireOptions = {},
): Promise<ClusterLock> {
  const clock = options.now ?? (() => new Date());
  let acquired = clock();
  let sentAt = performance.now();
  let conflicts = 0;
  let watched: { resourceVersion: string; since: number; renewed: boolean } | undefined;
  for (;;) {
    const lease = await readLease(cluster, namespace, signal).catch((err: unknown) => {
      throw lockFailure(cluster, namespace, 'reading', err);
    });
    const now = clock();
    const seenAt = performance.now();
    if (lease !== undefined && (watched === undefined || watched.resourceVersion !== lease.resourceVersion)) {
      watched = { resourceVersion: lease.resourceVersion, since: seenAt, renewed: watched !== undefined };
    }
    const verdict = takeVerdict(lease, me, {
      silentForMs: watched === undefined ? 0 : seenAt - watched.since,
      renewedWhileWatched: watched?.renewed ?? false,
    });
    if (verdict.action === 'refuse') throw refusal(verdict, namespace);
    if (verdict.action === 'watch') {
      if (watched?.since === seenAt && !watched.renewed) {
        const what = verdict.command !== undefined ? ` (karp-drift ${verdict.command})` : '';
        options.onWatch?.(
          `the cluster lock (lease ${namespace}/${LEASE_NAME}) is held by ${verdict.holder}${what}: waiting up to ${Math.ceil(verdict.decidedWithinMs / 1000)} s to see whether that run still renews it`,
        );
      }
      await sleep(Math.min(WATCH_EVERY_MS, verdict.decidedWithinMs), undefined, signal ? { signal } : {});
      continue;
    }
    try {
      sentAt = performance.now();
      if (verdict.action === 'create') {
        acquired = now;
        await sendJson(
          cluster,
          leasePath(namespace),
          { method: 'POST', body: leaseBody(me, now, now, 0, namespace) },
          {},
          signal,
        );
      } else {
        acquired =
          verdict.action === 'renew' && lease?.acquireTime !== undefined
            ? new Date(Date.parse(lease.acquireTime))
            : now;
        const transitions = verdict.action === 'take' ? verdict.transitions : (lease?.leaseTransitions ?? 0);
        await sendJson(
          cluster,
          leasePath(namespace, LEASE_NAME),
          {
            method: 'PUT',
            body: leaseBody(me, now, acquired, transitions, namespace, lease!.resourceVersion),
          },
          {},
          signal,
        );
      }
      break;
    } catch (err) {
      // Another run wrote it between our read and our write: read again (it may now hold it, or have released it).
      if (err instanceof ApiError && (err.code === 409 || err.code === 422) && conflicts++ < 3) continue;
      throw lockFailure(cluster, namespace, 'taking', err);
    }
  }
  return renewing(cluster, namespace, me, acquired, clock, sentAt);
}

function refusal(verdict: { holder: string; command?: string; since?: string }, namespace: string): RefusedError {
  const since = verdict.since !== undefined ? ` since ${verdict.since.replace(/\.\d+Z$/, 'Z')}` : '';
  const what = verdict.command !== undefined ? ` (karp-drift ${verdict.command})` : '';
  return new RefusedError(
    `another karp-drift run holds the lock on this cluster: ${verdict.holder}${what}${since} (lease ${namespace}/${LEASE_NAME}); it renewed the lease while this run watched`,
    {
      hint: `wait for it to finish (follow it with: karp-drift wait); a run that was killed leaves a lock that the next run takes once it has seen no renewal for ${LEASE_SECONDS} s`,
    },
  );
}

/** The run lost its cluster lock: not an interrupt (exit 1); `cause`, when set, is the renewal that failed. */
export class LockLost extends RuntimeFailure {}

/**
 * Renews the lock every RENEW_EVERY_MS; a renewal that fails (the API server refusing, resetting, not answering) is
 * tried again every RENEW_RETRY_MS, as client-go's leader election retries inside its renew deadline. The lock is
 * valid LEASE_SECONDS from the moment its last renewal was sent (before the API server can have written it, so
 * before any other run can have seen it): at that moment, renewed or not, it is lost, by a timer of its own, since a
 * renewal may hang on a frozen API server far longer. Past it another run may take the Lease (apis/lock.ts), so
 * `lost` aborts the run's signal and, through `Cluster.lease`, every call the run still has in flight.
 */
function renewing(cluster: Cluster, namespace: string, me: LockHolder, acquired: Date, clock: () => Date, sentAt: number): ClusterLock {
  const lost = new AbortController();
  let stopped = false;
  let failure: unknown;
  let next: NodeJS.Timeout | undefined;
  let lapse: NodeJS.Timeout | undefined;
  const lose = (reason: LockLost) => {
    if (lost.signal.aborted) return;
    clearTimeout(next);
    clearTimeout(lapse);
    lost.abort(reason);
  };
  const validFrom = (at: number) => {
    if (stopped) return; // released meanwhile: nothing left to lose
    clearTimeout(lapse);
    lapse = setTimeout(() => {
      // The renewal under way (if any) has not answered: what it waits for is the reason.
      const cause =
        failure ?? new NoAnswer(`no answer from the API server for ${LEASE_SECONDS} s (renewing the cluster lock)`);
      const lock = `the cluster lock (lease ${namespace}/${LEASE_NAME})`;
      // Said as the API server's failure when it was one: that is what a person has to look at.
      const said = isApiFailure(cause)
        ? `${clusterFailure(cause, { doing: `renewing ${lock}`, verb: 'update', resource: 'leases.coordination.k8s.io' }, cluster).message}; ${lock} could not be renewed for ${LEASE_SECONDS} s`
        : `could not renew ${lock} for ${LEASE_SECONDS} s`;
      lose(new LockLost(said, { cause }));
    }, Math.max(0, at + LEASE_SECONDS * 1000 - performance.now()));
    lapse.unref();
  };
  const renew = async () => {
    const sending = performance.now();
    try {
      const lease = await readLease(cluster, namespace, lost.signal);
      const now = clock();
      if (lease?.holderIdentity !== holderIdentity(me)) {
        lose(
          new LockLost(
            `lost the cluster lock (lease ${namespace}/${LEASE_NAME}) to ${lease === undefined ? 'nobody: it was deleted' : lease.holderIdentity || 'nobody: it was released'}`,
          ),
        );
        return;
      }
      await sendJson(
        cluster,
        leasePath(namespace, LEASE_NAME),
        {
          method: 'PUT',
          body: leaseBody(me, now, acquired, lease.leaseTransitions ?? 0, namespace, lease.resourceVersion),
        },
        {},
        lost.signal,
      );
      failure = undefined;
      validFrom(sending);
      schedule(RENEW_EVERY_MS);
    } catch (err) {
      if (lost.signal.aborted) return;
      // The failure is the cause: the run's end names the API server that stopped answering, not a lock.
      failure = err;
      schedule(RENEW_RETRY_MS);
    }
  };
  const schedule = (ms: number) => {
    if (stopped || lost.signal.aborted) return;
    next = setTimeout(() => void renew(), ms);
    next.unref();
  };
  validFrom(sentAt);
  schedule(RENEW_EVERY_MS);
  return {
    lost: lost.signal,
    async release() {
      stopped = true;
      clearTimeout(next);
      clearTimeout(lapse);
      if (lost.signal.aborted) return;
      try {
        const lease = await readLease(cluster, namespace);
        if (lease?.holderIdentity !== holderIdentity(me)) return;
        const body = leaseBody(me, clock(), acquired, lease.leaseTransitions ?? 0, namespace, lease.resourceVersion);
        // client-go's ReleaseOnCancel: an empty holder, so the next run takes it at once.
        await sendJson(cluster, leasePath(namespace, LEASE_NAME), {
          method: 'PUT',
          body: { ...body, spec: { ...body.spec, holderIdentity: '' } },
        });
      } catch {
        // Not released: it expires LEASE_SECONDS after the last renewal.
      }
    },
  };
}

function lockFailure(cluster: Cluster, namespace: string, doing: string, err: unknown): Error {
  if (err instanceof ApiError && err.code === 403) {
    return new RuntimeFailure(
      `${doing} the cluster lock: leases in namespace ${namespace} are forbidden to this identity (${cluster.context})`,
      {
        hint: `grant get, create and update on leases.coordination.k8s.io in ${namespace} (deploy/rbac.yaml), or pass --lock-namespace`,
        cause: err,
      },
    );
  }
  if (err instanceof ApiError && err.code === 404) {
    return new RuntimeFailure(`${doing} the cluster lock: namespace ${namespace} does not exist`, {
      hint: 'pass --lock-namespace <a namespace that exists>',
      cause: err,
    });
  }
  // Anything else the API call met (refused, reset, 5xx after retries) is said in the CLI's words, never as the
  // transport's own error (which would end the run as an internal error with its stack).
  if (isApiFailure(err)) {
    const verb = doing === 'reading' ? 'get' : 'update';
    return clusterFailure(err, { doing: `${doing} the cluster lock (lease ${namespace}/${LEASE_NAME})`, verb, resource: 'leases.coordination.k8s.io' }, cluster);
  }
  return err instanceof Error ? err : new Error(String(err));
}
