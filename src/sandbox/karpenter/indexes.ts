// Indexes the simulated controllers keep up to date from the store's change feed, so a decision costs what changed
// rather than a scan of the fleet: Karpenter's cluster state (pkg/controllers/state/cluster.go) is the same idea,
// fed by informers. On a 5,000-node cluster a scan per pod bound would hold the event loop for seconds.
import type { KubeStore } from "../kube-api/registry-store.js";
import type { KubeObject } from "../kube-api/types.js";

export class SchedulableNodes {
  /** Nodes pods may be bound to now, by name (the store's latest version of each). */
  readonly byName = new Map<string, KubeObject>();
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore, schedulable: (node: KubeObject) => boolean) {
    const track = (node: KubeObject, present: boolean) => {
      const name = node.metadata.name ?? "";
      if (present && schedulable(node)) this.byName.set(name, node);
      else this.byName.delete(name);
    };
    for (const node of store.objects.list("nodes")) track(node, true);
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.groupResource === "nodes")
        track(change.object, change.type !== "DELETED");
    });
  }

  close(): void {
    this.unsubscribe();
  }
}
