// `karp-drift rollback`: put back the amiSelectorTerms (and amiFamily) the last upgrade recorded on each
// EC2NodeClass, and follow Karpenter as it drifts the nodes back. The restore is a server-side apply by the same
// field manager without the bookkeeping annotations, so they go (a second rollback finds nothing recorded) and an
// amiFamily that the upgrade added and the previous selection lacked is removed with them.
import type { CommandContext } from '../cli.js';
import { followNeeds, lockNeeds, requireAccess } from '../cluster/access.js';
import { LEASE_NAMESPACE } from '../stages/lock.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import { ANNOTATIONS, applyNodeClass, customObjects } from '../cluster/apply.js';
import { discoverCluster } from '../cluster/discovery.js';
import { readInventory, readNodeClass } from '../cluster/inventory.js';
import type { ClusterIdentity } from '../cluster/identity.js';
import type { AmiSelectorTerm, Inventory, NodeClassView } from '../cluster/views.js';
import { RuntimeFailure, UsageError } from '../errors.js';
import type { RollbackOptions } from '../options.js';
import { amiSelectorTermText } from '../rollout/text.js';
import { followRollout } from './follow-rollout.js';
import { connect } from './planning.js';
import { applyEach, confirmOrRefuse, event } from './upgrade-shared.js';

interface Restore {
  view: NodeClassView;
  terms: AmiSelectorTerm[];
  amiFamily?: string;
}

function recorded(view: NodeClassView): Restore | undefined {
  const text = view.annotations[ANNOTATIONS.previousTerms];
  if (text === undefined) return undefined;
  let terms: unknown;
  try {
    terms = JSON.parse(text);
  } catch {
    throw new UsageError(`ec2nodeclass/${view.name}: annotation ${ANNOTATIONS.previousTerms} is not JSON; nothing was changed`, {
      hint: `restore amiSelectorTerms by hand (kubectl edit ec2nodeclass ${view.name})`,
    });
  }
  if (!Array.isArray(terms) || terms.length === 0) {
    throw new UsageError(`ec2nodeclass/${view.name}: annotation ${ANNOTATIONS.previousTerms} holds no terms; nothing was changed`);
  }
  const amiFamily = view.annotations[ANNOTATIONS.previousFamily];
  return { view, terms: terms as AmiSelectorTerm[], ...(amiFamily ? { amiFamily } : {}) };
}

/** The Kubernetes minor an AMI name encodes (`…-1.29-v2026…`, `bottlerocket-aws-k8s-1.29-…`). */
function minorOf(names: Array<string | undefined>): string | undefined {
  for (const n of names) {
    const m = /-(1\.\d+)-/.exec(n ?? '');
    if (m) return m[1];
  }
  return undefined;
}

const READY_WAIT_MS = 120_000;

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
      before: { ...(r.view.amiFamily ? { amiFamily: r.view.amiFamily } : {}), amiSelectorTerms: r.view.amiSelectorTerms },
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
  const { cluster, log } = connect(ctx);
  try {
    const discovery = await discoverCluster(cluster, ctx.signal);
    const inventory = await readInventory(cluster, { nodeClasses: options.nodeClasses.length > 0 ? options.nodeClasses : undefined, discovery, signal: ctx.signal });
    const restores = inventory.nodeClasses.flatMap((v) => recorded(v) ?? []);
    if (restores.length === 0) {
      throw new UsageError(`nothing to roll back: no EC2NodeClass${options.nodeClasses.length > 0 ? ` among ${options.nodeClasses.join(', ')}` : ''} carries ${ANNOTATIONS.previousTerms}, which karp-drift upgrade records`, {
        hint: 'roll back by hand (kubectl edit ec2nodeclass <name>), or upgrade to the release you want with --release',
      });
    }
    const pools = inventory.nodePools.filter((p) => restores.some((r) => r.view.name === p.nodeClass));
    const nodes = inventory.nodeClaims.filter((c) => pools.some((p) => p.name === c.nodePool)).length;
    if (json) {
      // The same `plan` event as upgrade's: one document, the keys a rollback has (no AMI resolution, no checks).
      ctx.io.out(event('plan', { plan: rollbackPlanDocument(restores, pools, inventory, cluster.identity) }));
    } else {
      for (const r of restores) {
        ctx.io.out(`~ ec2nodeclass/${r.view.name}\n  - amiSelectorTerms: ${r.view.amiSelectorTerms.map(amiSelectorTermText).join(', ')}${r.view.amiFamily ? ` (amiFamily ${r.view.amiFamily})` : ''}\n  + amiSelectorTerms: ${r.terms.map(amiSelectorTermText).join(', ')}${r.amiFamily ? ` (amiFamily ${r.amiFamily})` : ''}\n`);
      }
    }
    log.warn(`rolling back drifts every node of ${pools.map((p) => `nodepool/${p.name}`).join(', ') || 'these classes'} (${nodes} nodes) back to the previous AMIs: nodes already replaced are replaced again`);
    await confirmOrRefuse(ctx, options, `Restore ${restores.length} EC2NodeClass(es)? Karpenter will replace up to ${nodes} node(s) through drift.`, 'rollback');

    if (!options.dryRun) {
      await requireAccess(cluster, [
        ...restores.map((r) => ({ verb: 'patch', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: r.view.name, why: 'restore amiSelectorTerms' })),
        ...(options.wait ? followNeeds() : []),
        ...lockNeeds(options.lockNamespace ?? LEASE_NAMESPACE),
      ]);
    }
    const generations: Record<string, number> = {};
    const how = {
      doing: 'restoring',
      done: 'restored',
      dryRun: options.dryRun,
      // A restore drops karp-drift's annotations, so running rollback again restores only the others.
      resume: 'restore the others with: karp-drift rollback (the restored ones no longer have a recorded selection)',
      undo: () => 'they drift back to the previous AMIs; to return to the upgrade, run karp-drift upgrade again',
    };
    // The cluster lock covers the writes (a staged upgrade pacing this cluster refuses us, and we it); a dry run
    // writes nothing and takes none.
    const restore = (signal: AbortSignal) => applyEach({ ...ctx, signal }, restores.map((r) => r.view.name), how, async (name) => {
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
        { dryRun: options.dryRun },
      );
      generations[r.view.name] = result.generation;
      if (json) ctx.io.out(event('applied', { nodeClass: r.view.name, generation: result.generation, dryRun: options.dryRun, amiSelectorTerms: r.terms }));
      else log.info(`${options.dryRun ? 'Validated (dry run, nothing changed)' : 'Restored'}: ec2nodeclass/${r.view.name}`);
    });
    if (options.dryRun) await restore(ctx.signal);
    else await withClusterLock(ctx, cluster, { lockNamespace: options.lockNamespace ?? LEASE_NAMESPACE }, lockHolder('rollback'), restore);
    if (options.dryRun || !options.wait) return;

    // The previous terms may be an alias or selectors: what they mean is what Karpenter resolves. Wait for it.
    const targets: Record<string, string[]> = {};
    const names: Array<string | undefined> = [];
    const deadline = Date.now() + READY_WAIT_MS;
    for (const r of restores) {
      for (;;) {
        const view = await readNodeClass(cluster, discovery.karpenterApi, r.view.name, ctx.signal);
        if (!view) throw new RuntimeFailure(`ec2nodeclass/${r.view.name} was deleted while rolling back`);
        const ready = view.conditions.AMIsReady;
        if (ready && (ready.observedGeneration ?? 0) >= generations[r.view.name]!) {
          if (ready.status !== 'True') throw new RuntimeFailure(`ec2nodeclass/${r.view.name}: Karpenter could not resolve the restored AMIs: AMIsReady=${ready.status}, reason ${ready.reason}: ${ready.message}`);
          targets[r.view.name] = view.statusAmis.map((a) => a.id);
          names.push(...view.statusAmis.map((a) => a.name));
          break;
        }
        if (Date.now() > deadline) throw new RuntimeFailure(`ec2nodeclass/${r.view.name}: Karpenter did not report AMIsReady for generation ${generations[r.view.name]} within ${READY_WAIT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    const targetMinor = minorOf(names) ?? discovery.controlPlane.minor;
    const startedAt = new Date();
    await followRollout(ctx, cluster, discovery, inventory, {
      scope: { nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })), targetImageIds: targets, targetMinor, startedAt, nodeClassGenerations: generations },
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      resumeCommand: 'karp-drift status --watch',
    });
    if (!json) ctx.io.out(`Rollback complete: ${pools.map((p) => `nodepool/${p.name}`).join(', ')} back on the previous AMIs (Kubernetes ${targetMinor}).\n`);
  } finally {
    cluster.close();
  }
}
