// Karpenter's scheduling simulation for a drift candidate (kubernetes-sigs/karpenter disruption/helpers.go
// SimulateScheduling; provisioning/scheduling/scheduler.go, nodeclaim.go; pkg/scheduling/requirement(s).go): would
// each pod that has to move find a place on another node, or on a node some NodePool could launch? If not, the
// candidate is skipped with `Not all pods would schedule, <ns>/<pod> => <error> …` (DOMAIN.md §2.5, §2.7).
//
// Simulated, for the pods Karpenter reschedules (not DaemonSet-owned, not terminal, not terminating; bare pods
// count): `spec.nodeSelector` and required node affinity `matchExpressions` (terms tried in turn, as Karpenter
// relaxes them), first against the labels of the other schedulable nodes (Ready, initialized, not tainted for
// disruption, not deleting), then against each NodePool's template, with Karpenter's rules and error texts: the
// template's labels and requirements plus `karpenter.sh/nodepool` and a `kubernetes.io/hostname` placeholder (so a
// hostname selector never fits a new node); a label the template does not define fits only if it is well known.
// Not simulated: resources and capacity (a replacement always has room), taints and tolerations, topology spread,
// pod (anti-)affinity, volumes, host ports, `matchFields`, preferred affinity (Karpenter relaxes it away), NodePool
// weights and limits, and instance-type offerings (a well-known label the pool leaves open, e.g. a zone, fits).
import type { KubeObject } from '../kube-api/types.js';
import { NODEPOOLS, spec, type SimContext } from './context.js';
import { compatible as nodeMatches, type Requirement as NodeSelectorRequirement } from './drift-controller.js';
import { isDaemonSetPod, reschedulablePods, schedulable } from './pods.js';

type PodSpec = {
  nodeSelector?: Record<string, string>;
  affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Array<{ matchExpressions?: NodeSelectorRequirement[] }> } } };
  containers?: Array<{ resources?: { requests?: Record<string, string> } }>;
};

/** Karpenter's scheduling.Requirement: a set of values or its complement, with integer bounds for Gt/Lt. */
interface Requirement {
  key: string;
  complement: boolean;
  values: Set<string>;
  gt?: number;
  lt?: number;
}

type Requirements = Map<string, Requirement>;

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

/**
 * Karpenter's DisruptionBlocked message when some of the pods on `node` would not schedule anywhere else, or
 * undefined when they all would (an empty node always would).
 */
export function notAllPodsWouldSchedule(ctx: SimContext, node: KubeObject): string | undefined {
  const nodeName = node.metadata.name ?? '';
  let others: KubeObject[] | undefined;
  const otherNodes = () => (others ??= ctx.store.list('nodes').filter((n) => n.metadata.name !== nodeName && schedulable(n)));
  let templates: Template[] | undefined;
  const errors: string[] = [];
  for (const pod of reschedulablePods(ctx, nodeName)) {
    const terms = podRequirementTerms(pod);
    // A pod that asks for nothing fits any NodePool (the candidate's own, at least): the common case, kept cheap.
    if (terms.every((t) => t.length === 0)) continue;
    templates ??= nodePoolTemplates(ctx);
    const error = schedulingError(ctx, terms, otherNodes, templates);
    if (error !== undefined) errors.push(`${pod.metadata.namespace}/${pod.metadata.name} => ${error} `);
  }
  if (errors.length === 0) return undefined;
  // Results.NonPendingPodSchedulingErrors, capitalised by pretty.Sentence: five pods, then a count.
  const MAX = 5;
  const more = errors.length > MAX ? ` and ${errors.length - MAX} other(s)` : '';
  return `Not all pods would schedule, ${errors.slice(0, MAX).join('')}${more}`;
}

/** The pod's node requirements: nodeSelector with each required node-affinity term, in the order Karpenter tries them. */
function podRequirementTerms(pod: KubeObject): NodeSelectorRequirement[][] {
  const podSpec = (pod.spec ?? {}) as PodSpec;
  const selector = Object.entries(podSpec.nodeSelector ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  const terms = podSpec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [selector];
  return terms.map((t) => [...selector, ...(t.matchExpressions ?? [])]);
}

interface Template {
  nodePool: string;
  requirements: Requirements;
  /** Worked out for the first error that needs it. */
  daemonOverhead?: string;
}

// NodeClaimTemplate: the NodePool's spec.template requirements and labels, and karpenter.sh/nodepool. Karpenter
// orders them by weight, then name; the sandbox's NodePools have no weights.
function nodePoolTemplates(ctx: SimContext): Template[] {
  return ctx.store
    .list(NODEPOOLS)
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((pool) => {
      const template = spec<{ template?: { metadata?: { labels?: Record<string, string> }; spec?: { requirements?: NodeSelectorRequirement[] } } }>(pool).template;
      const nodePool = pool.metadata.name ?? '';
      const requirements: Requirements = new Map();
      for (const r of template?.spec?.requirements ?? []) add(requirements, requirement(r));
      for (const [key, value] of Object.entries({ ...template?.metadata?.labels, 'karpenter.sh/nodepool': nodePool }))
        add(requirements, requirement({ key, operator: 'In', values: [value] }));
      return { nodePool, requirements };
    })
    .sort((a, b) => a.nodePool.localeCompare(b.nodePool));
}

// Scheduler.add: an existing node first, then a new NodeClaim from each template; the error is the templates'
// (multierr joins them with "; "), from the last term tried. Whether the pod fits does not depend on that order, so
// the few templates are checked before the many nodes; the NodeClaims (and their placeholder hostnames) are made up
// only for the error, as Karpenter makes them only when no existing node takes the pod.
function schedulingError(ctx: SimContext, terms: NodeSelectorRequirement[][], otherNodes: () => KubeObject[], templates: Template[]): string | undefined {
  let error: string | undefined;
  for (const term of terms) {
    const pod: Requirements = new Map();
    for (const r of term) add(pod, requirement(r));
    if (templates.some((t) => incompatibility(t, pod, 'hostname-placeholder').length === 0)) return undefined;
    if (otherNodes().some((n) => nodeMatches(term, n.metadata.labels ?? {}))) return undefined;
    if (templates.length === 0) error = 'nodepool requirements filtered out all available instance types';
    else {
      const rejections = templates.map((t) => {
        // NewNodeClaim: every simulated NodeClaim gets its own hostname, hostname-placeholder-0001 and on.
        ctx.memory.hostnamePlaceholders += 1;
        const hostname = `hostname-placeholder-${String(ctx.memory.hostnamePlaceholders).padStart(4, '0')}`;
        const overhead = (t.daemonOverhead ??= daemonOverhead(ctx, t.nodePool));
        return `incompatible with nodepool "${t.nodePool}", daemonset overhead=${overhead}, incompatible requirements, ${incompatibility(t, pod, hostname).join('; ')}`;
      });
      error = rejections.join('; ');
    }
  }
  return error;
}

/** Why a NodeClaim from the template, with this hostname, cannot take the pod (none: it can). */
function incompatibility(template: Template, pod: Requirements, hostname: string): string[] {
  const nodeClaim = new Map(template.requirements);
  add(nodeClaim, requirement({ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }));
  return compatibility(nodeClaim, pod);
}

// Requirements.Compatible with AllowUndefinedWellKnownLabels: a custom label the NodeClaim does not define is
// refused (unless the pod asks for its absence), then every shared key must have a value in common.
function compatibility(nodeClaim: Requirements, pod: Requirements): string[] {
  const errors: string[] = [];
  for (const [key, incoming] of pod) {
    if (nodeClaim.has(key) || isWellKnown(key) || ['NotIn', 'DoesNotExist'].includes(operator(incoming))) continue;
    errors.push(`label "${key}" does not have known values`);
  }
  for (const [key, incoming] of pod) {
    const existing = nodeClaim.get(key);
    if (existing === undefined || !isEmpty(intersection(existing, incoming))) continue;
    const negative = (r: Requirement) => ['NotIn', 'DoesNotExist'].includes(operator(r));
    if (negative(incoming) && negative(existing)) continue;
    errors.push(`key ${key}, ${text(incoming)} not in ${text(existing)}`);
  }
  return errors;
}

function requirement(r: NodeSelectorRequirement): Requirement {
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

function add(requirements: Requirements, r: Requirement): void {
  const existing = requirements.get(r.key);
  requirements.set(r.key, existing === undefined ? r : intersection(r, existing));
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

// The resources the NodePool's DaemonSets take on a new node, as resources.String prints a ResourceList: one pod of
// each DaemonSet running on the pool's nodes (the sandbox has DaemonSet pods, not DaemonSets).
function daemonOverhead(ctx: SimContext, nodePool: string): string {
  const daemons = new Map<string, KubeObject>();
  for (const node of ctx.store.list('nodes')) {
    if (node.metadata.labels?.['karpenter.sh/nodepool'] !== nodePool) continue;
    for (const pod of ctx.store.objects.podsOnNode(node.metadata.name ?? '').filter(isDaemonSetPod))
      daemons.set(pod.metadata.ownerReferences?.[0]?.uid ?? '', pod);
  }
  let milliCpu = 0;
  let memoryMi = 0;
  for (const pod of daemons.values()) {
    for (const c of ((pod.spec ?? {}) as PodSpec).containers ?? []) {
      const { cpu = '0', memory = '0Mi' } = c.resources?.requests ?? {};
      milliCpu += cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
      memoryMi += memory.endsWith('Gi') ? Number(memory.slice(0, -2)) * 1024 : Number(memory.replace(/Mi$/, ''));
    }
  }
  const list: Record<string, string> = {};
  if (milliCpu > 0) list.cpu = milliCpu % 1000 === 0 ? String(milliCpu / 1000) : `${milliCpu}m`;
  if (memoryMi > 0) list.memory = memoryMi % 1024 === 0 ? `${memoryMi / 1024}Gi` : `${memoryMi}Mi`;
  list.pods = String(daemons.size);
  return JSON.stringify(list);
}
