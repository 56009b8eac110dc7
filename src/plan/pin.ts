// One EC2NodeClass's pin: the AMIs it needs for `--to`, its terms after the change (`--pin id` or `--pin alias`), and
// the findings that refuse it. The change touches only amiSelectorTerms and amiFamily, which Karpenter does not hash,
// so the class's nodes see AMIDrift and nothing else (DOMAIN.md §2.2).
import { FAMILIES, familyVersionProblem, type AmiFamily, type Arch, type Variant } from '../ami/families.js';
import { familyReleaseProblem } from '../ami/select.js';
import type { ResolvedAmi } from '../ami/verify.js';
import type { AmiSelectorTerm, NodeClassView } from '../karpenter/views.js';
import {
  check,
  deprecatedAmiCheck,
  familyChecks,
  missingAmiCheck,
  mixedIdPinCheck,
  notReadyCheck,
  type Check,
  type Promoted,
} from './checks.js';
import { classifyOwners, ownerChecks, type OwnerClassification } from './owners.js';
import { gitopsOwnerOf, ownerKey, type GitOpsSourceRead } from '../apis/gitops-sources.js';
import { pinCommands } from './gitops-source.js';
import { selectorChecks } from './selectors.js';
import type { PlanOptions } from './plan-options.js';
import type { AmiSpec } from './ami-spec.js';
import type { AmiNeeds } from './targets.js';
import { inOrder } from '../text/order.js';

export type { AmiSpec } from './ami-spec.js';

export interface TargetAmi {
  arch: Arch;
  variant: Variant;
  id: string;
  name: string;
  release: string;
  /** The owner account EC2 reports: what a `--pin name` term names beside the image name. */
  owner?: string;
}

export interface NodeClassPlan {
  name: string;
  family: AmiFamily;
  needs: AmiNeeds;
  before: AmiSpec;
  after: AmiSpec;
  /** false: the class already selects the targets (a re-run resumes the rollout). */
  changed: boolean;
  /** status.amis now: what the class's nodes launch from until the apply. */
  current: Array<{ id: string; name?: string }>;
  /** One per needed (arch, variant) that resolved; NodeClaims on other images will drift. */
  targets: TargetAmi[];
  owners: OwnerClassification;
  /** The Argo CD Application or Flux Kustomization that tracks the class, as read (or why it was not). */
  source?: GitOpsSourceRead;
  /** The `karp-drift pin` commands that change the terms in the files that owner syncs from. */
  pin?: string[];
}

export function nodeClassPlan(
  view: NodeClassView,
  needs: AmiNeeds,
  amis: readonly ResolvedAmi[],
  options: PlanOptions,
  explicit: boolean,
): { plan?: NodeClassPlan; checks: Check[] } {
  const { family } = needs;
  if (family === undefined) {
    // Planning every class by default should not fail on one karp-drift cannot pin; naming it should.
    const level = explicit ? 'error' : 'warning';
    const message = `ec2nodeclass/${view.name}: ${needs.familyProblem ?? 'unknown AMI family'}${explicit ? '' : '; it is left out of the plan'}`;
    return {
      checks: [
        check(
          'FAMILY-UNKNOWN',
          level,
          message,
          [],
          'karp-drift pins EKS-optimized AMIs of the AL2, AL2023, Bottlerocket and Windows families',
        ),
      ],
    };
  }
  const refusals = familyChecks(
    view.name,
    family,
    familyVersionProblem(family, options.to),
    familyReleaseProblem(family, options.release, options.minAge),
    options.pin,
  );
  if (refusals.length > 0) return { checks: refusals };

  const checks: Check[] = [];
  const targets: TargetAmi[] = [];
  const source = options.source;
  const promoted: Promoted | undefined =
    source?.kind === 'file'
      ? { flag: '--amis-file', value: source.path }
      : source?.kind === 'cluster'
        ? { flag: '--from-context', value: source.context }
        : undefined;
  for (const need of needs.pairs) {
    const found = amis.find(
      (a) =>
        a.family === family && a.arch === need.arch && a.variant === need.variant && a.kubernetesVersion === options.to,
    );
    if (found === undefined || !found.usable) {
      checks.push(missingAmiCheck(view.name, family, need, options.to, options.release, found, promoted));
      continue;
    }
    if (found.deprecated) checks.push(deprecatedAmiCheck(view.name, found, options.allowDeprecated === true, options.now ?? new Date(0), promoted));
    if (options.pin === 'name' && found.nameMatches !== undefined && found.nameMatches > 1) checks.push(ambiguousNameCheck(view.name, found));
    targets.push({
      arch: need.arch,
      variant: need.variant,
      id: found.id,
      name: found.name,
      release: found.release,
      ...(found.owner !== undefined ? { owner: found.owner } : {}),
    });
  }

  const before: AmiSpec = {
    ...(view.amiFamily !== undefined ? { amiFamily: view.amiFamily } : {}),
    amiSelectorTerms: view.amiSelectorTerms,
  };
  let after: AmiSpec;
  if (targets.length === 0) {
    after = before; // nothing resolved: the AMI-MISSING errors say why, and there is nothing to pin
  } else if (options.pin === 'name') {
    // Like id terms, name terms tell Karpenter only the arch, and need amiFamily. The owner is the account that
    // published the image: a name term without one searches `self,amazon` (KP pkg/providers/amifamily/ami.go), where
    // an image of the same name in this account would compete with the EKS image.
    checks.push(...mixedIdPinCheck(view.name, targets, 'name'));
    const byName = new Map(targets.map((t) => [t.name, { name: t.name, owner: t.owner ?? 'amazon' }]));
    after = { amiFamily: view.amiFamily ?? FAMILIES[family].amiFamily, amiSelectorTerms: [...byName.values()] };
  } else if (options.pin === 'id') {
    checks.push(...mixedIdPinCheck(view.name, targets));
    // The v1 CRD requires amiFamily without an alias. The same family keeps the hashed, resolved family unchanged,
    // so leaving an alias causes AMIDrift only, never NodeClassDrift (DOMAIN.md §1.2); `Custom` stays Custom.
    after = {
      amiFamily: view.amiFamily ?? FAMILIES[family].amiFamily,
      amiSelectorTerms: [...new Set(targets.map((t) => t.id))].map((id) => ({ id })),
    };
  } else {
    const releases = [...new Set(targets.map((t) => aliasVersion(family, t.release)))];
    if (releases.length > 1) {
      checks.push(
        check(
          'ALIAS-RELEASE-MIXED',
          'error',
          `ec2nodeclass/${view.name}: the resolved ${family} AMIs come from different releases, and an alias pins one release for every architecture and variant`,
          targets.map((t) => `${t.arch} ${t.variant}: ${t.release} (${t.name})`),
          'pass a --release published for all of them, or use --pin id',
        ),
      );
    }
    // An alias may stand with amiFamily unset, its own family, or Custom: keep whatever the class has.
    after = {
      ...(view.amiFamily !== undefined ? { amiFamily: view.amiFamily } : {}),
      amiSelectorTerms: [{ alias: `${family}@${releases[0]!}` }],
    };
  }

  const changed = !sameAmiSpec(before, after);
  const owners = classifyOwners(view);
  const ref = gitopsOwnerOf(view, owners.conflicts.some((c) => c.tool === 'Argo CD'));
  const gitops = ref !== undefined ? options.gitopsSources?.get(ownerKey(ref)) : undefined;
  const pin = pinCommands(gitops, options.pinFlags ?? `--to ${options.to}`);
  if (changed) {
    checks.push(...selectorChecks(view, family, after, options.replaceCustomAmis === true));
    checks.push(
      ...ownerChecks(view.name, owners, {
        forceConflicts: options.forceConflicts ?? false,
        ...(options.applyBy !== undefined ? { applyBy: options.applyBy } : {}),
        ...(gitops !== undefined ? { source: gitops } : {}),
        pin,
      }),
    );
  }
  else if (!checks.some((c) => c.level === 'error')) {
    checks.push(
      check(
        'ALREADY-PINNED',
        'info',
        `ec2nodeclass/${view.name} already selects the target AMIs: nothing to apply, and a rollout in progress is followed from where it is`,
      ),
    );
  }
  checks.push(...notReadyCheck(view));
  const current = view.statusAmis.map((a) => ({ id: a.id, ...(a.name !== undefined ? { name: a.name } : {}) }));
  const where = { ...(gitops !== undefined ? { source: gitops } : {}), ...(pin.length > 0 ? { pin } : {}) };
  return { plan: { name: view.name, family, needs, before, after, changed, current, targets, owners, ...where }, checks };
}

/** A name Karpenter would resolve to several images picks the newest of them: not a pin, so the plan refuses it. */
function ambiguousNameCheck(name: string, ami: ResolvedAmi): Check {
  return check(
    'NAME-AMBIGUOUS',
    'error',
    `ec2nodeclass/${name}: --pin name would select ${ami.nameMatches} images named ${ami.name} owned by ${ami.owner}, and Karpenter keeps only the newest of them`,
    [`${ami.family} ${ami.arch} ${ami.variant}: ${ami.id} is the one resolved`],
    'pin it with --pin id (the image ID is unique)',
  );
}

/** Alias versions carry a leading `v` (`al2023@v20241109`, `bottlerocket@v1.26.1`); Bottlerocket's releases do not. */
function aliasVersion(family: AmiFamily, release: string): string {
  return family === 'bottlerocket' && !release.startsWith('v') ? `v${release}` : release;
}

// Terms are ORed, so their order means nothing; keys inside a term are compared in a canonical order.
export function sameAmiSpec(a: AmiSpec, b: AmiSpec): boolean {
  const canonical = (terms: readonly AmiSelectorTerm[]) =>
    terms
      .map((t) =>
        JSON.stringify(
          Object.entries(t)
            .filter(([, v]) => v !== undefined)
            .sort(([x], [y]) => inOrder(x, y)),
        ),
      )
      .sort();
  return (
    a.amiFamily === b.amiFamily &&
    JSON.stringify(canonical(a.amiSelectorTerms)) === JSON.stringify(canonical(b.amiSelectorTerms))
  );
}
