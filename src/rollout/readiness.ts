// Has Karpenter taken the new AMI selection? An EC2NodeClass counts once AMIsReady has observed the applied
// generation (kubectl wait's observedGeneration rule) and status.amis holds every target AMI; AMINotFound or
// UnsupportedAlias at that generation means it never will, and the rollout cannot start.
import type { Snapshot } from './snapshot.js';
import type { RolloutScope } from './track.js';

export type Readiness =
  | { nodeClass: string; state: 'pending'; generation: number }
  | { nodeClass: string; state: 'ready'; generation: number; amis: Array<{ id: string; name?: string }> }
  | { nodeClass: string; state: 'failed'; generation: number; message: string; next: string };

const TERMINAL_REASONS = new Set(['AMINotFound', 'UnsupportedAlias']);

export function nodeClassReadiness(snapshot: Snapshot, scope: RolloutScope): Readiness[] {
  return Object.entries(scope.nodeClassGenerations ?? {}).map(([nodeClass, generation]): Readiness => {
    const view = snapshot.nodeClasses.get(nodeClass);
    const amisReady = view?.conditions.AMIsReady;
    if (!view || !amisReady || (amisReady.observedGeneration ?? 0) < generation) return { nodeClass, state: 'pending', generation };
    if (amisReady.status === 'False' && TERMINAL_REASONS.has(amisReady.reason)) {
      return {
        nodeClass,
        state: 'failed',
        generation,
        message: `Karpenter could not resolve the new AMIs: AMIsReady=False, reason ${amisReady.reason}: ${amisReady.message}`,
        next: `check that the AMIs exist and are shared with the cluster's account in its region (kubectl get ec2nodeclass ${nodeClass} -o yaml), then run karp-drift rollback --nodeclass ${nodeClass} or upgrade again`,
      };
    }
    const targets = scope.targetImageIds[nodeClass] ?? [];
    const ids = new Set(view.statusAmis.map((a) => a.id));
    if (amisReady.status === 'True' && targets.every((t) => ids.has(t))) {
      return { nodeClass, state: 'ready', generation, amis: view.statusAmis.filter((a) => targets.includes(a.id)).map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) })) };
    }
    return { nodeClass, state: 'pending', generation };
  });
}
