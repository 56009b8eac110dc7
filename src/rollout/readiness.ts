// Has Karpenter taken the new AMI selection? An EC2NodeClass counts once AMIsReady has observed the applied
// generation (kubectl wait's observedGeneration rule) and status.amis holds every target AMI. It never will when
// AMIsReady=False at that generation (AMINotFound, UnsupportedAlias), or when Karpenter has reconciled the generation
// (Ready observed it) but AMIsReady stayed behind: an alias whose SSM parameters all miss is a reconcile error that
// leaves AMIsReady and status.amis as they were (KP v1.14 pkg/controllers/nodeclass/ami.go, DOMAIN.md §1.2). Either
// way the class's Ready is not True, and Karpenter launches no node from it at all until it is fixed.
import type { ConditionView, NodeClassView } from '../karpenter/views.js';
import type { Snapshot } from './snapshot.js';
import type { RolloutScope } from './track.js';

export type Readiness =
  | { nodeClass: string; state: 'pending'; generation: number }
  | {
      nodeClass: string;
      state: 'ready';
      generation: number;
      amis: Array<{ id: string; name?: string }>;
      /** What said so: the AMIsReady condition (v1), Ready (v0.37), or status.amis alone (v0.32–v0.36). */
      by: 'AMIsReady' | 'Ready' | 'status.amis';
    }
  | { nodeClass: string; state: 'failed'; generation: number; message: string; next: string };

const TERMINAL_REASONS = new Set(['AMINotFound', 'UnsupportedAlias']);

/**
 * The condition that says at which generation Karpenter resolved the class's AMIs: AMIsReady (v1.0 on), else Ready
 * (v0.37's only condition), else none: v0.32–v0.36 write no condition on an EC2NodeClass, and `status.amis` is all
 * that shows the new terms were taken (aws/karpenter-provider-aws `pkg/apis/v1beta1/ec2nodeclass_status.go` at the tags).
 */
export function amisCondition(view: NodeClassView): ConditionView | undefined {
  return view.conditions.AMIsReady ?? view.conditions.Ready;
}

/** Every target AMI is in status.amis. */
export function takenTargets(view: NodeClassView, targets: readonly string[]): boolean {
  const ids = new Set(view.statusAmis.map((a) => a.id));
  return targets.every((t) => ids.has(t));
}

/** What `karp-drift rollback` is for: the way back when the new selection cannot work. */
export function rollbackCommand(...nodeClasses: string[]): string {
  return `karp-drift rollback ${nodeClasses.map((c) => `--nodeclass ${c}`).join(' ')}`;
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
  // Only v1 has aliases and AMIsReady (operatorpkg sets it Unknown on the first reconcile): without it, nothing to tell.
  if (alias === undefined || amisReady === undefined || ready === undefined) return undefined;
  if ((ready.observedGeneration ?? 0) < generation) return undefined;
  if ((amisReady.observedGeneration ?? generation) >= generation) return undefined;
  return {
    alias,
    ...(amisReady?.observedGeneration !== undefined ? { amisReadyGeneration: amisReady.observedGeneration } : {}),
  };
}

export function nodeClassReadiness(snapshot: Snapshot, scope: RolloutScope): Readiness[] {
  return Object.entries(scope.nodeClassGenerations ?? {}).map(([nodeClass, generation]): Readiness => {
    const view = snapshot.nodeClasses.get(nodeClass);
    const amisReady = view && amisCondition(view);
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
    const targets = scope.targetImageIds[nodeClass] ?? [];
    if (view && !amisReady && takenTargets(view, targets) && targets.length > 0) return ready(view, nodeClass, generation, targets);
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
    if (amisReady.status === 'True' && takenTargets(view, targets)) return ready(view, nodeClass, generation, targets);
    return { nodeClass, state: 'pending', generation };
  });
}

function ready(view: NodeClassView, nodeClass: string, generation: number, targets: readonly string[]): Readiness {
  return {
    nodeClass,
    state: 'ready',
    generation,
    by: view.conditions.AMIsReady ? 'AMIsReady' : view.conditions.Ready ? 'Ready' : 'status.amis',
    amis: view.statusAmis
      .filter((a) => targets.includes(a.id))
      .map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) })),
  };
}
