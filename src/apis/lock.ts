// The cluster lock of a run that writes (`upgrade`, `rollback`, `pause`, `resume`): a coordination.k8s.io/v1 Lease, as
// Kubernetes' own leader election uses (client-go tools/leaderelection). Pure: whether this run may take the Lease.
//
// Two runs must not pace one cluster at once (each would write its own holds over the other's). The Lease is short
// (LEASE_SECONDS) and renewed while the run lives, so a run that was killed (kill -9, a CI runner that vanished)
// leaves a lock that expires by itself: no helm-style "another operation is in progress" to clear by hand.
//
// Whether another run's lease has expired is never read from its renewTime against this machine's clock: two
// machines' clocks can be far apart, and two runs would then both hold the lock. As client-go's leader election does
// (`isLeaseValid` with `observedTime`), a run takes another's lease only after it has itself watched the Lease go
// unrenewed for the lease's whole duration, on its own monotonic clock (`takeVerdict`); seeing it renewed meanwhile
// proves the holder alive. `lockVerdict` reads the holder's renewTime by this clock: a display's best guess only.

export const LEASE_NAME = 'karp-drift';
export const LEASE_NAMESPACE = 'kube-system';
export const LEASE_SECONDS = 30;
/** Renew well inside the duration, as client-go's RetryPeriod (2 s) sits inside RenewDeadline (10 s) and LeaseDuration (15 s). */
export const RENEW_EVERY_MS = 10_000;
/** A renewal that failed is tried again this often (client-go's RetryPeriod), until the lease's duration has passed. */
export const RENEW_RETRY_MS = 2_000;

export interface LeaseView {
  resourceVersion: string;
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  /** karp-drift's annotations: which command holds it. */
  annotations: Record<string, string>;
}

export interface LockHolder {
  runId: string;
  user: string;
  host: string;
  /** `upgrade --to 1.31`: shown to whoever is refused. */
  command: string;
}

export const holderIdentity = (h: LockHolder): string => `${h.user}@${h.host} (run ${h.runId})`;

export type LockVerdict =
  | { action: 'create' }
  | { action: 'take'; transitions: number }
  | { action: 'renew' }
  | {
      action: 'refuse';
      holder: string;
      command?: string;
      since?: string;
      expiresAt: Date;
    };

/**
 * How long this run has watched another run's Lease without seeing it change (its resourceVersion: every renewal is a
 * write), on this run's monotonic clock, and whether it has seen it change while it watched.
 */
export interface LeaseWatch {
  silentForMs: number;
  renewedWhileWatched: boolean;
}

export type TakeVerdict =
  | { action: 'create' }
  | { action: 'take'; transitions: number }
  | { action: 'renew' }
  /** The holder renewed while this run watched: it is alive. */
  | { action: 'refuse'; holder: string; command?: string; since?: string }
  /** Not yet seen renewed, nor silent for the lease's duration: look again. */
  | { action: 'watch'; holder: string; command?: string; since?: string; decidedWithinMs: number };

/**
 * What a reader that reads the Lease again and again (`status --watch`) has seen of it, on its own monotonic clock:
 * the version it read last, since when it has read that same version, and whether it has seen the Lease written
 * while it read (a renewal, or a run taking or creating it: either way a live run wrote it).
 */
export interface LeaseSeen {
  /** undefined: no Lease (yet). */
  resourceVersion: string | undefined;
  /** When this version was first read (ms, the reader's monotonic clock). */
  since: number;
  renewed: boolean;
}

/** The reader's sightings after one more read at `atMs`; a read that failed changes nothing. */
export function seeLease(previous: LeaseSeen | undefined, lease: LeaseView | undefined | 'unreadable', atMs: number): LeaseSeen {
  if (lease === 'unreadable') return previous ?? { resourceVersion: undefined, since: atMs, renewed: false };
  const version = lease?.resourceVersion;
  if (previous !== undefined && previous.resourceVersion === version) return previous;
  return { resourceVersion: version, since: atMs, renewed: previous !== undefined };
}

/** The sightings as `takeVerdict` and `runLock` weigh them. */
export function leaseWatch(seen: LeaseSeen, atMs: number): LeaseWatch {
  return { silentForMs: Math.max(0, atMs - seen.since), renewedWhileWatched: seen.renewed };
}

/** May this run take the lock? Skew-proof: another's lease expires only by this run's own watch (`LeaseWatch`). */
export function takeVerdict(lease: LeaseView | undefined, me: LockHolder, watch: LeaseWatch): TakeVerdict {
  if (lease === undefined) return { action: 'create' };
  const holder = lease.holderIdentity ?? '';
  if (holder === holderIdentity(me)) return { action: 'renew' };
  const transitions = (lease.leaseTransitions ?? 0) + 1;
  if (holder === '') return { action: 'take', transitions };
  // A lease with no time on it was never renewed: nothing to wait for (client-go: a zero RenewTime is expired).
  if (lease.renewTime === undefined && lease.acquireTime === undefined) return { action: 'take', transitions };
  const who = {
    holder,
    ...(lease.annotations[LOCK_ANNOTATIONS.command] !== undefined ? { command: lease.annotations[LOCK_ANNOTATIONS.command] } : {}),
    ...(lease.acquireTime !== undefined ? { since: lease.acquireTime } : {}),
  };
  if (watch.renewedWhileWatched) return { action: 'refuse', ...who };
  const durationMs = (lease.leaseDurationSeconds ?? LEASE_SECONDS) * 1000;
  if (watch.silentForMs >= durationMs) return { action: 'take', transitions };
  return { action: 'watch', ...who, decidedWithinMs: durationMs - watch.silentForMs };
}

/** Whether the lease looks held, by its holder's renewTime on this machine's clock: for what a display says only. */
export function lockVerdict(lease: LeaseView | undefined, me: LockHolder, now: Date): LockVerdict {
  if (lease === undefined) return { action: 'create' };
  const holder = lease.holderIdentity ?? '';
  if (holder === holderIdentity(me)) return { action: 'renew' };
  const transitions = (lease.leaseTransitions ?? 0) + 1;
  if (holder === '') return { action: 'take', transitions };
  const renewed = Date.parse(lease.renewTime ?? lease.acquireTime ?? '');
  // A lease with no time on it cannot be judged alive: treat it as expired, as client-go does for a zero RenewTime.
  if (!Number.isFinite(renewed)) return { action: 'take', transitions };
  const expiresAt = new Date(renewed + (lease.leaseDurationSeconds ?? LEASE_SECONDS) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { action: 'take', transitions };
  return {
    action: 'refuse',
    holder,
    ...(lease.annotations[LOCK_ANNOTATIONS.command] !== undefined
      ? { command: lease.annotations[LOCK_ANNOTATIONS.command] }
      : {}),
    ...(lease.acquireTime !== undefined ? { since: lease.acquireTime } : {}),
    expiresAt,
  };
}

export const LOCK_ANNOTATIONS = {
  command: 'karp-drift.io/command',
  runId: 'karp-drift.io/run-id',
} as const;

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The Lease's spec and metadata this run writes when it takes or renews the lock. */
export function leaseBody(
  me: LockHolder,
  now: Date,
  acquired: Date,
  transitions: number,
  namespace: string,
  resourceVersion?: string,
) {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: LEASE_NAME,
      namespace,
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      annotations: {
        [LOCK_ANNOTATIONS.command]: me.command,
        [LOCK_ANNOTATIONS.runId]: me.runId,
      },
    },
    spec: {
      holderIdentity: holderIdentity(me),
      leaseDurationSeconds: LEASE_SECONDS,
      acquireTime: microTime(acquired),
      renewTime: microTime(now),
      leaseTransitions: transitions,
    },
  };
}
