// What `upgrade --templates` would apply: the templates rendered with the AMIs SSM names for the target, the live
// objects they replace (refused while another field manager owns them), and what applying them whole would change.
import type { CommandContext } from './context.js';
import type { Logger } from '../logger.js';
import { resolveAmis, type ResolvedAmis } from '../ami/resolve.js';
import { FIELD_MANAGER } from '../cluster/apply.js';
import type { Cluster } from '../cluster/client.js';
import { readNodeClass } from '../cluster/inventory.js';
import { readLiveManifests, type LiveManifests } from '../cluster/live-manifests.js';
import type { NodeClassView } from '../karpenter/views.js';
import { RefusedError, UsageError } from '../errors.js';
import { manifestDiff, type ManifestDiff } from '../manifests/diff.js';
import {
  checkPinnable,
  pinnedArches,
  renderManifests,
  type RenderedManifests,
  type RenderPinMode,
} from '../manifests/render.js';
import { readTemplates } from '../manifests/templates.js';
import type { UpgradeOptions, UpgradeTemplates } from './options.js';
import type { Check } from '../plan/checks.js';
import { isPersonManager } from '../plan/owners.js';
import type { PinMode } from '../plan/plan-options.js';
import { templateDriftChecks } from '../plan/template-drift.js';
import { withoutRecords } from './template-records.js';

/** The rendered objects, and the AMIs (resolved in `region`) they pin. */
export interface PinnedManifests {
  region: string;
  pinned: ResolvedAmis['amis'];
  manifests: RenderedManifests;
  /** --release latest~N / --min-age: the release chosen, and against what. */
  policy?: ResolvedAmis['policy'];
}

/** The live objects the rendered ones replace: the EC2NodeClass's owners, and both objects with their NodeClaims. */
export interface LiveTemplates {
  live: NodeClassView | undefined;
  current: LiveManifests;
}

/** What applying the rendered objects whole changes: the image IDs the nodes end on, the diff, and its checks. */
export interface TemplateChanges {
  targets: string[];
  diff: ManifestDiff;
  checks: Check[];
}

export function renderPin(pin: PinMode, t: UpgradeTemplates): RenderPinMode {
  if (pin === 'name')
    throw new UsageError('--pin name cannot go with --templates: pin the rendered objects by id or alias');
  checkPinnable(t.family, pin);
  return pin;
}

export async function renderPinned(
  ctx: CommandContext,
  log: Logger,
  options: Pick<UpgradeOptions, 'kubernetes' | 'release' | 'minAge'>,
  pin: RenderPinMode,
  t: Pick<UpgradeTemplates, 'dir' | 'clusterName' | 'role' | 'family' | 'name'>,
): Promise<PinnedManifests> {
  const templates = await readTemplates(t.dir);
  const arches = pinnedArches(templates, t.family);
  const { region, amis, policy } = await resolveAmis(
    {
      kubernetes: options.kubernetes,
      families: [t.family],
      arches,
      variants: ['standard'],
      expand: { families: false, arches: false, variants: false },
      release: options.release,
      ...(options.minAge !== undefined ? { minAge: options.minAge } : {}),
    },
    { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs },
    log,
  );
  // Only the standard variant: id terms carry no variant, and Karpenter keeps one AMI per arch (DOMAIN.md §1.2).
  const pinned = amis.filter((a) => a.family === t.family && a.variant === 'standard');
  const { name, clusterName, role, family } = t;
  const manifests = renderManifests(templates, { name, clusterName, role, family, pin, amis: pinned });
  return { region, pinned, manifests, ...(policy !== undefined ? { policy } : {}) };
}

/**
 * Ownership: whoever manages the live objects now; and what applying them whole would change (C7: no surprise
 * re-roll of nodes already on the target AMI).
 */
export async function readOwnedLive(
  ctx: CommandContext,
  cluster: Cluster,
  name: string,
  forceConflicts: boolean,
): Promise<LiveTemplates> {
  const [live, current] = await Promise.all([
    readNodeClass(cluster, 'v1', name, ctx.signal),
    readLiveManifests(cluster, name, ctx.signal),
  ]);
  const others = (live?.owners ?? []).map((o) => o.manager).filter((m) => m !== 'karp-drift' && !isPersonManager(m));
  if (others.length > 0 && !forceConflicts) {
    throw new RefusedError(
      `ec2nodeclass/${name} is also managed by ${[...new Set(others)].join(', ')}, which would put its own fields back; nothing was changed`,
      { hint: 'change the objects where that manager takes them from, or re-run with --force-conflicts' },
    );
  }
  return { live, current };
}

export function templateChanges(
  pin: RenderPinMode,
  { manifests, pinned }: PinnedManifests,
  current: LiveManifests,
  accepted: boolean,
): TemplateChanges {
  const targets =
    pin === 'id'
      ? manifests.nodeClass.spec.amiSelectorTerms.flatMap((term) => (term.id ? [term.id] : []))
      : pinned.map((a) => a.id);
  const diff = withoutRecords(manifestDiff(manifests, current, FIELD_MANAGER));
  const checks = templateDriftChecks({
    diff,
    nodeClaims: current.nodeClaims,
    targetImageIds: targets,
    requirements: manifests.nodePool.spec.template.spec.requirements,
    accepted,
  });
  return { targets, diff, checks };
}
