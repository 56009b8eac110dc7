// The holds on drift that karp-drift owns, as `status` shows them: a NodePool's budget hold (its
// karp-drift.io/drift-hold record and the `{nodes: "<n>", reasons: [Drifted]}` budget it appended) and the Nodes
// that carry karp-drift.io/held-by. `pause` and an interrupted staged upgrade leave them on purpose, so status
// names each one, the run that put it there, and how to lift it. Pure: views and `now` in, data or text out.
import type { NodePoolView, NodeView } from '../karpenter/views.js';
import type { Budget } from '../karpenter/budgets.js';
import { humanDuration, plural, utcTime } from '../text/words.js';
import { decodeHoldRecord, heldAllowance, HOLD_ANNOTATION, holdWithoutReasons, switchState } from '../apis/budget-hold.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';
import { holdState, holdStateNext, leaseRenewedText, holdStateText, type HoldState, type RunLock } from '../apis/hold-state.js';
import { fitColumns } from '../text/table.js';
import { recordedWindowState } from '../stages/window-hold.js';
import type { WindowState } from '../windows/calendar.js';
import { windowTimesJson, windowWaitText } from './windows.js';
import { wrapText } from './screen.js';
import { inOrder } from '../text/order.js';

export interface DriftHold {
  nodePool: string;
  mechanism: HoldMechanism;
  /** Budget holds: when the hold was first put on (ISO 8601, as recorded). */
  since?: string;
  /** The run that holds it; absent only when the record cannot be read. */
  runId?: string;
  /** Budget holds: the Drifted allowance of karp-drift's budget; absent when that budget is no longer in the list. */
  allowance?: number;
  /** Node holds: how many Nodes carry the run's do-not-disrupt. */
  nodes?: number;
  /** Budget holds: `spec.disruption.budgets` as recorded before the hold (null: the field was absent). */
  budgets?: Budget[] | null;
  /**
   * Budget holds of a staged run: when its dead man's switch fired (`switchActive`: Karpenter's IsActive reads it as
   * holding drift at 0 now, so the run that wrote it stopped moving it ahead) or fires next.
   */
  switchAt?: string;
  switchActive?: boolean;
  /** A hand-edited record karp-drift will not guess at (resume refuses it too). */
  error?: string;
  /** What the hold means now: paced by a live run, paused, a dead run's switch, still draining (apis/hold-state.ts). */
  state: HoldState;
  /**
   * Budget holds the server kept without `reasons` (Karpenter v1beta1, DOMAIN.md §2.9): the budget holds every
   * disruption method, not only drift. Text only.
   */
  everyReason?: boolean;
  /** Paused by its upgrade windows (state `windowed`): where they stand now (undefined: the flags no longer read). */
  window?: WindowState;
}

/** The holds on `pools` (budget first, then node holds by run), NodePools by name; `lock`: the cluster lock read. */
export function driftHolds(
  pools: readonly NodePoolView[],
  nodes: Iterable<NodeView>,
  now: Date,
  lock: RunLock = { state: 'none' },
): DriftHold[] {
  const all = [...nodes];
  const holds: DriftHold[] = [];
  for (const pool of [...pools].sort((a, b) => inOrder(a.name, b.name))) {
    const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
    const heldNodes = all.filter((n) => n.nodePool === pool.name && n.heldBy !== undefined).length;
    const state = holdState(pool, heldNodes, lock, now) ?? { state: 'paused' };
    if (record !== undefined && 'error' in record) {
      holds.push({ nodePool: pool.name, mechanism: 'budget', error: record.error, state });
    } else if (record !== undefined) {
      const allowance = heldAllowance(pool.budgets, record);
      const sw = switchState(pool.budgets, now, record);
      holds.push({
        nodePool: pool.name,
        mechanism: 'budget',
        since: record.since,
        runId: record.runId,
        ...(allowance !== undefined ? { allowance } : {}),
        budgets: record.budgets,
        ...(sw?.at !== undefined ? { switchAt: sw.at.toISOString() } : {}),
        ...(sw !== undefined ? { switchActive: sw.active } : {}),
        state,
        ...(holdWithoutReasons(pool.budgets, record) ? { everyReason: true } : {}),
        ...(state.state === 'windowed' ? windowOf(state.windowFlags, now) : {}),
      });
    }
    const byRun = new Map<string, number>();
    for (const { nodePool, heldBy } of all) {
      if (nodePool === pool.name && heldBy !== undefined) byRun.set(heldBy, (byRun.get(heldBy) ?? 0) + 1);
    }
    for (const [runId, count] of [...byRun].sort(([a], [b]) => inOrder(a, b))) {
      holds.push({ nodePool: pool.name, mechanism: 'node', runId, nodes: count, state });
    }
  }
  return holds;
}

function windowOf(flags: readonly string[], now: Date): { window?: WindowState } {
  const window = recordedWindowState(flags, now);
  return window !== undefined ? { window } : {};
}

const shortRun = (runId: string) => (runId.length > 9 ? `${runId.slice(0, 8)}…` : runId);

function holdCell(h: DriftHold, now: Date): string {
  if (h.error !== undefined) return 'unreadable record';
  if (h.mechanism === 'node') return `do-not-disrupt on ${plural(h.nodes ?? 0, 'node')}`;
  // The record is there but its budget is not: somebody (a GitOps sync) put the list back; drift is not held.
  if (h.allowance === undefined) return 'budget gone, record left';
  const which = h.everyReason ? 'every reason' : 'Drifted';
  if (h.switchAt !== undefined && h.allowance > 0) {
    const at = new Date(h.switchAt);
    // A staged run's switch: moved ahead while the run lives; active, the run is gone and Karpenter holds at 0.
    return h.switchActive === true
      ? `budget 0 since ${shortTime(at, now)} (run gone)`
      : `budget (${which}: up to ${h.allowance}; 0 at ${shortTime(at, now)})`;
  }
  return `budget (${which}: ${h.allowance} more)`;
}

/** A time of day in UTC (`03:45Z`), with its date when it is not today's, so a cell stays narrow. */
function shortTime(d: Date, now: Date): string {
  const iso = utcTime(d);
  return iso.slice(0, 10) === utcTime(now).slice(0, 10) ? `${iso.slice(11, 16)}Z` : `${iso.slice(5, 10)} ${iso.slice(11, 16)}Z`;
}

/** kubectl's AGE, to the minute: `status --watch` prints on change, and a hold's age in seconds changes every second. */
function age(since: string | undefined, now: Date): string {
  const t = since === undefined ? NaN : Date.parse(since);
  if (Number.isNaN(t)) return '-';
  const minutes = Math.floor((now.getTime() - t) / 60_000);
  return minutes < 1 ? '<1m' : minutes < 2 ? '1m' : humanDuration(minutes * 60_000);
}

/**
 * The section under the NodePool table, or '' when nothing is held. AGE is relative, as in `kubectl get` (the
 * recorded time is in `-o json`), so a row stays within 80 columns for NodePool names up to 17 characters.
 */
export function driftHoldsText(holds: readonly DriftHold[], now: Date): string {
  return driftHoldsLines(holds, now)
    .flat()
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * The same section for a screen `columns` wide (`status --watch`): the table fitted to it, the other lines wrapped,
 * each line given as the rows it takes there.
 */
export function driftHoldsLines(holds: readonly DriftHold[], now: Date, columns = Infinity): string[][] {
  if (holds.length === 0) return [];
  const table = fitColumns(
    ['NODEPOOL', 'HOLD', 'AGE', 'RUN'],
    holds.map((h) => [h.nodePool, holdCell(h, now), age(h.since, now), h.runId !== undefined ? shortRun(h.runId) : '-']),
    columns,
  );
  const unreadable = holds
    .filter((h) => h.error !== undefined)
    .flatMap((h) => [
      `nodepool/${h.nodePool}: ${h.error}`,
      `  next: set its budgets as they should be, then: kubectl annotate nodepool ${h.nodePool} ${HOLD_ANNOTATION}-`,
    ]);
  return [
    ...['Drift held by karp-drift:', ...table].map((l) => [l]),
    ...[...unreadable, ...holdsFooter(holds, now)].map((l) => wrapText(l, columns)),
  ];
}

/**
 * What the holds mean now and the commands that will work: a live run's holds are its own to release (resume would
 * wait for its lock); a dead run's hold that still drains is stopped with pause; the rest are paused.
 */
function holdsFooter(holds: readonly DriftHold[], now: Date): string[] {
  const paced = holds.find((h) => h.state.state === 'paced')?.state;
  if (paced?.state === 'paced') {
    // Its holder and command run long: indented below a heading of their own, so the heading fits 80 columns.
    const { holder, command } = paced.lock;
    return [
      `Paced by a live run${leaseRenewedText(paced.lock, now)}:`,
      `  ${holder}${command !== undefined ? `: karp-drift ${command}` : ''}`,
      `  next: ${holdStateNext(paced)}`,
    ];
  }
  const unknown = holds.find((h) => h.state.state === 'unknown')?.state;
  if (unknown !== undefined) return [`Whether a run is live: ${holdStateText(unknown, now)}`, `  next: ${holdStateNext(unknown)}`];
  const windowed = holds.find((h) => h.state.state === 'windowed');
  if (windowed?.state.state === 'windowed' && holds.every((h) => h.state.state === 'windowed')) {
    return [
      `Paused by the window: ${windowWaitText(windowed.window, now)}`,
      `  windows: ${windowed.state.windowFlags.join(' ')}`,
      `  next: ${holdStateNext(windowed.state)}`,
    ];
  }
  const draining = holds.filter((h) => h.state.state === 'draining');
  return [
    ...draining.flatMap((h) => [`nodepool/${h.nodePool}: ${holdStateText(h.state, now)}`, `  next: ${holdStateNext(h.state, h.nodePool)}`]),
    ...(draining.length < holds.length
      ? [
          holds.some((h) => h.state.state === 'switched')
            ? `The run that paced them is gone; its dead man's switch holds drift at 0. karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on`
            : 'karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on',
        ]
      : []),
  ];
}

/** `-o json`'s `holds[]`: the documented keys in order, absent ones left out. */
export function driftHoldsJson(holds: readonly DriftHold[]): Array<Record<string, unknown>> {
  return holds.map((h) => ({
    nodePool: h.nodePool,
    mechanism: h.mechanism,
    ...(h.since !== undefined ? { since: h.since } : {}),
    ...(h.runId !== undefined ? { runId: h.runId } : {}),
    ...(h.allowance !== undefined ? { allowance: h.allowance } : {}),
    ...(h.nodes !== undefined ? { nodes: h.nodes } : {}),
    ...(h.budgets !== undefined ? { budgets: h.budgets } : {}),
    ...(h.switchAt !== undefined ? { switchAt: h.switchAt } : {}),
    ...(h.error !== undefined ? { error: h.error } : {}),
    state: h.state.state,
    ...(h.state.state === 'paced' ? { pacedBy: h.state.lock.holder } : {}),
    ...(h.state.state === 'windowed' ? { windows: h.state.windowFlags, ...windowJson(h.window) } : {}),
  }));
}

/** When the next window opens (`opensAt`), or until when the open one lasts (`closesAt`); null: never. */
function windowJson(w: WindowState | undefined): Record<string, unknown> {
  return w === undefined ? {} : { windowOpen: w.open, ...windowTimesJson(w) };
}
