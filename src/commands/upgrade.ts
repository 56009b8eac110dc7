// `karp-drift upgrade`: discover → resolve AMIs → plan → confirm → apply → follow → report (STYLE.md "Commands are
// short recipes"). Only the EC2NodeClasses whose terms change are applied; re-running with the same target applies
// nothing and follows the rollout where it stands.
import { randomUUID } from 'node:crypto';
import type { CommandContext } from './context.js';
import { forScreen } from './screen-text.js';
import { applyNeeds, followNeeds, holdNeeds, lockNeeds, requireAccess, type AccessNeed } from '../cluster/access.js';
import type { UpgradeOptions } from './options.js';
import type { NodeClassPlan } from '../plan/plan.js';
import { amiIdentity } from '../report/amis.js';
import { planJson, planSummary, planText } from '../report/plan.js';
import { recordSummary } from '../report/summary.js';
import { preparePlan, refuseIfBlocked, type Planned } from './planning.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import { stagedPlanLines } from '../report/stages.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import type { StagedPlan } from '../stages/stage-plan.js';
import { stagedFlags } from '../stages/request.js';
import { UsageError, WindowPausedError } from '../errors.js';
import { confirmOrRefuse, event } from './upgrade-shared.js';
import { applyPlan } from './upgrade-apply.js';
import { followAndReport, type UpgradeFollow, type UpgradeRun } from './upgrade-follow.js';
import { followStaged } from './upgrade-staged.js';
import { refuseHalted, reportResume, resumeOf, resumeQuestion, stagedDocument } from './resume-consent.js';
import type { ResumePlan } from '../stages/resume-plan.js';

export async function upgrade(options: UpgradeOptions, ctx: CommandContext): Promise<void> {
  refuseFlagConflicts(options);
  if (options.templates)
    return (await import('./upgrade-templates.js')).upgradeFromTemplates(options, options.templates, ctx);
  const planned = await preparePlan(options, ctx);
  const { cluster, discovery, inventory, plan, staged, log } = planned;
  try {
    // A held rollout this run would take on: said, and never taken on without the user's word.
    const held = staged !== undefined ? resumeOf(planned, options.kubernetes.version, new Date()) : undefined;
    reportPlan(ctx, planned, held);
    if (held !== undefined) reportResume(ctx, held, new Date());
    if (!staged && !options.wait && plan.nodeClasses.some((c) => c.changed)) warnUnpaced(ctx, planned);
    refuseIfBlocked(
      plan,
      options.applyBy === 'git'
        ? 'fix what the checks say, then run upgrade again'
        : 'fix what the checks say (for a GitOps or IaC owner: change its files and run upgrade --apply-by git, or pass --force-conflicts), then run upgrade again',
    );
    if (held !== undefined && !options.dryRun) refuseHalted(held, options, resumeCommand(options, ctx).replace(/ --yes$/, ''));
    const changes = plan.nodeClasses.filter((c) => c.changed);
    if (changes.length > 0) await confirmPlan(ctx, options, plan, staged, held !== undefined, options.applyBy === 'git');
    else if (held !== undefined) await confirmOrRefuse(ctx, options, resumeQuestion(held));
    const lockNamespace = options.lockNamespace ?? LEASE_NAMESPACE;
    if (changes.length > 0 || (staged && !options.dryRun))
      await requireAccess(cluster, writeNeeds(changes, options, lockNamespace, staged));

    const run: UpgradeRun = { cluster, discovery, inventory, plan, json: ctx.globals.output === 'json', log };
    const resume = resumeCommand(options, ctx);
    const byGit = options.applyBy === 'git' ? { applyBy: { timeoutMs: options.syncTimeoutMs ?? 3_600_000 } } : {};
    const writes = { changes, target: options.kubernetes.version, dryRun: options.dryRun, resume, ...byGit };
    if (options.dryRun) {
      await applyPlan(ctx, run, { ...writes, runId: randomUUID() });
      if (!run.json) ctx.io.out(`Dry run: the API server accepted ${changes.length} change(s); nothing was changed.\n`);
      return;
    }
    const follow = followOf(options, resume);
    if (changes.length === 0 && !staged)
      return await followAndReport(ctx, run, follow, { generations: {}, changed: 0 });
    // The command as typed: a lock that said `--yes` of a run that asked would tell a teammate what never happened.
    const holder = lockHolder(ctx.commandLine ?? resume.replace(/^karp-drift /, ''));
    if (!staged) {
      // The lock covers the writes; following only reads, so a teammate may `pause` the rollout meanwhile.
      const generations = await withClusterLock(ctx, cluster, { lockNamespace }, holder, (signal) =>
        applyPlan({ ...ctx, signal }, run, { ...writes, runId: holder.runId }),
      );
      return await followAndReport(ctx, run, follow, { generations, changed: changes.length });
    }
    // A staged rollout holds the lock until it ends: it writes holds for as long as it follows.
    await withClusterLock(
      ctx,
      cluster,
      { lockNamespace },
      holder,
      (signal) => followStaged({ ...ctx, signal }, run, staged, { ...writes, runId: holder.runId }, follow, holder),
      { rideOut: true },
    ).catch((err: unknown) => {
      throw withWindowExitCode(err, options.staged?.windows?.exitCode);
    });
  } finally {
    cluster.close();
  }
}

/**
 * A run paused by its window, started outside one or cut off by its close, exits with --window-exit-code's status when
 * given (0 for a scheduler that counts only 0 as success, e.g. a Kubernetes CronJob); its message, its `window` and
 * `done` events and its summary still say it paused.
 */
function withWindowExitCode(err: unknown, exitStatus: number | undefined): unknown {
  if (!(err instanceof WindowPausedError) || exitStatus === undefined) return err;
  const { hint, cause, paused } = err;
  return new WindowPausedError(err.message, { hint, cause, ...(paused !== undefined ? { paused } : {}), exitStatus });
}

function refuseFlagConflicts(options: UpgradeOptions): void {
  if (options.templates && options.staged) {
    throw new UsageError(
      `${options.staged.windows ? '--window' : '--canary/--waves'} cannot go with --templates: the staged rollout paces the pinned AMIs of live EC2NodeClasses`,
      {
        hint: 'apply the templates first (upgrade --templates ...), then stage the rollout with upgrade --to <minor> --canary/--waves',
      },
    );
  }
  // With --templates there is no staged request left to check.
  if (options.staged && !options.wait && !options.dryRun) {
    throw new UsageError(
      `--no-wait cannot go with a staged rollout (${options.staged.windows ? '--window' : '--canary/--waves'}): karp-drift paces the waves while it follows them`,
      {
        hint: 'drop --no-wait (a staged upgrade that ends early leaves the rollout paused; re-run it to go on)',
      },
    );
  }
}

/** The plan as the run's first output: NDJSON `resolved` and `plan` events, or the plan as text; and the summary's. */
function reportPlan(ctx: CommandContext, { cluster, resolved, plan, staged }: Planned, held: ResumePlan | undefined): void {
  const document = () => JSON.parse(planJson(plan, cluster.identity, stagedDocument(staged, held))) as unknown;
  if (ctx.summary) recordSummary(ctx.summary, { type: 'plan', plan: document() });
  if (ctx.globals.output === 'json') {
    ctx.io.out(
      event('resolved', {
        region: resolved.region,
        source: plan.source ?? null,
        amis: resolved.amis.map(amiIdentity),
      }),
    );
    ctx.io.out(event('plan', { plan: document() }));
  } else {
    ctx.io.out(forScreen(ctx.io, 'out', planText(plan, { color: ctx.globals.color, ...(staged ? { staged: stagedPlanLines(staged) } : {}) })));
  }
}

/**
 * `--no-wait`: nothing follows the rollout, so nothing paces or gates it. Said plainly before the question (and in
 * the question), with the way to have it staged from CI (docs/staged-rollouts.md).
 */
function warnUnpaced(ctx: CommandContext, { log }: Planned): void {
  if (ctx.globals.output === 'json') return;
  log.warn(
    "--no-wait: nothing follows this rollout, so it is unpaced and ungated: Karpenter replaces every drifted node at the NodePools' own budgets, and nothing halts it on a bad AMI. To stage it from CI, run the upgrade without --no-wait in a job that can wait (--timeout), or hold it first (karp-drift pause), apply with --no-wait, and let a later job run the same upgrade without --no-wait: it resumes the held rollout staged and gated",
  );
}

async function confirmPlan(
  ctx: CommandContext,
  answer: Pick<UpgradeOptions, 'yes' | 'dryRun' | 'wait'>,
  plan: Planned['plan'],
  staged: StagedPlan | undefined,
  resumes: boolean,
  byGit = false,
): Promise<void> {
  const { nodeClassesToChange, nodesToReplace } = planSummary(plan);
  if (byGit) {
    return confirmOrRefuse(
      ctx,
      answer,
      `Hold the rollout and wait for ${nodeClassesToChange} EC2NodeClass change(s) to arrive from Git${resumes ? ', then resume the held rollout' : ''}? Once synced, Karpenter will replace ${nodesToReplace} node(s) through drift, paced by karp-drift.`,
    );
  }
  const pace = staged
    ? staged.defaulted === true
      ? ', each target AMI on one node first, gated, paced by karp-drift'
      : ` in ${staged.stages.length > 1 ? 'stages and ' : ''}waves, paced by karp-drift`
    : answer.wait
      ? ''
      : ', unpaced and ungated (--no-wait)';
  await confirmOrRefuse(
    ctx,
    answer,
    `Apply ${nodeClassesToChange} EC2NodeClass change(s)${resumes ? ' and resume the held rollout' : ''}? Karpenter will then replace ${nodesToReplace} node(s) through drift${pace}.`,
  );
}

/**
 * What the run will do, asked of RBAC before the first write: the applies (a dry run only those: the API server
 * authorizes a dry run as the write it tries), the follow, the lock, and a staged rollout's holds.
 */
function writeNeeds(
  changes: readonly NodeClassPlan[],
  options: Pick<UpgradeOptions, 'wait' | 'dryRun'>,
  lockNamespace: string,
  staged: StagedPlan | undefined,
): AccessNeed[] {
  const applies = applyNeeds('karpenter.k8s.aws', 'ec2nodeclasses', changes.map((c) => c.name), 'server-side apply of amiSelectorTerms');
  if (options.dryRun) return applies;
  const pools = staged?.stages.flatMap((s) => s.nodePools) ?? [];
  const holds = {
    nodePools: pools.filter((p) => p.hold.mechanism === 'budget').map((p) => p.name),
    nodes: pools.some((p) => p.hold.mechanism === 'node'),
  };
  return [
    ...applies,
    ...(options.wait ? followNeeds() : []),
    ...(staged ? holdNeeds(lockNamespace, holds) : lockNeeds(lockNamespace)),
  ];
}

function followOf(options: UpgradeOptions, resume: string): UpgradeFollow {
  const { wait, nodeClasses, timeoutMs, stallTimeoutMs, lockNamespace } = options;
  return {
    wait,
    target: options.kubernetes.version,
    nodeClasses,
    timeoutMs,
    stallTimeoutMs,
    resume,
    ...(lockNamespace !== undefined ? { lockNamespace } : {}),
  };
}

/** The command line that goes on where this run stops: the same upgrade, confirmed. */
function resumeCommand(options: UpgradeOptions, ctx: CommandContext): string {
  const parts = ['karp-drift upgrade', `--to ${options.kubernetes.version}`];
  for (const n of options.nodeClasses) parts.push(`--nodeclass ${n}`);
  if (options.release !== 'latest') parts.push(`--release ${options.release}`);
  // Without it, the same command in a later window could pick a release younger than this run would.
  if (options.minAge !== undefined) parts.push(`--min-age ${options.minAge.text}`);
  if (options.amisFile !== undefined) parts.push(`--amis-file ${options.amisFile}`);
  if (options.fromCluster?.context !== undefined) parts.push(`--from-context ${options.fromCluster.context}`);
  if (options.fromCluster?.kubeconfig !== undefined) parts.push(`--from-kubeconfig ${options.fromCluster.kubeconfig}`);
  if (options.pin !== 'id') parts.push(`--pin ${options.pin}`);
  if (options.staged) parts.push(...stagedFlags(options.staged));
  if (options.applyBy === 'git') parts.push('--apply-by git');
  // Without it, the same command would be refused where this one wrote over a GitOps/IaC owner (--hold-with budget).
  if (options.forceConflicts) parts.push('--force-conflicts');
  if (options.lockNamespace !== undefined && options.lockNamespace !== LEASE_NAMESPACE)
    parts.push(`--lock-namespace ${options.lockNamespace}`);
  if (ctx.globals.context) parts.push(`--context ${ctx.globals.context}`);
  parts.push('--yes');
  return parts.join(' ');
}
