// kube-apiserver stores each Event with a TTL (`--event-ttl`, 1 h): etcd holds it under a lease the events registry
// grants on create and grants again on every update (pkg/registry/core/event/storage TTLFunc), so an Event counted up
// (client-go's correlator PATCHes count and lastTimestamp) lives an hour from its last write. The hour is the
// cluster's: a sandbox played 60 times faster than real time holds its last simulated hour of events, as the real API
// server of that cluster would, not sixty hours of them (a 5,000-node rollout writes hundreds of thousands).
import type { KubeStore } from './registry-store.js';

export class EventLeases {
  /** `namespace/name` → when (the cluster's ms) the Event was last written, oldest first. */
  private readonly written = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: KubeStore,
    private readonly ttlMs: number,
    private readonly clusterNow: () => Date,
  ) {
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.groupResource !== 'events') return;
      const key = `${change.object.metadata.namespace ?? ''}/${change.object.metadata.name ?? ''}`;
      this.written.delete(key);
      if (change.type !== 'DELETED') this.written.set(key, clusterNow().getTime());
    });
  }

  /** Deletes the Events whose lease ran out (a DELETED watch event each), oldest first. */
  expire(): void {
    const now = this.clusterNow().getTime();
    for (const [key, at] of this.written) {
      if (now - at < this.ttlMs) return;
      const slash = key.indexOf('/');
      this.written.delete(key);
      this.store.delete('events', key.slice(slash + 1), key.slice(0, slash));
    }
  }

  close(): void {
    this.unsubscribe();
  }
}
