// The first half of `plan` and `upgrade`: discover the cluster, read the inventory, resolve and verify the AMIs the
// classes in scope need, and plan. Everything after it (print, confirm, apply, follow) is the command's own.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import { connect } from './connect.js';
import { parseAmisFile, type AmisFile, type TestedAmis } from '../ami/amis-file.js';
import type * as AmiResolve from '../ami/resolve.js';
import type { ResolvedAmis } from '../ami/resolve.js';
import type { Cluster } from '../cluster/client.js';
import { discoverCluster, type Discovery } from '../cluster/discovery.js';
import { readInventoryInParts } from '../cluster/inventory.js';
import type { Inventory, KarpenterObjects, NodeClassView } from '../karpenter/views.js';
import { RefusedError, UsageError } from '../errors.js';
import type { PlanOptions } from './options.js';
import { plan, withChecks, type Check, type Plan } from '../plan/plan.js';
import { canaryChecks, stageAmis } from '../gates/coverage.js';
import { neededAmiQueries } from '../plan/targets.js';
import { keptReleases, keptSources, type KeptRelease } from '../plan/kept-releases.js';
import { keptReleaseLines } from '../report/kept.js';
import { releasePolicy } from '../ami/release-policy.js';
import { promotedAmis, promotionNeeds, requireFileMinor, type PlanSource } from '../plan/promotion.js';
import { canaryNameRefusal, planStages, type StagedPlan, type StagedRequest } from '../stages/stage-plan.js';
import { amiPickScope, amiPicks } from '../stages/ami-picks.js';
import { planWindows, windowsRefusedOn } from '../stages/window-plan.js';
import { loadSourceCluster, readSourceCluster, testedInSource, type SourceRead } from './source-cluster.js';
import { readLease } from '../cluster/lock.js';
import { HOLD_ANNOTATION } from '../apis/budget-hold.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { runLock, type RunLock } from '../apis/hold-state.js';
import { gitopsOwnerOf, type GitOpsSourceRead } from '../apis/gitops-sources.js';
import { readGitOpsSources } from '../cluster/gitops-sources.js';
import { classifyOwners } from '../plan/owners.js';

export interface Planned {
  cluster: Cluster;
  discovery: Discovery;
  inventory: Inventory;
  resolved: ResolvedAmis;
  plan: Plan;
  /** With --canary/--waves: the stages and how each NodePool is held. */
  staged?: StagedPlan;
  /** The cluster lock as read, when karp-drift holds something in scope (undefined: it holds nothing). */
  lock?: RunLock;
  log: Logger;
}

export async function preparePlan(options: PlanOptions & { forceConflicts?: boolean }, ctx: CommandContext): Promise<Planned> {
  // A bad file is refused before the cluster is read.
  const amisFile = options.amisFile !== undefined ? await readAmisFile(options.amisFile) : undefined;
  if (amisFile !== undefined) requireFileMinor(amisFile, options.kubernetes.version);
  const { cluster, log } = await connect(ctx);
  // The AWS SDK takes a few hundred milliseconds to load: load it while the cluster's lists are on the wire.
  const awsEdge = import('../ami/resolve.js');
  awsEdge.catch(() => undefined); // awaited below; a failure before then must not surface as an unhandled rejection
  try {
    if (options.kubernetes.note) log.info(options.kubernetes.note);
    // --from-context: the source is read before this cluster is (a source with no Karpenter is refused first), and
    // judged once this cluster's classes tell which AMIs it must have tested.
    let fromSource: SourceRead | undefined;
    if (options.fromCluster !== undefined) {
      const source = loadSourceCluster(options.fromCluster, ctx, log);
      try {
        fromSource = await readSourceCluster(options.fromCluster, source, cluster, ctx);
      } finally {
        source.close();
      }
    }
    const discovering = discoverCluster(cluster, ctx.signal).then((discovery) => {
      log.info(`Cluster ${cluster.context} (${cluster.server}): Kubernetes ${discovery.controlPlane.gitVersion}, Karpenter API ${discovery.karpenterApi}`);
      return discovery;
    });
    const nodeClasses = options.nodeClasses.length > 0 ? options.nodeClasses : undefined; // none named: all of them
    // Discovery under way while the lists that do not depend on it are read (cluster/inventory.ts). The AMIs depend
    // only on the classes, NodePools and NodeClaims: they are resolved, and the classes' GitOps owners read, while
    // the rest of the inventory (a large cluster's pods: 100 pages, one after another) is still on the wire.
    const reading = readInventoryInParts(cluster, { nodeClasses, discovery: discovering, signal: ctx.signal });
    // A read that fails stops the AWS calls under way: the error is said at once, not after them.
    const stopAhead = new AbortController();
    reading.whole.catch(() => stopAhead.abort());
    const ahead = reading.karpenter.then((karpenter) => {
      // What is refused from these lists is refused before any SSM or EC2 call.
      refuseWithoutWork(karpenter, options, cluster);
      const to = options.kubernetes.version;
      const tested: TestedAmis | undefined =
        fromSource !== undefined ? testedInSource(fromSource, to, promotionNeeds(karpenter, { to, nodeClasses }), log) : amisFile;
      // A staged rollout under way goes on with the AMIs it started with (plan/kept-releases.ts).
      const kept = tested !== undefined ? [] : keptReleases(karpenter, { to, release: options.release, staged: options.staged !== undefined, fieldManager: 'karp-drift', nodeClasses });
      return Promise.all([
        resolveTargets([karpenter], options, { tested, kept, nodeClasses, signal: stopAhead.signal }, ctx, log, awsEdge),
        readOwnersOf(cluster, karpenter.nodeClasses, ctx.signal),
      ]);
    });
    ahead.catch(() => undefined); // awaited below, after the inventory: the cluster's failures are said first
    const [discovery, inventory] = await Promise.all([discovering, reading.whole]);
    const to = options.kubernetes.version;
    const [{ resolved, source }, gitopsSources] = await ahead;
    const lock = await lockIfHeld(cluster, inventory, options.lockNamespace, ctx.signal);
    const gitops = {
      ...(gitopsSources.size > 0 ? { gitopsSources } : {}),
      ...(options.applyBy !== undefined ? { applyBy: options.applyBy } : {}),
      pinFlags: pinFlagsOf(options),
    };
    const thePlan = plan(
      inventory,
      resolved.amis,
      { ...(lock !== undefined ? { lock } : {}), to, nodeClasses, pin: options.pin, release: options.release, ...(options.minAge !== undefined ? { minAge: options.minAge.text } : {}), fieldManager: 'karp-drift', forceConflicts: options.forceConflicts, allowDowngrade: options.allowDowngrade, allowDeprecated: options.allowDeprecated, replaceCustomAmis: options.replaceCustomAmis, source, ...gitops },
      new Date(),
    );
    const staged = options.staged ? stagedPlan(thePlan, inventory, options.staged, options.forceConflicts ?? false) : undefined;
    const checked = staged ? withChecks(thePlan, stagedChecks(staged)) : thePlan;
    return { cluster, discovery, inventory, resolved, plan: checked, ...(staged ? { staged } : {}), ...(lock !== undefined ? { lock } : {}), log };
  } catch (err) {
    cluster.close();
    throw err;
  }
}

/** No class to upgrade, or a --canary naming no NodePool: refused as soon as the classes and NodePools are read. */
function refuseWithoutWork(karpenter: KarpenterObjects, options: PlanOptions, cluster: Cluster): void {
  if (karpenter.nodeClasses.length === 0) {
    throw new UsageError(`no EC2NodeClass in ${cluster.context} (${cluster.server}): there is nothing to upgrade`, {
      hint: 'check the context (--context), or create an EC2NodeClass (karp-drift render)',
    });
  }
  const canary = options.staged
    ? canaryNameRefusal(options.staged.canary, karpenter.nodePools, karpenter.nodeClasses.map((c) => c.name), `context ${cluster.context}`)
    : undefined;
  if (canary !== undefined) throw new UsageError(canary.usage, { hint: canary.next });
}

type AwsEdge = typeof AmiResolve;

/**
 * The target AMIs of the classes in `inventories` (one cluster's for plan and upgrade; each unit of files for pin):
 * the ones `tested` records (--amis-file, --from-context), verified again here, else SSM's for --release and
 * --min-age, families a staged rollout under way keeps at their release; with --pin name, how many images each
 * name selects. Where they came from is the plan's source.
 */
export async function resolveTargets(
  inventories: readonly KarpenterObjects[],
  options: Pick<PlanOptions, 'kubernetes' | 'release' | 'minAge' | 'pin'>,
  scope: { tested?: TestedAmis | undefined; kept: readonly KeptRelease[]; nodeClasses?: readonly string[] | undefined; signal?: AbortSignal },
  ctx: CommandContext,
  log: Logger,
  awsEdge: Promise<AwsEdge> = import('../ami/resolve.js'),
): Promise<{ resolved: ResolvedAmis; source: PlanSource }> {
  const to = options.kubernetes.version;
  const { tested, kept, nodeClasses } = scope;
  const aws = { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs, ...(scope.signal !== undefined ? { signal: scope.signal } : {}) };
  const { countNameMatches, resolveAmiQueries, resolvePromotedAmis } = await awsEdge;
  let resolved: ResolvedAmis;
  let source: PlanSource;
  if (tested !== undefined) {
    const wanted = uniqueBy(inventories.flatMap((inventory) => promotedAmis(inventory, tested, { to, ...(nodeClasses !== undefined ? { nodeClasses } : {}) })));
    const promoted = await resolvePromotedAmis(wanted, tested, to, aws, log);
    resolved = promoted;
    const { region, lookup } = promoted;
    const { kubernetesVersion } = tested;
    source =
      tested.kind === 'file'
        ? { kind: 'file', path: tested.path, shape: tested.shape, region, fileRegion: tested.region ?? null, kubernetesVersion, lookup, ...(tested.policy !== undefined ? { policy: tested.policy } : {}) }
        : { kind: 'cluster', context: tested.context, server: tested.server, region, sourceRegion: tested.region ?? null, kubernetesVersion, lookup, otherClasses: tested.others ?? [] };
  } else {
    const policy = releasePolicy(options.release, options.minAge);
    const queries = uniqueBy(
      inventories.flatMap((inventory) => neededAmiQueries(inventory, { to, release: options.release, minAge: options.minAge?.text, ...(nodeClasses !== undefined ? { nodeClasses } : {}), kept })),
    );
    resolved = await resolveAmiQueries(queries, aws, log, { keepUnusable: true, kept, ...(policy !== undefined ? { policy } : {}) });
    const keptSource = keptSources(kept, resolved.kept);
    source = {
      kind: 'ssm',
      region: resolved.region,
      ...(resolved.policy !== undefined ? { policy: resolved.policy } : {}),
      ...(keptSource.length > 0 ? { kept: keptSource } : {}),
    };
    for (const line of keptReleaseLines(source, to)) log.info(`${line[0]!.toUpperCase()}${line.slice(1)}`);
  }
  if (options.pin === 'name') resolved = { ...resolved, amis: await countNameMatches(resolved.amis, aws, log) };
  return { resolved, source };
}

/** One per family, arch and variant (two units, or a unit and a cluster, need the same AMI once). */
function uniqueBy<T extends { family: string; arch: string; variant: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((i) => [`${i.family}/${i.arch}/${i.variant}`, i])).values()];
}

/**
 * The cluster lock, read only when karp-drift holds something in the inventory: whether the holds are a live run's
 * (this upgrade would meet its lock) or were left behind. A Lease that cannot be read rules out nothing.
 */
async function lockIfHeld(cluster: Cluster, inventory: Inventory, namespace: string | undefined, signal: AbortSignal): Promise<RunLock | undefined> {
  const held =
    inventory.nodePools.some((p) => p.annotations?.[HOLD_ANNOTATION] !== undefined) || inventory.nodes.some((n) => n.heldBy !== undefined);
  if (!held) return undefined;
  const lease = await readLease(cluster, namespace ?? LEASE_NAMESPACE, signal).catch(() => 'unreadable' as const);
  return runLock(lease, new Date());
}

/**
 * The Argo CD Applications and Flux Kustomizations that track the classes in scope, read only when some class is
 * tracked (an untracked cluster costs no request), each once; a read the identity may not make is said, not fatal.
 */
async function readOwnersOf(cluster: Cluster, nodeClasses: readonly NodeClassView[], signal: AbortSignal): Promise<Map<string, GitOpsSourceRead>> {
  const refs = nodeClasses.flatMap((view) => {
    const ref = gitopsOwnerOf(view, classifyOwners(view).conflicts.some((c) => c.tool === 'Argo CD'));
    return ref !== undefined ? [ref] : [];
  });
  if (refs.length === 0) return new Map();
  return readGitOpsSources(cluster, refs, signal);
}

/** What a `karp-drift pin` of the owner's files needs to pin what this plan pins: the same minor, policy and source. */
export function pinFlagsOf(options: Pick<PlanOptions, 'kubernetes' | 'release' | 'minAge' | 'pin' | 'amisFile' | 'fromCluster'>): string {
  const parts = [`--to ${options.kubernetes.version}`];
  if (options.release !== 'latest') parts.push(`--release ${options.release}`);
  if (options.minAge !== undefined) parts.push(`--min-age ${options.minAge.text}`);
  if (options.pin !== 'id') parts.push(`--pin ${options.pin}`);
  if (options.amisFile !== undefined) parts.push(`--amis-file ${options.amisFile}`);
  if (options.fromCluster?.context !== undefined) parts.push(`--from-context ${options.fromCluster.context}`);
  if (options.fromCluster?.kubeconfig !== undefined) parts.push(`--from-kubeconfig ${options.fromCluster.kubeconfig}`);
  return parts.join(' ');
}

/** The --amis-file, read and parsed: unreadable, not JSON, or not one of the two documents is exit 2. */
export async function readAmisFile(path: string): Promise<AmisFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`cannot read --amis-file ${path}: ${code}`, {
      cause: err,
      hint: 'pass the path of the file `karp-drift amis -o json` or `karp-drift plan -o json` wrote where the AMIs were tested (a pipeline passes it between jobs as an artifact)',
    });
  }
  return parseAmisFile(text, path);
}

/** A plan with an error-level check changes nothing: exit 3, naming the checks (printed above with their evidence). */
export function refuseIfBlocked(plan: Plan, hint: string): void {
  const errors = plan.checks.filter((c) => c.level === 'error');
  if (errors.length === 0) return;
  throw new RefusedError(`the plan has ${errors.length} error-level check(s): ${[...new Set(errors.map((c) => c.code))].join(', ')}; nothing was changed`, { hint });
}

/** The stages of `--canary`/`--waves`; a canary out of scope is a usage error, a hold that cannot work a refusal. */
function stagedPlan(thePlan: Plan, inventory: Inventory, request: StagedRequest, forceConflicts: boolean): StagedPlan {
  const v1beta1 = request.windows !== undefined ? windowsRefusedOn(inventory.karpenterApi) : undefined;
  if (v1beta1 !== undefined) throw new RefusedError(`${v1beta1.refused}; nothing was changed`, { hint: v1beta1.next });
  const nodes = new Map(inventory.nodes.map((n) => [n.name, n]));
  const result = planStages(
    thePlan.nodePools.map((p) => ({
      pool: inventory.nodePools.find((v) => v.name === p.name)!,
      oldNodes: p.toDrift,
      limit: p.limit,
    })),
    request,
    forceConflicts,
    inventory.karpenterApi,
    {
      amis: (pools) => stageAmis(thePlan, inventory, pools),
      picks: (pools, holds) => amiPicks(pools, inventory.nodeClaims, nodes, amiPickScope(thePlan, inventory, holds, nodes.keys())),
    },
  );
  if ('usage' in result) throw new UsageError(result.usage, { hint: result.next });
  if ('refused' in result) {
    throw new RefusedError(`${result.refused.map((r) => r.error).join('; ')}; nothing was changed`, { hint: result.next });
  }
  const { stages } = result.plan;
  if (request.windows === undefined) return result.plan;
  const pools = stages.flatMap((s) => s.nodePools).map((p) => ({ pool: inventory.nodePools.find((v) => v.name === p.name)!, hold: p.hold }));
  const windows = planWindows(request.windows, pools, inventory.karpenterApi, new Date(), localTimeZone());
  if ('usage' in windows) throw new UsageError(windows.usage, { hint: windows.next });
  if ('refused' in windows) throw new RefusedError(`${windows.refused}; nothing was changed`, { hint: windows.next });
  return { ...result.plan, stages, windows: windows.plan };
}

/** The user's time zone, as the process sees it (TZ): the plan shows the windows in it beside UTC. */
function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

/** A canary that can only delete empty nodes (gates/coverage.ts): refused like any error-level check. */
function stagedChecks(staged: StagedPlan): Check[] {
  const [first, ...later] = staged.stages;
  if (first?.name !== 'canary') return [];
  return canaryChecks(first.amis ?? [], later.flatMap((s) => s.amis ?? []), first.nodePools.map((p) => p.name));
}
