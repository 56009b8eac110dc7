// How `upgrade` shows a rollout it follows, in its three outputs: a frame redrawn on a terminal, a line per change
// for logs, and NDJSON events for scripts (STYLE.md "Follow a rollout in three parts"; aws-cdk-cli's
// activity printers). Each is `(…) => string`; the follow loop decides when to write it.
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { Screen } from './screen.js';
import type { Blocker } from '../rollout/stalls.js';
import { etaDuration, humanDuration, plural, utcTime } from '../text/words.js';
import { displayWidth } from '../text/width.js';
import type { NodePoolCounts, NodePoolProgress, RolloutProgress } from '../rollout/track.js';
import { fitLine, frameRows } from './screen.js';

const BAR_WIDTH = 20;
/** Below this, a quiet spell is just the time between two steps and not worth a word. */
const QUIET_MS = 60_000;
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RESET = '\u001b[0m';

/** The first blocker of a NodePool, including one of its EC2NodeClass. */
export function blockerOf(
  pool: { name: string; nodeClass: string },
  blockers: readonly Blocker[],
): Blocker | undefined {
  return blockers.find((b) => b.nodePool === pool.name || (b.nodePool === undefined && b.nodeClass === pool.nodeClass));
}

/**
 * The terminal frame, as lines: a header, then per NodePool a bar of replaced nodes, the counts that are not zero, and
 * the NodePool's first blocker. Given a screen, every line fits its width (counts that do not fit beside the bar get
 * a line of their own; a blocker is cut, the stall summary and the log print it whole) and the frame fits its height:
 * NodePools still rolling come before done ones, and "… N more NodePools" stands for the rest.
 */
export function progressFrame(
  progress: RolloutProgress,
  blockers: readonly Blocker[],
  now: Date,
  options: { color?: boolean; screen?: Screen; windowClosesAt?: Date } = {},
): string[] {
  const { screen } = options;
  const paint = (code: string, text: string) => (options.color === true ? `${code}${text}${RESET}` : text);
  const fit = (l: string) => (screen === undefined ? l : fitLine(l, screen.columns));
  const quiet = now.getTime() - progress.lastProgressAt.getTime();
  const stillFor = !progress.done && quiet >= QUIET_MS ? `, no progress for ${humanDuration(quiet)}` : '';
  // With --window: when the open window closes (the run then leaves the rollout held), beside the stage line's ETA.
  const closes = options.windowClosesAt;
  const window = closes === undefined || progress.done ? '' : `; window closes in ${etaDuration(Math.max(0, closes.getTime() - now.getTime()))} (${utcTime(closes).slice(11, 16)} UTC)`;
  const header = `Drift to Kubernetes ${progress.targetMinor}: ${humanDuration(now.getTime() - progress.startedAt.getTime())} elapsed${stillFor}${window}`;
  if (!progress.synced) return [header, progress.message].map(fit);
  const width = Math.max(...progress.nodePools.map((p) => p.name.length));
  const barWidth = screen === undefined ? BAR_WIDTH : fittedBar(progress.nodePools, width, screen.columns);
  const blocks = progress.nodePools.map((pool) => {
    const scale = pool.replaced + pool.remaining;
    const filled = scale === 0 ? barWidth : Math.round((pool.replaced / scale) * barWidth);
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}]`;
    const counts = (['drifted', 'disrupting', 'launching', 'initializing'] as const).flatMap((k) =>
      pool[k] > 0 ? [`${pool[k]} ${k}`] : [],
    );
    // Nothing was off target when the run first listed it (a re-run, a NodePool already rolled): `0/0 replaced` read
    // as if nothing had been done, so say where its nodes stand.
    const count =
      scale > 0 ? `${pool.replaced}/${scale} replaced` : pool.total === 0 ? 'no nodes' : `${pool.onTarget}/${pool.total} already on target`;
    const head = `${pool.name.padEnd(width)}  ${bar}  ${count}`;
    const done = pool.done ? `  ${paint(GREEN, 'done')}` : '';
    const indent = ' '.repeat(width + 2);
    const oneLine = [head, ...counts].join('  ');
    const lines =
      screen === undefined || counts.length === 0 || displayWidth(oneLine) <= screen.columns
        ? [`${oneLine}${done}`]
        : [
            `${head}${done}`,
            `${displayWidth(indent) + displayWidth(counts.join('  ')) <= screen.columns ? indent : '  '}${counts.join('  ')}`,
          ];
    const blocker = pool.done ? undefined : blockerOf(pool, blockers);
    if (blocker !== undefined) lines.push(`${indent}${paint(YELLOW, `${blocker.code}: ${blocker.message}`)}`);
    return { pool, lines: lines.map(fit) };
  });
  const room = screen === undefined ? Infinity : frameRows(screen) - 1;
  const all = blocks.reduce((n, b) => n + b.lines.length, 0);
  const shown = new Set<(typeof blocks)[number]>();
  if (all <= room) for (const b of blocks) shown.add(b);
  else {
    let used = 1; // the "… N more" line
    for (const b of [...blocks.filter((b) => !b.pool.done), ...blocks.filter((b) => b.pool.done)]) {
      if (used + b.lines.length > room) break;
      shown.add(b);
      used += b.lines.length;
    }
  }
  const hidden = blocks.filter((b) => !shown.has(b)).map((b) => b.pool);
  const hiddenDone = hidden.filter((p) => p.done).length;
  const more =
    hidden.length === 0
      ? []
      : [
          fit(
            `… ${plural(hidden.length, 'more NodePool', 'more NodePools')}${hiddenDone > 0 ? ` (${hiddenDone} done)` : ''}`,
          ),
        ];
  const frame = [fit(header), ...blocks.filter((b) => shown.has(b)).flatMap((b) => b.lines), ...more];
  return screen === undefined ? frame : frame.slice(0, frameRows(screen));
}

/** Below this a bar shows too little: the line is cut instead. */
const MIN_BAR_WIDTH = 8;

/**
 * The bar's width on a narrow screen: as wide as lets `<name>  [bar]  24/24 replaced  done` fit, so a NodePool's
 * count and its `done` are not cut (at 50 columns a 20-column bar left `do…`).
 */
function fittedBar(pools: readonly NodePoolProgress[], nameWidth: number, columns: number): number {
  const counts = Math.max(...pools.map((p) => `${p.replaced}/${p.replaced + p.remaining} replaced`.length));
  const rest = nameWidth + '  []  '.length + counts + '  done'.length;
  return Math.max(MIN_BAR_WIDTH, Math.min(BAR_WIDTH, columns - rest));
}

/**
 * How often a NodePool's log line may repeat while it rolls. On 5,000 nodes every replacement changes the counts, and
 * a line per change is thousands of lines no one reads; a NodePool's first line and its done line are printed at
 * once, and its newest state otherwise at most this often (the follow loop evaluates at least every second).
 */
export const LOG_EVERY_MS = 10_000;

/** What the log printed so far: per NodePool its last line and when, the unsynced message, and the rollout's done. */
export interface ProgressLog {
  message?: string;
  pools: Map<string, { message: string; at: number }>;
  done: boolean;
}

export function newProgressLog(): ProgressLog {
  return { pools: new Map(), done: false };
}

/**
 * For a log (stderr not a terminal): a line per NodePool whose status line changed, prefixed with the time elapsed,
 * as kubectl rollout status prints a line per change, throttled per NodePool to one per `everyMs` but for its first
 * line and its done line. Records what it prints in `log`. Empty when there is nothing to print.
 */
export function progressLogLines(log: ProgressLog, next: RolloutProgress, now: Date, everyMs = LOG_EVERY_MS): string {
  const elapsed = `[${humanDuration(now.getTime() - next.startedAt.getTime())}]`;
  if (!next.synced) {
    if (log.message === next.message) return '';
    log.message = next.message;
    return `${elapsed} ${next.message}\n`;
  }
  const lines = next.nodePools.flatMap((p) => {
    const last = log.pools.get(p.name);
    if (last?.message === p.message) return [];
    if (last !== undefined && !p.done && now.getTime() - last.at < everyMs) return [];
    log.pools.set(p.name, { message: p.message, at: now.getTime() });
    return [`${elapsed} ${p.message}`];
  });
  if (next.done && !log.done && next.nodePools.length > 1) lines.push(`${elapsed} ${next.message}`);
  log.done = next.done;
  return lines.map((l) => `${l}\n`).join('');
}

/**
 * When a blocker was reported: `early`, diagnosed while the rollout goes on (no progress for a while, or a replacement
 * failing to launch), or `stall`, the verdict printed when --stall-timeout passes.
 */
export type BlockedStage = 'early' | 'stall';

/** Every NDJSON `time`: ISO 8601 in UTC with milliseconds, as `Date.toISOString` writes it. */
export function eventTime(now: Date): string {
  return now.toISOString();
}

/** A blocker's identity: its code and what it holds (a NodePool, else an EC2NodeClass). */
export function blockerIdentity(b: Blocker): string {
  return `${b.code}/${b.nodePool ?? ''}/${b.nodeClass ?? ''}`;
}

// Durations in humanDuration's form (45s, 5m30s, 3h, 2d4h, 1y12d): a message saying "12m after the change" and an
// evidence line saying "(2m ago, x4 over 9m)" read differently every minute without saying anything new.
const DURATION = /\b\d+(?:y\d+d|d\d+h|h\d+m|m\d+s|[smhdy])\b/g;
const EVENT_WHEN = / \(\S+ ago(?:, x\d+ over \S+)?\)/g;
// A crash-looping container's restart count (STALL-BAD-AMI) rises with every back-off: the clock too, not news.
const RESTARTS = /\b\d+ restarts?\b/g;

/** What a blocker says, less the clock: when it changes, the blocker is worth reporting again. */
export function blockerEvidenceKey(b: Blocker): string {
  const steady = (t: string) => t.replace(EVENT_WHEN, '').replace(DURATION, '…').replace(RESTARTS, '… restarts');
  return [b.message, ...b.evidence, b.next].map(steady).join('\n');
}

/**
 * What the log printed of each blocker identity: the evidence keys of the blockers it had when last diagnosed. One
 * identity may have several blockers at once (two PDBs each holding pods of one NodePool are two `STALL-PDB`s of it), so
 * it keeps a set: with one key per identity the two overwrote each other's and each looked new on every turn (issue 35:
 * 82,375 lines in 15 minutes).
 */
export type ReportedBlockers = Map<string, ReadonlySet<string>>;

/**
 * The blockers not reported yet, or reported with other evidence; `reported` records them. One blocker is reported
 * once however often it is diagnosed, whatever the number of blockers per NodePool. An identity's record is what its
 * latest diagnosis found, so a blocker whose evidence changed back (A, B, then A again) is reported again; an identity
 * not diagnosed this time keeps its record (a blocker that comes back as it was is not news).
 */
export function unreportedBlockers(blockers: readonly Blocker[], reported: ReportedBlockers): Blocker[] {
  const now = new Map<string, Set<string>>();
  const fresh = blockers.filter((b) => {
    const id = blockerIdentity(b);
    const key = blockerEvidenceKey(b);
    const keys = now.get(id) ?? new Set<string>();
    now.set(id, keys);
    if (keys.has(key)) return false; // the same finding twice in one diagnosis
    keys.add(key);
    return reported.get(id)?.has(key) !== true;
  });
  for (const [id, keys] of now) reported.set(id, keys);
  return fresh;
}

/**
 * What a log (stderr not a terminal) gets on one turn of the follow: the lines of the NodePools whose state changed
 * (`progressLogLines`), then each blocker not reported yet (`unreportedBlockers`), whole and prefixed with the time.
 */
export function followLogText(log: ProgressLog, progress: RolloutProgress, fresh: readonly Blocker[], now: Date): string {
  const elapsed = `[${humanDuration(now.getTime() - progress.startedAt.getTime())}]`;
  return progressLogLines(log, progress, now) + fresh.map((b) => `${elapsed} ${blockerText(b)}`).join('');
}

/** `window`: the upgrade window closed (`--window`); its `done` says `paused`, with cause `window`. */
export type RolloutResult =
  | 'succeeded'
  | 'stalled'
  | 'timeout'
  | 'interrupted'
  | 'failed'
  | 'paused'
  | 'halted'
  | 'window'
  | 'sync';

export interface NodePoolSummary extends NodePoolCounts {
  name: string;
  nodeClass: string;
  done: boolean;
}

/** The NDJSON events of `upgrade -o json`: one object per line, each with `type` and `time` first. */
export type RolloutEvent =
  | {
      type: 'progress';
      time: string;
      elapsedSeconds: number;
      message: string;
      nodePools: Array<NodePoolSummary & { message: string }>;
    }
  | ({ type: 'blocked'; time: string; stage: BlockedStage } & Blocker)
  | {
      type: 'done';
      time: string;
      result: RolloutResult;
      cluster: ClusterIdentity;
      durationSeconds: number;
      message: string;
      nodePools: NodePoolSummary[];
    };

function summary(p: NodePoolProgress): NodePoolSummary {
  return {
    name: p.name,
    nodeClass: p.nodeClass,
    total: p.total,
    onTarget: p.onTarget,
    replaced: p.replaced,
    remaining: p.remaining,
    drifted: p.drifted,
    disrupting: p.disrupting,
    launching: p.launching,
    initializing: p.initializing,
    terminating: p.terminating,
    done: p.done,
  };
}

const seconds = (from: Date, to: Date) => Math.round((to.getTime() - from.getTime()) / 1000);

export function progressEvent(progress: RolloutProgress, now: Date): RolloutEvent {
  return {
    type: 'progress',
    time: eventTime(now),
    elapsedSeconds: seconds(progress.startedAt, now),
    message: progress.message,
    nodePools: progress.nodePools.map((p) => ({ ...summary(p), message: p.message })),
  };
}

export function blockedEvent(blocker: Blocker, stage: BlockedStage, now: Date): RolloutEvent {
  return {
    type: 'blocked',
    time: eventTime(now),
    stage,
    code: blocker.code,
    ...(blocker.nodePool !== undefined ? { nodePool: blocker.nodePool } : {}),
    ...(blocker.nodeClass !== undefined ? { nodeClass: blocker.nodeClass } : {}),
    message: blocker.message,
    evidence: blocker.evidence,
    next: blocker.next,
  };
}

export function doneEvent(
  result: RolloutResult,
  progress: RolloutProgress,
  cluster: ClusterIdentity,
  now: Date,
): RolloutEvent {
  return {
    type: 'done',
    time: eventTime(now),
    result,
    cluster,
    durationSeconds: seconds(progress.startedAt, now),
    message: progress.message,
    nodePools: progress.nodePools.map(summary),
  };
}

export function ndjsonLine(event: RolloutEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** A blocker as the stall summary and `status` print it: the coded line, evidence, and what to do next. */
export function blockerText(b: Blocker): string {
  return blockerLines(b)
    .map((l) => `${l}\n`)
    .join('');
}

/** The same, line by line (`status --watch` wraps each to the screen). */
export function blockerLines(b: Blocker): string[] {
  return [`${b.code}: ${b.message}`, ...b.evidence.map((e) => `  - ${e}`), `  next: ${b.next}`];
}

/** What exit code 4 prints: how long nothing moved, where each NodePool stands, and the diagnosis. */
export function stallSummary(progress: RolloutProgress, blockers: readonly Blocker[], now: Date): string {
  const quiet = humanDuration(now.getTime() - progress.lastProgressAt.getTime());
  const head = [
    `Rollout stalled: no progress for ${quiet} (since ${utcTime(progress.lastProgressAt)})`,
    ...progress.nodePools.filter((p) => !p.done).map((p) => `  ${p.message}`),
  ];
  const body =
    blockers.length > 0
      ? blockers.map(blockerText)
      : [
          'No known blocker found.\n  next: kubectl get nodeclaims -o wide; kubectl get events -A --field-selector reason=DisruptionBlocked\n',
        ];
  return `${head.join('\n')}\n\n${body.join('\n')}`;
}
