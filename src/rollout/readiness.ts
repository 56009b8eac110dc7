// Has Karpenter taken the new AMI selection? An EC2NodeClass counts once AMIsReady has observed the applied
// generation (kubectl wait's observedGeneration rule) and status.amis holds every target AMI. It never will when
// AMIsReady=False at that generation (AMINotFound, UnsupportedAlias), or when Karpenter has reconciled the generation
// (Ready observed it) but AMIsReady stayed behind: an alias whose SSM parameters all miss is a reconcile error that
// leaves AMIsReady and status.amis as they were (KP v1.14 pkg/controllers/nodeclass/ami.go, DOMAIN.md §1.2). Either
// way the class's Ready is not True, and Karpenter launches no node from it at all until it is fixed.
import type { NodeClassView } from '../karpenter/views.js';
import type { Snapshot } from './snapshot.js';
import type { RolloutScope } from './track.js';

export type Readiness =
  | { nodeClass: string; state: 'pending'; generation: number }
  | { nodeClass: string; state: 'ready'; generation: number; amis: Array<{ id: string; name?: string }> }
  | { nodeClass: string; state: 'failed'; generation: number; message: string; next: string };

const TERMINAL_REASONS = new Set(['AMINotFound', 'UnsupportedAlias']);

/** What `karp-drift rollback` is for: the way back when the new selection cannot work. */
export function rollbackCommand(nodeClass: string): string {
  return `karp-drift rollback --nodeclass ${nodeClass}`;
}

/** What a class that launches nothing means for the rollout and everything else that needs a node from it. */
export function launchesNothing(ready: string): string {
  return `now launches no node at all (${ready}): no replacement and no scale-up until it is fixed or rolled back`;
}

/**
 * The alias of a class whose AMI reconcile failed with an error at `generation`: Ready (set on every reconcile) has
 * observed it, AMIsReady has not. Undefined otherwise (not reconciled yet, or resolved either way).
 */
export function unresolvedAlias(
  view: NodeClassView,
  generation: number,
): { alias: string; amisReadyGeneration?: number } | undefined {
  const alias = view.amiSelectorTerms.find((t) => t.alias !== undefined)?.alias;
  const amisReady = view.conditions.AMIsReady;
  const ready = view.conditions.Ready;
  if (alias === undefined || ready === undefined || (ready.observedGeneration ?? 0) < generation) return undefined;
  if (amisReady !== undefined && (amisReady.observedGeneration ?? generation) >= generation) return undefined;
  return {
    alias,
    ...(amisReady?.observedGeneration !== undefined ? { amisReadyGeneration: amisReady.observedGeneration } : {}),
  };
}

export function nodeClassReadiness(snapshot: Snapshot, scope: RolloutScope): Readiness[] {
  return Object.entries(scope.nodeClassGenerations ?? {}).map(([nodeClass, generation]): Readiness => {
    const view = snapshot.nodeClasses.get(nodeClass);
    const amisReady = view?.conditions.AMIsReady;
    const unresolved = view && unresolvedAlias(view, generation);
    if (unresolved !== undefined) {
      const ready = view?.conditions.Ready;
      return {
        nodeClass,
        state: 'failed',
        generation,
        message: `Karpenter could not resolve alias "${unresolved.alias}": it reconciled generation ${generation} but AMIsReady is still at generation ${unresolved.amisReadyGeneration ?? '?'} (Ready=${ready?.status} ${ready?.reason}: ${ready?.message}; Karpenter logs "failed to discover any AMIs for alias" and retries). EC2NodeClass "${nodeClass}" ${launchesNothing(`Ready=${ready?.status}`)}`,
        next: `check that release exists for the control plane's Kubernetes version (kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter | grep "failed to discover any AMIs"); to go back now: ${rollbackCommand(nodeClass)}`,
      };
    }
    if (!view || !amisReady || (amisReady.observedGeneration ?? 0) < generation)
      return { nodeClass, state: 'pending', generation };
    if (amisReady.status === 'False' && TERMINAL_REASONS.has(amisReady.reason)) {
      return {
        nodeClass,
        state: 'failed',
        generation,
        message: `Karpenter could not resolve the new AMIs: AMIsReady=False, reason ${amisReady.reason}: ${amisReady.message}. EC2NodeClass "${nodeClass}" ${launchesNothing('Ready=False')}`,
        next:
          amisReady.reason === 'UnsupportedAlias'
            ? `pin a family that supports the control plane's Kubernetes version (AL2 ends at 1.32, Windows Server 2025 starts at 1.35); to go back now: ${rollbackCommand(nodeClass)}`
            : `check that the AMIs exist and are shared with the cluster's account in its region (kubectl get ec2nodeclass ${nodeClass} -o yaml); to go back now: ${rollbackCommand(nodeClass)}`,
      };
    }
    const targets = scope.targetImageIds[nodeClass] ?? [];
    const ids = new Set(view.statusAmis.map((a) => a.id));
    if (amisReady.status === 'True' && targets.every((t) => ids.has(t))) {
      return {
        nodeClass,
        state: 'ready',
        generation,
        amis: view.statusAmis
          .filter((a) => targets.includes(a.id))
          .map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) })),
      };
    }
    return { nodeClass, state: 'pending', generation };
  });
}
