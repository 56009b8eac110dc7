// `karp-drift upgrade`: discover → resolve AMIs → plan → confirm → apply → follow → report (STYLE.md "Commands are
// short recipes"). Only the EC2NodeClasses whose terms change are applied; re-running with the same target applies
// nothing and follows the rollout where it stands.
import { randomUUID } from 'node:crypto';
import type { CommandContext } from './context.js';
import { followNeeds, holdNeeds, lockNeeds, requireAccess } from '../cluster/access.js';
import { customObjects, applyNodeClass, bookkeeping } from '../cluster/apply.js';
import type { UpgradeOptions } from './options.js';
import type { NodeClassPlan, PlanSource } from '../plan/plan.js';
import { promotedFrom } from '../plan/promotion.js';
import { amiIdentity } from '../report/amis.js';
import { planJson, planSummary, planText } from '../report/plan.js';
import { recordSummary } from '../report/summary.js';
import { humanDuration } from '../text/words.js';
import { followRollout } from './follow-rollout.js';
import { preparePlan, refuseIfBlocked, type Planned } from './planning.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import { createPacer, type Pacer } from './staged-pacer.js';
import { pacerEventJson, pacerLogLine, stagedPlanJson, stagedPlanLines, type PacerEvent } from '../report/stages.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { stagedFlags } from '../stages/request.js';
import { HaltedError, InterruptedError, KarpDriftError, UsageError } from '../errors.js';
import { takeBaseline } from '../gates/baseline.js';
import { createGateKeeper, type GateKeeper } from './gate-keeper.js';
import { rollbackAfterHalt } from './halt-rollback.js';
import { applyEach, confirmOrRefuse, event } from './upgrade-shared.js';

function resumeCommand(options: UpgradeOptions, ctx: CommandContext): string {
  const parts = ['karp-drift upgrade', `--to ${options.kubernetes.version}`];
  for (const n of options.nodeClasses) parts.push(`--nodeclass ${n}`);
  if (options.release !== 'latest') parts.push(`--release ${options.release}`);
  if (options.amisFile !== undefined) parts.push(`--amis-file ${options.amisFile}`);
  if (options.fromCluster?.context !== undefined) parts.push(`--from-context ${options.fromCluster.context}`);
  if (options.fromCluster?.kubeconfig !== undefined) parts.push(`--from-kubeconfig ${options.fromCluster.kubeconfig}`);
  if (options.pin !== 'id') parts.push(`--pin ${options.pin}`);
  if (options.staged) parts.push(...stagedFlags(options.staged));
  if (options.lockNamespace !== undefined && options.lockNamespace !== LEASE_NAMESPACE)
    parts.push(`--lock-namespace ${options.lockNamespace}`);
  if (ctx.globals.context) parts.push(`--context ${ctx.globals.context}`);
  parts.push('--yes');
  return parts.join(' ');
}

export async function upgrade(options: UpgradeOptions, ctx: CommandContext): Promise<void> {
  if (options.templates && options.staged) {
    throw new UsageError(
      '--canary/--waves cannot go with --templates: the staged rollout paces the pinned AMIs of live EC2NodeClasses',
      {
        hint: 'apply the templates first (upgrade --templates ...), then stage the rollout with upgrade --to <minor> --canary/--waves',
      },
    );
  }
  if (options.templates)
    return (await import('./upgrade-templates.js')).upgradeFromTemplates(options, options.templates, ctx);
  const json = ctx.globals.output === 'json';
  if (options.staged && !options.wait && !options.dryRun) {
    throw new UsageError(
      '--no-wait cannot go with a staged rollout (--canary/--waves): karp-drift paces the waves while it follows them',
      {
        hint: 'drop --no-wait (a staged upgrade that ends early leaves the rollout paused; re-run it to go on)',
      },
    );
  }
  const { cluster, discovery, inventory, resolved, plan, staged, log } = await preparePlan(options, ctx);
  try {
    if (ctx.summary)
      recordSummary(ctx.summary, {
        type: 'plan',
        plan: JSON.parse(planJson(plan, cluster.identity, staged ? stagedPlanJson(staged) : undefined)) as unknown,
      });
    if (json) {
      ctx.io.out(
        event('resolved', {
          region: resolved.region,
          source: plan.source ?? null,
          amis: resolved.amis.map(amiIdentity),
        }),
      );
      ctx.io.out(
        event('plan', {
          plan: JSON.parse(planJson(plan, cluster.identity, staged ? stagedPlanJson(staged) : undefined)) as unknown,
        }),
      );
    } else {
      ctx.io.out(planText(plan, { color: ctx.globals.color, ...(staged ? { staged: stagedPlanLines(staged) } : {}) }));
    }
    refuseIfBlocked(
      plan,
      'fix what the checks say (or pass --force-conflicts for field owners), then run upgrade again',
    );
    const changes = plan.nodeClasses.filter((c) => c.changed);
    if (changes.length > 0) {
      const { nodeClassesToChange, nodesToReplace } = planSummary(plan);
      const pace = staged ? ` in ${staged.stages.length > 1 ? 'stages and ' : ''}waves, paced by karp-drift` : '';
      await confirmOrRefuse(
        ctx,
        options,
        `Apply ${nodeClassesToChange} EC2NodeClass change(s)? Karpenter will then replace ${nodesToReplace} node(s) through drift${pace}.`,
      );
    }

    const lockNamespace = options.lockNamespace ?? LEASE_NAMESPACE;
    const mechanisms = new Set(staged?.stages.flatMap((s) => s.nodePools.map((p) => p.hold.mechanism)) ?? []);
    if ((changes.length > 0 || staged) && !options.dryRun) {
      await requireAccess(cluster, [
        ...changes.map((c) => ({
          verb: 'patch',
          group: 'karpenter.k8s.aws',
          resource: 'ec2nodeclasses',
          name: c.name,
          why: 'server-side apply of amiSelectorTerms',
        })),
        ...(options.wait ? followNeeds() : []),
        ...(staged ? holdNeeds(lockNamespace, mechanisms) : lockNeeds(lockNamespace)),
      ]);
    }
    const edge: Stage2 = { cluster, discovery, inventory, json, log };
    if (options.dryRun) {
      await applyAll(ctx, options, { ...edge, changes, runId: randomUUID(), source: plan.source });
      if (!json) ctx.io.out(`Dry run: the API server accepted ${changes.length} change(s); nothing was changed.\n`);
      return;
    }
    if (changes.length === 0 && !staged) {
      return await follow(ctx, options, { ...edge, plan, generations: {}, changed: 0 });
    }
    const holder = lockHolder(resumeCommand(options, ctx).replace(/^karp-drift /, ''));
    const writes = { ...edge, changes, runId: holder.runId, source: plan.source };
    if (!staged) {
      // The lock covers the writes; following only reads, so a teammate may `pause` the rollout meanwhile.
      const generations = await withClusterLock(ctx, cluster, { lockNamespace }, holder, (signal) =>
        applyAll({ ...ctx, signal }, options, writes),
      );
      return await follow(ctx, options, { ...edge, plan, generations, changed: changes.length });
    }
    // A staged rollout holds the lock until it ends: it writes holds for as long as it follows.
    await withClusterLock(ctx, cluster, { lockNamespace }, holder, async (signal) => {
      const locked = { ...ctx, signal };
      const gates = gateKeeper(ctx, {
        cluster,
        discovery,
        inventory,
        plan,
        staged,
        runId: holder.runId,
        target: options.kubernetes.version,
      });
      const pacer = createPacer({
        cluster,
        api: discovery.karpenterApi,
        plan: staged,
        scope: { nodePools: plan.nodePools, targetImageIds: targetIdsOf(plan) },
        runId: holder.runId,
        target: options.kubernetes.version,
        who: `${holder.user}@${holder.host}`,
        nodePools: inventory.nodePools,
        ...(gates ? { cleared: (c) => gates.cleared(c) } : {}),
      });
      // The holds go on before the apply: from the moment the AMIs change, Karpenter may start only the first wave.
      pacer.listen(stagedReporter(ctx, json, staged, log));
      const applied: Record<string, number> = {};
      let generations: Record<string, number>;
      try {
        await pacer.prime(inventory, new Date(), signal);
        generations = await applyAll(locked, options, writes, applied);
      } catch (err) {
        throw await primeFailed(err, pacer, inventory, Object.keys(applied).length > 0, signal.aborted);
      }
      try {
        await follow(locked, options, {
          ...edge,
          plan,
          generations,
          changed: changes.length,
          pacer,
          ...(gates ? { gates } : {}),
        });
      } catch (err) {
        if (!(err instanceof HaltedError) || staged.gates?.onFailure !== 'rollback') throw err;
        throw await rollbackAfterHalt(locked, err, {
          cluster,
          discovery,
          inventory,
          pacer,
          nodeClasses: plan.nodeClasses.map((c) => c.name),
          nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
          timeoutMs: options.timeoutMs,
          stallTimeoutMs: options.stallTimeoutMs,
          json,
          log,
        });
      }
    });
  } finally {
    cluster.close();
  }
}

interface Stage2 {
  cluster: Planned['cluster'];
  discovery: Planned['discovery'];
  inventory: Planned['inventory'];
  json: boolean;
  log: Planned['log'];
}

/**
 * The holds went on, then the run ended before the follow (interrupted, an apply refused). With no class applied
 * nothing will drift: the holds come off again and the cluster is as it was. With some applied, their nodes drift:
 * the rollout stays paused (held at 0), as a staged run that ends early always does.
 */
async function primeFailed(
  err: unknown,
  pacer: Pacer,
  inventory: Planned['inventory'],
  someApplied: boolean,
  interrupted: boolean,
): Promise<unknown> {
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  if (!someApplied) {
    const undone = await pacer.finish(nodes, new Date(), { quiet: true }).then(
      () => "karp-drift's holds were taken off again; nothing was changed",
      (e: unknown) =>
        `taking karp-drift's holds off again failed (${e instanceof Error ? e.message : String(e)}): karp-drift resume releases them`,
    );
    if (interrupted) return new InterruptedError(`interrupted before the EC2NodeClass apply; ${undone}`);
    if (err instanceof KarpDriftError) err.message += `; ${undone}`;
    return err;
  }
  const pools = await pacer
    .pause(inventory.nodeClaims, nodes, 'the run ended during the apply', new Date())
    .catch(() => []);
  const note = `; the staged rollout is paused: karp-drift holds Drifted disruption on ${pools.map((p) => `nodepool/${p}`).join(', ')} (re-run the upgrade to go on, or karp-drift resume)`;
  if (interrupted) return new InterruptedError(`interrupted during the EC2NodeClass apply${note}`);
  if (err instanceof KarpDriftError) err.message += note;
  return err;
}

async function applyAll(
  ctx: CommandContext,
  options: UpgradeOptions,
  { cluster, discovery, inventory, changes, runId, json, log, source }: Stage2 & { changes: NodeClassPlan[]; runId: string; source?: PlanSource },
  generations: Record<string, number> = {},
): Promise<Record<string, number>> {
  const how = {
    doing: 'applying',
    done: 'applied',
    dryRun: options.dryRun,
    resume: `resume with: ${resumeCommand(options, ctx)} (or undo with karp-drift rollback)`,
    undo: (done: string[]) => `undo with karp-drift rollback ${done.map((n) => `--nodeclass ${n}`).join(' ')}`,
  };
  await applyEach(
    ctx,
    changes.map((c) => c.name),
    how,
    async (name) => {
      const change = changes.find((c) => c.name === name)!;
      generations[change.name] = await applyChange(
        cluster,
        discovery.karpenterApi,
        change,
        options,
        runId,
        inventory.nodeClasses.find((n) => n.name === change.name)!.resourceVersion,
        source,
      );
      if (json)
        ctx.io.out(
          event('applied', {
            nodeClass: change.name,
            generation: generations[change.name],
            dryRun: options.dryRun,
            amiSelectorTerms: change.after.amiSelectorTerms,
            ...(change.after.amiFamily ? { amiFamily: change.after.amiFamily } : {}),
          }),
        );
      else
        log.info(
          `${options.dryRun ? 'Validated (dry run, nothing changed)' : 'Applied'}: ec2nodeclass/${change.name} amiSelectorTerms ${JSON.stringify(change.after.amiSelectorTerms)}`,
        );
    },
  );
  return generations;
}

async function follow(
  ctx: CommandContext,
  options: UpgradeOptions,
  {
    cluster,
    discovery,
    inventory,
    plan,
    generations,
    json,
    log,
    changed,
    pacer,
    gates,
  }: Stage2 & {
    plan: Planned['plan'];
    generations: Record<string, number>;
    changed: number;
    pacer?: Pacer;
    gates?: GateKeeper;
  },
): Promise<void> {
  if (changed === 0 && !json)
    log.info(
      'Every EC2NodeClass in scope is already pinned to the target AMIs; following the rollout where it stands.',
    );
  if (!options.wait) {
    if (!json)
      ctx.io.out(
        `Applied ${changed} EC2NodeClass change(s); not waiting (--no-wait). Follow with: karp-drift wait${options.nodeClasses.map((n) => ` --nodeclass ${n}`).join('')} (or ${resumeCommand(options, ctx)})\n`,
      );
    return;
  }

  const startedAt = new Date();
  const final = await followRollout(ctx, cluster, discovery, inventory, {
    scope: {
      // The plan's NodePools are those of the classes in scope.
      nodePools: plan.nodePools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
      targetImageIds: targetIdsOf(plan),
      targetMinor: options.kubernetes.version,
      startedAt,
      nodeClassGenerations: generations,
    },
    timeoutMs: options.timeoutMs,
    stallTimeoutMs: options.stallTimeoutMs,
    resumeCommand: resumeCommand(options, ctx),
    ...(pacer ? { pacer } : {}),
    ...(gates ? { gates, rollbackOnHalt: gates.request.onFailure === 'rollback' } : {}),
  });
  if (!json) {
    const pools = final.nodePools.map((p) => `${p.name}: ${p.replaced} replaced, ${p.onTarget} on target`).join('; ');
    ctx.io.out(
      `Rollout complete in ${humanDuration(Date.now() - startedAt.getTime())}: every node runs Kubernetes ${options.kubernetes.version} AMIs (${pools}).${pacer ? " Every stage done; karp-drift's holds are released." : ''}\n`,
    );
  }
}

/**
 * The health gates of a staged rollout, with their baseline taken from the inventory read before the first write;
 * none when every gate is off (--no-gates and no --gate-cmd).
 */
function gateKeeper(
  ctx: CommandContext,
  p: {
    cluster: Planned['cluster'];
    discovery: Planned['discovery'];
    inventory: Planned['inventory'];
    plan: Planned['plan'];
    staged: StagedPlan;
    runId: string;
    target: string;
  },
): GateKeeper | undefined {
  const request = p.staged.gates;
  if (request === undefined || (!request.builtIn && request.command === undefined)) return undefined;
  const scope = { nodePools: p.plan.nodePools.map((n) => n.name), targetImageIds: targetIdsOf(p.plan) };
  return createGateKeeper({
    cluster: p.cluster,
    discovery: p.discovery,
    request,
    scope,
    baseline: takeBaseline(p.inventory, scope, new Date()),
    plan: p.staged.stagePlan,
    facts: {
      target: p.target,
      runId: p.runId,
      amis: [...new Set(Object.values(scope.targetImageIds).flat())],
      context: p.cluster.context,
      ...(ctx.globals.kubeconfig !== undefined ? { kubeconfig: ctx.globals.kubeconfig } : {}),
    },
  });
}

function targetIdsOf(plan: Planned['plan']): Record<string, string[]> {
  return Object.fromEntries(plan.nodeClasses.map((c) => [c.name, c.targets.map((t) => t.id)]));
}

/** Before the follow (the priming holds): the steps as NDJSON or log lines. */
function stagedReporter(ctx: CommandContext, json: boolean, staged: StagedPlan, log: Planned['log']) {
  return (e: PacerEvent) => {
    const now = new Date();
    if (json) ctx.io.out(`${JSON.stringify(pacerEventJson(e, staged.stagePlan, now))}\n`);
    else {
      const line = pacerLogLine(e, staged.stagePlan, now);
      if (line !== undefined) log.info(line);
    }
  };
}

async function applyChange(
  cluster: Awaited<ReturnType<typeof preparePlan>>['cluster'],
  karpenterApi: 'v1' | 'v1beta1',
  change: NodeClassPlan,
  options: UpgradeOptions,
  runId: string,
  resourceVersion: string,
  source: PlanSource | undefined,
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
      annotations: bookkeeping(
        change.before,
        options.kubernetes.version,
        runId,
        source && promotedFrom(source, change.targets.map((t) => t.release)),
      ),
      force: true,
    },
    { dryRun: options.dryRun },
  );
  return result.generation;
}
