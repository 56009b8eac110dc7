// PodDisruptionBudgets as Karpenter reads them (pkg/utils/pdb/pdb.go) and as the Eviction API enforces them: a pod
// covered by more than one PDB cannot be evicted at all, and a PDB whose disruptionsAllowed is 0 refuses evictions,
// except of an unready pod when its unhealthyPodEvictionPolicy is AlwaysAllow.
// Evictions already granted but whose pods are still terminating are subtracted, as the API server's DisruptedPods
// map does, so a slow drain cannot overdraw a budget. disruptionsAllowed is computed from the live pods (the
// disruption controller's arithmetic, kube-api/pdb.ts) once per pass and decremented by each eviction, as the
// Eviction API does, rather than read from status, which the store refreshes only between requests.
import { pdbView } from '../../karpenter/convert.js';
import { pdbBlock, pdbKey } from '../../karpenter/disruptable.js';
import type { PdbView } from '../../karpenter/views.js';
import { pdbStatusOf, selects } from '../kube-api/pdb.js';
import type { KubeObject } from '../kube-api/types.js';
import { key, type SimContext } from './context.js';
import { viewOf } from './pods.js';

export function pdbsFor(ctx: SimContext, pod: KubeObject): KubeObject[] {
  const labels = pod.metadata.labels ?? {};
  const namespace = pod.metadata.namespace ?? '';
  // Matched once per namespace, set of labels and pass: a pass reads the PDBs of every pod of every drifted node (some
  // 40,000 early in a 5,000-node rollout), and a workload's pods share their labels.
  const byLabels = `${namespace}\u0000${JSON.stringify(labels)}`;
  const matched = ctx.memory.pdbsByLabels.get(byLabels);
  if (matched) return matched;
  let pdbs = ctx.memory.pdbsByNamespace.get(namespace);
  if (!pdbs) ctx.memory.pdbsByNamespace.set(namespace, (pdbs = ctx.store.list('poddisruptionbudgets.policy', namespace)));
  const out = pdbs.filter((pdb) => selects((pdb.spec as { selector?: unknown } | undefined)?.selector, labels));
  ctx.memory.pdbsByLabels.set(byLabels, out);
  return out;
}

/** Each stored version's view, converted once. */
const pdbViews = new WeakMap<KubeObject, PdbView>();
function viewOfPdb(pdb: KubeObject): PdbView {
  let view = pdbViews.get(pdb);
  if (!view) pdbViews.set(pdb, (view = pdbView(pdb)));
  return view;
}

function evictionsInFlight(ctx: SimContext, pdb: KubeObject): number {
  const selector = (pdb.spec as { selector?: unknown } | undefined)?.selector;
  let n = 0;
  for (const podKey of ctx.memory.terminating.keys()) {
    const [namespace, name] = podKey.split('/') as [string, string];
    if (namespace !== pdb.metadata.namespace) continue;
    const pod = ctx.store.get('pods', name, namespace);
    if (pod && selects(selector, pod.metadata.labels ?? {})) n += 1;
  }
  return n;
}

function allowedNow(ctx: SimContext, pdb: KubeObject): number {
  const cached = ctx.memory.pdbAllowed.get(key(pdb));
  if (cached !== undefined) return cached;
  const allowed = pdbStatusOf(pdb, ctx.store.pdbPods.count(pdb), ctx.clock.wall().toISOString()).disruptionsAllowed - evictionsInFlight(ctx, pdb);
  ctx.memory.pdbAllowed.set(key(pdb), allowed);
  return allowed;
}

/**
 * Karpenter's message (v1.6+ wording, KC v1.14.1 statenode.go) when a pod's PDBs stop its eviction, or undefined when
 * it may proceed: only for pods Karpenter would evict, and never for an unready pod under an AlwaysAllow PDB
 * (karpenter/disruptable.ts `pdbBlock`, the rule karp-drift's plan and diagnosis apply too).
 */
export function blockingPdb(ctx: SimContext, pod: KubeObject): string | undefined {
  const pdbs = pdbsFor(ctx, pod).map((pdb) => ({ ...viewOfPdb(pdb), disruptionsAllowed: allowedNow(ctx, pdb) }));
  const block = pdbBlock(viewOf(pod), pdbs, ctx.clock.wall());
  if (block === undefined) return undefined;
  const keys = block.pdbs.map(pdbKey);
  return block.multiple
    ? `Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${keys.join(' ')}])`
    : `Pdb prevents pod evictions (PodDisruptionBudget=[${keys[0]}])`;
}

/** An eviction was granted: it uses one of the PDB's allowed disruptions until the pods are counted again. */
export function recordEviction(ctx: SimContext, pod: KubeObject): void {
  for (const pdb of pdbsFor(ctx, pod)) ctx.memory.pdbAllowed.set(key(pdb), allowedNow(ctx, pdb) - 1);
}
