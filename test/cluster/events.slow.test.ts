// The Events karp-drift records on the NodePools it paces are found the way `kubectl describe nodepool` finds an
// object's Events: by involvedObject.uid. One that could not carry the uid is not written at all.
import { describe, expect, it } from 'vitest';
import { recordNodePoolEvent } from '../../src/cluster/events.js';
import { sandboxCluster } from './helpers.js';

type Event = { involvedObject: { uid: string; name: string }; reason: string; type: string; message: string };

describe('recordNodePoolEvent', () => {
  it("writes the NodePool's uid and the type asked for; without a uid it writes nothing", async () => {
    const { sandbox, cluster } = await sandboxCluster();
    const pool = sandbox.kube.store.get('nodepools.karpenter.sh', 'general') as unknown as { metadata: { uid: string } };
    const events = () => sandbox.kube.store.list('events') as unknown as Event[];
    const before = events().length;

    expect(await recordNodePoolEvent(cluster, { api: 'v1', nodePool: { name: 'general', uid: '' } }, 'StagedRolloutHold', 'held')).toBe(false);
    expect(events().length).toBe(before);

    const paused = 'paused by a health gate: 2 failed evaluations of 2 allowed';
    expect(
      await recordNodePoolEvent(cluster, { api: 'v1', nodePool: { name: 'general', uid: pool.metadata.uid } }, 'StagedRolloutPaused', paused, {
        type: 'Warning',
      }),
    ).toBe(true);
    const ours = events().filter((e) => e.involvedObject.uid === pool.metadata.uid && e.reason === 'StagedRolloutPaused');
    expect(ours).toEqual([expect.objectContaining({ type: 'Warning', message: paused, involvedObject: expect.objectContaining({ name: 'general' }) })]);
  });
});
