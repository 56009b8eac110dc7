// requirements.ts: `isCompatible`, the scheduler's yes-or-no, must say yes exactly where `compatibility` (Karpenter's
// Requirements.Compatible with its words) finds nothing, over every operator, bounds, undefined keys and well-known
// labels (kubernetes-sigs/karpenter pkg/scheduling/requirements.go; AllowUndefinedWellKnownLabels).
import { describe, expect, it } from 'vitest';
import { compatibility, isCompatible, requirementsOf, type NodeSelectorRequirement } from '../../../src/sandbox/karpenter/requirements.js';

const r = (key: string, operator: string, ...values: string[]): NodeSelectorRequirement => ({ key, operator, values });

const nodeClaims: Record<string, NodeSelectorRequirement[]> = {
  'pool a, amd64': [r('karpenter.sh/nodepool', 'In', 'a'), r('kubernetes.io/arch', 'In', 'amd64')],
  'pool a, not arm64': [r('karpenter.sh/nodepool', 'In', 'a'), r('kubernetes.io/arch', 'NotIn', 'arm64')],
  'team exists': [r('team', 'Exists')],
  'no gpu label': [r('gpu', 'DoesNotExist')],
  'cpu > 4': [r('karpenter.k8s.aws/instance-cpu', 'Gt', '4')],
  'cpu in 2, 8, 16': [r('karpenter.k8s.aws/instance-cpu', 'In', '2', '8', '16')],
  'cpu > 4 and < 8': [r('karpenter.k8s.aws/instance-cpu', 'Gt', '4'), r('karpenter.k8s.aws/instance-cpu', 'Lt', '8')],
  'cpu not in 8': [r('karpenter.k8s.aws/instance-cpu', 'NotIn', '8')],
  nothing: [],
};

const pods: Record<string, NodeSelectorRequirement[]> = {
  'pool a': [r('karpenter.sh/nodepool', 'In', 'a')],
  'pool b': [r('karpenter.sh/nodepool', 'In', 'b')],
  'pool a or b, arm64': [r('karpenter.sh/nodepool', 'In', 'a', 'b'), r('kubernetes.io/arch', 'In', 'arm64')],
  'not amd64': [r('kubernetes.io/arch', 'NotIn', 'amd64')],
  'team web': [r('team', 'In', 'web')],
  'no team': [r('team', 'DoesNotExist')],
  'team not db': [r('team', 'NotIn', 'db')],
  'gpu exists': [r('gpu', 'Exists')],
  'cpu 8': [r('karpenter.k8s.aws/instance-cpu', 'In', '8')],
  'cpu < 4': [r('karpenter.k8s.aws/instance-cpu', 'Lt', '4')],
  'cpu > 10': [r('karpenter.k8s.aws/instance-cpu', 'Gt', '10')],
  'cpu not in 2, 16': [r('karpenter.k8s.aws/instance-cpu', 'NotIn', '2', '16')],
  'zone a': [r('topology.kubernetes.io/zone', 'In', 'us-west-2a')],
  anything: [],
};

const cases = Object.entries(nodeClaims).flatMap(([claim, c]) =>
  Object.entries(pods).map(([pod, p]) => [claim, pod, c, p] as const),
);

describe('isCompatible: compatibility without its words', () => {
  it.each(cases)('a NodeClaim with %s, a pod asking for %s', (_claim, _pod, claim, pod) => {
    const words = compatibility(requirementsOf(claim), requirementsOf(pod));
    expect(isCompatible(requirementsOf(claim), requirementsOf(pod))).toBe(words.length === 0);
  });

  it('the table holds both answers', () => {
    const answers = new Set(cases.map(([, , c, p]) => isCompatible(requirementsOf(c), requirementsOf(p))));
    expect([...answers].sort()).toEqual([false, true]);
  });
});
