// Pure rendering: parsed templates + resolved AMIs -> an EC2NodeClass and a NodePool with pinned amiSelectorTerms.
// Objects are copied and fields set on them; YAML text is never substituted (STYLE.md "Render objects, not text").
//
// What render may change, and nothing else (DOMAIN.md §2.2: every other spec field below feeds Karpenter's
// drift hashes, so changing one would re-roll every node, not just the AMI):
//   EC2NodeClass  metadata.name, spec.role, spec.amiSelectorTerms, spec.amiFamily,
//                 spec.{subnet,securityGroup}SelectorTerms[].tags["karpenter.sh/discovery"]
//   NodePool      metadata.name, spec.template.spec.nodeClassRef.name
import { dump } from 'js-yaml';
import { ARCHES, FAMILIES, type AmiFamily, type Arch } from '../ami/families.js';
import { UsageError } from '../errors.js';
import {
  renderedEC2NodeClassSchema,
  nodePoolSchema,
  schemaIssues,
  type AmiSelectorTerm,
  type EC2NodeClass,
  type ManifestTemplates,
  type NodePool,
  type NodeSelectorRequirement,
} from './schema.js';

/** `render` pins by id or alias only; plan and upgrade may also pin exact names (plan/plan-options.ts `PinMode`). */
export type RenderPinMode = 'id' | 'alias';
type PinMode = RenderPinMode;

export const DISCOVERY_TAG = 'karpenter.sh/discovery';

/** The standard-variant AMI of the rendered family for one architecture (a narrow view of ami/resolve's ResolvedAmi). */
export interface PinnedAmi {
  arch: Arch;
  id: string;
  /** Concrete release, never "latest": v20241109 (AL2, AL2023), 1.26.1 or v1.26.1 (Bottlerocket). */
  release: string;
}

export interface RenderInput {
  name: string;
  clusterName: string;
  role: string;
  family: AmiFamily;
  pin: PinMode;
  /** One per architecture returned by `pinnedArches`. */
  amis: readonly PinnedAmi[];
}

export interface RenderedManifests {
  nodeClass: EC2NodeClass;
  nodePool: NodePool;
}

/** Refuses pins the CRD cannot express, before any AWS call is made. */
export function checkPinnable(family: AmiFamily, pin: PinMode): void {
  if (pin === 'alias' && !FAMILIES[family].pinnable) {
    // CEL on amiSelectorTerms[].alias: "windows families may only specify version 'latest'".
    throw new UsageError(`--pin alias cannot pin ${family}: Karpenter accepts Windows aliases only as ${family}@latest, which floats`, {
      hint: `use --pin id (the default) to pin the ${family} AMI by ID`,
    });
  }
}

/** Whether a NodePool's requirements let `key` take `value` (every requirement on a key must hold). */
export function requirementsAllow(requirements: readonly NodeSelectorRequirement[], key: string, value: string): boolean {
  return requirements
    .filter((r) => r.key === key)
    .every((r) => {
      switch (r.operator) {
        case 'In':
          return (r.values ?? []).includes(value);
        case 'NotIn':
          return !(r.values ?? []).includes(value);
        case 'DoesNotExist':
          return false;
        default: // Exists; Gt/Lt/Gte/Lte make no sense on a string label and Karpenter matches nothing numeric here.
          return true;
      }
    });
}

/**
 * The architectures to pin: those the NodePool allows that the family publishes AMIs for. Also refuses a NodePool
 * that excludes the family's OS, since its nodes could never launch.
 */
export function pinnedArches(templates: ManifestTemplates, family: AmiFamily): Arch[] {
  const requirements = templates.nodePool.spec.template.spec.requirements;
  const file = templates.files.nodePool;
  const os = family.startsWith('windows') ? 'windows' : 'linux';
  if (!requirementsAllow(requirements, 'kubernetes.io/os', os)) {
    throw new UsageError(`${file}: the NodePool's kubernetes.io/os requirement excludes ${os}, which ${family} AMIs run`, {
      hint: `allow ${os} in the NodePool's requirements or choose another --family`,
    });
  }
  const allowed = ARCHES.filter((a) => requirementsAllow(requirements, 'kubernetes.io/arch', a));
  const arches = allowed.filter((a) => FAMILIES[family].variants[a].includes('standard'));
  if (arches.length === 0) {
    const has = ARCHES.filter((a) => FAMILIES[family].variants[a].length > 0);
    throw new UsageError(
      `${file}: the NodePool allows kubernetes.io/arch ${allowed.join(', ') || '(none)'}, but ${family} AMIs exist only for ${has.join(', ')}`,
      { hint: `allow ${has.join(' or ')} in the NodePool's requirements or choose another --family` },
    );
  }
  return arches;
}

export function renderManifests(templates: ManifestTemplates, input: RenderInput): RenderedManifests {
  checkPinnable(input.family, input.pin);
  const arches = pinnedArches(templates, input.family);
  const nodeClass = structuredClone(templates.nodeClass);
  const nodePool = structuredClone(templates.nodePool);
  const spec = nodeClass.spec;
  const familyField = FAMILIES[input.family].amiFamily;
  const file = templates.files.nodeClass;

  // amiFamily picks the UserData format; a template that names another family was written for other AMIs.
  // `Custom` means the template owns userData and bootstrapping, and is kept (it is valid with id and alias terms).
  if (spec.amiFamily !== undefined && spec.amiFamily !== 'Custom' && spec.amiFamily !== familyField) {
    throw new UsageError(`${file} sets spec.amiFamily: ${spec.amiFamily}, but --family ${input.family} pins ${familyField} AMIs`, {
      hint: `pass the --family the template is written for, or change spec.amiFamily in ${file}`,
    });
  }
  // The CRD wants exactly one of role and instanceProfile. Swapping a pre-made instance profile for a role would
  // change a hashed field and make Karpenter manage a new profile (private clusters cannot), so it is refused.
  if (spec.instanceProfile !== undefined) {
    throw new UsageError(`${file} sets spec.instanceProfile, but render sets spec.role from --role and the CRD allows only one of them`, {
      hint: `remove spec.instanceProfile from ${file}; Karpenter then manages the instance profile of --role`,
    });
  }

  nodeClass.metadata.name = input.name;
  spec.role = input.role;
  for (const term of [...spec.subnetSelectorTerms, ...spec.securityGroupSelectorTerms]) {
    if (term.tags !== undefined && Object.hasOwn(term.tags, DISCOVERY_TAG)) term.tags[DISCOVERY_TAG] = input.clusterName;
  }
  spec.amiSelectorTerms = amiSelectorTerms(input, arches);
  // The v1 CRD rejects id terms without amiFamily (the blueprint's defect, DOMAIN.md §5.1). Karpenter hashes the
  // resolved family, which is the same for `amiFamily: AL2023` + ids as for an al2023 alias (DOMAIN.md §1.2), so
  // moving from an alias to an id pin causes AMIDrift only, not NodeClassDrift.
  if (input.pin === 'id' && spec.amiFamily === undefined) {
    nodeClass.spec = insertBefore(spec, { amiFamily: familyField }, 'amiSelectorTerms');
  }

  nodePool.metadata.name = input.name;
  nodePool.spec.template.spec.nodeClassRef.name = input.name;
  return { nodeClass: validated(nodeClass), nodePool: validatedNodePool(nodePool) };
}

function amiSelectorTerms(input: RenderInput, arches: readonly Arch[]): AmiSelectorTerm[] {
  const picked = arches.map((arch) => {
    const matches = input.amis.filter((a) => a.arch === arch);
    if (matches.length !== 1 || matches[0]!.release === 'latest') {
      throw new Error(`renderManifests needs one concrete ${input.family} AMI for ${arch}; got ${JSON.stringify(matches)}`);
    }
    return matches[0]!;
  });
  if (input.pin === 'id') return picked.map((a) => ({ id: a.id }));
  const releases = [...new Set(picked.map((a) => aliasVersion(input.family, a.release)))];
  if (releases.length !== 1) {
    // An alias pins one release for every architecture; Karpenter quietly skips an arch without it (DOMAIN.md §3.1).
    const byArch = picked.map((a) => `${a.arch} ${a.release}`).join(', ');
    throw new UsageError(`the newest ${input.family} releases differ by architecture (${byArch}); an alias pins one release for all`, {
      hint: `pass --release with a release published for every architecture, or use --pin id`,
    });
  }
  return [{ alias: `${input.family}@${releases[0]!}` }];
}

/** Alias versions carry a leading `v` (`al2023@v20241109`, `bottlerocket@v1.26.1`); Bottlerocket's SSM paths do not. */
function aliasVersion(family: AmiFamily, release: string): string {
  return family === 'bottlerocket' && !release.startsWith('v') ? `v${release}` : release;
}

/** A copy of `obj` with new `fields` placed before the key `before`, so the output keeps the template's order. */
function insertBefore<T extends object>(obj: T, fields: Record<string, unknown>, before: string): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === before) Object.assign(out, fields);
    out[k] = v;
  }
  return out as T;
}

// A failure here means render built something the CRD would refuse: a bug, not a user error.
function validated(nodeClass: EC2NodeClass): EC2NodeClass {
  const result = renderedEC2NodeClassSchema.safeParse(nodeClass);
  if (!result.success) throw new Error(`rendered EC2NodeClass is invalid: ${schemaIssues(result.error).join('; ')}`);
  return nodeClass;
}

function validatedNodePool(nodePool: NodePool): NodePool {
  const result = nodePoolSchema.safeParse(nodePool);
  if (!result.success) throw new Error(`rendered NodePool is invalid: ${schemaIssues(result.error).join('; ')}`);
  return nodePool;
}

/** Multi-document YAML for `kubectl apply -f -`: the EC2NodeClass first, then the NodePool that references it. */
export function manifestsYaml(m: RenderedManifests): string {
  // lineWidth -1: never fold long strings (userData), so the text a person reviews is the text applied.
  return [m.nodeClass, m.nodePool].map((o) => dump(o, { lineWidth: -1, noRefs: true })).join('---\n');
}

/** A core/v1 List, the shape `kubectl get -o json` prints for several objects and `kubectl apply -f` accepts. */
export function manifestsList(m: RenderedManifests): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [m.nodeClass, m.nodePool] }, null, 2)}\n`;
}
