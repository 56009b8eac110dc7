// The condition transitions of Karpenter's objects and Nodes, from the store's change feed, waiting for the
// status-events step (status-events.ts) to publish them: operatorpkg's status controller compares the versions it
// observes, so every writer's transitions count (the kubelet's Ready included).
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import type { Condition } from './objects.js';

const WATCHED = new Set(['nodeclaims.karpenter.sh', 'nodepools.karpenter.sh', 'ec2nodeclasses.karpenter.k8s.aws', 'nodes']);

export interface Transition {
  object: KubeObject;
  type: string;
  from: string;
  to: Condition;
}

/** The transitions seen on the store's change feed, waiting to be published. */
export class ConditionTransitions {
  readonly pending: Transition[] = [];
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore) {
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.type !== 'MODIFIED' || !change.previous || !WATCHED.has(change.groupResource)) return;
      const before = new Map(conditionsOf(change.previous).map((c) => [c.type, c.status]));
      for (const c of conditionsOf(change.object)) {
        const from = before.get(c.type);
        if (from !== undefined && from !== c.status) this.pending.push({ object: change.object, type: c.type, from, to: c });
      }
    });
  }

  close(): void {
    this.unsubscribe();
  }
}

function conditionsOf(o: KubeObject): Condition[] {
  return (o.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
}
