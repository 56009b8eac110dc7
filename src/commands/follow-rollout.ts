// The follow loop of `upgrade` and `rollback`: watches feed a snapshot (rollout/snapshot.ts), the pure tracker says
// where each NodePool stands, and this loop owns the rollout's timers: how often to redraw, when "no progress" becomes
// a stall (--stall-timeout), and when to give up (--timeout). Following only reads, so an interrupt stops it at once.
// `status --watch` shares the watches and the snapshot, without a rollout to judge (commands/status.ts).
import type { CommandContext } from '../cli.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { followCluster } from '../cluster/follow.js';
import { readDiagnosisReads } from '../cluster/inventory.js';
import type { ClusterChange, Inventory } from '../cluster/views.js';
import { InterruptedError, RuntimeFailure, StalledError, TimeoutError } from '../errors.js';
import { blockedEvent, blockerText, doneEvent, eventTime, ndjsonLine, progressEvent, progressFrame, progressLogLines, stallSummary, unreportedBlockers, type RolloutResult } from '../report/progress.js';
import { applyChange, emptySnapshot, karpenterNodesOf } from '../rollout/snapshot.js';
import { diagnose, type Blocker } from '../rollout/stalls.js';
import { humanDuration } from '../rollout/text.js';
import { liveDisplay } from './live-display.js';
import { track, type RolloutProgress, type RolloutScope } from '../rollout/track.js';
import { nodeClassReadiness } from '../rollout/readiness.js';

export interface FollowSettings {
  scope: RolloutScope;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** Shown on interrupt and timeout: how to pick the rollout up again. */
  resumeCommand: string;
}

/** How often the loop re-evaluates without a change: elapsed time, stall and timeout clocks. */
const TICK_MS = 1000;
/** A change is folded in at once, but the tracker runs at most this often (a rollout is thousands of changes). */
const SETTLE_MS = 50;
/** While nothing moves, re-read PDBs and pods and diagnose at most this often. */
const DIAGNOSE_EVERY_MS = 30_000;
/**
 * While it moves, look this often for the blockers that read only what the watches keep current (no API call): a
 * replacement failing to launch or to register is worth a word even when the rollout goes on, or later recovers.
 */
const WATCHED_CHECK_EVERY_MS = 5_000;
const WATCHED_CODES = new Set<Blocker['code']>(['STALL-LAUNCH', 'STALL-REGISTRATION']);

type Emit = (text: string) => void;

export async function followRollout(ctx: CommandContext, cluster: Cluster, discovery: Discovery, inventory: Inventory, settings: FollowSettings): Promise<RolloutProgress> {
  const { scope } = settings;
  const json = ctx.globals.output === 'json';
  const display = !json && ctx.io.interactive && !ctx.globals.quiet ? liveDisplay(ctx.io, 'err') : undefined;
  const out: Emit = (t) => ctx.io.out(t);
  const err: Emit = (t) => ctx.io.err(t);
  const snapshot = emptySnapshot();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  let progress: RolloutProgress | undefined;
  /** The last full diagnosis (cleared when the rollout moves) and the last look at the watched blockers. */
  let diagnosed: Blocker[] = [];
  let watched: Blocker[] = [];
  const reported = new Map<string, string>();
  let lastDiagnosis = 0;
  let lastWatchedCheck = 0;
  let context = { pdbs: inventory.pdbs, pods: inventory.pods, nodePools: inventory.nodePools };
  let failure: Error | undefined;
  const readiness = new Map<string, string>();

  const finish = (result: RolloutResult, now: Date) => {
    if (json && progress) out(ndjsonLine(doneEvent(result, progress, cluster.identity, now)));
  };

  const evaluate = async (): Promise<'continue' | RolloutResult> => {
    const now = new Date();
    for (const r of nodeClassReadiness(snapshot, scope)) {
      if (readiness.get(r.nodeClass) === r.state) continue;
      readiness.set(r.nodeClass, r.state);
      if (r.state === 'failed') throw new RuntimeFailure(`ec2nodeclass/${r.nodeClass}: ${r.message}`, { hint: r.next });
      if (r.state === 'ready') {
        if (json) out(`${JSON.stringify({ type: 'nodeclass-ready', time: eventTime(now), nodeClass: r.nodeClass, generation: r.generation, amis: r.amis })}\n`);
        else if (!ctx.globals.quiet) (display ? (t: string) => display.log(t) : err)(`ec2nodeclass/${r.nodeClass}: AMIsReady with ${r.amis.map((a) => a.id).join(', ')} (generation ${r.generation})\n`);
      }
    }
    const previous = progress;
    progress = track(previous, snapshot, scope, now);
    const moved = previous !== undefined && progress.lastProgressAt.getTime() === now.getTime();
    if (moved) diagnosed = []; // it moved: whatever blocked it is stale
    const quietFor = now.getTime() - progress.lastProgressAt.getTime();
    if (progress.synced && !progress.done && quietFor >= Math.min(DIAGNOSE_EVERY_MS, settings.stallTimeoutMs / 2) && now.getTime() - lastDiagnosis >= DIAGNOSE_EVERY_MS) {
      lastDiagnosis = now.getTime();
      lastWatchedCheck = now.getTime();
      const fresh = await readDiagnosisReads(cluster, discovery, karpenterNodesOf(snapshot), stop.signal).catch(() => undefined);
      if (fresh) context = fresh;
      diagnosed = diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now);
      watched = diagnosed.filter((b) => WATCHED_CODES.has(b.code));
    } else if (progress.synced && !progress.done && now.getTime() - lastWatchedCheck >= WATCHED_CHECK_EVERY_MS) {
      lastWatchedCheck = now.getTime();
      // The NodePools, PDBs and pods of the last read may be stale: only the checks of watched kinds are trusted here.
      watched = diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now).filter((b) => WATCHED_CODES.has(b.code));
    }
    const blockers = [...diagnosed, ...watched.filter((w) => !diagnosed.some((d) => d.code === w.code && d.nodePool === w.nodePool))];
    // Each blocker is reported once as it is found, and again only when its evidence changes (report/progress.ts).
    const fresh = unreportedBlockers(blockers, reported);
    if (json) {
      for (const b of fresh) out(ndjsonLine(blockedEvent(b, 'early', now)));
      if (!previous || progress.lastProgressAt !== previous.lastProgressAt || progress.message !== previous.message) out(ndjsonLine(progressEvent(progress, now)));
    } else if (display) {
      const shown = progress;
      display.show((screen) => progressFrame(shown, blockers, now, { color: ctx.globals.color, screen }));
    } else if (!ctx.globals.quiet) {
      err(progressLogLines(previous, progress, now));
      const elapsed = `[${humanDuration(now.getTime() - scope.startedAt.getTime())}]`;
      for (const b of fresh) err(`${elapsed} ${blockerText(b)}`);
    }
    if (progress.done) return 'succeeded';
    if (now.getTime() - scope.startedAt.getTime() >= settings.timeoutMs) return 'timeout';
    if (progress.synced && now.getTime() - progress.lastProgressAt.getTime() >= settings.stallTimeoutMs) return 'stalled';
    return 'continue';
  };

  const following = followCluster(cluster, {
    karpenterApi: discovery.karpenterApi,
    signal: stop.signal,
    onChange: (change: ClusterChange) => {
      applyChange(snapshot, change);
      schedule(SETTLE_MS);
    },
    onError: (e) => {
      failure = e;
      stop.abort();
    },
  });

  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running = false;
  let wake: ((v: RolloutResult | undefined) => void) | undefined;
  const outcome = new Promise<RolloutResult | undefined>((resolve) => (wake = resolve));
  // A change runs the tracker within SETTLE_MS; without changes it runs every TICK_MS. An earlier run replaces a
  // later one, never the other way round, so a burst of changes costs one evaluation.
  function schedule(delay: number): void {
    const at = Date.now() + delay;
    if (timer !== undefined && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => void run(), delay);
  }
  async function run(): Promise<void> {
    timer = undefined;
    timerAt = Infinity;
    if (stop.signal.aborted) return;
    if (running) return schedule(SETTLE_MS); // an evaluation is reading the cluster: look again right after it
    running = true;
    try {
      const result = await evaluate();
      if (result !== 'continue') return wake?.(result);
      schedule(TICK_MS);
    } catch (e) {
      failure = e instanceof Error ? e : new Error(String(e));
      wake?.(undefined);
    } finally {
      running = false;
    }
  }
  stop.signal.addEventListener('abort', () => wake?.(undefined), { once: true });
  schedule(TICK_MS);

  const result = await outcome;
  clearTimeout(timer);
  stop.abort();
  await following;
  ctx.signal.removeEventListener('abort', onAbort);
  const now = new Date();
  display?.end();

  if (failure) {
    finish('failed', now);
    throw failure;
  }
  if (result === undefined) {
    finish('interrupted', now);
    throw new InterruptedError(`interrupted while following the rollout${progress ? `: ${progress.message}` : ''}; nothing more was changed`, {
      hint: `the rollout goes on in the cluster; follow it again with: ${settings.resumeCommand}`,
    });
  }
  const final = progress!;
  if (result !== 'stalled') finish(result, now);
  if (result === 'timeout') {
    throw new TimeoutError(`timed out after ${humanDuration(settings.timeoutMs)} waiting for the drift rollout: ${final.message}`, {
      hint: `Karpenter goes on replacing nodes; follow it again with: ${settings.resumeCommand}`,
    });
  }
  if (result === 'stalled') {
    const fresh = await readDiagnosisReads(cluster, discovery, karpenterNodesOf(snapshot)).catch(() => undefined);
    if (fresh) context = fresh;
    const blockers = diagnose(snapshot, { scope, ...context, karpenterApi: discovery.karpenterApi }, now);
    if (json) for (const b of blockers) out(ndjsonLine(blockedEvent(b, 'stall', now)));
    else err(stallSummary(final, blockers, now));
    finish('stalled', now);
    throw new StalledError(`the rollout made no progress for ${humanDuration(settings.stallTimeoutMs)} (--stall-timeout)${blockers.length > 0 ? `: ${[...new Set(blockers.map((b) => b.code))].join(', ')}` : ''}; the changes stay applied`, {
      hint: `resolve the blockers ${json ? "(the 'blocked' events on stdout)" : 'above'}, then follow again with: ${settings.resumeCommand}`,
    });
  }
  return final;
}
