// kube-apiserver's --event-ttl as the sandbox keeps it (event-ttl.ts): an Event lives an hour of the cluster's clock
// from its last write (the events registry grants its etcd lease again on every update), oldest first.
import { describe, expect, it } from 'vitest';
import { EventLeases } from '../../../src/sandbox/kube-api/event-ttl.js';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-12-07T08:00:00Z');

function cluster() {
  let clusterMs = START;
  // The wall clock stands still: only the cluster's clock (a fast sandbox's simulated one) decides.
  const store = new KubeStore(new ObjectStore(), new ResourceRegistry(), () => new Date(START));
  store.controllers = sandboxControllers();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const leases = new EventLeases(store, HOUR, () => new Date(clusterMs));
  const event = (name: string) =>
    store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'n1' },
      reason: 'DisruptionBlocked',
      message: 'Node is deleting or marked for deletion',
      count: 1,
    });
  const names = () => store.list('events').map((e) => e.metadata.name);
  return { store, leases, event, names, at: (ms: number) => (clusterMs = START + ms) };
}

describe('EventLeases', () => {
  it('deletes an Event an hour of the cluster after its last write, oldest first', () => {
    const { store, leases, event, names, at } = cluster();
    event('a');
    at(10 * 60_000);
    event('b');
    at(50 * 60_000);
    const counted = store.get('events', 'a', 'default')!;
    store.update('events', { ...counted, count: 2 }); // counted up: its lease starts again
    at(HOUR - 1);
    leases.expire();
    expect(names()).toEqual(['a', 'b']);
    at(HOUR + 10 * 60_000);
    leases.expire();
    expect(names()).toEqual(['a']);
    at(HOUR + 50 * 60_000);
    leases.expire();
    expect(names()).toEqual([]);
  });

  it('forgets an Event deleted by someone else, and stops at the first lease still running', () => {
    const { store, leases, event, names, at } = cluster();
    event('gone');
    event('kept');
    store.delete('events', 'gone', 'default');
    at(30 * 60_000);
    event('later');
    at(HOUR + 1);
    expect(() => leases.expire()).not.toThrow();
    expect(names()).toEqual(['later']);
  });
});
