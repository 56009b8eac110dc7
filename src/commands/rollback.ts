// `karp-drift rollback`: put back the amiSelectorTerms (and amiFamily) the last upgrade recorded on each
// EC2NodeClass, and follow Karpenter as it drifts the nodes back. The restore is a server-side apply by the same
// field manager without the bookkeeping annotations, so they go (a second rollback finds nothing recorded) and an
// amiFamily that the upgrade added and the previous selection lacked is removed with them.
import type { CommandContext } from './context.js';
import { followNeeds, holdNeeds, lockNeeds, requireAccess } from '../cluster/access.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import { ANNOTATIONS } from '../cluster/apply.js';
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { Inventory } from '../karpenter/views.js';
import { UsageError } from '../errors.js';
import type { RollbackOptions } from './options.js';
import { amiSelectorTermText } from '../text/words.js';
import { followRollout } from './follow-rollout.js';
import { connect, readScope } from './planning.js';
import { confirmOrRefuse, event } from './upgrade-shared.js';
import { awaitRestored, driftCleared, recorded, restoreEach, type Restore } from './rollback-restore.js';
import { heldIn, holdMechanisms, releaseHolds } from './release-holds.js';
import { holdOutcomeText } from '../report/holds.js';
import { recordSummary } from '../report/summary.js';

/** rollback's `plan` document: upgrade's keys (`plan -o json`) that a restore has, filled the same way. */
function rollbackPlanDocument(
  restores: Restore[],
  pools: Inventory['nodePools'],
  inventory: Inventory,
  cluster: ClusterIdentity,
): Record<string, unknown> {
  return {
    cluster,
    controlPlaneVersion: inventory.controlPlane.minor,
    nodeClasses: restores.map((r) => ({
      name: r.view.name,
      before: {
        ...(r.view.amiFamily ? { amiFamily: r.view.amiFamily } : {}),
        amiSelectorTerms: r.view.amiSelectorTerms,
      },
      after: { ...(r.amiFamily ? { amiFamily: r.amiFamily } : {}), amiSelectorTerms: r.terms },
      changed: true,
    })),
    nodePools: pools.map((p) => ({
      name: p.name,
      nodeClass: p.nodeClass,
      nodes: inventory.nodeClaims.filter((c) => c.nodePool === p.name && !c.deleting).length,
    })),
    checks: [],
    blocked: false,
  };
}

export async function rollback(options: RollbackOptions, ctx: CommandContext): Promise<void> {
  const json = ctx.globals.output === 'json';
  const { cluster, log } = await connect(ctx);
  try {
    const { discovery, inventory } = await readScope(ctx, cluster, options.nodeClasses);
    const restores = inventory.nodeClasses.flatMap((v) => recorded(v) ?? []);
    if (restores.length === 0) {
      throw new UsageError(
        `nothing to roll back: no EC2NodeClass${options.nodeClasses.length > 0 ? ` among ${options.nodeClasses.join(', ')}` : ''} carries ${ANNOTATIONS.previousTerms}, which karp-drift upgrade records`,
        {
          hint: 'roll back by hand (kubectl edit ec2nodeclass <name>), or upgrade to the release you want with --release',
        },
      );
    }
    const pools = inventory.nodePools.filter((p) => restores.some((r) => r.view.name === p.nodeClass));
    const nodes = inventory.nodeClaims.filter((c) => !c.deleting && pools.some((p) => p.name === c.nodePool)).length;
    if (ctx.summary)
      recordSummary(ctx.summary, {
        type: 'plan',
        plan: rollbackPlanDocument(restores, pools, inventory, cluster.identity),
      });
    if (json) {
      // The same `plan` event as upgrade's: one document, the keys a rollback has (no AMI resolution, no checks).
      ctx.io.out(event('plan', { plan: rollbackPlanDocument(restores, pools, inventory, cluster.identity) }));
    } else {
      for (const r of restores) {
        ctx.io.out(
          `~ ec2nodeclass/${r.view.name}\n  - amiSelectorTerms: ${r.view.amiSelectorTerms.map(amiSelectorTermText).join(', ')}${r.view.amiFamily ? ` (amiFamily ${r.view.amiFamily})` : ''}\n  + amiSelectorTerms: ${r.terms.map(amiSelectorTermText).join(', ')}${r.amiFamily ? ` (amiFamily ${r.amiFamily})` : ''}\n`,
        );
      }
    }
    log.warn(
      `rolling back drifts every node of ${pools.map((p) => `nodepool/${p.name}`).join(', ') || 'these classes'} (${nodes} nodes) back to the previous AMIs: nodes already replaced are replaced again`,
    );
    // A staged rollout that paused or halted left its holds: Karpenter would never drift these nodes back under
    // them, so the rollback lifts them, but only once the previous AMIs are resolved and no node on them is still
    // marked Drifted (lifted earlier, Karpenter could replace an old node with one more node on the new AMI).
    const held = heldIn(pools, inventory.nodes);
    if (held.pools.length > 0)
      log.warn(
        `karp-drift holds drift on ${held.pools.map((p) => `nodepool/${p.name}`).join(', ')} (a staged rollout paused or halted there): the rollback releases the holds once Karpenter has resolved the previous AMIs`,
      );
    await confirmOrRefuse(
      ctx,
      options,
      `Restore ${restores.length} EC2NodeClass(es)? Karpenter will replace up to ${nodes} node(s) through drift.`,
      'rollback',
    );

    if (!options.dryRun) {
      await requireAccess(cluster, [
        ...restores.map((r) => ({
          verb: 'patch',
          group: 'karpenter.k8s.aws',
          resource: 'ec2nodeclasses',
          name: r.view.name,
          why: 'restore amiSelectorTerms',
        })),
        ...(options.wait ? followNeeds() : []),
        ...(held.pools.length > 0
          ? holdNeeds(options.lockNamespace ?? LEASE_NAMESPACE, holdMechanisms(held))
          : lockNeeds(options.lockNamespace ?? LEASE_NAMESPACE)),
      ]);
    }
    // The cluster lock covers the writes (a staged upgrade pacing this cluster refuses us, and we it); a dry run
    // writes nothing and takes none.
    let generations: Record<string, number> = {};
    let restored: Awaited<ReturnType<typeof awaitRestored>> | undefined;
    const holder = lockHolder('rollback');
    const restore = async (signal: AbortSignal) => {
      generations = await restoreEach({ ...ctx, signal }, cluster, discovery, restores, {
        dryRun: options.dryRun,
        json,
        log,
      });
      if (options.dryRun || held.pools.length === 0) return;
      restored = await awaitRestored(cluster, discovery, restores, generations, signal);
      await driftCleared(cluster, discovery, restored.targets, signal);
      const released = await releaseHolds(cluster, discovery.karpenterApi, held, holder, signal);
      for (const r of released) {
        if (json)
          ctx.io.out(
            event('release', {
              nodePool: r.nodePool,
              mechanism: r.mechanism,
              ...(r.mechanism === 'budget' ? { budgets: r.budgets ?? null } : { nodes: r.nodes ?? 0 }),
            }),
          );
        else log.info(holdOutcomeText('resumed', r));
      }
    };
    if (options.dryRun) await restore(ctx.signal);
    else
      await withClusterLock(ctx, cluster, { lockNamespace: options.lockNamespace ?? LEASE_NAMESPACE }, holder, restore);
    if (options.dryRun || !options.wait) return;

    const { targets, targetMinor } =
      restored ?? (await awaitRestored(cluster, discovery, restores, generations, ctx.signal));
    const startedAt = new Date();
    await followRollout(ctx, cluster, discovery, inventory, {
      scope: {
        nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
        targetImageIds: targets,
        targetMinor,
        startedAt,
        nodeClassGenerations: generations,
      },
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      resumeCommand: 'karp-drift status --watch',
    });
    if (!json)
      ctx.io.out(
        `Rollback complete: ${pools.map((p) => `nodepool/${p.name}`).join(', ')} back on the previous AMIs (Kubernetes ${targetMinor}).\n`,
      );
  } finally {
    cluster.close();
  }
}
