// `karp-drift upgrade`: discover → resolve AMIs → plan → confirm → apply → follow → report (STYLE.md "Commands are
// short recipes"). Only the EC2NodeClasses whose terms change are applied; re-running with the same target applies
// nothing and follows the rollout where it stands.
import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../cli.js';
import { followNeeds, requireAccess } from '../cluster/access.js';
import { customObjects, applyNodeClass, bookkeeping } from '../cluster/apply.js';
import type { UpgradeOptions } from '../options.js';
import type { NodeClassPlan } from '../plan/plan.js';
import { planJson, planSummary, planText } from '../report/plan.js';
import { humanDuration } from '../rollout/text.js';
import { followRollout } from './follow-rollout.js';
import { preparePlan, refuseIfBlocked } from './planning.js';
import { applyEach, confirmOrRefuse, event } from './upgrade-shared.js';

function resumeCommand(options: UpgradeOptions, ctx: CommandContext): string {
  const parts = ['karp-drift upgrade', `--to ${options.kubernetes.version}`];
  for (const n of options.nodeClasses) parts.push(`--nodeclass ${n}`);
  if (options.release !== 'latest') parts.push(`--release ${options.release}`);
  if (options.pin !== 'id') parts.push(`--pin ${options.pin}`);
  if (ctx.globals.context) parts.push(`--context ${ctx.globals.context}`);
  parts.push('--yes');
  return parts.join(' ');
}

export async function upgrade(options: UpgradeOptions, ctx: CommandContext): Promise<void> {
  if (options.templates) return (await import('./upgrade-templates.js')).upgradeFromTemplates(options, options.templates, ctx);
  const json = ctx.globals.output === 'json';
  const { cluster, discovery, inventory, resolved, plan, log } = await preparePlan(options, ctx);
  try {
    if (json) {
      ctx.io.out(event('resolved', { region: resolved.region, amis: resolved.amis.map((a) => ({ family: a.family, arch: a.arch, variant: a.variant, release: a.release, id: a.id, name: a.name })) }));
      ctx.io.out(event('plan', { plan: JSON.parse(planJson(plan, cluster.identity)) as unknown }));
    } else {
      ctx.io.out(planText(plan, { color: ctx.globals.color }));
    }
    refuseIfBlocked(plan, 'fix what the checks say (or pass --force-conflicts for field owners), then run upgrade again');
    const changes = plan.nodeClasses.filter((c) => c.changed);
    if (changes.length > 0) {
      const { nodeClassesToChange, nodesToReplace } = planSummary(plan);
      await confirmOrRefuse(ctx, options, `Apply ${nodeClassesToChange} EC2NodeClass change(s)? Karpenter will then replace ${nodesToReplace} node(s) through drift.`);
    }

    if (changes.length > 0 && !options.dryRun) {
      await requireAccess(cluster, [
        ...changes.map((c) => ({ verb: 'patch', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: c.name, why: 'server-side apply of amiSelectorTerms' })),
        ...(options.wait ? followNeeds() : []),
      ]);
    }
    const runId = randomUUID();
    const generations: Record<string, number> = {};
    const how = {
      doing: 'applying',
      done: 'applied',
      dryRun: options.dryRun,
      resume: `resume with: ${resumeCommand(options, ctx)} (or undo with karp-drift rollback)`,
      undo: (done: string[]) => `undo with karp-drift rollback ${done.map((n) => `--nodeclass ${n}`).join(' ')}`,
    };
    await applyEach(ctx, changes.map((c) => c.name), how, async (name) => {
      const change = changes.find((c) => c.name === name)!;
      generations[change.name] = await applyChange(cluster, discovery.karpenterApi, change, options, runId, inventory.nodeClasses.find((n) => n.name === change.name)!.resourceVersion);
      if (json) ctx.io.out(event('applied', { nodeClass: change.name, generation: generations[change.name], dryRun: options.dryRun, amiSelectorTerms: change.after.amiSelectorTerms, ...(change.after.amiFamily ? { amiFamily: change.after.amiFamily } : {}) }));
      else log.info(`${options.dryRun ? 'Validated (dry run, nothing changed)' : 'Applied'}: ec2nodeclass/${change.name} amiSelectorTerms ${JSON.stringify(change.after.amiSelectorTerms)}`);
    });
    if (options.dryRun) {
      if (!json) ctx.io.out(`Dry run: the API server accepted ${changes.length} change(s); nothing was changed.\n`);
      return;
    }
    if (changes.length === 0 && !json) log.info('Every EC2NodeClass in scope is already pinned to the target AMIs; following the rollout where it stands.');
    if (!options.wait) {
      if (!json) ctx.io.out(`Applied ${changes.length} EC2NodeClass change(s); not waiting (--no-wait). Follow with: ${resumeCommand(options, ctx)}\n`);
      return;
    }

    const startedAt = new Date();
    const final = await followRollout(ctx, cluster, discovery, inventory, {
      scope: {
        // The plan's NodePools are those of the classes in scope.
        nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
        targetImageIds: Object.fromEntries(plan.nodeClasses.map((c) => [c.name, c.targets.map((t) => t.id)])),
        targetMinor: options.kubernetes.version,
        startedAt,
        nodeClassGenerations: generations,
      },
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      resumeCommand: resumeCommand(options, ctx),
    });
    if (!json) {
      const pools = final.nodePools.map((p) => `${p.name}: ${p.replaced} replaced, ${p.onTarget} on target`).join('; ');
      ctx.io.out(`Rollout complete in ${humanDuration(Date.now() - startedAt.getTime())}: every node runs Kubernetes ${options.kubernetes.version} AMIs (${pools}).\n`);
    }
  } finally {
    cluster.close();
  }
}

async function applyChange(
  cluster: Awaited<ReturnType<typeof preparePlan>>['cluster'],
  karpenterApi: 'v1' | 'v1beta1',
  change: NodeClassPlan,
  options: UpgradeOptions,
  runId: string,
  resourceVersion: string,
): Promise<number> {
  // Always forced: people with kubectl are taken over (the plan says so), and GitOps or IaC owners got this far only
  // with --force-conflicts (the plan refuses them otherwise).
  const result = await applyNodeClass(
    customObjects(cluster),
    {
      name: change.name,
      karpenterApi,
      resourceVersion,
      ...(change.after.amiFamily ? { amiFamily: change.after.amiFamily } : {}),
      amiSelectorTerms: change.after.amiSelectorTerms,
      annotations: bookkeeping(change.before, options.kubernetes.version, runId),
      force: true,
    },
    { dryRun: options.dryRun },
  );
  return result.generation;
}
