// The simulated Karpenter's recorder as the API server sees it: Karpenter's own dedupe (2 minutes), then client-go's
// correlator (event-correlator.ts), so a node blocked for hours is one Event counted up, as on a real cluster.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { EventRecorder } from '../../../src/sandbox/karpenter/events.js';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';

const START = new Date('2026-12-07T08:00:00Z');
const HELD = 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';

function recorder() {
  const clock = new ManualClock(START);
  const store = new KubeStore(new ObjectStore(1000), new ResourceRegistry(), () => clock.wall());
  store.controllers = sandboxControllers();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const node = store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-1-1' } });
  return { clock, store, node, events: new EventRecorder(store, clock) };
}

type Ev = KubeObject & { reason: string; message: string; count: number; firstTimestamp: string; lastTimestamp: string };
const stored = (store: KubeStore) => store.list('events') as unknown as Ev[];

describe('EventRecorder', () => {
  it('counts a node held for hours up on one Event: each dedupe window, then, past 25, one per 5 minutes', () => {
    const { clock, store, node, events } = recorder();
    const writes: string[] = [];
    for (let minute = 0; minute < 180; minute++) {
      events.publish({ object: node, type: 'Normal', reason: 'DisruptionBlocked', message: HELD });
      const [held] = stored(store);
      if (held !== undefined && writes.at(-1) !== held.metadata.resourceVersion) writes.push(held.metadata.resourceVersion!);
      clock.advance(60_000);
    }
    expect(events.published).toHaveLength(90); // Karpenter publishes every 2 minutes
    const [held, ...others] = stored(store);
    expect(others).toEqual([]);
    expect(held).toMatchObject({ reason: 'DisruptionBlocked', message: HELD, firstTimestamp: '2026-12-07T08:00:00Z' });
    // The bucket: 25, plus one per 5 minutes. Every publication is written while tokens last (41 of them, to minute
    // 80), then one per 5 minutes' worth (minutes 86, 90, 96, 100, … 176: 19); each write carries every publication
    // counted, dropped ones included, so the last (minute 176) says 89 and the one at minute 178 is dropped.
    expect(writes).toHaveLength(41 + 19);
    expect(held).toMatchObject({ count: 89, lastTimestamp: '2026-12-07T10:56:00Z' });
  });

  it('writes another message as another Event, and one counted up that is gone under its name again', () => {
    const { clock, store, node, events } = recorder();
    events.publish({ object: node, type: 'Normal', reason: 'DisruptionBlocked', message: HELD });
    clock.advance(120_000);
    events.publish({ object: node, type: 'Normal', reason: 'DisruptionBlocked', message: 'Node is deleting or marked for deletion' });
    expect(stored(store).map((e) => [e.message, e.count])).toEqual([
      [HELD, 1],
      ['Node is deleting or marked for deletion', 1],
    ]);
    const first = stored(store).find((e) => e.message === HELD)!;
    store.delete('events', first.metadata.name!, 'default'); // expired (--event-ttl) or deleted by someone
    clock.advance(120_000);
    events.publish({ object: node, type: 'Normal', reason: 'DisruptionBlocked', message: HELD });
    expect(stored(store).find((e) => e.message === HELD)).toMatchObject({
      metadata: { name: first.metadata.name },
      count: 2,
      firstTimestamp: first.firstTimestamp,
      lastTimestamp: '2026-12-07T08:04:00Z',
    });
  });
});
