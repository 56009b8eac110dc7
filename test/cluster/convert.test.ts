// podView reads which node a pod is pinned to: the scheduler's rules for nodeSelector and required node affinity.
import { describe, expect, it } from 'vitest';
import { podView } from '../../src/cluster/convert.js';

const pod = (spec: Record<string, unknown>) =>
  podView({ metadata: { namespace: 'debug', name: 'agent' }, spec: { nodeName: 'ip-10-0-1-1', ...spec } });
const hostname = (values: string[], operator = 'In') => ({ key: 'kubernetes.io/hostname', operator, values });
const affinity = (...terms: unknown[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
});

describe('podView pinnedTo', () => {
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['nothing', {}, undefined],
    ['a nodeSelector on the hostname', { nodeSelector: { 'kubernetes.io/hostname': 'ip-10-0-1-1' } }, 'ip-10-0-1-1'],
    ['a nodeSelector on another label', { nodeSelector: { 'karpenter.sh/nodepool': 'general' } }, undefined],
    ['required affinity: hostname In [one]', affinity({ matchExpressions: [hostname(['ip-10-0-1-1'])] }), 'ip-10-0-1-1'],
    ['required affinity: metadata.name In [one] (matchFields)', affinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-10-0-1-1'] }] }), 'ip-10-0-1-1'],
    ['required affinity: hostname In [two]', affinity({ matchExpressions: [hostname(['ip-10-0-1-1', 'ip-10-0-1-2'])] }), undefined],
    ['required affinity: hostname NotIn', affinity({ matchExpressions: [hostname(['ip-10-0-1-1'], 'NotIn')] }), undefined],
    [
      'two terms (ORed) naming different nodes',
      affinity({ matchExpressions: [hostname(['ip-10-0-1-1'])] }, { matchExpressions: [hostname(['ip-10-0-1-2'])] }),
      undefined,
    ],
    [
      'two terms (ORed), one without a hostname',
      affinity({ matchExpressions: [hostname(['ip-10-0-1-1'])] }, { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a'] }] }),
      undefined,
    ],
  ])('%s', (_name, spec, expected) => {
    expect(pod(spec).pinnedTo).toBe(expected);
  });
});
