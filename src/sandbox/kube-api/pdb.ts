import { isRecord } from './field-set.js';
import type { KubeObject } from './types.js';

// policy/v1 PodDisruptionBudget status as kubernetes pkg/controller/disruption/disruption.go computes it
// (`getExpectedPodCount`, `countHealthyPods`, `updatePdbStatus`, and pdb helpers `UpdateDisruptionAllowedCondition`).
//
// One deliberate difference: for maxUnavailable and percentage minAvailable the controller takes expectedPods
// from the scale of the pods' controllers (Deployments, StatefulSets, ...). The sandbox runs no controllers, so
// expectedPods is the number of matching pods, which is what the controller gets when every matching pod is up.
// Evictions are not served either, so status.disruptedPods is never set.

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions: Array<Record<string, unknown>>;
}

/** The status the disruption controller would write for `pdb`, given the pods of the cluster and the time now. */
export function pdbStatus(pdb: KubeObject, pods: readonly KubeObject[], now: string): PodDisruptionBudgetStatus {
  const spec = isRecord(pdb.spec) ? pdb.spec : {};
  const covered = pods.filter(
    (p) => p.metadata.namespace === pdb.metadata.namespace && selects(spec.selector, p.metadata.labels ?? {}),
  );
  return pdbStatusOf(pdb, { expectedPods: covered.length, currentHealthy: covered.filter(isHealthy).length }, now);
}

/** How many pods a PDB covers, and how many of them are healthy (Ready, not being deleted). */
export interface PdbPodCount {
  expectedPods: number;
  currentHealthy: number;
}

/** A pod's part in a PDB's counts: pdb-index.ts keeps these up to date from the store's changes. */
export function isHealthy(pod: KubeObject): boolean {
  return !pod.metadata.deletionTimestamp && isReady(pod);
}

/** The status from counts already made (pdb-index.ts), so a 35,000-pod namespace is not scanned per question. */
export function pdbStatusOf(pdb: KubeObject, count: PdbPodCount, now: string): PodDisruptionBudgetStatus {
  const spec = isRecord(pdb.spec) ? pdb.spec : {};
  const previous = isRecord(pdb.status) ? pdb.status : {};
  const generation = pdb.metadata.generation ?? 0;
  const { expectedPods, currentHealthy } = count;
  let desiredHealthy = 0;
  try {
    if (spec.maxUnavailable != null) {
      desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
    } else if (spec.minAvailable != null) {
      desiredHealthy = scaledValue(spec.minAvailable, expectedPods);
    }
  } catch (err) {
    // disruption.go `failSafe`: no disruptions, and say why.
    const condition = { status: 'False', reason: 'SyncFailed', message: (err as Error).message };
    return {
      ...(previous as Partial<PodDisruptionBudgetStatus>),
      disruptionsAllowed: 0,
      currentHealthy: Number(previous.currentHealthy ?? 0),
      desiredHealthy: Number(previous.desiredHealthy ?? 0),
      expectedPods: Number(previous.expectedPods ?? 0),
      conditions: withDisruptionAllowed(previous.conditions, condition, Number(previous.observedGeneration ?? 0), now),
    };
  }
  // "We require expectedCount to be > 0 so that PDBs which currently match no pods are in a safe state".
  const disruptionsAllowed = expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);
  const condition =
    disruptionsAllowed > 0
      ? { status: 'True', reason: 'SufficientPods', message: '' }
      : { status: 'False', reason: 'InsufficientPods', message: '' };
  return {
    ...(generation ? { observedGeneration: generation } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
    conditions: withDisruptionAllowed(previous.conditions, condition, generation, now),
  };
}

/** intstr `GetScaledValueFromIntOrPercent(value, total, roundUp=true)`. */
function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  if (!text.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const percent = Number(text.slice(0, -1));
  if (!Number.isInteger(percent))
    throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(text)}: invalid syntax`);
  return Math.ceil((percent * total) / 100);
}

function isReady(pod: KubeObject): boolean {
  const conditions = isRecord(pod.status) && Array.isArray(pod.status.conditions) ? pod.status.conditions : [];
  return conditions.some((c) => isRecord(c) && c.type === 'Ready' && c.status === 'True');
}

// meta/v1 LabelSelectorAsSelector: a null selector selects nothing, an empty one everything.
/** A PodDisruptionBudget's label selector, as the disruption controller and the Eviction API apply it. */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v)) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.filter(isRecord) : [];
  return expressions.every((e) => {
    const key = String(e.key);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    switch (e.operator) {
      case 'In':
        return key in labels && values.includes(labels[key] ?? '');
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key] ?? '');
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
      default:
        return false;
    }
  });
}

// apimachinery meta.SetStatusCondition: lastTransitionTime moves only when the status does.
function withDisruptionAllowed(
  conditions: unknown,
  next: { status: string; reason: string; message: string },
  observedGeneration: number,
  now: string,
): Array<Record<string, unknown>> {
  const list = Array.isArray(conditions) ? conditions.filter(isRecord) : [];
  const existing = list.find((c) => c.type === 'DisruptionAllowed');
  const condition = {
    type: 'DisruptionAllowed',
    status: next.status,
    ...(observedGeneration ? { observedGeneration } : {}),
    lastTransitionTime:
      existing && existing.status === next.status
        ? existing.lastTransitionTime
        : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason: next.reason,
    message: next.message,
  };
  return existing ? list.map((c) => (c === existing ? condition : c)) : [...list, condition];
}
