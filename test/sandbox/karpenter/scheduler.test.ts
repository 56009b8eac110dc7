// The drift decisions the disruption controller takes from a scheduling run, table-tested on the pure parts:
// scheduler.ts `solve` (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go `Solve`/`add`,
// `calculateExistingNodeClaims` ordering initialized nodes first; queue.go `byCPUAndMemoryDescending`) and
// cluster-state.ts `nonPendingErrors` (pkg/controllers/disruption/helpers.go `SimulateScheduling`, the
// `UninitializedNodeError` it adds for pods placed on uninitialized nodes except the deleting nodes' pods; drift.go
// `ComputeCommands`, which refuses a candidate with `DisruptionBlocked` while `AllNonPendingPodsScheduled` is false and
// otherwise replaces it by the NodeClaims the run made up, or deletes it when there are none).
import { describe, expect, it } from 'vitest';
import { nonPendingErrors, notAllPodsWouldSchedule } from '../../../src/sandbox/karpenter/cluster-state.js';
import { requirementsOf } from '../../../src/sandbox/karpenter/requirements.js';
import { solve, type ExistingNode, type NodeClaimTemplate, type SchedulingPod } from '../../../src/sandbox/karpenter/scheduler.js';

const CPU = 4000; // one m7i.xlarge's allocatable here: 4 CPUs, each node takes one 2500m pod
const pod = (name: string, cpu = 2500, createdAt = '2026-12-07T08:00:00Z'): SchedulingPod => ({
  key: `default/${name}`,
  createdAt,
  requests: { cpu, memory: 2 ** 30, pods: 1 },
  terms: [[{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] }]],
  tolerations: [],
});
/** A node of NodePool default with room for `free` more 2500m pods. */
const node = (name: string, o: { initialized?: boolean; free?: number } = {}): ExistingNode => ({
  name,
  nodeClaim: name,
  node: `ip-${name}`,
  initialized: o.initialized ?? true,
  labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/hostname': name },
  taints: [],
  available: { cpu: (o.free ?? 0) * 2500 + 1000, memory: 14 * 2 ** 30, pods: 50 },
  daemonRemaining: { cpu: 0, memory: 0, pods: 0 },
});
const TEMPLATE: NodeClaimTemplate = {
  nodePool: 'default',
  requirements: requirementsOf([{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] }]),
  allocatable: { cpu: CPU, memory: 15 * 2 ** 30, pods: 58 },
  daemonOverhead: { cpu: 0, memory: 0, pods: 0 },
  taints: [],
};

type Decision = 'replace' | 'delete' | 'refuse';

/**
 * One drift candidate's verdict: its pods (`candidate`), the deleting nodes' pods (`deleting`) and the pending pods
 * (`pending`) placed on the other nodes (`nodes`) or on new NodeClaims.
 */
function decide(candidate: SchedulingPod[], nodes: ExistingNode[], deleting: SchedulingPod[] = [], pending: SchedulingPod[] = []) {
  let n = 0;
  const results = solve([...pending, ...candidate, ...deleting], nodes, [TEMPLATE], () => `hostname-placeholder-${String(++n).padStart(4, '0')}`);
  const errors = nonPendingErrors(results, new Set(deleting.map((p) => p.key)), new Set(pending.map((p) => p.key)));
  const decision: Decision = errors.size > 0 ? 'refuse' : results.newNodeClaims.length > 0 ? 'replace' : 'delete';
  return { decision, errors, replacements: results.newNodeClaims.length, results };
}

// Pod names whose hash orders them: `a-first` before `z-last` among pods created in the same second (scheduler.ts).
const [EARLY, LATE] = (() => {
  const names = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
  const order = solve(names.map((x) => pod(x)), [], [TEMPLATE], () => 'h').newNodeClaims.map((c) => c.pods[0]!.key.split('/')[1]!);
  return [order[0]!, order[1]!];
})();

describe('a drift candidate: replaced, deleted or refused (drift.go ComputeCommands over SimulateScheduling)', () => {
  it.each<[string, () => ReturnType<typeof decide>, Decision, number]>([
    ['no room anywhere: one replacement', () => decide([pod('c')], [node('n1')]), 'replace', 1],
    ['room on an initialized node: deleted without a replacement', () => decide([pod('c')], [node('n1', { free: 1 })]), 'delete', 0],
    ['an empty candidate (no pods to move): deleted', () => decide([], [node('n1')]), 'delete', 0],
    [
      'the only room is on a node not initialized yet: refused',
      () => decide([pod('c')], [node('r1', { initialized: false, free: 1 })]),
      'refuse',
      0,
    ],
    [
      'an initialized node is filled first, whatever the names (calculateExistingNodeClaims)',
      () => decide([pod('c')], [node('a-uninitialized', { initialized: false, free: 1 }), node('z-ready', { free: 1 })]),
      'delete',
      0,
    ],
    [
      'a deleting node’s pod takes the uninitialized room first: no error for it, the candidate gets a replacement',
      () => decide([pod(LATE)], [node('r1', { initialized: false, free: 1 })], [pod(EARLY)]),
      'replace',
      1,
    ],
    [
      'the candidate’s pod comes first and takes the uninitialized room: refused (the previous command’s replacement)',
      () => decide([pod(EARLY)], [node('r1', { initialized: false, free: 1 })], [pod(LATE)]),
      'refuse',
      1,
    ],
    [
      'an older pod (an earlier second) comes first whatever its name',
      () => decide([pod(LATE, 2500, '2026-12-07T07:00:00Z')], [node('r1', { initialized: false, free: 1 })], [pod(EARLY)]),
      'refuse',
      1,
    ],
    [
      'the larger CPU request comes first',
      () => decide([pod(LATE, 3000)], [node('r1', { initialized: false, free: 1 })], [pod(EARLY)]),
      'refuse',
      1,
    ],
    [
      'a pending pod on the uninitialized room never blocks; the candidate still needs a replacement',
      () => decide([pod(LATE)], [node('r1', { initialized: false, free: 1 })], [], [pod(EARLY)]),
      'replace',
      1,
    ],
    [
      'a pending pod that fits nowhere never blocks either',
      () => decide([pod('c', 1000)], [node('n1', { free: 1 })], [], [pod('huge', 9000)]),
      'delete',
      0,
    ],
    [
      'pods that share a new NodeClaim: a candidate of two 1500m pods gets one replacement',
      () => decide([pod('c1', 1500), pod('c2', 1500)], [node('n1')]),
      'replace',
      1,
    ],
  ])('%s', (_name, run, decision, replacements) => {
    const verdict = run();
    expect(verdict.decision).toBe(decision);
    expect(verdict.replacements).toBe(replacements);
  });

  it('says why in Karpenter’s words: the pod, then which NodeClaim and Node it would have waited for', () => {
    const { errors } = decide([pod(EARLY)], [node('default-8fpck', { initialized: false, free: 1 })], [pod(LATE)]);
    expect(notAllPodsWouldSchedule(errors)).toBe(
      `Not all pods would schedule, default/${EARLY} => would schedule against uninitialized nodeclaim/default-8fpck, node/ip-default-8fpck `,
    );
  });

  it('names a NodeClaim without a Node yet by its NodeClaim alone', () => {
    const launching = { ...node('default-c4mh9', { initialized: false, free: 1 }), node: undefined };
    const { errors } = decide([pod('c')], [launching]);
    expect([...errors.values()]).toEqual(['would schedule against uninitialized nodeclaim/default-c4mh9']);
  });

  it('a pod that fits on no node and no template: the templates’ reasons', () => {
    const { decision, errors } = decide([pod('huge', 9000)], [node('n1')]);
    expect(decision).toBe('refuse');
    expect([...errors.values()][0]).toMatch(/^incompatible with nodepool "default", daemonset overhead=\{"pods":"0"\}, no instance type has enough resources, resources=\{"cpu":"9","memory":"1Gi","pods":"1"\}$/);
  });
});

describe('a run over a fleet of NodePools', () => {
  const inPool = (p: SchedulingPod, pool: string): SchedulingPod => ({
    ...p,
    terms: [[{ key: 'karpenter.sh/nodepool', operator: 'In', values: [pool] }]],
  });
  const poolNode = (name: string, pool: string, free: number, initialized = true): ExistingNode => {
    const n = node(name, { free, initialized });
    return { ...n, labels: { ...n.labels, 'karpenter.sh/nodepool': pool } };
  };
  const templateOf = (pool: string): NodeClaimTemplate => ({
    ...TEMPLATE,
    nodePool: pool,
    requirements: requirementsOf([{ key: 'karpenter.sh/nodepool', operator: 'In', values: [pool] }]),
  });

  it('puts each pod on the first node of its own NodePool with room, filling nodes in order, then on new NodeClaims', () => {
    const nodes = [poolNode('a-1', 'a', 3), poolNode('b-1', 'b', 1), poolNode('b-2', 'b', 1, false), poolNode('c-1', 'c', 2)];
    const pods = [inPool(pod('b0'), 'b'), inPool(pod('b1'), 'b'), inPool(pod('b2'), 'b'), inPool(pod('a0'), 'a'), pod('x')];
    pods[4] = { ...pods[4]!, terms: [[]] }; // asks for no NodePool: the first node with room of all
    const results = solve(pods, nodes, [templateOf('a'), templateOf('b')], () => 'h');
    const on = Object.fromEntries(results.existing.map((e) => [e.node.name, e.pods.map((p) => p.key.split('/')[1]).sort()]));
    // Initialized nodes first (b-2 is not), each pod of b on its own node: the third needs a new NodeClaim of b.
    expect(on).toEqual({ 'a-1': ['a0', 'x'].sort(), 'b-1': [expect.any(String)], 'b-2': [expect.any(String)] });
    expect(results.existing.map((e) => e.node.name)).toEqual(['a-1', 'b-1', 'b-2']); // the order tried, c-1 given nothing
    expect(results.newNodeClaims.map((c) => [c.template.nodePool, c.pods.length])).toEqual([['b', 1]]);
    expect(results.errors.size).toBe(0);
  });

  it('a pod asking about the hostname is asked of each NodeClaim made up, with its placeholder hostname', () => {
    const asks = (operator: string): SchedulingPod => ({
      ...pod('h'),
      terms: [[{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['a'] }, { key: 'kubernetes.io/hostname', operator }]],
    });
    let n = 0;
    const hostname = () => `hostname-placeholder-${String(++n).padStart(4, '0')}`;
    // Exists: the made-up NodeClaim has a hostname (its template alone has none).
    expect(solve([asks('Exists')], [], [templateOf('b'), templateOf('a')], hostname).newNodeClaims.map((c) => c.hostname)).toEqual([
      'hostname-placeholder-0002',
    ]);
    // DoesNotExist: no NodeClaim made up can take it; each template tried took its placeholder.
    expect([...solve([asks('DoesNotExist')], [], [templateOf('a')], hostname).errors.values()]).toEqual([
      'incompatible with nodepool "a", daemonset overhead={"pods":"0"}, incompatible requirements, key kubernetes.io/hostname, kubernetes.io/hostname DoesNotExist not in kubernetes.io/hostname In [hostname-placeholder-0003]',
    ]);
  });

  it('a pod of a NodePool no template serves fits nowhere, with every template’s reason', () => {
    const results = solve([inPool(pod('d0'), 'd')], [poolNode('a-1', 'a', 3)], [templateOf('a'), templateOf('b')], () => 'h');
    expect([...results.errors.values()]).toEqual([
      'incompatible with nodepool "a", daemonset overhead={"pods":"0"}, incompatible requirements, key karpenter.sh/nodepool, karpenter.sh/nodepool In [d] not in karpenter.sh/nodepool In [a]; ' +
        'incompatible with nodepool "b", daemonset overhead={"pods":"0"}, incompatible requirements, key karpenter.sh/nodepool, karpenter.sh/nodepool In [d] not in karpenter.sh/nodepool In [b]',
    ]);
  });
});
