// `karp-drift upgrade --templates`: the seed runbook's flow done right. Render the EC2NodeClass and NodePool
// templates with the pinned AMIs (as `render` does), server-side apply both whole with field manager karp-drift, and
// follow the NodePool's drift like any upgrade. People's kubectl ownership is taken over; anyone else's is refused
// unless --force-conflicts. Before anything is applied, the rendered objects are diffed against the live ones: a
// change Karpenter hashes, or to the NodePool's requirements, is refused unless --accept-template-drift.
import type { CommandContext } from './context.js';
import { resolveAmis } from '../ami/resolve.js';
import { followNeeds, requireAccess } from '../cluster/access.js';
import { customObjects, applyObject, FIELD_MANAGER } from '../cluster/apply.js';
import { discoverCluster } from '../cluster/discovery.js';
import { readInventory, readNodeClass } from '../cluster/inventory.js';
import { readLiveManifests } from '../cluster/live-manifests.js';
import { RefusedError, UsageError } from '../errors.js';
import { manifestDiff } from '../manifests/diff.js';
import { manifestsYaml, pinnedArches, checkPinnable, renderManifests } from '../manifests/render.js';
import { readTemplates } from '../manifests/templates.js';
import type { UpgradeOptions, UpgradeTemplates } from './options.js';
import { isPersonManager } from '../plan/owners.js';
import { ACCEPT_FLAG, templateDriftChecks } from '../plan/template-drift.js';
import { minorOf } from '../plan/versions.js';
import { manifestDiffJson, manifestDiffText } from '../report/diff.js';
import { followRollout } from './follow-rollout.js';
import { connect } from './planning.js';
import { confirmOrRefuse, event } from './upgrade-shared.js';

export async function upgradeFromTemplates(options: UpgradeOptions, t: UpgradeTemplates, ctx: CommandContext): Promise<void> {
  const json = ctx.globals.output === 'json';
  const { cluster, log } = await connect(ctx);
  try {
    const discovery = await discoverCluster(cluster, ctx.signal);
    if (discovery.karpenterApi !== 'v1') {
      throw new UsageError(`the templates are Karpenter v1 objects and ${cluster.context} serves Karpenter ${discovery.karpenterApi}; nothing was changed`, {
        hint: 'upgrade Karpenter to v1 first, or upgrade the existing EC2NodeClasses without --templates',
      });
    }
    const to = options.kubernetes.version;
    if (minorOf(to) > minorOf(discovery.controlPlane.minor)) {
      throw new RefusedError(`--to ${to} is newer than the control plane (${discovery.controlPlane.minor}): a kubelet must never be newer than the API server; nothing was changed`, {
        hint: 'upgrade the control plane first, one minor at a time (aws eks update-cluster-version)',
      });
    }
    if (options.pin === 'name') throw new UsageError('--pin name cannot go with --templates: pin the rendered objects by id or alias');
    checkPinnable(t.family, options.pin);
    const templates = await readTemplates(t.dir);
    const arches = pinnedArches(templates, t.family);
    const { region, amis } = await resolveAmis(
      { kubernetes: options.kubernetes, families: [t.family], arches, variants: ['standard'], expand: { families: false, arches: false, variants: false }, release: options.release },
      { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs },
      log,
    );
    const pinned = amis.filter((a) => a.family === t.family && a.variant === 'standard');
    const manifests = renderManifests(templates, { name: t.name, clusterName: t.clusterName, role: t.role, family: t.family, pin: options.pin, amis: pinned });

    // Ownership: whoever manages the live objects now; and what applying them whole would change (C7: no surprise
    // re-roll of nodes already on the target AMI).
    const [live, current] = await Promise.all([readNodeClass(cluster, 'v1', t.name, ctx.signal), readLiveManifests(cluster, t.name, ctx.signal)]);
    const others = (live?.owners ?? []).map((o) => o.manager).filter((m) => m !== 'karp-drift' && !isPersonManager(m));
    if (others.length > 0 && !options.forceConflicts) {
      throw new RefusedError(`ec2nodeclass/${t.name} is also managed by ${[...new Set(others)].join(', ')}, which would put its own fields back; nothing was changed`, {
        hint: 'change the objects where that manager takes them from, or re-run with --force-conflicts',
      });
    }

    const targets = options.pin === 'id' ? manifests.nodeClass.spec.amiSelectorTerms.flatMap((term) => (term.id ? [term.id] : [])) : pinned.map((a) => a.id);
    const diff = manifestDiff(manifests, current, FIELD_MANAGER);
    const checks = templateDriftChecks({
      diff,
      nodeClaims: current.nodeClaims,
      targetImageIds: targets,
      requirements: manifests.nodePool.spec.template.spec.requirements,
      accepted: t.acceptTemplateDrift,
    });

    if (json) {
      ctx.io.out(event('resolved', { region, amis: pinned.map((a) => ({ family: a.family, arch: a.arch, variant: a.variant, release: a.release, id: a.id, name: a.name })) }));
      ctx.io.out(event('rendered', { nodeClass: manifests.nodeClass, nodePool: manifests.nodePool, diff: manifestDiffJson(diff), checks: checks.map((c) => ({ ...c, next: c.next ?? null })) }));
    } else {
      ctx.io.out(manifestsYaml(manifests));
      ctx.io.out(`\n${manifestDiffText(diff, checks, { color: ctx.globals.color })}`);
    }
    const refused = checks.filter((c) => c.level === 'error');
    if (!json && refused.length === 0) {
      ctx.io.out(`\nPlan: apply ec2nodeclass/${t.name} and nodepool/${t.name} whole (server-side apply, field manager karp-drift)${live ? '' : ', creating them'}.\n`);
    }
    if (refused.length > 0) {
      throw new RefusedError(`the templates change what Karpenter hashes or a NodePool's requirements (${[...new Set(refused.map((c) => c.code))].join(', ')}): applying them would re-roll nodes beyond the AMI change; nothing was changed`, {
        hint: `make the templates match the live objects, or re-run with ${ACCEPT_FLAG} to apply them and let Karpenter replace those nodes`,
      });
    }
    await confirmOrRefuse(ctx, options, `Apply ec2nodeclass/${t.name} and nodepool/${t.name}?`);

    if (!options.dryRun) {
      await requireAccess(cluster, [
        { verb: 'patch', group: 'karpenter.k8s.aws', resource: 'ec2nodeclasses', name: t.name, why: 'server-side apply of the rendered EC2NodeClass' },
        { verb: 'patch', group: 'karpenter.sh', resource: 'nodepools', name: t.name, why: 'server-side apply of the rendered NodePool' },
        ...(options.wait ? followNeeds() : []),
      ]);
    }
    const nodeClass = await applyObject(
      customObjects(cluster),
      { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses', name: t.name, body: manifests.nodeClass, force: true, ...(current.nodeClass ? { resourceVersion: current.nodeClass.resourceVersion } : {}) },
      { dryRun: options.dryRun },
    );
    await applyObject(
      customObjects(cluster),
      { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: t.name, body: manifests.nodePool, force: true, ...(current.nodePool ? { resourceVersion: current.nodePool.resourceVersion } : {}) },
      { dryRun: options.dryRun },
    );
    if (json) ctx.io.out(event('applied', { nodeClass: t.name, nodePool: t.name, generation: nodeClass.generation, dryRun: options.dryRun }));
    else log.info(`${options.dryRun ? 'Validated (dry run, nothing changed)' : 'Applied'}: ec2nodeclass/${t.name}, nodepool/${t.name}`);
    if (options.dryRun || !options.wait) return;

    const inventory = await readInventory(cluster, { discovery, signal: ctx.signal });
    const startedAt = new Date();
    await followRollout(ctx, cluster, discovery, inventory, {
      // Every NodePool of the class drifts, not only the rendered one.
      scope: { nodePools: [...new Set([t.name, ...inventory.nodePools.filter((p) => p.nodeClass === t.name).map((p) => p.name)])].map((name) => ({ name, nodeClass: t.name })), targetImageIds: { [t.name]: targets }, targetMinor: to, startedAt, nodeClassGenerations: { [t.name]: nodeClass.generation } },
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      resumeCommand: `karp-drift upgrade --to ${to} --yes`,
    });
    if (!json) ctx.io.out(`Rollout complete: nodepool/${t.name} runs Kubernetes ${to} AMIs.\n`);
  } finally {
    cluster.close();
  }
}
