// `karp-drift upgrade --templates`: the seed runbook's flow done right. Render the EC2NodeClass and NodePool
// templates with the pinned AMIs (as `render` does), server-side apply both whole with field manager karp-drift, and
// follow the NodePool's drift like any upgrade. People's kubectl ownership is taken over; anyone else's is refused
// unless --force-conflicts. Before anything is applied, the rendered objects are diffed against the live ones: a
// change Karpenter hashes, or to the NodePool's requirements, is refused unless --accept-template-drift; an object the
// apply would create is said plainly and needs the prompt's yes (or --allow-create under --yes). The apply records what
// `rollback` undoes (template-records.ts) and holds the cluster lock, as the pin path's does.
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import { applyNeeds, followNeeds, lockNeeds, requireAccess, type AccessNeed } from '../cluster/access.js';
import { customObjects, applyObject, type ObjectApply } from '../cluster/apply.js';
import type { Cluster } from '../cluster/client.js';
import { discoverCluster, type Discovery } from '../cluster/discovery.js';
import { readInventory } from '../cluster/inventory.js';
import type { LiveManifests } from '../cluster/live-manifests.js';
import { RefusedError, UsageError } from '../errors.js';
import { manifestsYaml } from '../manifests/render.js';
import type { UpgradeOptions, UpgradeTemplates } from './options.js';
import type { Check } from '../plan/checks.js';
import { ACCEPT_FLAG } from '../plan/template-drift.js';
import { minorOf } from '../plan/versions.js';
import { manifestDiffJson, manifestDiffText } from '../report/diff.js';
import { recordSummary } from '../report/summary.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import { followRollout } from './follow-rollout.js';
import { followHeldAsWaitDoes } from './held-follow.js';
import type { RolloutProgress, RolloutScope } from '../rollout/track.js';
import { lockHolder, withClusterLock } from './hold-shared.js';
import { createdObjects, templateRecords, withRecords } from './template-records.js';
import { rolledLine, templatePlanText } from '../report/templates.js';
import { connect } from './connect.js';
import { confirmOrRefuse, event } from './upgrade-shared.js';
import {
  readOwnedLive,
  renderPin,
  renderPinned,
  templateChanges,
  type PinnedManifests,
  type TemplateChanges,
} from './template-plan.js';

export async function upgradeFromTemplates(options: UpgradeOptions, t: UpgradeTemplates, ctx: CommandContext): Promise<void> {
  const { cluster, log } = await connect(ctx);
  try {
    const discovery = await discoverCluster(cluster, ctx.signal);
    const to = options.kubernetes.version;
    refuseUnfitCluster(cluster, discovery, to);
    const pin = renderPin(options.pin, t);
    const rendered = await renderPinned(ctx, log, options, pin, t);
    const { current } = await readOwnedLive(ctx, cluster, t.name, options.forceConflicts);
    const changes = templateChanges(pin, rendered, current, t.acceptTemplateDrift);
    const creates = createdObjects(changes.diff);
    reportRendered(ctx, t.name, rendered, changes, current);
    refuseTemplateDrift(changes.checks);
    refuseUnconfirmedCreation(options, t, creates);
    await confirmOrRefuse(ctx, options, applyQuestion(t.name, creates));
    const lockNamespace = options.lockNamespace ?? LEASE_NAMESPACE;
    await requireAccess(cluster, templateNeeds(t.name, options, lockNamespace));
    const holder = lockHolder(`upgrade --to ${to} --templates`);
    const apply = (signal: AbortSignal) => {
      const records = templateRecords(rendered.manifests, current, { runId: holder.runId, target: to });
      const recorded = { ...rendered, manifests: withRecords(rendered.manifests, records) };
      return applyRendered({ ...ctx, signal }, log, cluster, t.name, recorded, current, options.dryRun);
    };
    // The lock covers the writes, as the pin path's: a staged rollout pacing this cluster refuses us, and we it.
    const generation = options.dryRun ? await apply(ctx.signal) : await withClusterLock(ctx, cluster, { lockNamespace }, holder, apply);
    if (options.dryRun || !options.wait) return;
    const follow = { name: t.name, targets: changes.targets, generation, to, creates };
    await followTemplates(ctx, { cluster, discovery, log }, follow, { ...options, lockNamespace });
  } finally {
    cluster.close();
  }
}

/**
 * Creating an object is more than an upgrade: a new NodePool is capacity Karpenter may launch for any pending pod it
 * fits. The prompt asks for it in words; --yes alone (a job) does not cover it, --allow-create does.
 */
function refuseUnconfirmedCreation(options: Pick<UpgradeOptions, 'yes' | 'dryRun'>, t: UpgradeTemplates, creates: readonly string[]): void {
  if (creates.length === 0 || options.dryRun || !options.yes || t.allowCreate) return;
  throw new RefusedError(`upgrade --templates would create ${creates.join(' and ')}, and --yes alone does not create objects; nothing was changed`, {
    hint: `re-run with --allow-create to create ${creates.length === 1 ? 'it' : 'them'}, or without --yes to be asked; to apply the templates to objects that exist, name them with --name`,
  });
}

function applyQuestion(name: string, creates: readonly string[]): string {
  const applied = [`ec2nodeclass/${name}`, `nodepool/${name}`].filter((o) => !creates.includes(o));
  const apply = applied.length > 0 ? `Apply ${applied.join(' and ')}` : '';
  const create = creates.length > 0 ? `${apply ? ' and create' : 'Create'} ${creates.join(' and ')} (new: Karpenter may launch nodes from ${creates.length === 1 ? 'it' : 'them'})` : '';
  return `${apply}${create}?`;
}

function refuseUnfitCluster(cluster: Cluster, discovery: Discovery, to: string): void {
  if (discovery.karpenterApi !== 'v1') {
    throw new UsageError(`the templates are Karpenter v1 objects and ${cluster.context} serves Karpenter ${discovery.karpenterApi}; nothing was changed`, {
      hint: 'upgrade Karpenter to v1 first, or upgrade the existing EC2NodeClasses without --templates',
    });
  }
  if (minorOf(to) > minorOf(discovery.controlPlane.minor)) {
    throw new RefusedError(`--to ${to} is newer than the control plane (${discovery.controlPlane.minor}): a kubelet must never be newer than the API server; nothing was changed`, {
      hint: 'upgrade the control plane first, one minor at a time (aws eks update-cluster-version)',
    });
  }
}

/** The rendered objects and their diff against the live ones, then (when nothing refuses them) what will be applied. */
function reportRendered(
  ctx: CommandContext,
  name: string,
  { region, pinned, manifests, policy }: PinnedManifests,
  { diff, checks }: TemplateChanges,
  current: LiveManifests,
): void {
  const json = ctx.globals.output === 'json';
  const creates = createdObjects(diff);
  // The summary names the release policy whatever the output: the templates' run has no plan document to carry it.
  if (ctx.summary && policy !== undefined) recordSummary(ctx.summary, { type: 'resolved', releasePolicy: policy });
  if (json) {
    const amis = pinned.map((a) => ({
      family: a.family,
      arch: a.arch,
      variant: a.variant,
      release: a.release,
      id: a.id,
      name: a.name,
    }));
    ctx.io.out(event('resolved', { region, amis, ...(policy !== undefined ? { releasePolicy: policy } : {}) }));
    ctx.io.out(
      event('rendered', {
        nodeClass: manifests.nodeClass,
        nodePool: manifests.nodePool,
        diff: manifestDiffJson(diff),
        creates,
        checks: checks.map((c) => ({ ...c, next: c.next ?? null })),
      }),
    );
  } else {
    ctx.io.out(manifestsYaml(manifests));
    ctx.io.out(`\n${manifestDiffText(diff, checks, { color: ctx.globals.color })}`);
  }
  if (!json && !checks.some((c) => c.level === 'error')) ctx.io.out(`\n${templatePlanText(name, manifests, creates, current.nodeClaims)}`);
}

function refuseTemplateDrift(checks: readonly Check[]): void {
  const refused = checks.filter((c) => c.level === 'error');
  if (refused.length > 0) {
    throw new RefusedError(`the templates change what Karpenter hashes or a NodePool's requirements (${[...new Set(refused.map((c) => c.code))].join(', ')}): applying them would re-roll nodes beyond the AMI change; nothing was changed`, {
      hint: `make the templates match the live objects, or re-run with ${ACCEPT_FLAG} to apply them and let Karpenter replace those nodes`,
    });
  }
}

/** Both applies (a dry run only those: it is authorized as the write it tries), and the follow. */
function templateNeeds(name: string, options: Pick<UpgradeOptions, 'wait' | 'dryRun'>, lockNamespace: string): AccessNeed[] {
  return [
    ...applyNeeds('karpenter.k8s.aws', 'ec2nodeclasses', [name], 'server-side apply of the rendered EC2NodeClass'),
    ...applyNeeds('karpenter.sh', 'nodepools', [name], 'server-side apply of the rendered NodePool'),
    ...(options.wait && !options.dryRun
      ? [{ verb: 'list', group: 'karpenter.sh', resource: 'nodepools', why: 'read the inventory to follow' }, ...followNeeds()]
      : []),
    ...(options.dryRun ? [] : lockNeeds(lockNamespace)),
  ];
}

/** Applies both objects whole; returns the EC2NodeClass's generation, for the follow to wait until it is observed. */
async function applyRendered(
  ctx: CommandContext,
  log: Logger,
  cluster: Cluster,
  name: string,
  { manifests }: PinnedManifests,
  current: LiveManifests,
  dryRun: boolean,
): Promise<number> {
  const whole = (group: string, plural: string, body: ObjectApply['body'], live: LiveManifests['nodeClass']) => {
    const precondition = live ? { resourceVersion: live.resourceVersion } : {};
    const apply = { group, version: 'v1', plural, name, body, force: true, ...precondition };
    return applyObject(customObjects(cluster), apply, { dryRun });
  };
  const nodeClass = await whole('karpenter.k8s.aws', 'ec2nodeclasses', manifests.nodeClass, current.nodeClass);
  await whole('karpenter.sh', 'nodepools', manifests.nodePool, current.nodePool);
  if (ctx.globals.output === 'json')
    ctx.io.out(event('applied', { nodeClass: name, nodePool: name, generation: nodeClass.generation, dryRun }));
  else log.info(`${dryRun ? 'Validated (dry run, nothing changed)' : 'Applied'}: ec2nodeclass/${name}, nodepool/${name}`);
  return nodeClass.generation;
}

async function followTemplates(
  ctx: CommandContext,
  { cluster, discovery, log }: { cluster: Cluster; discovery: Discovery; log: Logger },
  { name, targets, generation, to, creates }: { name: string; targets: string[]; generation: number; to: string; creates: string[] },
  limits: Pick<UpgradeOptions, 'timeoutMs' | 'stallTimeoutMs'> & { lockNamespace: string },
): Promise<void> {
  const inventory = await readInventory(cluster, { discovery, signal: ctx.signal });
  // Every NodePool of the class drifts, not only the rendered one.
  const pools = new Set([name, ...inventory.nodePools.filter((p) => p.nodeClass === name).map((p) => p.name)]);
  const startedAt = new Date();
  const scope: RolloutScope = {
    nodePools: [...pools].map((pool) => ({ name: pool, nodeClass: name })),
    targetImageIds: { [name]: targets },
    targetMinor: to,
    startedAt,
    nodeClassGenerations: { [name]: generation },
  };
  // karp-drift's holds on these NodePools are read as `wait` reads them: held with no run to release them, it ends now.
  const held = await followHeldAsWaitDoes(ctx, { cluster, api: discovery.karpenterApi, pools: inventory.nodePools, inventory, log }, scope, {
    lockNamespace: limits.lockNamespace,
    timeoutMs: limits.timeoutMs,
    applied: `ec2nodeclass/${name} and nodepool/${name}`,
  });
  let final: RolloutProgress;
  try {
    final = await followRollout(ctx, cluster, discovery, inventory, {
      scope,
      timeoutMs: limits.timeoutMs,
      stallTimeoutMs: limits.stallTimeoutMs,
      resumeCommand: `karp-drift upgrade --to ${to} --yes`,
      endWhen: held.look.signal,
      atDone: held.atDone,
    });
  } finally {
    held.look.stop();
  }
  if (ctx.globals.output !== 'json') ctx.io.out(`${rolledLine(final.nodePools, { name, to, creates, ms: Date.now() - startedAt.getTime() })}\n`);
}
