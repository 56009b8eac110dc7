// Indexes the simulated controllers keep up to date from the store's change feed, so a decision costs what changed
// rather than a scan of the fleet: Karpenter's cluster state (pkg/controllers/state/cluster.go) is the same idea,
// fed by informers. On a 5,000-node cluster a scan per pod bound would hold the event loop for seconds.
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import { add, podRequests, subtract, ZERO, type Resources } from './resources.js';

export class SchedulableNodes {
  /** Nodes pods may be bound to now, by name (the store's latest version of each). */
  readonly byName = new Map<string, KubeObject>();
  /** The same nodes by their karpenter.sh/nodepool label: a replaced pod asks for its NodePool's nodes only. */
  readonly byNodePool = new Map<string, Map<string, KubeObject>>();
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore, schedulable: (node: KubeObject) => boolean) {
    const track = (node: KubeObject, present: boolean) => {
      const name = node.metadata.name ?? '';
      const previous = this.byName.get(name);
      if (previous !== undefined) this.byNodePool.get(nodePoolOf(previous))?.delete(name);
      if (present && schedulable(node)) {
        this.byName.set(name, node);
        const pool = nodePoolOf(node);
        let nodes = this.byNodePool.get(pool);
        if (nodes === undefined) this.byNodePool.set(pool, (nodes = new Map<string, KubeObject>()));
        nodes.set(name, node);
      } else this.byName.delete(name);
    };
    for (const node of store.objects.list('nodes')) track(node, true);
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.groupResource === 'nodes') track(change.object, change.type !== 'DELETED');
    });
  }

  /** The nodes that may carry these labels: the NodePool's when the labels name one, else all. */
  candidates(labels: Record<string, string>): Iterable<KubeObject> {
    const pool = labels[NODEPOOL_LABEL];
    return pool === undefined ? this.byName.values() : (this.byNodePool.get(pool)?.values() ?? []);
  }

  close(): void {
    this.unsubscribe();
  }
}

/**
 * The DaemonSets, known by their pods (apps/v1 is not served): the first pod seen is a DaemonSet's template, and the
 * NodePools of its pods' nodes are where it runs. Also the Nodes that joined since, each still to get its DaemonSet
 * pods (daemonsets.ts takes them).
 */
export class DaemonSets {
  /** By the DaemonSet's uid, as its pods' ownerReference names it. */
  readonly byUid = new Map<string, { template: KubeObject; nodePools: Set<string> }>();
  /** Nodes that joined and have not had their DaemonSet pods yet, in the order they joined. */
  readonly joined = new Set<string>();
  /** Counts the changes to `byUid` (a DaemonSet or a NodePool it runs in learned), for views built from it. */
  version = 0;
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore) {
    // Node by node through the pods-by-node index: the pods' pools come with them, and no fleet-wide sort is needed.
    for (const node of store.objects.list('nodes'))
      for (const pod of store.objects.podsOnNode(node.metadata.name ?? '')) this.learn(pod, node);
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.type !== 'ADDED') return;
      if (change.groupResource === 'nodes') this.joined.add(change.object.metadata.name ?? '');
      else if (change.groupResource === 'pods' && daemonSetOwner(change.object)) {
        const nodeName = (change.object.spec as { nodeName?: string } | undefined)?.nodeName;
        this.learn(change.object, nodeName ? store.get('nodes', nodeName) : undefined);
      }
    });
  }

  private learn(pod: KubeObject, node: KubeObject | undefined): void {
    const owner = daemonSetOwner(pod);
    if (!owner) return;
    let daemonSet = this.byUid.get(owner.uid);
    if (!daemonSet) {
      this.byUid.set(owner.uid, (daemonSet = { template: pod, nodePools: new Set() }));
      this.version++;
    }
    if (node && !daemonSet.nodePools.has(nodePoolOf(node))) {
      daemonSet.nodePools.add(nodePoolOf(node));
      this.version++;
    }
  }

  close(): void {
    this.unsubscribe();
  }
}

type OwnerReference = NonNullable<KubeObject['metadata']['ownerReferences']>[number];

export function daemonSetOwner(pod: KubeObject): OwnerReference | undefined {
  return pod.metadata.ownerReferences?.find((r) => r.kind === 'DaemonSet');
}

const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const nodePoolOf = (node: KubeObject): string => node.metadata.labels?.[NODEPOOL_LABEL] ?? '';

/**
 * What the pods bound to each node request, kept from the store's changes: kube-scheduler and Karpenter's cluster
 * state both count every pod bound to a node until it is gone or finished (a terminating pod still holds its room).
 */
export class NodeUsage {
  private readonly byNode = new Map<string, Resources>();
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore) {
    for (const pod of store.objects.list('pods')) this.apply(pod, 1);
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.groupResource !== 'pods') return;
      if (change.previous) this.apply(change.previous, -1);
      if (change.type !== 'DELETED') this.apply(change.object, 1);
    });
  }

  /** The requests of the pods on the node (zero for a node without any). */
  of(nodeName: string): Resources {
    return this.byNode.get(nodeName) ?? ZERO;
  }

  private apply(pod: KubeObject, sign: 1 | -1): void {
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (!nodeName || phase === 'Succeeded' || phase === 'Failed') return;
    const r = podRequests(pod);
    const next = sign === 1 ? add(this.of(nodeName), r) : subtract(this.of(nodeName), r);
    if (next.pods <= 0) this.byNode.delete(nodeName);
    else this.byNode.set(nodeName, next);
  }

  close(): void {
    this.unsubscribe();
  }
}
