// What `rollback` and an upgrade halted with --on-failure rollback share: find the selection karp-drift recorded on
// each EC2NodeClass, put it back (a server-side apply without the bookkeeping annotations), and wait until Karpenter
// resolved it, which says what "back" means (the previous terms may be an alias or selectors).
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import { ANNOTATIONS, applyNodeClass, customObjects } from '../cluster/apply.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import { minorInAmiNames } from '../ami/families.js';
import { readNodeClass } from '../cluster/inventory.js';
import { listAll } from '../cluster/list.js';
import { karpenterResources } from '../karpenter/resources.js';
import type { AmiSelectorTerm, NodeClassView } from '../karpenter/views.js';
import { RuntimeFailure, UsageError } from '../errors.js';
import { sameAmiSpec } from '../plan/pin.js';
import { applyEach, event } from './upgrade-shared.js';
import { awaitReverts, byGit, dropGitRecords } from './rollback-git.js';

/** --sync-timeout's default, when a caller passes none (the --on-failure rollback of a halted upgrade). */
const DEFAULT_SYNC_TIMEOUT_MS = 3_600_000;
// The waits are part of the worst case a CI job's limit must cover (stages/budget.ts), so they are defined there.
import { ROLLBACK_DRIFT_CLEARED_WAIT_MS, ROLLBACK_READY_WAIT_MS } from '../stages/budget.js';

export interface Restore {
  view: NodeClassView;
  terms: AmiSelectorTerm[];
  amiFamily?: string;
  /**
   * The class already selects what was recorded: a staged rollback restored it and keeps the record until its nodes
   * are back (a re-run goes on with them), so a rollback of it only follows the nodes.
   */
  restored: boolean;
}

/** The selection recorded on the class by the upgrade that changed it, or undefined when there is none. */
export function recorded(view: NodeClassView): Restore | undefined {
  const text = view.annotations[ANNOTATIONS.previousTerms];
  if (text === undefined) return undefined;
  let terms: unknown;
  try {
    terms = JSON.parse(text);
  } catch {
    throw new UsageError(
      `ec2nodeclass/${view.name}: annotation ${ANNOTATIONS.previousTerms} is not JSON; nothing was changed`,
      {
        hint: `restore amiSelectorTerms by hand (kubectl edit ec2nodeclass ${view.name})`,
      },
    );
  }
  if (!Array.isArray(terms) || terms.length === 0) {
    throw new UsageError(
      `ec2nodeclass/${view.name}: annotation ${ANNOTATIONS.previousTerms} holds no terms; nothing was changed`,
    );
  }
  const amiFamily = view.annotations[ANNOTATIONS.previousFamily];
  const restore = { view, terms: terms as AmiSelectorTerm[], ...(amiFamily ? { amiFamily } : {}) };
  return { ...restore, restored: selects(view, restore) };
}

/**
 * Whether the class selects `r`'s terms (and its amiFamily, when one was recorded), as the plan compares selections:
 * the API server may return the terms, or a term's keys, in another order than they were written.
 */
export function selects(view: Pick<NodeClassView, 'amiSelectorTerms' | 'amiFamily'>, r: Pick<Restore, 'terms' | 'amiFamily'>): boolean {
  return sameAmiSpec(view, { amiFamily: r.amiFamily ?? view.amiFamily, amiSelectorTerms: r.terms });
}

/** karp-drift's records on the class (what the last upgrade recorded), which a staged rollback keeps until it is done. */
function records(view: NodeClassView): Record<string, string> {
  const keys = new Set<string>(Object.values(ANNOTATIONS));
  return Object.fromEntries(Object.entries(view.annotations).filter(([k]) => keys.has(k)));
}

/**
 * Applies each restore in turn (applyEach says what was done if one fails); returns the generations written (into
 * `generations`, kept when a later one fails).
 * `keepRecords` (a staged rollback): the recorded selection stays on the class until the nodes are back, so that the
 * same rollback run again goes on (dropRecords takes it off at the end).
 */
export async function restoreEach(
  ctx: CommandContext,
  cluster: Cluster,
  discovery: Discovery,
  restores: readonly Restore[],
  how: { dryRun: boolean; json: boolean; log: Logger; keepRecords?: boolean; syncTimeoutMs?: number },
  generations: Record<string, number> = {},
): Promise<Record<string, number>> {
  // Terms that came from Git go back by a revert there, which the rollback waits for (rollback-git.ts).
  const fromGit = restores.filter(byGit);
  if (fromGit.length > 0) {
    if (how.dryRun) how.log.info(`Dry run: ${fromGit.map((r) => `ec2nodeclass/${r.view.name}`).join(', ')} would wait for a revert in Git (upgrade --apply-by git applied their terms)`);
    else await awaitReverts(ctx, cluster, discovery, fromGit, { ...how, timeoutMs: how.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS }, generations);
    restores = restores.filter((r) => !byGit(r));
  }
  const steps = {
    doing: 'restoring',
    done: 'restored',
    dryRun: how.dryRun,
    // A restore drops karp-drift's annotations, so running rollback again restores only the others; a staged one
    // keeps them, and the same rollback again restores the others and goes on.
    resume:
      how.keepRecords === true
        ? 'restore the others and go on with the same karp-drift rollback'
        : 'restore the others with: karp-drift rollback (the restored ones no longer have a recorded selection)',
    undo: () => 'they drift back to the previous AMIs; to return to the upgrade, run karp-drift upgrade again',
  };
  await applyEach(
    ctx,
    restores.map((r) => r.view.name),
    steps,
    async (name) => {
      const r = restores.find((x) => x.view.name === name)!;
      const result = await applyNodeClass(
        customObjects(cluster),
        {
          name: r.view.name,
          karpenterApi: discovery.karpenterApi,
          resourceVersion: r.view.resourceVersion,
          ...(r.amiFamily ? { amiFamily: r.amiFamily } : {}),
          amiSelectorTerms: r.terms,
          annotations: how.keepRecords === true ? records(r.view) : {},
          force: true,
        },
        { dryRun: how.dryRun },
      );
      generations[r.view.name] = result.generation;
      if (how.json)
        ctx.io.out(
          event('applied', {
            nodeClass: r.view.name,
            generation: result.generation,
            dryRun: how.dryRun,
            amiSelectorTerms: r.terms,
          }),
        );
      else
        how.log.info(
          `${how.dryRun ? 'Validated (dry run, nothing changed)' : 'Restored'}: ec2nodeclass/${r.view.name}`,
        );
    },
  );
  return generations;
}

/** Waits until Karpenter reports AMIsReady for each restored generation: the AMI IDs they resolve to, and their minor. */
export async function awaitRestored(
  cluster: Cluster,
  discovery: Discovery,
  restores: readonly Restore[],
  generations: Record<string, number>,
  signal: AbortSignal,
): Promise<{ targets: Record<string, string[]>; targetMinor: string }> {
  const targets: Record<string, string[]> = {};
  const names: Array<string | undefined> = [];
  const deadline = Date.now() + ROLLBACK_READY_WAIT_MS;
  for (const r of restores) {
    for (;;) {
      const view = await readNodeClass(cluster, discovery.karpenterApi, r.view.name, signal);
      if (!view) throw new RuntimeFailure(`ec2nodeclass/${r.view.name} was deleted while rolling back`);
      const ready = view.conditions.AMIsReady;
      if (ready && (ready.observedGeneration ?? 0) >= generations[r.view.name]!) {
        if (ready.status !== 'True')
          throw new RuntimeFailure(
            `ec2nodeclass/${r.view.name}: Karpenter could not resolve the restored AMIs: AMIsReady=${ready.status}, reason ${ready.reason}: ${ready.message}`,
          );
        targets[r.view.name] = view.statusAmis.map((a) => a.id);
        names.push(...view.statusAmis.map((a) => a.name));
        break;
      }
      if (Date.now() > deadline)
        throw new RuntimeFailure(
          `ec2nodeclass/${r.view.name}: Karpenter did not report AMIsReady for generation ${generations[r.view.name]} within ${ROLLBACK_READY_WAIT_MS / 1000} s`,
        );
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  return { targets, targetMinor: minorInAmiNames(names) ?? discovery.controlPlane.minor };
}

/** Until no NodeClaim on a restored AMI is still marked Drifted (Karpenter re-judges them once status.amis moved). */
export async function driftCleared(
  cluster: Cluster,
  discovery: Discovery,
  targets: Record<string, string[]>,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + ROLLBACK_DRIFT_CLEARED_WAIT_MS;
  const restored = new Set(Object.values(targets).flat());
  for (;;) {
    const { items } = await listAll(cluster, karpenterResources(discovery.karpenterApi).nodeClaims, { signal });
    const still = items.filter(
      (c) => c.imageId !== undefined && restored.has(c.imageId) && c.conditions.Drifted?.status === 'True',
    );
    if (still.length === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * The end of a staged rollback: the records it kept come off each class that still selects what they recorded (read
 * anew: one a person changed meanwhile keeps them, and the rollback says so), so a second rollback finds nothing, as
 * after a rollback that was not staged. Returns the classes left with their records.
 */
export async function dropRecords(
  cluster: Cluster,
  discovery: Discovery,
  names: readonly string[],
  signal: AbortSignal,
): Promise<string[]> {
  const kept: string[] = [];
  for (const name of names) {
    const view = await readNodeClass(cluster, discovery.karpenterApi, name, signal);
    const r = view ? recorded(view) : undefined;
    if (view === undefined || r === undefined) continue;
    if (!r.restored) {
      kept.push(name);
      continue;
    }
    // Git's terms stay Git's: only the records go.
    if (byGit(r)) {
      await dropGitRecords(cluster, discovery, name, signal);
      continue;
    }
    await applyNodeClass(
      customObjects(cluster),
      {
        name,
        karpenterApi: discovery.karpenterApi,
        resourceVersion: view.resourceVersion,
        ...(r.amiFamily ? { amiFamily: r.amiFamily } : {}),
        amiSelectorTerms: r.terms,
        annotations: {},
        force: true,
      },
      { dryRun: false },
    );
  }
  return kept;
}
