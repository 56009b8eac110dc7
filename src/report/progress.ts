// How `upgrade` shows a rollout it follows, in its three outputs: a frame redrawn on a terminal, a line per change
// for logs, and NDJSON events for scripts (STYLE.md "Follow a rollout in three parts"; aws-cdk-cli's
// activity printers). Each is `(…) => string`; the follow loop decides when to write it.
import type { Blocker } from '../rollout/stalls.js';
import { humanDuration, utcTime } from '../rollout/text.js';
import type { NodePoolCounts, NodePoolProgress, RolloutProgress } from '../rollout/track.js';

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
 * The terminal frame: a header, then per NodePool a bar of replaced nodes, the counts that are not zero, and the
 * NodePool's first blocker. Ends with a newline; `redrawFrame` replaces the previous one in place.
 */
export function progressFrame(
  progress: RolloutProgress,
  blockers: readonly Blocker[],
  now: Date,
  options: { color?: boolean } = {},
): string {
  const paint = (code: string, text: string) => (options.color === true ? `${code}${text}${RESET}` : text);
  const quiet = now.getTime() - progress.lastProgressAt.getTime();
  const stillFor = !progress.done && quiet >= QUIET_MS ? `, no progress for ${humanDuration(quiet)}` : '';
  const header = `Drift to Kubernetes ${progress.targetMinor}: ${humanDuration(now.getTime() - progress.startedAt.getTime())} elapsed${stillFor}`;
  if (!progress.synced) return `${header}\n${progress.message}\n`;
  const width = Math.max(...progress.nodePools.map((p) => p.name.length));
  const lines = [header];
  for (const pool of progress.nodePools) {
    const scale = pool.replaced + pool.remaining;
    const filled = scale === 0 ? BAR_WIDTH : Math.round((pool.replaced / scale) * BAR_WIDTH);
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
    const counts = [
      `${pool.replaced}/${scale} replaced`,
      ...(['drifted', 'disrupting', 'launching', 'initializing'] as const).flatMap((k) =>
        pool[k] > 0 ? [`${pool[k]} ${k}`] : [],
      ),
    ];
    lines.push(
      `${pool.name.padEnd(width)}  ${bar}  ${counts.join('  ')}${pool.done ? `  ${paint(GREEN, 'done')}` : ''}`,
    );
    const blocker = pool.done ? undefined : blockerOf(pool, blockers);
    if (blocker !== undefined)
      lines.push(`${' '.repeat(width)}  ${paint(YELLOW, `${blocker.code}: ${blocker.message}`)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Moves the cursor up over `previous` (a frame as printed), clears to the end of the screen and prints `frame`. */
export function redrawFrame(previous: string | undefined, frame: string): string {
  const rows = previous === undefined ? 0 : previous.split('\n').length - 1;
  return `${rows > 0 ? `\u001b[${rows}A` : ''}\u001b[J${frame}`;
}

/**
 * For a log (stderr not a terminal): one line per NodePool whose status line changed, prefixed with the time
 * elapsed, as kubectl rollout status prints a line per change. Empty when nothing changed.
 */
export function progressLogLines(previous: RolloutProgress | undefined, next: RolloutProgress, now: Date): string {
  const elapsed = `[${humanDuration(now.getTime() - next.startedAt.getTime())}]`;
  if (!next.synced) return previous?.message === next.message ? '' : `${elapsed} ${next.message}\n`;
  const lines = next.nodePools
    .filter((p) => previous?.nodePools.find((q) => q.name === p.name)?.message !== p.message)
    .map((p) => `${elapsed} ${p.message}`);
  if (next.done && previous?.done !== true && next.nodePools.length > 1) lines.push(`${elapsed} ${next.message}`);
  return lines.map((l) => `${l}\n`).join('');
}

export type RolloutResult = 'succeeded' | 'stalled' | 'timeout' | 'interrupted' | 'failed';

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
  | ({ type: 'blocked'; time: string } & Blocker)
  | {
      type: 'done';
      time: string;
      result: RolloutResult;
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
    time: utcTime(now),
    elapsedSeconds: seconds(progress.startedAt, now),
    message: progress.message,
    nodePools: progress.nodePools.map((p) => ({ ...summary(p), message: p.message })),
  };
}

export function blockedEvent(blocker: Blocker, now: Date): RolloutEvent {
  return {
    type: 'blocked',
    time: utcTime(now),
    code: blocker.code,
    ...(blocker.nodePool !== undefined ? { nodePool: blocker.nodePool } : {}),
    ...(blocker.nodeClass !== undefined ? { nodeClass: blocker.nodeClass } : {}),
    message: blocker.message,
    evidence: blocker.evidence,
    next: blocker.next,
  };
}

export function doneEvent(result: RolloutResult, progress: RolloutProgress, now: Date): RolloutEvent {
  return {
    type: 'done',
    time: utcTime(now),
    result,
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
  return [`${b.code}: ${b.message}`, ...b.evidence.map((e) => `  - ${e}`), `  next: ${b.next}`]
    .map((l) => `${l}\n`)
    .join('');
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
