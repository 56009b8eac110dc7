// Which EKS-optimized AMIs each EC2NodeClass needs: its family, and the (arch, variant) pairs its nodes run or its
// NodePools can launch (DOMAIN.md §8 requirement 5). The command turns these into one AMI query per pair for
// `--to` and `--release`, resolves them, and hands the result to `plan`.
import {
  AMI_FAMILIES,
  ARCHES,
  FAMILIES,
  VARIANTS,
  familyFromAmiFamilyField,
  familyVersionProblem,
  variantExists,
  type AmiFamily,
  type Arch,
  type Variant,
} from '../ami/families.js';
import type { AmiQuery } from '../ami/parameters.js';
import { familyReleaseProblem } from '../ami/select.js';
import { imageNameFields } from '../ami/verify.js';
import type { Inventory, KarpenterObjects, NodeClaimView, NodeClassView } from '../karpenter/views.js';
import { ACCELERATOR_COUNT, ARCH_LABEL, GPU_COUNT, allowedArches, allowsVariant } from './requirements.js';
import { byName } from '../text/order.js';

export interface AmiNeed {
  arch: Arch;
  variant: Variant;
  /**
   * Why: `status.amis` (selected now), `nodepool/<name>` (it can launch such instances), `<n> NodeClaim(s)` (running
   * on them), or `default` (nothing shows an arch: amd64 standard).
   */
  from: string[];
}

export interface AmiNeeds {
  nodeClass: string;
  family?: AmiFamily;
  /** Why the family is unknown; set exactly when `family` is not. */
  familyProblem?: string;
  /**
   * How the class selects AMIs now. An alias tells Karpenter each AMI's arch and variant; id, name, tags and
   * ssmParameter terms tell it only the arch (DOMAIN.md §1.2 "Gotchas"), so those classes keep the variant they run.
   */
  selector: 'alias' | 'arch-only';
  /** Sorted by arch, then variant (the order of ARCHES and VARIANTS). */
  pairs: AmiNeed[];
}

/** The family an alias names (it decides the AMIs even with `amiFamily: Custom`), else `spec.amiFamily`. */
export function nodeClassFamily(view: NodeClassView): { family?: AmiFamily; problem?: string } {
  const alias = view.amiSelectorTerms.find((t) => t.alias !== undefined)?.alias;
  if (alias !== undefined) {
    const name = alias.split('@')[0]!.toLowerCase();
    const family = AMI_FAMILIES.find((f) => f === name);
    return family ? { family } : { problem: `alias ${alias} names no AMI family Karpenter knows` };
  }
  if (view.amiFamily === undefined) return { problem: 'spec.amiFamily is unset and no alias term names a family' };
  if (view.amiFamily === 'Custom') {
    return {
      problem:
        'spec.amiFamily is Custom: the class brings its own AMIs and user data, so karp-drift cannot tell which EKS-optimized family it runs',
    };
  }
  const family = familyFromAmiFamilyField(view.amiFamily);
  return family ? { family } : { problem: `spec.amiFamily ${view.amiFamily} is not a family karp-drift knows` };
}

// What status.amis offers now. Alias entries carry the variant as requirements on the GPU and accelerator counts
// (the AL2 GPU AMI is listed once for nvidia and once for neuron); other terms know only the arch, so the variant
// comes from the EKS-optimized image name (DOMAIN.md §3.4), and a name that is not one reads as standard.
function offeredPairs(
  view: NodeClassView,
  family: AmiFamily | undefined,
  selector: AmiNeeds['selector'],
): Array<{ arch: Arch; variant: Variant }> {
  const pairs: Array<{ arch: Arch; variant: Variant }> = [];
  for (const ami of view.statusAmis) {
    const req = (key: string) => ami.requirements.find((r) => r.key === key);
    const fields = family && ami.name !== undefined ? imageNameFields(family, ami.name) : undefined;
    const named = fields?.architecture === 'x86_64' ? 'amd64' : fields?.architecture;
    const arches =
      req(ARCH_LABEL)?.values?.filter((a): a is Arch => (ARCHES as readonly string[]).includes(a)) ??
      (named ? [named] : []);
    let variant: Variant = 'standard';
    if (selector === 'alias') {
      if (req(GPU_COUNT)?.operator === 'Exists') variant = 'nvidia';
      else if (req(ACCELERATOR_COUNT)?.operator === 'Exists') variant = 'neuron';
    } else if (fields?.flavor === 'nvidia' || fields?.flavor === 'gpu') variant = 'nvidia';
    else if (fields?.flavor === 'neuron') variant = 'neuron';
    for (const arch of arches) pairs.push({ arch, variant });
  }
  return pairs;
}

export const claimArch = (c: NodeClaimView): Arch => (c.arch === 'arm64' ? 'arm64' : 'amd64');

/**
 * The target AMI a NodeClaim is replaced onto: the one of its arch and variant, else (a class whose terms know only
 * the arch, one AMI per arch) the one of its arch.
 */
export function targetOf<T extends { arch: Arch; variant: Variant }>(
  c: NodeClaimView,
  family: AmiFamily | undefined,
  targets: readonly T[],
): T | undefined {
  const arch = claimArch(c);
  const variant = claimVariant(c, family);
  return targets.find((t) => t.arch === arch && t.variant === variant) ?? targets.find((t) => t.arch === arch);
}

// Windows AMIs have no variants: Karpenter launches every Windows instance, GPU or not, from the one image.
export function claimVariant(c: NodeClaimView, family: AmiFamily | undefined): Variant {
  if (family?.startsWith('windows')) return 'standard';
  return c.gpu ? 'nvidia' : c.accelerator ? 'neuron' : 'standard';
}

/**
 * The arches a class can launch when neither status.amis nor a NodeClaim shows one. On a cluster, amd64 (a class
 * Karpenter has not resolved yet). In files (`pin`), an alias: every arch its family has, since Karpenter resolves
 * an alias for each; other terms: amd64, as on a cluster (their images, when EC2 could describe them, are observed).
 */
function unobservedArches(inventory: KarpenterObjects, family: AmiFamily | undefined, selector: AmiNeeds['selector']): Arch[] {
  if (inventory.origin !== 'files' || selector !== 'alias' || family === undefined) return ['amd64'];
  return ARCHES.filter((a) => FAMILIES[family].variants[a].length > 0);
}

export function amiNeeds(inventory: KarpenterObjects, nodeClassName: string): AmiNeeds {
  const view = inventory.nodeClasses.find((c) => c.name === nodeClassName);
  if (view === undefined) throw new Error(`amiNeeds: no EC2NodeClass ${nodeClassName} in the inventory`);
  const { family, problem } = nodeClassFamily(view);
  const selector = view.amiSelectorTerms.some((t) => t.alias !== undefined) ? 'alias' : 'arch-only';
  const pools = inventory.nodePools.filter((p) => p.nodeClass === view.name);
  const claims = inventory.nodeClaims.filter((c) => c.nodeClass === view.name && !c.deleting);
  const offered = offeredPairs(view, family, selector);

  const supported = (a: Arch) => family === undefined || FAMILIES[family].variants[a].length > 0;
  // A NodePool without an arch requirement can launch any arch the class has AMIs for: trust what status.amis and
  // the running NodeClaims show, and amd64 when they show nothing.
  const observed = ARCHES.filter((a) => offered.some((o) => o.arch === a) || claims.some((c) => claimArch(c) === a));
  const fallback = observed.length > 0 ? observed : unobservedArches(inventory, family, selector);
  const poolArches = new Map(pools.map((p) => [p.name, (allowedArches(p.requirements) ?? fallback).filter(supported)]));

  const from = new Map<string, Set<string>>();
  const running = new Map<string, number>();
  const add = (arch: Arch, variant: Variant, why: string) => {
    const key = `${arch}/${variant}`;
    from.set(key, (from.get(key) ?? new Set()).add(why));
  };
  const arches = new Set<Arch>([...[...poolArches.values()].flat(), ...claims.map(claimArch)]);
  if (pools.length === 0 && claims.length === 0) fallback.filter(supported).forEach((a) => arches.add(a));

  for (const arch of arches) {
    const offeredHere = [...new Set(offered.filter((o) => o.arch === arch).map((o) => o.variant))];
    const claimsHere = claims.filter((c) => claimArch(c) === arch);
    const poolsHere = pools.filter((p) => poolArches.get(p.name)!.includes(arch));
    if (selector === 'alias') {
      // An alias offers every variant; a variant is needed only where a NodePool could launch an instance for it.
      const candidates = offeredHere.length > 0 ? offeredHere : family ? FAMILIES[family].variants[arch] : VARIANTS;
      for (const v of candidates) {
        for (const p of poolsHere) if (allowsVariant(p.requirements, v)) add(arch, v, `nodepool/${p.name}`);
      }
      if (poolsHere.length === 0 && claimsHere.length === 0)
        add(arch, 'standard', offeredHere.length > 0 ? 'status.amis' : 'default');
    } else {
      // Karpenter launches every instance of an arch from the one AMI pinned for it: keep that variant.
      const variants =
        offeredHere.length > 0
          ? offeredHere
          : claimsHere.length > 0
            ? claimsHere.map((c) => claimVariant(c, family))
            : ['standard' as const];
      for (const v of variants) {
        if (offeredHere.includes(v)) add(arch, v, 'status.amis');
        for (const p of poolsHere) add(arch, v, `nodepool/${p.name}`);
        if (offeredHere.length === 0 && poolsHere.length === 0) add(arch, v, 'default');
      }
    }
    // status.amis of an arch-only class holds one AMI per arch (Karpenter keeps the newest), which every claim runs.
    for (const c of claimsHere) {
      const variant = selector === 'alias' || offeredHere.length === 0 ? claimVariant(c, family) : offeredHere[0]!;
      add(arch, variant, 'nodeclaims');
      running.set(`${arch}/${variant}`, (running.get(`${arch}/${variant}`) ?? 0) + 1);
    }
  }

  const pairs: AmiNeed[] = [];
  for (const arch of ARCHES) {
    for (const variant of VARIANTS) {
      const why = from.get(`${arch}/${variant}`);
      if (why === undefined) continue;
      const n = running.get(`${arch}/${variant}`) ?? 0;
      const reasons = [...why].filter((w) => w !== 'nodeclaims');
      if (n > 0) reasons.push(`${n} NodeClaim${n === 1 ? '' : 's'}`);
      pairs.push({ arch, variant, from: reasons });
    }
  }
  return { nodeClass: view.name, ...(family ? { family } : { familyProblem: problem! }), selector, pairs };
}

/** The EC2NodeClasses a plan covers (all by default) and the names asked for that do not exist. */
export function nodeClassesInScope(
  inventory: Pick<Inventory, 'nodeClasses'>,
  names?: readonly string[],
): { nodeClasses: NodeClassView[]; missing: string[] } {
  if (names === undefined || names.length === 0)
    return { nodeClasses: [...inventory.nodeClasses].sort(byName), missing: [] };
  return {
    nodeClasses: inventory.nodeClasses.filter((c) => names.includes(c.name)).sort(byName),
    missing: names.filter((n) => !inventory.nodeClasses.some((c) => c.name === n)),
  };
}


/**
 * One AMI query per (family, arch, variant) the classes in scope need, for `--to` and `--release`. Classes whose
 * family is unknown, has no AMIs for `--to`, or has no such release are left out: `plan` reports them as checks.
 * A family a staged rollout under way keeps (kept-releases.ts) is asked at the release it keeps.
 */
export function neededAmiQueries(
  inventory: KarpenterObjects,
  options: {
    to: string;
    release: string;
    minAge?: string;
    nodeClasses?: readonly string[];
    kept?: ReadonlyArray<{ family: AmiFamily; release: string }>;
  },
): AmiQuery[] {
  const queries = new Map<string, AmiQuery>();
  for (const view of nodeClassesInScope(inventory, options.nodeClasses).nodeClasses) {
    const needs = amiNeeds(inventory, view.name);
    const family = needs.family;
    if (family === undefined || familyVersionProblem(family, options.to) !== undefined) continue;
    const kept = options.kept?.find((k) => k.family === family)?.release;
    if (kept === undefined && familyReleaseProblem(family, options.release, options.minAge) !== undefined) continue;
    for (const { arch, variant } of needs.pairs) {
      if (!variantExists(family, arch, variant)) continue;
      queries.set(`${family}/${arch}/${variant}`, {
        family,
        kubernetesVersion: options.to,
        arch,
        variant,
        release: kept ?? options.release,
      });
    }
  }
  return [...queries.values()];
}
