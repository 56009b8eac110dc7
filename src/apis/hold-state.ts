// What karp-drift's hold on a NodePool means right now, so that every command that sees one says the same true thing
// and offers only commands that will work (issue: a live run's holds were reported as "paused … until resume", and
// that resume then met the live run's lock). Four cases, told apart by the cluster lock and the hold's own budgets:
//   - paced: a live run holds the cluster lock; its holds open wave by wave and it releases them when it ends. Every
//     writing command (pause, resume, rollback, another upgrade) waits for its lock; `wait` follows it.
//   - switched: no live run, and the dead man's switch of the run that wrote the hold is active, as Karpenter's
//     `IsActive` reads it (budget-hold.ts `switchState`): Karpenter itself holds drift at 0 since it fired.
//   - draining: no live run, and the hold still lets Karpenter start replacements (its allowance is above 0 and its
//     switch is not active: not fired yet, lapsed a year after it fired, or none): `pause` stops it now.
//   - paused: no live run, drift held at 0 (pause, node holds, a run that stopped and left its holds on purpose).
//   - windowed: paused, by a run that stopped because its upgrade windows (--window) were closed: the same upgrade
//     re-run inside the next window goes on (a scheduler runs it every window), so this is the rollout's way, not a
//     stop that somebody must look at.
// A lock that cannot be read rules out nothing: `unknown`. Pure.
import type { Budget } from '../karpenter/budgets.js';
import { humanDuration, utcTime } from '../text/words.js';
import { decodeHoldRecord, heldAllowance, HOLD_ANNOTATION, switchState } from './budget-hold.js';
import { LEASE_NAME, LEASE_SECONDS, LOCK_ANNOTATIONS, lockVerdict, type LeaseView, type LeaseWatch } from './lock.js';

/**
 * The cluster lock as a reader sees it: a live run, nobody, a Lease this user may not read, or (a reader that watches
 * it, `status --watch`) a holder whose last renewal looks too old by this machine's clock and that has not yet been
 * seen to renew it nor to stay silent for its duration: skew or a dead run, not known yet.
 */
export type RunLock =
  | {
      state: 'live';
      holder: string;
      command?: string;
      /** The last renewal: the holder's renewTime, or, once this reader saw it renewed, when it saw that (its own clock). */
      renewedAt?: string;
      /** spec.leaseDurationSeconds: how long a renewal keeps it. */
      durationSeconds: number;
    }
  | { state: 'none' }
  | { state: 'unreadable' }
  | { state: 'unconfirmed'; holder: string; command?: string; durationSeconds: number; decidedWithinMs: number };

/** No run is the reader: whoever holds a live lease is another. */
const NOBODY = { runId: '', user: '', host: '', command: '' };

/**
 * Whether a run holds the lock now. From one read, by the holder's renewTime on this machine's clock: a display's
 * best guess (a run that takes the lock judges it by its own watch instead, apis/lock.ts `takeVerdict`). A reader
 * that reads the Lease again and again (`watch`: on its own monotonic clock, as `takeVerdict` is given it) judges as
 * client-go does and as a taking run would: a holder seen renewing within the lease's duration is live, and one seen
 * silent for the whole duration is gone, whatever either clock says; the age it shows is the time since it saw the
 * renewal, so a skewed clock never makes a healthy run look expired.
 */
export function runLock(lease: LeaseView | undefined | 'unreadable', now: Date, watch?: LeaseWatch): RunLock {
  if (lease === 'unreadable') return { state: 'unreadable' };
  const verdict = lockVerdict(lease, NOBODY, now);
  const holder = lease?.holderIdentity ?? '';
  const timed = lease?.renewTime !== undefined || lease?.acquireTime !== undefined;
  if (lease === undefined || holder === '' || !timed) return { state: 'none' };
  const durationSeconds = lease.leaseDurationSeconds ?? LEASE_SECONDS;
  const command = lease.annotations[LOCK_ANNOTATIONS.command];
  const who = { holder, ...(command !== undefined ? { command } : {}), durationSeconds };
  if (watch !== undefined && watch.silentForMs >= durationSeconds * 1000) return { state: 'none' };
  if (watch?.renewedWhileWatched === true) {
    return { state: 'live', ...who, renewedAt: new Date(now.getTime() - watch.silentForMs).toISOString() };
  }
  if (verdict.action !== 'refuse') {
    return watch === undefined
      ? { state: 'none' }
      : { state: 'unconfirmed', ...who, decidedWithinMs: durationSeconds * 1000 - watch.silentForMs };
  }
  const renewedAt = lease.renewTime ?? lease.acquireTime;
  return { state: 'live', ...who, ...(renewedAt !== undefined ? { renewedAt } : {}) };
}

export type LiveLock = Extract<RunLock, { state: 'live' }>;
export type UnconfirmedLock = Extract<RunLock, { state: 'unconfirmed' }>;

export type HoldState =
  | { state: 'paced'; lock: LiveLock }
  /** Whether a run is live is not known: the Lease cannot be read, or (`lock`) a watcher has not decided yet. */
  | { state: 'unknown'; lock?: UnconfirmedLock }
  /** The run that wrote the hold is gone; its switch has held drift at 0 since `since` (ISO 8601). */
  | { state: 'switched'; since: string }
  /** No live run, and the hold still lets Karpenter start `allowance` more replacements (until `until`, its switch). */
  | { state: 'draining'; allowance: number; until?: string }
  | { state: 'paused' }
  /** Paused by the windows: the `--window`/`--exclude` flags of the run that left it (stages/window-hold.ts reads them). */
  | { state: 'windowed'; windowFlags: string[] };

/**
 * The state of karp-drift's hold on one NodePool, or undefined when it holds none there. `heldNodes`: how many of
 * its Nodes carry karp-drift's do-not-disrupt.
 */
export function holdState(
  pool: { budgets?: Budget[]; annotations?: Record<string, string> },
  heldNodes: number,
  lock: RunLock,
  now: Date,
): HoldState | undefined {
  const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
  if (record === undefined && heldNodes === 0) return undefined;
  if (lock.state === 'live') return { state: 'paced', lock };
  if (lock.state === 'unreadable') return { state: 'unknown' };
  if (lock.state === 'unconfirmed') return { state: 'unknown', lock };
  const valid = record !== undefined && !('error' in record) ? record : undefined;
  const allowance = heldAllowance(pool.budgets, valid);
  if (allowance === 0 && valid?.pausedBy === 'window' && (valid.windowFlags ?? []).length > 0) {
    return { state: 'windowed', windowFlags: valid.windowFlags! };
  }
  if (allowance === undefined || allowance === 0) return { state: 'paused' };
  // Karpenter's IsActive decides, at `now` (budget-hold.ts `switchState`).
  const sw = switchState(pool.budgets, now, valid);
  if (sw?.active === true) return { state: 'switched', since: (sw.at ?? now).toISOString() };
  return { state: 'draining', allowance, ...(sw?.at !== undefined ? { until: sw.at.toISOString() } : {}) };
}

/** The states of several NodePools' holds, worst first: what a one-line summary names. */
const RANK: Record<HoldState['state'], number> = { draining: 0, unknown: 1, paced: 2, switched: 3, paused: 4, windowed: 5 };

export function worstHold(states: readonly HoldState[]): HoldState | undefined {
  return [...states].sort((a, b) => RANK[a.state] - RANK[b.state])[0];
}

/** `03:45 UTC`, or with its date when not today's (a switch that fired months ago, one that fires next year). */
function hhmm(iso: string, now: Date): string {
  const t = utcTime(new Date(iso));
  return t.slice(0, 10) === utcTime(now).slice(0, 10) ? `${t.slice(11, 16)} UTC` : `${t.slice(0, 10)} ${t.slice(11, 16)} UTC`;
}

/** "the live run alice@laptop (run 1f…) (karp-drift upgrade --to 1.30 …), lease renewed 4s ago". */
export function liveRunText(lock: LiveLock, now: Date): string {
  const what = lock.command !== undefined ? ` (karp-drift ${lock.command})` : '';
  return `the live run ${lock.holder}${what}${leaseRenewedText(lock, now)}`;
}

/**
 * ", lease renewed 4s ago (30s lease)", or nothing when the Lease says no time: every place that says it, in one form.
 * The duration beside the age says what the age means: a run renews every 10 s, and its lease lapses only after the
 * whole duration without one.
 */
export function leaseRenewedText(lock: Pick<LiveLock, 'renewedAt' | 'durationSeconds'>, now: Date): string {
  const renewed = lock.renewedAt !== undefined ? Date.parse(lock.renewedAt) : NaN;
  if (!Number.isFinite(renewed)) return '';
  return `, lease renewed ${humanDuration(Math.max(0, now.getTime() - renewed))} ago (${lock.durationSeconds}s lease)`;
}

/**
 * A holder whose last renewal looks older than its lease by this machine's clock, not yet watched long enough to tell a
 * skewed clock from a dead run (status --watch decides within the lease's duration).
 */
function unconfirmedText(lock: UnconfirmedLock): string {
  const what = lock.command !== undefined ? ` (karp-drift ${lock.command})` : '';
  return `the cluster lock (lease ${LEASE_NAME}) names ${lock.holder}${what}, whose last renewal looks older than its ${lock.durationSeconds}s lease by this machine's clock; whether that run is live is known once it renews the lease or stays silent for ${lock.durationSeconds}s`;
}

/** A few words for a heading: "(paced by a live run)". */
export function holdStateLabel(h: HoldState): string {
  switch (h.state) {
    case 'paced':
      return 'paced by a live run';
    case 'unknown':
      return 'whether a run is live is not known';
    case 'switched':
      return "paused: its run is gone and its dead man's switch holds drift at 0";
    case 'draining':
      return 'its run is gone, and the hold still lets replacements start';
    case 'paused':
      return 'paused';
    case 'windowed':
      return 'paused by the window';
  }
}

/** What the hold is, in one clause after "karp-drift holds Drifted disruption on nodepool/x". */
export function holdStateText(h: HoldState, now: Date): string {
  switch (h.state) {
    case 'paced':
      return `paced by ${liveRunText(h.lock, now)}`;
    case 'unknown':
      return h.lock !== undefined
        ? unconfirmedText(h.lock)
        : `the cluster lock (lease ${LEASE_NAME}) could not be read, so whether a run is live is not known`;
    case 'switched':
      return `paused: the run that paced it is gone, and its dead man's switch has held drift at 0 since ${hhmm(h.since, now)}`;
    case 'draining':
      return `not paused: no run is live, and the hold still lets Karpenter start up to ${h.allowance} more replacement${h.allowance === 1 ? '' : 's'}${h.until !== undefined ? ` until ${hhmm(h.until, now)} (its dead man's switch then holds drift at 0)` : ''}`;
    case 'paused':
      return 'paused: no karp-drift run is live';
    case 'windowed':
      return `paused by the window: the run stopped outside its upgrade windows (${h.windowFlags.join(' ')}), and the same upgrade re-run inside one goes on`;
  }
}

/** The commands that will work now, for `nodePool` (undefined: all of them). */
export function holdStateNext(h: HoldState, nodePool?: string): string {
  const scope = nodePool !== undefined ? ` --nodepool ${nodePool}` : '';
  switch (h.state) {
    case 'paced':
      return 'the live run releases its holds as it goes and when it ends; follow it with: karp-drift wait (pause, resume, rollback and another upgrade are refused while it holds the cluster lock)';
    case 'unknown':
      if (h.lock !== undefined) return `look again in ${Math.ceil(h.lock.decidedWithinMs / 1000)}s: by then the run has renewed its lease or is gone`;
      return `see whether a run is live: kubectl get lease ${LEASE_NAME} -n <lock namespace> -o yaml (reading it needs get on that Lease)`;
    case 'draining':
      return `stop it now: karp-drift pause${scope}; then re-run the staged upgrade to go on, or karp-drift rollback`;
    case 'windowed':
      return `run the same upgrade inside the next window (a scheduler can run it every window), release the hold with karp-drift resume${scope} (its windows go too), or roll back with karp-drift rollback`;
    case 'switched':
    case 'paused':
      return `re-run the staged upgrade to go on from where the cluster stands, release the hold with karp-drift resume${scope}, or roll back with karp-drift rollback`;
  }
}
