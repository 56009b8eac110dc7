// Which pods and nodes hold a node back from voluntary disruption (karpenter/disruptable.ts over the views of
// karpenter/convert.ts), against Karpenter's own tests: kubernetes-sigs/karpenter tag v1.14.1 (commit 6e7eab7a), the
// files
// - pkg/utils/pod/suite_test.go: IsDoNotDisruptActive, IsDisruptable (do-not-disrupt values, durations, events);
// - pkg/utils/pdb/suite_test.go: CanEvictPods (which PDBs stop an eviction);
// - pkg/controllers/disruption/suite_test.go Describe("Candidate Filtering"): do-not-disrupt and PDBs per pod kind;
// - pkg/controllers/disruption/drift_test.go, consolidation_test.go: do-not-disrupt on nodes, durations over time, PDB
//   namespaces;
// - pkg/controllers/node/termination/suite_test.go: the pods whose karpenter.sh/disrupted toleration exempts them.
// Each row names the `It(...)` (or DescribeTable Entry) it comes from. The pods are built as upstream's test.Pod
// builds them: namespace "default", no phase and no start time unless the test sets one, and PDBs whose
// status.disruptionsAllowed is 0 (envtest runs no disruption controller, so every PDB there allows none).
import { describe, expect, it } from 'vitest';
import { nodeView, pdbView, podView } from '../../src/karpenter/convert.js';
import {
  doNotDisrupt,
  holdsDoNotDisrupt,
  invalidDoNotDisruptMessage,
  isEvictable,
  pdbBlock,
  type DoNotDisrupt,
} from '../../src/karpenter/disruptable.js';
import type { PdbView, PodView } from '../../src/karpenter/views.js';

// Upstream steps a fake clock from time.Now(); any fixed instant will do. Start times are whole seconds, as the API
// server stores them.
const NOW = new Date('2024-01-10T12:00:00Z');
const ago = (minutes: number): string => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const later = (minutes: number): Date => new Date(NOW.getTime() + minutes * 60_000);
const DND = 'karpenter.sh/do-not-disrupt';

interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  doNotDisrupt?: string;
  owner?: 'DaemonSet' | 'Node';
  phase?: string;
  startTime?: string;
  deleting?: boolean;
  notReady?: boolean;
  tolerations?: unknown[];
}

function pod(o: PodOptions = {}): PodView {
  const owner = {
    DaemonSet: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds' },
    Node: { apiVersion: 'v1', kind: 'Node', name: 'node' },
  };
  return podView({
    metadata: {
      namespace: o.namespace ?? 'default',
      name: 'test-pod',
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.doNotDisrupt !== undefined ? { annotations: { [DND]: o.doNotDisrupt } } : {}),
      ...(o.owner ? { ownerReferences: [{ ...owner[o.owner], controller: true }] } : {}),
      ...(o.deleting ? { deletionTimestamp: NOW.toISOString() } : {}),
    },
    spec: { nodeName: 'node', ...(o.tolerations ? { tolerations: o.tolerations } : {}) },
    status: {
      ...(o.phase ? { phase: o.phase } : {}),
      ...(o.startTime ? { startTime: o.startTime } : {}),
      ...(o.notReady ? { conditions: [{ type: 'Ready', status: 'False' }] } : {}),
    },
  });
}

// test.PodDisruptionBudget: a matchLabels selector, in "default" unless the test says otherwise.
interface PdbOptions {
  namespace?: string;
  labels?: Record<string, string>;
  alwaysAllow?: boolean;
}

function pdb(name: string, o: PdbOptions = {}): PdbView {
  return pdbView({
    metadata: { namespace: o.namespace ?? 'default', name },
    spec: {
      selector: { matchLabels: o.labels ?? { test: 'value' } },
      maxUnavailable: 0,
      ...(o.alwaysAllow ? { unhealthyPodEvictionPolicy: 'AlwaysAllow' } : {}),
    },
    status: { disruptionsAllowed: 0 },
  });
}
const labelled = { test: 'value' };

describe('pod/suite_test.go Describe("IsDoNotDisruptActive"), a pod started 10 minutes ago', () => {
  it.each<[string, PodOptions, DoNotDisrupt]>([
    ['should return false when no annotation exists', { startTime: ago(10) }, { state: 'absent' }],
    // With "should not emit disruptable-at event for indefinite protection": "true" has no end.
    [
      "should return true for 'true' annotation",
      { doNotDisrupt: 'true', startTime: ago(10) },
      { state: 'active', value: 'true' },
    ],
    [
      'should return false and emit event for invalid duration format',
      { doNotDisrupt: 'invalid-format', startTime: ago(10) },
      {
        state: 'invalid',
        value: 'invalid-format',
        error: 'failed to parse "invalid-format" as a duration: time: invalid duration "invalid-format"',
      },
    ],
    [
      'should return false and emit event for zero duration',
      { doNotDisrupt: '0s', startTime: ago(10) },
      { state: 'invalid', value: '0s', error: 'duration "0s" must be positive' },
    ],
    [
      'should return false and emit event for negative duration',
      { doNotDisrupt: '-5m', startTime: ago(10) },
      { state: 'invalid', value: '-5m', error: 'duration "-5m" must be positive' },
    ],
    // The DoNotDisruptUntil event names startTime + 15m.
    [
      'should return true and emit disruptable-at event when duration has not expired',
      { doNotDisrupt: '15m', startTime: ago(10) },
      { state: 'active', value: '15m', until: later(5) },
    ],
    [
      'should return false and emit grace period elapsed event when duration has expired',
      { doNotDisrupt: '5m', startTime: ago(10) },
      { state: 'expired', value: '5m', at: later(-5) },
    ],
    // Without a start time the age is unknown: fail safe, i.e. keep protecting.
    ['should fail safe when start time is nil', { doNotDisrupt: '5m' }, { state: 'active', value: '5m' }],
  ])('%s', (_it, options, expected) => {
    expect(doNotDisrupt(pod(options), NOW)).toEqual(expected);
  });

  // The InvalidDoNotDisruptAnnotation event text upstream asserts with recorder.DetectedEvent, word for word.
  it.each<[string, string, string]>([
    [
      'should return false and emit event for invalid duration format',
      'invalid-format',
      'Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "invalid-format" as a duration: ' +
        'time: invalid duration "invalid-format", ignoring annotation',
    ],
    [
      'should return false and emit event for zero duration',
      '0s',
      'Invalid karpenter.sh/do-not-disrupt annotation: duration "0s" must be positive, ignoring annotation',
    ],
    [
      'should return false and emit event for negative duration',
      '-5m',
      'Invalid karpenter.sh/do-not-disrupt annotation: duration "-5m" must be positive, ignoring annotation',
    ],
  ])('%s: the event', (_it, value, message) => {
    const result = doNotDisrupt(pod({ doNotDisrupt: value, startTime: ago(10) }), NOW);
    expect(result.state === 'invalid' ? invalidDoNotDisruptMessage(result.error) : result.state).toBe(message);
  });
});

describe('pod/suite_test.go Describe("IsDisruptable"), a pod started 10 minutes ago', () => {
  it.each<[string, PodOptions, boolean]>([
    ['should be disruptable for active pod without annotation', { phase: 'Running' }, true],
    [
      "should not be disruptable for active pod with 'true' annotation and not emit invalid annotation event",
      { phase: 'Running', doNotDisrupt: 'true' },
      false,
    ],
    [
      'should be disruptable for active pod with expired duration and not emit invalid annotation event',
      { phase: 'Running', doNotDisrupt: '5m' },
      true,
    ],
    [
      'should not be disruptable for active pod with non-expired duration',
      { phase: 'Running', doNotDisrupt: '15m' },
      false,
    ],
    ['should be disruptable for terminal pod even with annotation', { phase: 'Succeeded', doNotDisrupt: 'true' }, true],
  ])('%s', (_it, options, disruptable) => {
    expect(holdsDoNotDisrupt(pod({ startTime: ago(10), ...options }), NOW)).toBe(!disruptable);
  });
});

// A node is held when any pod bound to it holds do-not-disrupt (statenode.go ValidatePodsDisruptable): every active
// pod counts, DaemonSet and mirror pods included; terminal and terminating pods do not.
describe('do-not-disrupt pods on a candidate node', () => {
  const STILL_ACTIVE =
    'should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still active';
  const LONGEST =
    'should not drift nodes until the longest duration-based do-not-disrupt grace period expires across multiple pods';
  // Pods that start at the fake clock's now, which the drift tests then step.
  const from0 = (...values: string[]): PodOptions[] =>
    values.map((v) => ({ doNotDisrupt: v, startTime: NOW.toISOString() }));

  it.each<[string, string, number, PodOptions[], boolean]>([
    [
      'suite_test.go',
      'should not consider candidates that have do-not-disrupt pods scheduled and no terminationGracePeriod',
      0,
      [{ doNotDisrupt: 'true' }],
      true,
    ],
    [
      'suite_test.go',
      'should not consider candidates that have do-not-disrupt mirror pods scheduled',
      0,
      [{ doNotDisrupt: 'true', owner: 'Node' }],
      true,
    ],
    [
      'suite_test.go',
      'should not consider candidates that have do-not-disrupt daemonset pods scheduled',
      0,
      [{ doNotDisrupt: 'true', owner: 'DaemonSet' }],
      true,
    ],
    [
      'suite_test.go',
      'should consider candidates that have do-not-disrupt terminating pods',
      0,
      [{ doNotDisrupt: 'true', deleting: true }],
      false,
    ],
    [
      'suite_test.go',
      'should consider candidates that have do-not-disrupt terminal pods',
      0,
      [
        { doNotDisrupt: 'true', phase: 'Succeeded' },
        { doNotDisrupt: 'true', phase: 'Failed' },
      ],
      false,
    ],
    ['drift_test.go', STILL_ACTIVE, 0, from0('2m'), true],
    ['drift_test.go', STILL_ACTIVE, 3, from0('2m'), false],
    [
      'drift_test.go',
      'should drift nodes with pods that have an invalid do-not-disrupt annotation format',
      0,
      [{ doNotDisrupt: 'invalid-format' }],
      false,
    ],
    // Held until the 3m one runs out, not the 1m one.
    ['drift_test.go', LONGEST, 0, from0('1m', '3m'), true],
    ['drift_test.go', LONGEST, 2, from0('1m', '3m'), true],
    ['drift_test.go', LONGEST, 4, from0('1m', '3m'), false],
  ])('%s %s (clock +%dm)', (_file, _it, minutes, pods, held) => {
    expect(pods.map((o) => pod(o)).some((p) => holdsDoNotDisrupt(p, later(minutes)))).toBe(held);
  });
});

// statenode.go: only the exact value "true" on the Node blocks.
describe('do-not-disrupt on the Node', () => {
  it.each<[string, string, boolean]>([
    ['suite_test.go should not consider candidates that have do-not-disrupt on nodes', 'true', true],
    [
      'drift_test.go should delete drifted nodes with the karpenter.sh/do-not-disrupt annotation set to false',
      'false',
      false,
    ],
  ])('%s', (_it, value, held) => {
    expect(nodeView({ metadata: { name: 'node', annotations: { [DND]: value } } }).doNotDisrupt).toBe(held);
  });
});

// pdb.go isEvictable with zeroDisruptions: undefined means the pod's PDBs let Karpenter pick its node.
describe('PDBs that stop an eviction', () => {
  it.each<[string, PodOptions, PdbView[], string[] | 'multiple' | undefined]>([
    [
      'pdb/suite_test.go can evict unhealthy pods when UnhealthyPodEvictionPolicy is set to always allow',
      { labels: labelled, notReady: true },
      [pdb('pdb', { alwaysAllow: true })],
      undefined,
    ],
    [
      "pdb/suite_test.go can't evict unhealthy pods when UnhealthyPodEvictionPolicy is not set",
      { labels: labelled, notReady: true },
      [pdb('pdb')],
      ['pdb'],
    ],
    [
      'pdb/suite_test.go can evict pods when no PDBs match',
      { labels: labelled },
      [pdb('pdb', { labels: { other: 'value' } })],
      undefined,
    ],
    // Entries "100% min available", "0% max unavailable", "0 max unavailable": all allow 0 disruptions. Also
    // suite_test.go "should not consider candidates that have fully blocking PDBs".
    [
      "pdb/suite_test.go can't evict pods when disruptions are not allowed for every pod in the list",
      { labels: labelled },
      [pdb('pdb')],
      ['pdb'],
    ],
    // The Eviction API refuses a pod under two PDBs, whatever they allow. Also suite_test.go "should not consider
    // candidates that have multiple PDBs on the same pod".
    [
      "pdb/suite_test.go can't evict pods when disruptions are not allowed for every pod in the list (multiple PDBs)",
      { labels: labelled },
      [pdb('pdb-1'), pdb('pdb-2')],
      'multiple',
    ],
    // test.Pod without a DaemonSet controller's tolerations: such a pod is evicted, so its PDB counts.
    [
      'suite_test.go should not consider candidates that have fully blocking PDBs on daemonset pods',
      { labels: labelled, owner: 'DaemonSet' },
      [pdb('pdb')],
      ['pdb'],
    ],
    [
      'suite_test.go should consider candidates that have fully blocking PDBs on mirror pods',
      { labels: labelled, owner: 'Node' },
      [pdb('pdb')],
      undefined,
    ],
    [
      'suite_test.go should consider candidates that have fully blocking PDBs on terminal pods (Succeeded)',
      { labels: labelled, phase: 'Succeeded' },
      [pdb('pdb')],
      undefined,
    ],
    [
      'suite_test.go should consider candidates that have fully blocking PDBs on terminal pods (Failed)',
      { labels: labelled, phase: 'Failed' },
      [pdb('pdb')],
      undefined,
    ],
    [
      'suite_test.go should consider candidates that have fully blocking PDBs on terminating pods',
      { labels: labelled, deleting: true },
      [pdb('pdb')],
      undefined,
    ],
    [
      'consolidation_test.go can replace nodes, PDB namespace must match',
      { labels: labelled },
      [pdb('pdb', { namespace: 'test-namespace' })],
      undefined,
    ],
  ])('%s', (_it, options, pdbs, expected) => {
    const block = pdbBlock(pod(options), pdbs, NOW);
    if (expected === undefined) expect(block).toBeUndefined();
    else if (expected === 'multiple') expect(block).toEqual({ multiple: true, pdbs });
    else expect(block).toEqual({ multiple: false, pdbs: pdbs.filter((b) => expected.includes(b.name)) });
  });

  it("pdb/suite_test.go can't evict pods when disruptions are not allowed for one pod in the list", () => {
    const pdbs = [pdb('pdb')];
    const blocks = [pod({ labels: labelled }), pod()].map((p) => pdbBlock(p, pdbs, NOW));
    expect(blocks).toEqual([{ multiple: false, pdbs }, undefined]);
  });
});

// The drain skips pods that tolerate karpenter.sh/disrupted:NoSchedule (pod.ToleratesDisruptedNoScheduleTaint), and
// Karpenter never evicts them, so their PDBs never count.
describe('termination/suite_test.go: pods tolerating the disrupted taint are not evicted', () => {
  it.each<[string, unknown, boolean]>([
    // DisruptedNoScheduleTaint has no value, so Equal matches the empty one.
    [
      'should not evict pods that tolerate karpenter disruption taint with equal operator',
      { key: 'karpenter.sh/disrupted', operator: 'Equal', effect: 'NoSchedule' },
      true,
    ],
    [
      'should not evict pods that tolerate karpenter disruption taint with exists operator',
      { key: 'karpenter.sh/disrupted', operator: 'Exists', effect: 'NoSchedule' },
      true,
    ],
    [
      'should evict pods that tolerate the node.kubernetes.io/unschedulable taint',
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      false,
    ],
    // No effect tolerates every effect of the key: the pod is not drainable, so its volume attachment is not awaited.
    [
      'should only wait for volume attachments associated with drainable pods',
      { key: 'karpenter.sh/disrupted', operator: 'Exists' },
      true,
    ],
  ])('%s', (_it, toleration, tolerates) => {
    const p = pod({ tolerations: [toleration] });
    expect([p.toleratesDisrupted, isEvictable(p, NOW)]).toEqual([tolerates, !tolerates]);
  });
});
