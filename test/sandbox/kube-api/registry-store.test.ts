import { describe, expect, it } from 'vitest';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';

// In-process writes through the store the API server and the simulators share: no HTTP, no timers.
function cluster(historySize = 100): KubeStore {
  const store = new KubeStore(
    new ObjectStore(historySize),
    new ResourceRegistry(),
    () => new Date('2024-09-17T10:00:00Z'),
  );
  store.controllers = sandboxControllers();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return store;
}

const pod = (name: string, extra: Partial<KubeObject['metadata']> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, ...extra },
  spec: { containers: [{ name: 'c', image: 'x' }] },
});

describe('KubeStore', () => {
  it('sets server metadata on create and writes nothing for an unchanged update', () => {
    const store = cluster();
    const created = store.create('pods', pod('a', { generateName: 'ignored-' }));
    expect(created.metadata).toMatchObject({ name: 'a', creationTimestamp: '2024-09-17T10:00:00Z' });
    expect(created.metadata.generation).toBeUndefined();
    expect(created.status).toEqual({ phase: 'Pending' });
    const same = store.update('pods', created);
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const generated = store.create('pods', pod('', { generateName: 'web-' }));
    expect(generated.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('replays changes after a resourceVersion and reports older ones as expired', () => {
    const store = cluster(3);
    const start = store.objects.resourceVersion;
    for (const name of ['a', 'b']) store.create('pods', pod(name));
    expect(store.objects.changesSince(start)?.map((c) => [c.type, c.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    for (const name of ['c', 'd']) store.create('pods', pod(name));
    expect(store.objects.changesSince(start)).toBeUndefined();
    expect(store.objects.changesSince(store.objects.oldestResourceVersion)).toHaveLength(3);
  });

  it('deletes in the foreground: the owner waits for dependents that block it, then goes', () => {
    const store = cluster();
    const owner = store.create('pods', pod('owner'));
    const ref = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'owner',
      uid: owner.metadata.uid ?? '',
      blockOwnerDeletion: true,
    };
    store.create('pods', pod('dependent', { ownerReferences: [ref], finalizers: ['example.com/hold'] }));
    store.delete('pods', 'owner', 'default', { propagationPolicy: 'Foreground' });
    expect(store.get('pods', 'owner', 'default')?.metadata).toMatchObject({ finalizers: ['foregroundDeletion'] });
    const dependent = store.get('pods', 'dependent', 'default') as KubeObject;
    expect(dependent.metadata.deletionTimestamp).toBe('2024-09-17T10:00:00Z');
    store.update('pods', { ...dependent, metadata: { ...dependent.metadata, finalizers: [] } });
    expect(store.get('pods', 'dependent', 'default')).toBeUndefined();
    expect(store.get('pods', 'owner', 'default')).toBeUndefined();
  });

  it('refuses new finalizers on an object being deleted', () => {
    const store = cluster();
    store.create('pods', pod('held', { finalizers: ['a'] }));
    const { object } = store.delete('pods', 'held', 'default');
    expect(() => store.update('pods', { ...object, metadata: { ...object.metadata, finalizers: ['a', 'b'] } })).toThrow(
      'Pod "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added',
    );
  });

  it('terminates a namespace: content is deleted, new content refused, and the namespace goes last', () => {
    const store = cluster();
    store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    store.create('pods', pod('held', { finalizers: ['example.com/hold'] }, 'shop'));
    store.delete('namespaces', 'shop');
    expect(store.get('namespaces', 'shop')?.status).toEqual({ phase: 'Terminating' });
    expect(() => store.create('pods', pod('late', {}, 'shop'))).toThrow(
      'pods "late" is forbidden: unable to create new content in namespace shop because it is being terminated',
    );
    const held = store.get('pods', 'held', 'shop') as KubeObject;
    store.update('pods', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(store.get('namespaces', 'shop')).toBeUndefined();
  });
});

describe('ObjectStore JSON cache', () => {
  const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { providerID: 'x'.repeat(80) } });

  it('keeps the JSON of the versions read lately within its bound, and serializes again what it let go', () => {
    const objects = new ObjectStore(100, 1000, 1000); // about seven nodes' JSON
    const stored = Array.from({ length: 20 }, (_, i) => objects.put('nodes', node(`n${i}`)));
    const hot = stored[0]!;
    for (const o of stored) {
      objects.serialized(o);
      objects.serialized(hot); // read with every list: stays
    }
    expect(objects.serializations).toBe(20);
    objects.serialized(hot);
    expect(objects.serializations).toBe(20);
    objects.serialized(stored[1]!); // let go long ago
    expect(objects.serializations).toBe(21);
    objects.serialized(stored[19]!); // among the latest
    expect(objects.serializations).toBe(21);
  });

  it('lets the JSON of a replaced version go: the new version is serialized once', () => {
    const objects = new ObjectStore();
    const first = objects.put('nodes', node('n1'));
    const json = objects.serialized(first);
    const second = objects.put('nodes', { ...node('n1'), metadata: { name: 'n1', labels: { a: 'b' } } });
    expect(objects.serialized(second)).not.toBe(json);
    expect(objects.serialized(second)).toContain('"labels":{"a":"b"}');
    expect(objects.serializations).toBe(2);
  });
});
