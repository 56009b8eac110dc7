// What `rollback` restores and deletes, and shows before it asks: the classes with a recorded selection and the
// objects the last `upgrade --templates` created (rollback-created.ts), shown as upgrade shows its plan (the same
// `plan` event and summary document, with the keys a restore has), and the warnings that their nodes will be replaced.
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import { ANNOTATIONS } from '../cluster/apply.js';
import type { Inventory } from '../karpenter/views.js';
import { UsageError } from '../errors.js';
import { recordSummary } from '../report/summary.js';
import { amiSelectorTermText, plural } from '../text/words.js';
import { recorded, type Restore } from './rollback-restore.js';
import { heldIn, type HeldDrift } from './release-holds.js';
import { createdByUpgrade, createdLines, type CreatedByUpgrade } from './rollback-created.js';
import { event } from './upgrade-shared.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { stagedPlanJson, stagedPlanLines } from '../report/stages.js';

/** The classes a rollback restores, the objects it deletes, the NodePools that follow, and how many nodes those run. */
export interface RollbackPlan {
  restores: Restore[];
  /** What the last `upgrade --templates` created: deleted (rollback-created.ts). */
  created: CreatedByUpgrade;
  /** The NodePools of the restored classes, without the ones deleted: they drift back. */
  pools: Inventory['nodePools'];
  nodes: number;
  /** Of those, the nodes that run the AMIs pinned now (or are launching from them): what the rollback replaces. */
  onPinned: number;
}

/** The selections recorded on the classes named (all when none); none at all is a usage error. */
export function rollbackPlan(inventory: Inventory, named: readonly string[]): RollbackPlan {
  const restores = inventory.nodeClasses.flatMap((v) => recorded(v) ?? []);
  const created = createdByUpgrade(inventory);
  if (restores.length === 0 && created.deletes.length === 0) {
    throw new UsageError(
      `nothing to roll back: no EC2NodeClass${named.length > 0 ? ` among ${named.join(', ')}` : ''} carries ${ANNOTATIONS.previousTerms}, which karp-drift upgrade records, and no object carries the ${ANNOTATIONS.createdBy} of its last upgrade`,
      {
        hint: 'roll back by hand (kubectl edit ec2nodeclass <name>), or upgrade to the release you want with --release',
      },
    );
  }
  const deleted = new Set(created.deletes.filter((d) => d.kind === 'NodePool').map((d) => d.name));
  const pools = inventory.nodePools.filter((p) => restores.some((r) => r.view.name === p.nodeClass) && !deleted.has(p.name));
  const claims = inventory.nodeClaims.filter((c) => !c.deleting && pools.some((p) => p.name === c.nodePool));
  const restored = new Set(restores.filter((r) => r.restored).map((r) => r.view.name));
  return { restores, created, pools, nodes: claims.length, onPinned: onPinnedAmis(inventory, claims, restored) };
}

/**
 * How many of `claims` drift back: those that run the AMIs their class selects now (`status.amis`), or are still
 * launching (from them). A node that never left the previous AMIs (a halted canary's other nodes) is not replaced
 * again. Of a class already `restored` (a staged rollback under way), status.amis are the previous AMIs: the nodes
 * on any other AMI are the ones still to go back.
 */
export function onPinnedAmis(
  inventory: Inventory,
  claims: Inventory['nodeClaims'],
  restored: ReadonlySet<string> = new Set(),
): number {
  return claims.filter((c) => replacedByRollback(inventory, c, restored)).length;
}

/**
 * Per NodePool, the nodes that go back: what a staged rollback's stages count (a NodeClaim still launching has no AMI
 * yet, and the controller counts it as a replacement).
 */
export function nodesGoingBack(inventory: Inventory, plan: Pick<RollbackPlan, 'pools' | 'restores'>): Map<string, number> {
  const restored = new Set(plan.restores.filter((r) => r.restored).map((r) => r.view.name));
  const live = inventory.nodeClaims.filter((c) => !c.deleting && c.imageId !== undefined);
  return new Map(
    plan.pools.map((p) => [p.name, live.filter((c) => c.nodePool === p.name && replacedByRollback(inventory, c, restored)).length]),
  );
}

/** One NodeClaim of onPinnedAmis: does the rollback replace it? */
export function replacedByRollback(inventory: Inventory, c: Inventory['nodeClaims'][number], restored: ReadonlySet<string>): boolean {
  const nodeClass = inventory.nodePools.find((p) => p.name === c.nodePool)?.nodeClass ?? '';
  const pinned = new Set(inventory.nodeClasses.find((n) => n.name === nodeClass)?.statusAmis.map((a) => a.id));
  if (restored.has(nodeClass)) return c.imageId !== undefined && !pinned.has(c.imageId);
  return c.imageId === undefined || pinned.has(c.imageId);
}

/** The plan, as upgrade's is shown: `staged`, a staged rollback's stages (upgrade's `staged` key, its lines). */
export function reportRollbackPlan(
  ctx: CommandContext,
  plan: RollbackPlan,
  inventory: Inventory,
  cluster: ClusterIdentity,
  staged?: StagedPlan,
): void {
  const { restores } = plan;
  const document = () => ({ ...rollbackPlanDocument(plan, inventory, cluster), ...(staged ? { staged: stagedPlanJson(staged) } : {}) });
  if (ctx.summary) recordSummary(ctx.summary, { type: 'plan', plan: document() });
  if (ctx.globals.output === 'json') {
    // The same `plan` event as upgrade's: one document, the keys a rollback has (no AMI resolution, no checks).
    ctx.io.out(event('plan', { plan: document() }));
  } else {
    const deleting = createdLines(plan.created);
    if (deleting.length > 0) ctx.io.out(`${deleting.join('\n')}\n`);
    for (const r of restores) {
      if (r.restored) {
        ctx.io.out(
          `= ec2nodeclass/${r.view.name}: already selects the recorded amiSelectorTerms (${r.terms.map(amiSelectorTermText).join(', ')}): a staged rollback restored it; its nodes follow\n`,
        );
        continue;
      }
      ctx.io.out(
        `~ ec2nodeclass/${r.view.name}\n  - amiSelectorTerms: ${r.view.amiSelectorTerms.map(amiSelectorTermText).join(', ')}${r.view.amiFamily ? ` (amiFamily ${r.view.amiFamily})` : ''}\n  + amiSelectorTerms: ${r.terms.map(amiSelectorTermText).join(', ')}${r.amiFamily ? ` (amiFamily ${r.amiFamily})` : ''}\n`,
      );
    }
    if (staged) ctx.io.out(`${stagedPlanLines(staged).join('\n')}\n`);
  }
}

/**
 * Warns that every node drifts back, and of the holds a staged rollout left, which are returned. `staged`: this
 * rollback is staged, so it takes those holds over and paces the nodes back rather than lifting them.
 */
export function warnOfReplacements(log: Logger, plan: RollbackPlan, inventory: Inventory, staged = false): HeldDrift {
  const { pools } = plan;
  if (plan.restores.length > 0) log.warn(replacementWarning({ ...plan, resumed: plan.restores.every((r) => r.restored) }));
  for (const d of plan.created.deletes.filter((x) => x.kind === 'NodePool' && x.nodes > 0))
    log.warn(
      `deleting nodepool/${d.name} terminates its ${plural(d.nodes, 'node')} as Karpenter does for any deleted NodePool: drained, their pods rescheduled on the other NodePools, outside the disruption budgets`,
    );
  // A staged rollout that paused or halted left its holds: Karpenter would never drift these nodes back under
  // them, so the rollback lifts them, but only once the previous AMIs are resolved and no node on them is still
  // marked Drifted (lifted earlier, Karpenter could replace an old node with one more node on the new AMI).
  const held = heldIn(pools, inventory.nodes);
  if (held.pools.length > 0 && staged)
    log.warn(
      `karp-drift holds drift on ${held.pools.map((p) => `nodepool/${p.name}`).join(', ')} (a staged rollout paused or halted there): the staged rollback keeps them held until Karpenter has resolved the previous AMIs, then paces the nodes back in its waves`,
    );
  else if (held.pools.length > 0)
    log.warn(
      `karp-drift holds drift on ${held.pools.map((p) => `nodepool/${p.name}`).join(', ')} (a staged rollout paused or halted there): the rollback releases the holds once Karpenter has resolved the previous AMIs`,
    );
  return held;
}

/** What the rollback replaces: the nodes on the AMIs pinned now, counted, and the others left as they are. */
export function replacementWarning({ pools, nodes, onPinned, resumed = false }: Pick<RollbackPlan, 'pools' | 'nodes' | 'onPinned'> & { resumed?: boolean }): string {
  const where = pools.map((p) => `nodepool/${p.name}`).join(', ') || 'these classes';
  // Every class already restored: a staged rollback under way, whose nodes are partly back.
  if (resumed) {
    if (onPinned === 0) return `the rollback under way replaces no more node of ${where}: all ${plural(nodes, 'node')} run the previous AMIs`;
    const back = nodes - onPinned;
    return `the rollback under way drifts the ${plural(onPinned, 'node')} of ${where} not yet on the previous AMIs back to them${back > 0 ? ` (the other ${plural(back, 'node')} ${back === 1 ? 'is' : 'are'} back already)` : ''}`;
  }
  if (onPinned === 0) return `rolling back replaces no node of ${where}: none of their ${plural(nodes, 'node')} runs the AMIs pinned now`;
  const others = nodes - onPinned;
  return `rolling back drifts the ${plural(onPinned, 'node')} of ${where} that run${onPinned === 1 ? 's' : ''} the AMIs pinned now back to the previous AMIs: ${onPinned === 1 ? 'it was' : 'they were'} replaced once already and ${onPinned === 1 ? 'is' : 'are'} replaced again${others > 0 ? ` (the other ${plural(others, 'node')} never left the previous AMIs and ${others === 1 ? 'stays' : 'stay'})` : ''}`;
}

/** rollback's `plan` document: upgrade's keys (`plan -o json`) that a restore has, filled the same way. */
function rollbackPlanDocument({ restores, pools, created }: RollbackPlan, inventory: Inventory, cluster: ClusterIdentity): Record<string, unknown> {
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
    // Beyond upgrade's keys, and only when there is something to delete (an `upgrade --templates` created it).
    ...(created.deletes.length > 0 ? { deletes: created.deletes.map((d) => ({ kind: d.kind, name: d.name, nodes: d.nodes })) } : {}),
    checks: [],
    blocked: false,
  };
}
