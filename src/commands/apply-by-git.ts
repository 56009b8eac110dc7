// `upgrade --apply-by git` between the holds and the follow: the holds go on first (nothing may drift past the first
// wave once the terms land), then the run says what to merge and waits, bounded by --sync-timeout, until every class
// it changes carries the planned terms, which the GitOps tool's sync applies. Terms that arrive and are not the
// planned ones end the run (exit 3), as do the timeout (5) and an interrupt (130): each leaves the rollout held, since
// the merge may still land and must not start an unpaced rollout. Then the follow paces and gates as for any upgrade,
// judging the terms all the way (follow-steps.ts `termsMoved`).
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import { ownerKey } from '../apis/gitops-sources.js';
import { bookkeeping, ANNOTATIONS } from '../cluster/apply.js';
import { readGitOpsSources } from '../cluster/gitops-sources.js';
import { readNodeClass } from '../cluster/inventory.js';
import { LockLost } from '../cluster/lock.js';
import { ALL_RECORDS, annotateNodeClass, SYNC_ANNOTATIONS } from '../cluster/sync-records.js';
import { InterruptedError, RefusedError, TimeoutError } from '../errors.js';
import type { NodeClassView } from '../karpenter/views.js';
import type { AmiSpec } from '../plan/ami-spec.js';
import type { NodeClassPlan } from '../plan/pin.js';
import { promotedFrom } from '../plan/promotion.js';
import { applierOf, arrivedEventJson, mergeLines, syncEventJson, unplannedMessage, waitingEventJson, waitingLine } from '../report/sync.js';
import { termsState, type PlannedTerms } from '../rollout/synced-terms.js';
import { recordSummary } from '../report/summary.js';
import { humanDuration } from '../text/words.js';
import { reportEarlyDone } from './early-done.js';
import type { Pacer } from './staged-pacer.js';
import type { NodeClassWrites } from './upgrade-apply.js';
import type { UpgradeFollow, UpgradeRun } from './upgrade-follow.js';
import type { Plan } from '../plan/plan.js';

/** How often the classes are read while the run waits, and how often it says it still does (a CI log, a terminal). */
const POLL_MS = 1_000;
const SAY_EVERY_MS = 30_000;
/** A GitOps tool may write its status a moment after the objects: the revision is read again this long. */
const REVISION_SETTLE_MS = 10_000;

/** Returns each changed class's generation once its planned terms arrived (what Karpenter must resolve next). */
export async function awaitSync(
  ctx: CommandContext,
  pacer: Pacer,
  run: UpgradeRun & { plan: Plan },
  writes: NodeClassWrites & { applyBy: { timeoutMs: number } },
  follow: UpgradeFollow,
): Promise<Record<string, number>> {
  const { changes } = writes;
  const { timeoutMs } = writes.applyBy;
  if (changes.length === 0) return {};
  reportWaiting(ctx, run, changes, timeoutMs);
  const started = Date.now();
  let said = started;
  const generations: Record<string, number> = {};
  const pending = new Map(changes.map((c) => [c.name, c]));
  const live = new Map<string, AmiSpec>();
  while (pending.size > 0) {
    if (ctx.signal.aborted) return ended(ctx, pacer, run, follow, { kind: 'interrupted', pending: [...pending.keys()] });
    for (const c of [...pending.values()]) {
      const view = await readNodeClass(run.cluster, run.discovery.karpenterApi, c.name, ctx.signal).catch((err: unknown) => {
        if (ctx.signal.aborted) return undefined;
        throw err;
      });
      if (view === undefined) continue;
      const spec = specOf(view);
      live.set(c.name, spec);
      const state = termsState(spec, c.after, c.before);
      if (state === 'previous') continue;
      if (state === 'other') return ended(ctx, pacer, run, follow, { kind: 'unplanned', change: c, arrived: spec });
      generations[c.name] = view.generation;
      pending.delete(c.name);
      await recordArrival(ctx, run, writes, c, view);
    }
    if (pending.size === 0) break;
    const waited = Date.now() - started;
    if (waited >= timeoutMs) return ended(ctx, pacer, run, follow, { kind: 'timeout', pending: [...pending.keys()], timeoutMs, live });
    if (Date.now() - said >= SAY_EVERY_MS && !run.json) {
      said = Date.now();
      run.log.info(waitingLine([...pending.keys()].map((name) => ({ name, live: live.get(name) ?? pending.get(name)!.before })), waited, timeoutMs));
    }
    await sleep(POLL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
  return generations;
}

function specOf(view: Pick<NodeClassView, 'amiFamily' | 'amiSelectorTerms'>): AmiSpec {
  return { ...(view.amiFamily !== undefined ? { amiFamily: view.amiFamily } : {}), amiSelectorTerms: view.amiSelectorTerms };
}

function reportWaiting(ctx: CommandContext, run: UpgradeRun, changes: readonly NodeClassPlan[], timeoutMs: number): void {
  const event = waitingEventJson(changes, timeoutMs, new Date());
  if (ctx.summary) recordSummary(ctx.summary, event);
  if (run.json) ctx.io.out(`${JSON.stringify(event)}\n`);
  else ctx.io.out(forScreen(ctx.io, 'out', `\n${mergeLines(changes, timeoutMs).join('\n')}\n`));
}

/**
 * The planned terms arrived: recorded on the class as an apply by karp-drift records them (what `rollback` reads),
 * with that Git applied them and the owner's revision then, read again for a moment if it still shows the one
 * the plan read (a tool may write its status after the objects).
 */
async function recordArrival(ctx: CommandContext, run: UpgradeRun & { plan: Plan }, writes: NodeClassWrites, c: NodeClassPlan, view: NodeClassView): Promise<void> {
  const revision = await arrivedRevision(ctx, run, c);
  const event = arrivedEventJson(c.name, view.generation, revision, new Date());
  if (run.json) ctx.io.out(`${JSON.stringify(event)}\n`);
  else run.log.info(`Synced: ec2nodeclass/${c.name} carries the planned terms (generation ${view.generation}${revision !== undefined ? `, ${applierOf(c)} at revision ${revision}` : ''})`);
  const source = run.plan.source;
  await annotateNodeClass(
    run.cluster,
    run.discovery.karpenterApi,
    c.name,
    {
      // An earlier run's records go: their family, promotion or revision may not be this run's.
      ...Object.fromEntries(ALL_RECORDS.map((k) => [k, null])),
      ...bookkeeping(c.before, writes.target, writes.runId, source && promotedFrom(source, c.targets.map((t) => t.release))),
      [SYNC_ANNOTATIONS.appliedBy]: 'git',
      ...(revision !== undefined ? { [SYNC_ANNOTATIONS.syncedRevision]: revision } : {}),
    },
    ctx.signal,
  );
}

async function arrivedRevision(ctx: CommandContext, run: UpgradeRun, c: NodeClassPlan): Promise<string | undefined> {
  if (c.source === undefined) return undefined;
  const ref = 'source' in c.source ? c.source.source.owner : c.source.ref;
  const before = 'source' in c.source ? c.source.source.revision : undefined;
  let revision: string | undefined;
  for (const until = Date.now() + REVISION_SETTLE_MS; ; ) {
    const read = (await readGitOpsSources(run.cluster, [ref], ctx.signal).catch(() => undefined))?.get(ownerKey(ref));
    revision = read !== undefined && 'source' in read ? read.source.revision : undefined;
    if (revision === undefined || revision !== before || Date.now() >= until || ctx.signal.aborted) return revision;
    await sleep(POLL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}

type Ending =
  | { kind: 'interrupted'; pending: string[] }
  | { kind: 'timeout'; pending: string[]; timeoutMs: number; live: ReadonlyMap<string, AmiSpec> }
  | { kind: 'unplanned'; change: NodeClassPlan; arrived: AmiSpec };

/** The run ends before its follow: the rollout left held (the merge may still land), the `done`, the error. */
async function ended(ctx: CommandContext, pacer: Pacer, run: UpgradeRun, follow: UpgradeFollow, e: Ending): Promise<never> {
  const { inventory } = run;
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  const lost = ctx.signal.aborted && ctx.signal.reason instanceof LockLost ? ctx.signal.reason : undefined;
  const why =
    e.kind === 'unplanned'
      ? unplannedMessage(e.change.name, e.change.after, e.arrived, applierOf(e.change))
      : e.kind === 'timeout'
        ? `--sync-timeout ${humanDuration(e.timeoutMs)} passed waiting for the sync of ${e.pending.map((n) => `ec2nodeclass/${n}`).join(', ')}`
        : `the run was ${lost !== undefined ? 'stopped' : 'interrupted'} while it waited for the sync of ${e.pending.map((n) => `ec2nodeclass/${n}`).join(', ')}`;
  if (e.kind === 'unplanned') {
    const event = syncEventJson('unplanned', { nodeClass: e.change.name, planned: e.change.after, live: e.arrived, previous: e.change.before }, applierOf(e.change), new Date());
    if (run.json) ctx.io.out(`${JSON.stringify(event)}\n`);
  }
  const pools = await pacer
    .pause(inventory.nodeClaims, nodes, why, new Date(), { by: e.kind === 'unplanned' ? 'sync' : e.kind })
    .catch(() => [] as string[]);
  const held = pools.length > 0 ? `; the staged rollout is paused: karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')}` : '';
  const message = `${why}${held}`;
  reportEarlyDone(ctx, run, follow, { message, paused: pools, cause: e.kind === 'unplanned' ? 'sync' : e.kind }, new Date());
  const onceMerged = `once the planned terms are merged, run the same command: it waits for the sync again and paces the rollout it starts: ${follow.resume}; if the change is abandoned, release the holds: karp-drift resume`;
  if (lost !== undefined) throw new RefusedError(`${lost.message}${held}`, { cause: lost, hint: onceMerged });
  if (e.kind === 'interrupted') throw new InterruptedError(message, { hint: onceMerged });
  if (e.kind === 'timeout') throw new TimeoutError(message, { hint: onceMerged });
  const pin = e.change.pin ?? [];
  throw new RefusedError(`${message}; nothing more opens on terms the plan did not choose`, {
    hint: `merge the planned terms${pin.length > 0 ? ` (${pin.join('; ')})` : ''}, or plan again for what was merged; then run: ${follow.resume}; or release the holds: karp-drift resume`,
  });
}

/**
 * The terms the follow holds the classes to: each planned class's new terms, and what it had before (the plan's, or
 * what an earlier run recorded when the terms had already arrived), so a revert is told from another change.
 */
export function expectedTermsOf(plan: Plan, inventory: UpgradeRun['inventory']): Record<string, PlannedTerms> {
  return Object.fromEntries(
    plan.nodeClasses.map((c) => {
      const view = inventory.nodeClasses.find((v) => v.name === c.name);
      const previous = c.changed ? c.before : recordedPrevious(view);
      return [c.name, { planned: c.after, ...(previous !== undefined ? { previous } : {}) }];
    }),
  );
}

function recordedPrevious(view: NodeClassView | undefined): AmiSpec | undefined {
  const text = view?.annotations[ANNOTATIONS.previousTerms];
  if (text === undefined) return undefined;
  try {
    const terms = JSON.parse(text) as unknown;
    if (!Array.isArray(terms)) return undefined;
    const family = view?.annotations[ANNOTATIONS.previousFamily];
    return { ...(family !== undefined ? { amiFamily: family } : {}), amiSelectorTerms: terms as AmiSpec['amiSelectorTerms'] };
  } catch {
    return undefined;
  }
}
