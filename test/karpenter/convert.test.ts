// podView reads which node a pod is pinned to (the scheduler's rules for nodeSelector and required node affinity) and
// what Karpenter's disruption rules need.
import { describe, expect, it } from 'vitest';
import { nodeClassView, pdbView, podView } from '../../src/karpenter/convert.js';

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

// What Karpenter's pod rules read (karpenter/disruptable.ts): the annotation as written, the start time, mirror
// ownership, the karpenter.sh/disrupted:NoSchedule toleration (corev1 ToleratesTaint) and a False Ready condition.
describe('podView for the disruption rules', () => {
  const view = (o: { annotations?: Record<string, string>; owners?: Array<{ apiVersion: string; kind: string }>; tolerations?: unknown[]; conditions?: unknown[]; startTime?: string }) =>
    podView({
      metadata: {
        namespace: 'a',
        name: 'p',
        ...(o.annotations ? { annotations: o.annotations } : {}),
        ...(o.owners ? { ownerReferences: o.owners } : {}),
      },
      spec: { nodeName: 'n', ...(o.tolerations ? { tolerations: o.tolerations } : {}) },
      status: { phase: 'Running', ...(o.conditions ? { conditions: o.conditions } : {}), ...(o.startTime ? { startTime: o.startTime } : {}) },
    });
  it.each<[string, Parameters<typeof view>[0], Partial<ReturnType<typeof podView>>]>([
    ['no annotation', {}, { mirror: false, toleratesDisrupted: false, notReady: false }],
    ['do-not-disrupt "True", kept as written', { annotations: { 'karpenter.sh/do-not-disrupt': 'True' } }, { doNotDisrupt: 'True' }],
    ['do-not-disrupt ""', { annotations: { 'karpenter.sh/do-not-disrupt': '' } }, { doNotDisrupt: '' }],
    ['the start time', { startTime: '2025-08-20T14:05:00Z' }, { startTime: '2025-08-20T14:05:00Z' }],
    ['a mirror pod (v1 Node owner)', { owners: [{ apiVersion: 'v1', kind: 'Node' }] }, { mirror: true, daemonSet: false }],
    ['a DaemonSet pod', { owners: [{ apiVersion: 'apps/v1', kind: 'DaemonSet' }] }, { mirror: false, daemonSet: true }],
    ['toleration: operator Exists, no key', { tolerations: [{ operator: 'Exists' }] }, { toleratesDisrupted: true }],
    ['toleration: the key, Exists, NoSchedule', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists', effect: 'NoSchedule' }] }, { toleratesDisrupted: true }],
    ['toleration: the key, Equal with no value', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Equal' }] }, { toleratesDisrupted: true }],
    ['toleration: the key, but NoExecute', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists', effect: 'NoExecute' }] }, { toleratesDisrupted: false }],
    ['toleration: the key with a value', { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Equal', value: 'true' }] }, { toleratesDisrupted: false }],
    ['toleration: another key', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }, { toleratesDisrupted: false }],
    ['Ready False', { conditions: [{ type: 'Ready', status: 'False' }] }, { notReady: true }],
    ['Ready Unknown', { conditions: [{ type: 'Ready', status: 'Unknown' }] }, { notReady: false }],
  ])('%s', (_name, o, expected) => {
    expect(view(o)).toMatchObject(expected);
  });

  it('pdbView carries unhealthyPodEvictionPolicy', () => {
    const pdb = pdbView({ metadata: { namespace: 'a', name: 'b' }, spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' }, status: { disruptionsAllowed: 0 } });
    expect(pdb).toEqual({ namespace: 'a', name: 'b', disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
  });
});

// Who owns a class: every managedFields entry but the status subresource's, and but an entry holding only Karpenter's
// own bookkeeping (its hash controllers' annotations, its termination finalizer), which owns nothing a manifest sets.
describe('nodeClassView owners', () => {
  const entry = (manager: string, fieldsV1: unknown, subresource?: string) => ({ manager, operation: 'Update', fieldsV1, ...(subresource ? { subresource } : {}) });
  const hash = { 'f:metadata': { 'f:annotations': { '.': {}, 'f:karpenter.k8s.aws/ec2nodeclass-hash': {}, 'f:karpenter.k8s.aws/ec2nodeclass-hash-version': {} } } };
  const finalizer = { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"karpenter.k8s.aws/termination"': {} } } };
  const owners = (...managedFields: unknown[]) =>
    nodeClassView({ metadata: { name: 'default', managedFields } as never, spec: {} }).owners.map((o) => o.manager);
  it.each<[string, unknown[], string[]]>([
    ['karpenter\'s hash annotations', [entry('karpenter', hash)], []],
    ['karpenter\'s finalizer', [entry('karpenter', finalizer)], []],
    ['karpenter\'s status', [entry('karpenter', { 'f:status': {} }, 'status')], []],
    ['an annotation of someone else\'s beside the hashes', [entry('karpenter', { 'f:metadata': { 'f:annotations': { 'f:karpenter.k8s.aws/ec2nodeclass-hash': {}, 'f:team': {} } } })], ['karpenter']],
    ['a spec field', [entry('kubectl-edit', { 'f:spec': { 'f:tags': {} } })], ['kubectl-edit']],
    ['the applier and karpenter', [entry('argocd-controller', { 'f:spec': { 'f:amiSelectorTerms': {} } }), entry('karpenter', hash)], ['argocd-controller']],
  ])('%s', (_name, managedFields, expected) => {
    expect(owners(...managedFields)).toEqual(expected);
  });
});
