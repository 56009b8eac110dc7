// The simulated Karpenter's AMI resolution: an EC2NodeClass's amiSelectorTerms against the sandbox catalog, as
// karpenter-provider-aws v1.14 pkg/providers/amifamily/ami.go (`DescribeImageQueries`, `amis`, `compareAMI`) and
// pkg/controllers/nodeclass/ami.go (what lands in status.amis) do. Pure: the clock and the catalog are arguments.
import { isDeprecatedAt } from '../aws/images.js';
import { imageById, imagesByName, imagesByTags, parameterValue } from '../aws/lookup.js';
import type { AmiCatalog, CatalogImage } from '../aws/types.js';
import type { AmiSelectorTerm } from '../../karpenter/views.js';
import { aliasImages, variantRequirements, type Requirement } from './amis-alias.js';

export type { Requirement } from './amis-alias.js';

export interface ResolvedAmi {
  id: string;
  name: string;
  requirements: Requirement[];
  /** Present only when true, as Karpenter's `deprecated,omitempty`. */
  deprecated?: boolean;
}

/**
 * What the AMI reconciler makes of the terms (KP v1.14 pkg/controllers/nodeclass/ami.go): AMIs (AMIsReady=True);
 * `AMINotFound`, nothing matched (AMIsReady=False and status.amis cleared; retried every minute);
 * `UnsupportedAlias` (AMIsReady=False, terminal, status.amis kept); or a reconcile `error`, an alias whose SSM
 * parameters all miss (AMIsReady and status.amis left as they were; logged and retried with backoff).
 */
export type AmiResolution =
  | { amis: ResolvedAmi[] }
  | { amis: []; reason: 'AMINotFound' | 'UnsupportedAlias'; message: string }
  | { amis: []; error: string };

export interface ResolveAmiArgs {
  terms: AmiSelectorTerm[];
  /**
   * spec.amiFamily. Karpenter selects AMIs and derives their requirements without it (it drives only user data and
   * block devices, docs concepts/nodeclasses.md §spec.amiFamily), so resolution ignores it.
   */
  amiFamily?: string;
  catalog: AmiCatalog;
  /** Karpenter's view of the control plane, e.g. '1.30': aliases read SSM for it (DOMAIN.md §2.3). */
  controlPlaneVersion: string;
  /** Deprecation is judged at this instant. */
  now: Date;
  /**
   * Images Karpenter's account cannot see (not shared with it): never resolved. Every other image counts as visible
   * (public, owned, or shared).
   */
  hiddenImageIds?: ReadonlySet<string>;
}

interface Candidate {
  image: CatalogImage;
  requirements: Requirement[];
  deprecated: boolean;
}

const NO_MATCH = 'AMISelector did not match any AMIs';
const KUBE_ARCH = { x86_64: 'amd64', arm64: 'arm64' } as const;

export function resolveAmiSelectorTerms(args: ResolveAmiArgs): AmiResolution {
  const { catalog, now } = args;
  const hidden = args.hiddenImageIds ?? new Set<string>();
  // DescribeImages answers for what exists and is visible; IncludeDeprecated=true keeps deprecated images.
  const visible = (image: CatalogImage | undefined): image is CatalogImage =>
    image !== undefined &&
    image.state === 'available' &&
    !catalog.deregisteredImageIds.has(image.imageId) &&
    !hidden.has(image.imageId);
  const candidate = (image: CatalogImage, known: Requirement[]): Candidate => ({
    image,
    requirements: sortedRequirements([
      { key: 'kubernetes.io/arch', operator: 'In', values: [KUBE_ARCH[image.architecture]] },
      ...known,
    ]),
    deprecated: isDeprecatedAt(image, now),
  });

  // CEL makes an alias the only term, so the first alias decides (ami.go treats this as an invariant).
  const alias = args.terms.find((t) => t.alias !== undefined && t.alias !== '')?.alias;
  let candidates: Candidate[];
  if (alias !== undefined) {
    const found = aliasImages(alias, catalog, args.controlPlaneVersion);
    if ('error' in found) return { amis: [], error: found.error };
    if ('reason' in found) return { amis: [], reason: found.reason, message: found.message };
    candidates = [...found.variants].flatMap(([imageId, variants]) => {
      const image = imageById(catalog, imageId);
      // One entry per variant: the AL2 GPU image is listed for nvidia and for neuron.
      return visible(image) ? variants.map((v) => candidate(image, variantRequirements(found.family, v))) : [];
    });
  } else {
    // Without an alias Karpenter knows only the architecture (DOMAIN.md §1.2 gotcha 1).
    candidates = selectedImages(args.terms, catalog)
      .filter(visible)
      .map((image) => candidate(image, []));
  }

  const amis = [...preferredPerRequirements(candidates).values()].sort(newestFirst).map(toResolved);
  return amis.length > 0 ? { amis } : { amis: [], reason: 'AMINotFound', message: NO_MATCH };
}

/** Terms are ORed. `id` and `ssmParameter` terms join one image-id query; other fields of a term are ANDed. */
function selectedImages(terms: AmiSelectorTerm[], catalog: AmiCatalog): Array<CatalogImage | undefined> {
  const images: Array<CatalogImage | undefined> = [];
  for (const term of terms) {
    if (term.id) images.push(imageById(catalog, term.id));
    else if (term.ssmParameter) {
      // A missing parameter or one whose value is not an AMI ID is logged and skipped by Karpenter.
      const value = parameterValue(catalog, term.ssmParameter);
      if (value?.startsWith('ami-')) images.push(imageById(catalog, value));
    } else if (term.name || term.tags) images.push(...filteredImages(term, catalog));
    // A term with no selector at all is rejected by CEL; matching every image would be the wrong fallback.
  }
  return images;
}

function filteredImages(term: AmiSelectorTerm, catalog: AmiCatalog): CatalogImage[] {
  // A name term defaults to owners self+amazon, so another account's public image that copies a name is picked up
  // only when `owner` names that account.
  const owners = term.owner ? [term.owner] : term.name ? ['self', 'amazon'] : [];
  let images = term.name ? imagesByName(catalog, term.name) : [...catalog.images.values()];
  if (term.tags && Object.keys(term.tags).length > 0) {
    const tagged = new Set(imagesByTags(catalog, term.tags));
    images = images.filter((image) => tagged.has(image));
  }
  return images.filter((image) => owners.length === 0 || owners.some((o) => ownedBy(image, o, catalog)));
}

/** DescribeImages `Owner.N`: an account ID, `self`, or an owner alias such as `amazon` or `aws-marketplace`. */
function ownedBy(image: CatalogImage, owner: string, catalog: AmiCatalog): boolean {
  if (owner === 'self') return image.ownerId === catalog.accountId;
  return image.ownerId === owner || image.ownerAlias === owner;
}

/**
 * Karpenter keeps one image per distinct requirement set (`amis`/`mergeAMIs`), so id/name/tags terms yield at most
 * one AMI per architecture. `compareAMI` prefers a non-deprecated image, then the newer CreationDate, then the
 * greater name; the same image matched by two terms is kept once.
 */
function preferredPerRequirements(candidates: Candidate[]): Map<string, Candidate> {
  const best = new Map<string, Candidate>();
  for (const c of candidates) {
    const key = JSON.stringify(c.requirements);
    const current = best.get(key);
    if (current === undefined || compareAmi(c, current) < 0) best.set(key, c);
  }
  return best;
}

function compareAmi(a: Candidate, b: Candidate): number {
  if (a.deprecated !== b.deprecated) return a.deprecated ? 1 : -1;
  const created = createdSeconds(b) - createdSeconds(a);
  if (created !== 0) return created;
  return a.image.name === b.image.name ? 0 : a.image.name > b.image.name ? -1 : 1;
}

/**
 * status.amis order is `AMIs.Sort()` (types.go): newest CreationDate first, then image ID ascending (IDs are unique,
 * names need not be; the fixture ec2nodeclass-amis-resolved.yaml shows one build's AMIs in ID order). Karpenter's
 * sort is unstable for two entries of one image (AL2 GPU as nvidia and neuron); ours is stable, keeping the
 * family's variant order (standard, nvidia, neuron) so status.amis never flaps between reconciles.
 */
function newestFirst(a: Candidate, b: Candidate): number {
  const created = createdSeconds(b) - createdSeconds(a);
  if (created !== 0) return created;
  return a.image.imageId < b.image.imageId ? -1 : a.image.imageId > b.image.imageId ? 1 : 0;
}

// Karpenter compares Unix seconds; an unparsable date sorts last, like its minTime default.
function createdSeconds(c: Candidate): number {
  const ms = Date.parse(c.image.creationDate);
  return Number.isNaN(ms) ? Number.MIN_SAFE_INTEGER : Math.floor(ms / 1000);
}

/** nodeclass/ami.go sorts each AMI's requirements by key length, then key. */
function sortedRequirements(requirements: Requirement[]): Requirement[] {
  return [...requirements].sort((a, b) =>
    a.key.length !== b.key.length ? a.key.length - b.key.length : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
}

function toResolved(c: Candidate): ResolvedAmi {
  return {
    id: c.image.imageId,
    name: c.image.name,
    requirements: c.requirements,
    ...(c.deprecated ? { deprecated: true } : {}),
  };
}
