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
import { applyEach, event } from './upgrade-shared.js';
// The waits are part of the worst case a CI job's limit must cover (stages/budget.ts), so they are defined there.
import { ROLLBACK_DRIFT_CLEARED_WAIT_MS, ROLLBACK_READY_WAIT_MS } from '../stages/budget.js';

export interface Restore {
  view: NodeClassView;
  terms: AmiSelectorTerm[];
  amiFamily?: string;
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
  return { view, terms: terms as AmiSelectorTerm[], ...(amiFamily ? { amiFamily } : {}) };
}

/** Applies each restore in turn (applyEach says what was done if one fails); returns the generations written. */
export async function restoreEach(
  ctx: CommandContext,
  cluster: Cluster,
  discovery: Discovery,
  restores: readonly Restore[],
  how: { dryRun: boolean; json: boolean; log: Logger },
): Promise<Record<string, number>> {
  const generations: Record<string, number> = {};
  const steps = {
    doing: 'restoring',
    done: 'restored',
    dryRun: how.dryRun,
    // A restore drops karp-drift's annotations, so running rollback again restores only the others.
    resume: 'restore the others with: karp-drift rollback (the restored ones no longer have a recorded selection)',
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
          annotations: {},
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
