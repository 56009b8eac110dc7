// The apply step of `upgrade`: server-side apply the new amiSelectorTerms of each EC2NodeClass the plan changes, one
// class after another, recording on each what it had before (what `rollback` puts back).
import type { CommandContext } from './context.js';
import { customObjects, applyNodeClass, bookkeeping } from '../cluster/apply.js';
import type { NodeClassPlan } from '../plan/plan.js';
import { promotedFrom } from '../plan/promotion.js';
import { applyEach, event } from './upgrade-shared.js';
import type { UpgradeRun } from './upgrade-follow.js';

/** The changes to write, and what each write records besides them: the run and the target minor. */
export interface NodeClassWrites {
  changes: NodeClassPlan[];
  runId: string;
  target: string;
  dryRun: boolean;
  /** The command line that goes on after an interrupt between two classes. */
  resume: string;
  /**
   * Classes written before the pacer primed, by generation (a staged rollback restores them under holds of its own
   * first): the rollout is under way whatever happens next, so a run that ends early leaves it paused.
   */
  applied?: Record<string, number>;
  /** `--apply-by git`: nothing is applied; the run waits this long for the planned terms to arrive (apply-by-git.ts). */
  applyBy?: { timeoutMs: number };
}

/** Applies the changes in order; returns each class's generation (into `generations`, kept when a later one fails). */
export async function applyPlan(
  ctx: CommandContext,
  run: UpgradeRun,
  writes: NodeClassWrites,
  generations: Record<string, number> = {},
): Promise<Record<string, number>> {
  const { json, log } = run;
  const { changes, dryRun } = writes;
  const how = {
    doing: 'applying',
    done: 'applied',
    dryRun,
    resume: `resume with: ${writes.resume} (or undo with karp-drift rollback)`,
    undo: (done: string[]) => `undo with karp-drift rollback ${done.map((n) => `--nodeclass ${n}`).join(' ')}`,
  };
  await applyEach(
    ctx,
    changes.map((c) => c.name),
    how,
    async (name) => {
      const change = changes.find((c) => c.name === name)!;
      generations[change.name] = await applyChange(run, writes, change);
      if (json)
        ctx.io.out(
          event('applied', {
            nodeClass: change.name,
            generation: generations[change.name],
            dryRun,
            amiSelectorTerms: change.after.amiSelectorTerms,
            ...(change.after.amiFamily ? { amiFamily: change.after.amiFamily } : {}),
          }),
        );
      else
        log.info(
          `${dryRun ? 'Validated (dry run, nothing changed)' : 'Applied'}: ec2nodeclass/${change.name} amiSelectorTerms ${JSON.stringify(change.after.amiSelectorTerms)}`,
        );
    },
  );
  return generations;
}

/**
 * The applies sent with dryRun=All, quietly: a staged run asks this before its first hold, so a plan gone stale or an
 * admission policy that refuses the change ends the run with nothing written at all (not even a hold put on and taken
 * off again, which bumps each NodePool's generation and resets Karpenter's NodeRegistrationHealthy).
 */
export async function validateApplies(run: UpgradeRun, writes: NodeClassWrites): Promise<void> {
  for (const change of writes.changes) await applyChange(run, { ...writes, dryRun: true }, change);
}

async function applyChange(
  { cluster, discovery, inventory, plan }: UpgradeRun,
  { runId, target, dryRun }: NodeClassWrites,
  change: NodeClassPlan,
): Promise<number> {
  const resourceVersion = inventory.nodeClasses.find((n) => n.name === change.name)!.resourceVersion;
  const source = plan.source;
  // Always forced: people with kubectl are taken over (the plan says so), and GitOps or IaC owners got this far only
  // with --force-conflicts (the plan refuses them otherwise).
  const result = await applyNodeClass(
    customObjects(cluster),
    {
      name: change.name,
      karpenterApi: discovery.karpenterApi,
      resourceVersion,
      ...(change.after.amiFamily ? { amiFamily: change.after.amiFamily } : {}),
      amiSelectorTerms: change.after.amiSelectorTerms,
      annotations: bookkeeping(
        change.before,
        target,
        runId,
        source && promotedFrom(source, change.targets.map((t) => t.release)),
      ),
      force: true,
    },
    { dryRun },
  );
  return result.generation;
}
