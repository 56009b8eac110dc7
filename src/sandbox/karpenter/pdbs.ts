// PodDisruptionBudgets as Karpenter reads them (pkg/utils/pdb/pdb.go) and as the Eviction API enforces them: a pod
// covered by more than one PDB cannot be evicted at all, and a PDB whose disruptionsAllowed is 0 refuses evictions.
// Evictions already granted but whose pods are still terminating are subtracted, as the API server's DisruptedPods
// map does, so a slow drain cannot overdraw a budget. disruptionsAllowed is computed from the live pods (the
// disruption controller's arithmetic, kube-api/pdb.ts) once per pass and decremented by each eviction, as the
// Eviction API does, rather than read from status, which the store refreshes only between requests.
import { pdbStatusOf, selects } from '../kube-api/pdb.js';
import type { KubeObject } from '../kube-api/types.js';
import { key, type SimContext } from './context.js';

export function pdbsFor(ctx: SimContext, pod: KubeObject): KubeObject[] {
  const labels = pod.metadata.labels ?? {};
  return ctx.store
    .list('poddisruptionbudgets.policy', pod.metadata.namespace)
    .filter((pdb) => selects((pdb.spec as { selector?: unknown } | undefined)?.selector, labels));
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

/** Karpenter's message when a PDB stops a pod from being evicted, or undefined when the eviction may proceed. */
export function blockingPdb(ctx: SimContext, pod: KubeObject): string | undefined {
  const pdbs = pdbsFor(ctx, pod);
  if (pdbs.length > 1) return `pod "${key(pod)}" has multiple PDBs: eviction does not support multiple PDBs`;
  const pdb = pdbs[0];
  if (!pdb) return undefined;
  return allowedNow(ctx, pdb) > 0 ? undefined : `pdb "${key(pdb)}" prevents pod evictions`;
}

/** An eviction was granted: it uses one of the PDB's allowed disruptions until the pods are counted again. */
export function recordEviction(ctx: SimContext, pod: KubeObject): void {
  for (const pdb of pdbsFor(ctx, pod)) ctx.memory.pdbAllowed.set(key(pdb), allowedNow(ctx, pdb) - 1);
}
