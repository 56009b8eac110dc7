// What a NodePool's `spec.template.spec.requirements` let Karpenter launch, as far as AMIs care: which architectures,
// and whether GPU (nvidia) or accelerator (neuron) instances are possible. Karpenter matches instance types against
// the requirements (kubernetes-sigs/karpenter pkg/scheduling/requirements.go); we only need "could it launch one?",
// so instance labels are judged from the keys a NodePool usually narrows them with (DOMAIN.md §1.3).
import { ARCHES, type Arch, type Variant } from '../ami/families.js';
import type { Requirement } from '../karpenter/views.js';

export const ARCH_LABEL = 'kubernetes.io/arch';
export const GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';
export const ACCELERATOR_COUNT = 'karpenter.k8s.aws/instance-accelerator-count';
const CATEGORY = 'karpenter.k8s.aws/instance-category';
const FAMILY = 'karpenter.k8s.aws/instance-family';
const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';

// EC2 instance categories and families whose instances carry GPUs (g, p: Karpenter labels instance-gpu-count) or
// Neuron accelerators (inf, trn: instance-accelerator-count). Everything else launches from the standard AMI.
const ACCELERATED: Record<Exclude<Variant, 'standard'>, { count: string; categories: string[]; family: RegExp }> = {
  nvidia: { count: GPU_COUNT, categories: ['g', 'p'], family: /^(g|gr|p)\d/ },
  neuron: { count: ACCELERATOR_COUNT, categories: ['inf', 'trn'], family: /^(inf|trn)\d/ },
};

/** Every requirement on `key` holds for the label value `value` (undefined: the label is absent). */
function allows(requirements: readonly Requirement[], key: string, value: string | undefined): boolean {
  return requirements
    .filter((r) => r.key === key)
    .every((r) => {
      const values = r.values ?? [];
      switch (r.operator) {
        case 'In':
          return value !== undefined && values.includes(value);
        case 'NotIn':
          return value === undefined || !values.includes(value);
        case 'Exists':
          return value !== undefined;
        case 'DoesNotExist':
          return value === undefined;
        default: {
          // Gt, Lt, Gte, Lte compare integers; an absent label satisfies none of them.
          const n = Number(value);
          const bound = Number(values[0]);
          if (value === undefined || Number.isNaN(n) || Number.isNaN(bound)) return false;
          return r.operator === 'Gt'
            ? n > bound
            : r.operator === 'Lt'
              ? n < bound
              : r.operator === 'Gte'
                ? n >= bound
                : n <= bound;
        }
      }
    });
}

const constrains = (requirements: readonly Requirement[], key: string): boolean =>
  requirements.some((r) => r.key === key);

const ACCELERATED_CATEGORIES = [...ACCELERATED.nvidia.categories, ...ACCELERATED.neuron.categories];
// A few general-purpose categories, enough to find one that a NotIn leaves over.
const PLAIN_CATEGORIES = ['c', 'm', 'r', 't', 'a', 'i', 'd', 'x', 'z'];

function someCategoryAllowed(requirements: readonly Requirement[], wanted: (category: string) => boolean): boolean {
  if (!constrains(requirements, CATEGORY)) return true;
  const named = requirements.filter((r) => r.key === CATEGORY && r.operator === 'In').flatMap((r) => r.values ?? []);
  const candidates = named.length > 0 ? named : [...PLAIN_CATEGORIES, ...ACCELERATED_CATEGORIES];
  return candidates.some((c) => wanted(c) && allows(requirements, CATEGORY, c));
}

/** Architectures the requirements allow; undefined when they do not mention `kubernetes.io/arch` at all. */
export function allowedArches(requirements: readonly Requirement[]): Arch[] | undefined {
  if (!constrains(requirements, ARCH_LABEL)) return undefined;
  return ARCHES.filter((a) => allows(requirements, ARCH_LABEL, a));
}

// Some positive count satisfies every requirement on the count key. A valid count is one of the `In` values if there
// are any; otherwise among the |NotIn|+1 integers from the lowest bound one escapes NotIn, and larger ones only
// break more upper bounds.
function allowsPositive(requirements: readonly Requirement[], key: string): boolean {
  const own = requirements.filter((r) => r.key === key);
  let low = 1;
  for (const r of own) {
    const bound = Number(r.values?.[0]);
    if (r.operator === 'Gt') low = Math.max(low, bound + 1);
    if (r.operator === 'Gte') low = Math.max(low, bound);
  }
  const notIn = own.filter((r) => r.operator === 'NotIn').flatMap((r) => r.values ?? []);
  const candidates = [
    ...own.filter((r) => r.operator === 'In').flatMap((r) => r.values ?? []),
    ...Array.from({ length: notIn.length + 1 }, (_, i) => String(low + i)),
  ];
  return candidates.some((v) => Number(v) > 0 && allows(requirements, key, v));
}

// An `In` on instance families or types names the instances outright: one of them must match.
function namedInstancesAllow(requirements: readonly Requirement[], matches: (family: string) => boolean): boolean {
  for (const key of [FAMILY, INSTANCE_TYPE]) {
    for (const r of requirements.filter((x) => x.key === key && x.operator === 'In')) {
      if (!(r.values ?? []).some((v) => matches(v.split('.')[0]!))) return false;
    }
  }
  return true;
}

/** Could the requirements launch an instance that needs this variant's AMI? */
export function allowsVariant(requirements: readonly Requirement[], variant: Variant): boolean {
  if (variant === 'standard') {
    const plain = (family: string) =>
      !ACCELERATED.nvidia.family.test(family) && !ACCELERATED.neuron.family.test(family);
    return (
      allows(requirements, GPU_COUNT, undefined) &&
      allows(requirements, ACCELERATOR_COUNT, undefined) &&
      someCategoryAllowed(requirements, (c) => !ACCELERATED_CATEGORIES.includes(c)) &&
      namedInstancesAllow(requirements, plain)
    );
  }
  // GPU instances carry no accelerator count and Neuron instances no GPU count.
  const a = ACCELERATED[variant];
  const other = ACCELERATED[variant === 'nvidia' ? 'neuron' : 'nvidia'];
  return (
    allowsPositive(requirements, a.count) &&
    allows(requirements, other.count, undefined) &&
    someCategoryAllowed(requirements, (c) => a.categories.includes(c)) &&
    namedInstancesAllow(requirements, (f) => a.family.test(f))
  );
}

/**
 * A NodeClaim's labels still satisfy every requirement: what Karpenter checks for `RequirementsDrifted`
 * (`nodeClaimReq.StrictlyCompatible(nodePoolReq)` in nodeclaim/disruption/drift.go): an absent label satisfies only
 * NotIn and DoesNotExist.
 */
export function labelsSatisfy(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => allows([r], r.key, labels[r.key]));
}
