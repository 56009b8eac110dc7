// The objects the last `upgrade --templates` created, which `rollback` deletes: rollback undoes exactly what the upgrade
// did, and never deletes what it did not create. An object counts only while it is the last upgrade's doing: its
// `karp-drift.io/created-by-run` is the run recorded on its EC2NodeClass (a later upgrade of the class, by the pin path
// or the templates, is that class's last upgrade; rolling it back leaves the older creation alone). NodePools go first
// (a NodePool's deletion is what terminates its nodes, through Karpenter's finalizer), then the created EC2NodeClasses
// no remaining NodePool uses.
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import { ANNOTATIONS } from '../cluster/apply.js';
import type { Cluster } from '../cluster/client.js';
import { deleteCreated } from '../cluster/delete.js';
import type { AccessNeed } from '../cluster/access.js';
import { karpenterResources } from '../karpenter/resources.js';
import type { Inventory, KarpenterApi } from '../karpenter/views.js';
import { plural } from '../text/words.js';
import { event } from './upgrade-shared.js';

/** An object the last upgrade created: the rollback deletes it. */
export interface CreatedObject {
  kind: 'NodePool' | 'EC2NodeClass';
  name: string;
  uid: string;
  /** A NodePool's nodes (NodeClaims not being deleted): Karpenter drains and terminates them. */
  nodes: number;
}

export interface CreatedByUpgrade {
  deletes: CreatedObject[];
  /** Created EC2NodeClasses a NodePool that stays still uses: left, and said so. */
  kept: Array<{ name: string; usedBy: string[] }>;
}

const ref = (o: Pick<CreatedObject, 'kind' | 'name'>): string => `${o.kind.toLowerCase()}/${o.name}`;

export function createdByUpgrade(inventory: Inventory): CreatedByUpgrade {
  const runOf = new Map(inventory.nodeClasses.map((c) => [c.name, c.annotations[ANNOTATIONS.runId]]));
  const pools = inventory.nodePools.filter((p) => {
    const by = p.annotations?.[ANNOTATIONS.createdBy];
    return by !== undefined && by === runOf.get(p.nodeClass);
  });
  const deleted = new Set(pools.map((p) => p.name));
  const deletes: CreatedObject[] = pools.map((p) => ({
    kind: 'NodePool',
    name: p.name,
    uid: p.uid,
    nodes: inventory.nodeClaims.filter((c) => c.nodePool === p.name && !c.deleting).length,
  }));
  const kept: CreatedByUpgrade['kept'] = [];
  for (const c of inventory.nodeClasses) {
    const by = c.annotations[ANNOTATIONS.createdBy];
    if (by === undefined || by !== c.annotations[ANNOTATIONS.runId]) continue;
    const usedBy = inventory.nodePools.filter((p) => p.nodeClass === c.name && !deleted.has(p.name)).map((p) => `nodepool/${p.name}`);
    if (usedBy.length > 0) kept.push({ name: c.name, usedBy });
    else deletes.push({ kind: 'EC2NodeClass', name: c.name, uid: c.uid, nodes: 0 });
  }
  return { deletes, kept };
}

/** The plan's lines for what is deleted, and for a created class that stays. */
export function createdLines({ deletes, kept }: CreatedByUpgrade): string[] {
  return [
    ...deletes.map(
      (d) =>
        `- ${ref(d)} (created by karp-drift upgrade --templates): deleted${d.kind !== 'NodePool' ? '' : d.nodes === 0 ? '; it has no nodes' : `; Karpenter drains and terminates its ${plural(d.nodes, 'node')}`}`,
    ),
    ...kept.map((k) => `  ec2nodeclass/${k.name} (created by karp-drift upgrade --templates) stays: ${k.usedBy.join(', ')} use${k.usedBy.length === 1 ? 's' : ''} it`),
  ];
}

export const createdRefs = (deletes: readonly CreatedObject[]): string[] => deletes.map(ref);

/** What the deletes ask of RBAC, each by name. */
export function deleteNeeds(deletes: readonly CreatedObject[]): AccessNeed[] {
  return deletes.map((d) => ({
    verb: 'delete',
    group: d.kind === 'NodePool' ? 'karpenter.sh' : 'karpenter.k8s.aws',
    resource: d.kind === 'NodePool' ? 'nodepools' : 'ec2nodeclasses',
    name: d.name,
    why: 'delete what upgrade --templates created',
  }));
}

/** Deletes the objects of `kind` among `deletes`, each at the uid the plan read. */
export async function deleteEach(
  ctx: CommandContext,
  cluster: Cluster,
  api: KarpenterApi,
  deletes: readonly CreatedObject[],
  kind: CreatedObject['kind'],
  how: { dryRun: boolean; json: boolean; log: Logger },
): Promise<void> {
  const resources = karpenterResources(api);
  for (const d of deletes.filter((x) => x.kind === kind)) {
    const r = kind === 'NodePool' ? resources.nodePools : resources.nodeClasses;
    const outcome = await deleteCreated(cluster, r, d, { dryRun: how.dryRun, signal: ctx.signal });
    if (how.json) ctx.io.out(event('deleted', { kind, name: d.name, dryRun: how.dryRun, alreadyGone: outcome === 'gone' }));
    else if (how.dryRun) how.log.info(`Validated (dry run, nothing changed): delete ${ref(d)}`);
    else how.log.info(outcome === 'gone' ? `Already gone: ${ref(d)}` : `Deleted: ${ref(d)}${kind === 'NodePool' && d.nodes > 0 ? ` (Karpenter drains and terminates its ${plural(d.nodes, 'node')})` : ''}`);
  }
}
