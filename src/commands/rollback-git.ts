// `rollback` of a class whose terms came from Git (`upgrade --apply-by git` recorded `karp-drift.io/applied-by: git`):
// a restore karp-drift applied would be undone by the next sync, so the way back is a revert in Git. The rollback says
// which change to revert — the owner's repository and path, and the revision the upgrade's terms arrived with — and
// waits, bounded by --sync-timeout, until the class carries the recorded terms again; then it goes on as any rollback
// does (Karpenter resolves them, the holds come off or a staged rollback paces the nodes back).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import { gitopsOwnerOf, ownerKey, type GitOpsSourceRead } from '../apis/gitops-sources.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { readGitOpsSources } from '../cluster/gitops-sources.js';
import { readNodeClass } from '../cluster/inventory.js';
import { ALL_RECORDS, annotateNodeClass, SYNC_ANNOTATIONS } from '../cluster/sync-records.js';
import { InterruptedError, TimeoutError } from '../errors.js';
import { classifyOwners } from '../plan/owners.js';
import { ownerName, shortRevision, sourceLine } from '../plan/gitops-source.js';
import { specText } from '../report/sync.js';
import { eventTime } from '../report/progress.js';
import { recordSummary } from '../report/summary.js';
import { humanDuration } from '../text/words.js';
import type { AmiSelectorTerm, NodeClassView } from '../karpenter/views.js';
import { sameAmiSpec } from '../plan/pin.js';

/** A recorded selection to get back (rollback-restore.ts `Restore`, which imports this file). */
interface Restore {
  view: NodeClassView;
  terms: AmiSelectorTerm[];
  amiFamily?: string;
}

const POLL_MS = 1_000;
const SAY_EVERY_MS = 30_000;

/** The class's terms came from Git: its rollback is a revert there (the records of `upgrade --apply-by git`). */
export const byGit = (r: Restore): boolean => r.view.annotations[SYNC_ANNOTATIONS.appliedBy] === 'git';

/**
 * Says what to revert, then waits until each class selects its recorded terms again; returns their generations.
 * `keepRecords` (a staged rollback): the records stay until the nodes are back (dropGitRecords).
 */
export async function awaitReverts(
  ctx: CommandContext,
  cluster: Cluster,
  discovery: Discovery,
  restores: readonly Restore[],
  how: { json: boolean; log: Logger; keepRecords?: boolean; timeoutMs: number },
  generations: Record<string, number>,
): Promise<void> {
  if (restores.length === 0) return;
  // Reverted already (a revert that ended an upgrade --apply-by git mid-rollout): nothing to ask for.
  const toRevert = restores.filter((r) => !selectsRecorded(r.view, r));
  if (toRevert.length > 0) await sayWhatToRevert(ctx, cluster, toRevert, how);
  const started = Date.now();
  let said = started;
  const pending = new Map(restores.map((r) => [r.view.name, r]));
  while (pending.size > 0) {
    if (ctx.signal.aborted) throw new InterruptedError(`interrupted while waiting for the revert of ${names(pending)}; nothing was changed by karp-drift`, { hint: 'once the revert is merged, run the same rollback: it waits for the sync and follows the nodes back' });
    for (const r of [...pending.values()]) {
      const view = await readNodeClass(cluster, discovery.karpenterApi, r.view.name, ctx.signal).catch((err: unknown) => {
        if (ctx.signal.aborted) return undefined;
        throw err;
      });
      if (view === undefined) continue;
      if (!selectsRecorded(view, r)) continue;
      generations[r.view.name] = view.generation;
      pending.delete(r.view.name);
      if (how.json) ctx.io.out(`${JSON.stringify({ type: 'sync', time: eventTime(new Date()), state: 'arrived', revert: true, nodeClass: r.view.name, generation: view.generation, revision: null })}\n`);
      else how.log.info(`Reverted: ec2nodeclass/${r.view.name} carries the recorded terms again (generation ${view.generation})`);
      if (how.keepRecords !== true) await annotateNodeClass(cluster, discovery.karpenterApi, r.view.name, nulls(), ctx.signal);
    }
    if (pending.size === 0) return;
    const waited = Date.now() - started;
    if (waited >= how.timeoutMs)
      throw new TimeoutError(`--sync-timeout ${humanDuration(how.timeoutMs)} passed waiting for the revert of ${names(pending)}; nothing was changed by karp-drift`, {
        hint: 'once the revert is merged, run the same rollback: it waits for the sync and follows the nodes back',
      });
    if (Date.now() - said >= SAY_EVERY_MS && !how.json) {
      said = Date.now();
      how.log.info(`[${humanDuration(waited)}] waiting for the revert of ${names(pending)} (${humanDuration(how.timeoutMs - waited)} left of --sync-timeout)`);
    }
    await sleep(POLL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
}

const names = (m: ReadonlyMap<string, unknown>) => [...m.keys()].map((n) => `ec2nodeclass/${n}`).join(', ');

/** As rollback-restore.ts `selects`: the recorded terms, and the recorded family when there is one. */
function selectsRecorded(view: NodeClassView, r: Restore): boolean {
  return sameAmiSpec(view, { amiFamily: r.amiFamily ?? view.amiFamily, amiSelectorTerms: r.terms });
}

/** Every record karp-drift keeps on a class, removed (a staged rollback's end, or at once). */
export function nulls(): Record<string, null> {
  return Object.fromEntries(ALL_RECORDS.map((k) => [k, null]));
}

/** The end of a staged rollback of classes reverted in Git: their records come off (the terms stay Git's). */
export async function dropGitRecords(cluster: Cluster, discovery: Discovery, name: string, signal: AbortSignal): Promise<void> {
  await annotateNodeClass(cluster, discovery.karpenterApi, name, nulls(), signal);
}

/** What to revert: per class, the terms it goes back to, who applies it from where, and the revision its terms came with. */
async function sayWhatToRevert(ctx: CommandContext, cluster: Cluster, restores: readonly Restore[], how: { json: boolean; timeoutMs: number }): Promise<void> {
  const refs = restores.flatMap((r) => gitopsOwnerOf(r.view, classifyOwners(r.view).conflicts.some((c) => c.tool === 'Argo CD')) ?? []);
  const sources = refs.length > 0 ? await readGitOpsSources(cluster, refs, ctx.signal) : new Map<string, GitOpsSourceRead>();
  const classes = restores.map((r) => {
    const ref = gitopsOwnerOf(r.view, classifyOwners(r.view).conflicts.some((c) => c.tool === 'Argo CD'));
    const read = ref !== undefined ? sources.get(ownerKey(ref)) : undefined;
    const revision = r.view.annotations[SYNC_ANNOTATIONS.syncedRevision];
    return { r, ref, read, revision };
  });
  const event = {
    type: 'sync',
    time: eventTime(new Date()),
    state: 'waiting',
    revert: true,
    timeoutSeconds: Math.round(how.timeoutMs / 1000),
    nodeClasses: classes.map(({ r, ref, revision }) => ({
      name: r.view.name,
      planned: { ...(r.amiFamily !== undefined ? { amiFamily: r.amiFamily } : {}), amiSelectorTerms: r.terms },
      appliedBy: ref !== undefined ? ownerName(ref) : 'the GitOps tool',
      revision: revision ?? null,
    })),
  };
  if (ctx.summary) recordSummary(ctx.summary, event);
  if (how.json) {
    ctx.io.out(`${JSON.stringify(event)}\n`);
    return;
  }
  const lines = [`Nothing is restored by karp-drift: these terms came from Git (upgrade --apply-by git), and a restore here would be undone by the next sync. Revert the change that brought them; the sync puts the previous terms back.`];
  for (const { r, read, revision } of classes) {
    lines.push(`  ec2nodeclass/${r.view.name}: back to ${specText({ ...(r.amiFamily !== undefined ? { amiFamily: r.amiFamily } : {}), amiSelectorTerms: r.terms })}`);
    if (read !== undefined) lines.push(`    applied by ${sourceLine(read)}`);
    if (revision !== undefined) lines.push(`    the upgrade's terms arrived with revision ${shortRevision(revision)}: revert the commit that changed amiSelectorTerms there (git revert <that commit>)`);
  }
  lines.push(`Waiting up to ${humanDuration(how.timeoutMs)} for the previous terms (the revert merged and synced)...`);
  ctx.io.out(forScreen(ctx.io, 'out', `${lines.join('\n')}\n`));
}

