// Which nodes run a pod Karpenter must reschedule (IsReschedulable), and so are not empty: worked out once per list of
// pods, since a plan asks for its AMIs and again for its picks.
import { describe, expect, it } from 'vitest';
import { nodesWithReschedulablePods } from '../../src/karpenter/disruptable.js';
import { pod } from '../rollout/factories.js';

describe('nodesWithReschedulablePods', () => {
  const pods = [
    pod({ name: 'web', nodeName: 'a' }),
    pod({ name: 'agent', nodeName: 'b', daemonSet: true }),
    pod({ name: 'done', nodeName: 'c', phase: 'Succeeded' }),
    pod({ name: 'static', nodeName: 'd', mirror: true }),
    pod({ name: 'db-0', nodeName: 'e', deleting: true, owner: 'StatefulSet/db' }),
  ];

  it('names the nodes of reschedulable pods: not a DaemonSet, finished or mirror pod; a leaving StatefulSet pod too', () => {
    expect([...nodesWithReschedulablePods(pods)].sort()).toEqual(['a', 'e']);
  });

  it('works each list out once', () => {
    expect(nodesWithReschedulablePods(pods)).toBe(nodesWithReschedulablePods(pods));
    expect(nodesWithReschedulablePods([...pods])).not.toBe(nodesWithReschedulablePods(pods));
  });
});
