// Node requirements as Karpenter's scheduler reasons about them (kubernetes-sigs/karpenter pkg/scheduling/
// requirement.go, requirements.go): a requirement is a set of values or its complement, with integer bounds for
// Gt/Lt; two sets of requirements are compatible when every key they share has a value in common, and a custom label
// one side does not define is refused (`AllowUndefinedWellKnownLabels`: a well-known one is open). Pure.
import type { KubeObject } from '../kube-api/types.js';

/** A `nodeSelectorTerms[].matchExpressions[]` entry, or a NodePool template requirement. */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** Karpenter's scheduling.Requirement. */
export interface Requirement {
  key: string;
  complement: boolean;
  values: Set<string>;
  gt?: number;
  lt?: number;
}

export type Requirements = Map<string, Requirement>;

// v1.WellKnownLabels plus those the AWS provider registers: a pod may ask for them where a NodePool says nothing.
const WELL_KNOWN = new Set([
  'karpenter.sh/nodepool',
  'karpenter.sh/capacity-type',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.k8s.aws/zone-id',
  'node.kubernetes.io/instance-type',
  'node.kubernetes.io/windows-build',
  'kubernetes.io/arch',
  'kubernetes.io/os',
]);
const isWellKnown = (key: string) => WELL_KNOWN.has(key) || key.startsWith('karpenter.k8s.aws/instance-');

type PodSpec = {
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchExpressions?: NodeSelectorRequirement[] }> };
    };
  };
};

/**
 * The pod's node requirements: its nodeSelector with each required node-affinity term, in the order Karpenter tries
 * them (NewPodRequirements takes the first term; Preferences.Relax drops it when the pod does not fit, and so on).
 */
export function podRequirementTerms(pod: KubeObject): NodeSelectorRequirement[][] {
  const podSpec = (pod.spec ?? {}) as PodSpec;
  const selector = Object.entries(podSpec.nodeSelector ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  const terms = podSpec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [selector];
  return terms.map((t) => [...selector, ...(t.matchExpressions ?? [])]);
}

/** Requirements from selector requirements (NewNodeSelectorRequirements). */
export function requirementsOf(list: readonly NodeSelectorRequirement[]): Requirements {
  const out: Requirements = new Map();
  for (const r of list) addRequirement(out, requirement(r));
  return out;
}

export function requirement(r: NodeSelectorRequirement): Requirement {
  const values = new Set(r.values ?? []);
  switch (r.operator) {
    case 'In':
      return { key: r.key, complement: false, values };
    case 'NotIn':
      return { key: r.key, complement: true, values };
    case 'DoesNotExist':
      return { key: r.key, complement: false, values: new Set() };
    case 'Gt':
      return { key: r.key, complement: true, values: new Set(), gt: Number(r.values?.[0]) };
    case 'Lt':
      return { key: r.key, complement: true, values: new Set(), lt: Number(r.values?.[0]) };
    default: // Exists
      return { key: r.key, complement: true, values: new Set() };
  }
}

/** Requirements.Add: a key already there narrows to the intersection. */
export function addRequirement(requirements: Requirements, r: Requirement): void {
  const existing = requirements.get(r.key);
  requirements.set(r.key, existing === undefined ? r : intersection(r, existing));
}

// Requirements.Compatible with AllowUndefinedWellKnownLabels: a custom label the NodeClaim does not define is
// refused (unless the pod asks for its absence), then every shared key must have a value in common.
export function compatibility(nodeClaim: Requirements, pod: Requirements): string[] {
  const errors: string[] = [];
  for (const [key, incoming] of pod) {
    if (nodeClaim.has(key) || isWellKnown(key) || ['NotIn', 'DoesNotExist'].includes(operator(incoming))) continue;
    errors.push(`label "${key}" does not have known values`);
  }
  for (const [key, incoming] of pod) {
    const existing = nodeClaim.get(key);
    if (existing === undefined || !isEmpty(intersection(existing, incoming))) continue;
    if (negative(incoming) && negative(existing)) continue;
    errors.push(`key ${key}, ${text(incoming)} not in ${text(existing)}`);
  }
  return errors;
}

/**
 * `compatibility(nodeClaim, pod).length === 0` without the messages: a scheduling run asks it of every NodeClaim it
 * has made up, for every pod, and needs the words only for a pod that fits nowhere.
 */
export function isCompatible(nodeClaim: Requirements, pod: Requirements): boolean {
  for (const [key, incoming] of pod) {
    const existing = nodeClaim.get(key);
    if (existing === undefined) {
      if (isWellKnown(key) || negative(incoming)) continue;
      return false;
    }
    if (!intersects(existing, incoming) && !(negative(incoming) && negative(existing))) return false;
  }
  return true;
}

const negative = (r: Requirement) => ['NotIn', 'DoesNotExist'].includes(operator(r));

/** `!isEmpty(intersection(a, b))` without building the intersection. */
function intersects(a: Requirement, b: Requirement): boolean {
  const gt = a.gt === undefined ? b.gt : b.gt === undefined ? a.gt : Math.max(a.gt, b.gt);
  const lt = a.lt === undefined ? b.lt : b.lt === undefined ? a.lt : Math.min(a.lt, b.lt);
  if (gt !== undefined && lt !== undefined && gt >= lt) return false;
  if (a.complement && b.complement) return true;
  const [finite, other] = a.complement ? [b, a] : [a, b];
  for (const v of finite.values) if (other.values.has(v) !== other.complement && within(v, gt, lt)) return true;
  return false;
}

function within(value: string, gt: number | undefined, lt: number | undefined): boolean {
  if (gt === undefined && lt === undefined) return true;
  const n = Number(value);
  return Number.isInteger(n) && (gt === undefined || n > gt) && (lt === undefined || n < lt);
}

function intersection(a: Requirement, b: Requirement): Requirement {
  const complement = a.complement && b.complement;
  const gt = a.gt === undefined ? b.gt : b.gt === undefined ? a.gt : Math.max(a.gt, b.gt);
  const lt = a.lt === undefined ? b.lt : b.lt === undefined ? a.lt : Math.min(a.lt, b.lt);
  if (gt !== undefined && lt !== undefined && gt >= lt) return { key: a.key, complement: false, values: new Set() };
  const values = new Set(
    a.complement && b.complement
      ? [...a.values, ...b.values]
      : a.complement
        ? [...b.values].filter((v) => !a.values.has(v))
        : b.complement
          ? [...a.values].filter((v) => !b.values.has(v))
          : [...a.values].filter((v) => b.values.has(v)),
  );
  for (const v of values) if (!within(v, gt, lt)) values.delete(v);
  return complement ? { key: a.key, complement, values, gt, lt } : { key: a.key, complement, values };
}

const isEmpty = (r: Requirement) => !r.complement && r.values.size === 0;

function operator(r: Requirement): string {
  if (r.complement) return r.values.size > 0 ? 'NotIn' : 'Exists';
  return r.values.size > 0 ? 'In' : 'DoesNotExist';
}

/** Requirement.String(): `key In [a b c]`, five values at most, then its bounds. */
function text(r: Requirement): string {
  const op = operator(r);
  let s = `${r.key} ${op}`;
  if (op === 'In' || op === 'NotIn') {
    const values = [...r.values].sort();
    const shown = values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
    s += ` [${shown.join(' ')}]`;
  }
  if (r.gt !== undefined) s += ` >${r.gt}`;
  if (r.lt !== undefined) s += ` <${r.lt}`;
  return s;
}
