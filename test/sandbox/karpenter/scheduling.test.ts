// The scheduling simulation Karpenter runs for a drift candidate (disruption/helpers.go SimulateScheduling): which pods
// would not schedule elsewhere, in Karpenter's words, and how the disruption pass acts on it. A two-node NodePool built
// into an in-process store; time is stepped by hand. The pods here request no CPU or memory, so only their node
// requirements decide (the capacity decisions are table-tested in scheduler.test.ts).
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { amiCatalog } from '../../../src/sandbox/aws/catalog.js';
import { newestRelease } from '../../../src/sandbox/aws/lookup.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { isTrue } from '../../../src/sandbox/karpenter/objects.js';
import { notAllPodsWouldSchedule as message, schedulingInput, simulateScheduling, stateNodes } from '../../../src/sandbox/karpenter/cluster-state.js';
import type { SimContext } from '../../../src/sandbox/karpenter/context.js';
import { KarpenterSimulator } from '../../../src/sandbox/karpenter/simulator.js';
import { loadKarpenterCrds } from '../../../src/sandbox/kube-api/crds.js';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { buildCluster } from '../../../src/sandbox/scenarios/build.js';
import { seededRandom } from '../../../src/sandbox/scenarios/random.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';

const catalog = amiCatalog();
const NODEPOOLS = 'nodepools.karpenter.sh';
const NODECLAIMS = 'nodeclaims.karpenter.sh';

function cluster(o: { nodePools?: object[]; workloads?: object[] } = {}) {
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const store = new KubeStore(new ObjectStore(1000), new ResourceRegistry(), () => clock.wall());
  store.controllers = sandboxControllers();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  for (const crd of loadKarpenterCrds('v1')) store.create('customresourcedefinitions.apiextensions.k8s.io', structuredClone(crd) as never);
  const scenario = parseScenario(
    dump({
      name: 't',
      controlPlaneVersion: '1.30',
      nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
      nodePools: o.nodePools ?? [{ name: 'general', nodeClass: 'default', nodes: 2, arch: ['amd64', 'arm64'] }],
      workloads: o.workloads ?? [{ name: 'agent', namespace: 'default', nodePool: 'general', daemonSet: true }],
    }),
    't.yaml',
  );
  const built = buildCluster(scenario, { store, catalog, now: clock.wall() });
  const simulator = new KarpenterSimulator({ store, catalog, clock, rng: seededRandom(1, 'karpenter'), taken: built.taken, controlPlaneVersion: '1.30' });
  const [candidate, other] = built.nodePools[0]!.nodes.map((n) => store.get('nodes', n.nodeName)!);
  return { store, clock, simulator, candidate: candidate!, other: other!, built };
}

type Cluster = ReturnType<typeof cluster>;

/** The DisruptionBlocked message the disruption pass would publish for the node, or undefined when it may go. */
function notAllPodsWouldSchedule(ctx: SimContext, node: KubeObject): string | undefined {
  const state = stateNodes(ctx);
  const candidate = state.find((n) => n.node?.metadata.name === node.metadata.name)!;
  const { errors } = simulateScheduling(ctx, schedulingInput(ctx, state), [candidate]);
  return errors.size > 0 ? message(errors) : undefined;
}
const hostnameOf = (node: KubeObject) => node.metadata.labels!['kubernetes.io/hostname']!;

let podCount = 0;
/** A pod on the candidate node, with the given spec fields (a ReplicaSet's unless `owner: false`). */
function podOn(c: Cluster, spec: Record<string, unknown>, o: { owner?: boolean; phase?: string; name?: string } = {}): KubeObject {
  podCount += 1;
  const owner = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'app-5d4f8b', uid: 'uid-rs', controller: true }];
  return c.store.create(
    'pods',
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: o.name ?? `app-${podCount}`, namespace: 'default', ...(o.owner === false ? {} : { ownerReferences: owner }) },
      spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: c.candidate.metadata.name, ...spec },
      status: { phase: o.phase ?? 'Running' },
    },
    { wholeObject: true },
  );
}

function patchNodePool(c: Cluster, template: (t: { metadata?: object; spec: { requirements: object[] } }) => void): void {
  const pool = structuredClone(c.store.get(NODEPOOLS, 'general')!);
  template((pool.spec as { template: never }).template);
  c.store.update(NODEPOOLS, pool);
}

const affinity = (...terms: object[][]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) } } },
});
const OVERHEAD = 'daemonset overhead={"cpu":"100m","memory":"128Mi","pods":"1"}';

describe('notAllPodsWouldSchedule', () => {
  it.each<[string, (c: Cluster) => Record<string, unknown>, ((c: Cluster) => void) | undefined]>([
    ['a pod that asks for nothing', () => ({}), undefined],
    ["another node's hostname", (c) => ({ nodeSelector: { 'kubernetes.io/hostname': hostnameOf(c.other) } }), undefined],
    ["another node's zone", (c) => ({ nodeSelector: { 'topology.kubernetes.io/zone': c.other.metadata.labels!['topology.kubernetes.io/zone']! } }), undefined],
    ['a zone the NodePool leaves open (well known)', () => ({ nodeSelector: { 'topology.kubernetes.io/zone': 'us-west-2d' } }), undefined],
    [
      'a custom label the NodePool template sets',
      () => ({ nodeSelector: { dedicated: 'ledger' } }),
      (c) => patchNodePool(c, (t) => (t.metadata = { labels: { dedicated: 'ledger' } })),
    ],
    ['the absence of a custom label', () => affinity([{ key: 'dedicated', operator: 'DoesNotExist' }]), undefined],
    [
      'the second of two node-affinity terms',
      () => affinity([{ key: 'kubernetes.io/arch', operator: 'In', values: ['s390x'] }], [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }]),
      undefined,
    ],
  ])('lets %s move', (_name, spec, setUp) => {
    const c = cluster();
    setUp?.(c);
    podOn(c, spec(c));
    expect(notAllPodsWouldSchedule(c.simulator.ctx, c.candidate)).toBeUndefined();
  });

  it('leaves DaemonSet pods out: they go with the node', () => {
    const c = cluster();
    const pod = podOn(c, { nodeSelector: { 'kubernetes.io/hostname': hostnameOf(c.candidate) } });
    const ownerReferences = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'uid-ds' }];
    c.store.update('pods', { ...pod, metadata: { ...pod.metadata, ownerReferences } }, { wholeObject: true });
    expect(notAllPodsWouldSchedule(c.simulator.ctx, c.candidate)).toBeUndefined();
  });

  it.each<[string, (c: Cluster) => Record<string, unknown>, ((c: Cluster) => void) | undefined, (c: Cluster) => string]>([
    [
      'its own node by hostname',
      (c) => ({ nodeSelector: { 'kubernetes.io/hostname': hostnameOf(c.candidate) } }),
      undefined,
      (c) =>
        `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, key kubernetes.io/hostname, kubernetes.io/hostname In [${hostnameOf(c.candidate)}] not in kubernetes.io/hostname In [hostname-placeholder-0001]`,
    ],
    [
      'a custom label no NodePool sets',
      () => ({ nodeSelector: { dedicated: 'ledger' } }),
      undefined,
      () => `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, label "dedicated" does not have known values`,
    ],
    [
      'a zone the NodePool excludes',
      () => ({ nodeSelector: { 'topology.kubernetes.io/zone': 'us-west-2d' } }),
      (c) => patchNodePool(c, (t) => t.spec.requirements.push({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2c', 'us-west-2a', 'us-west-2b'] })),
      () =>
        `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2d] not in topology.kubernetes.io/zone In [us-west-2a us-west-2b us-west-2c]`,
    ],
    [
      'an architecture the NodePool does not offer (node affinity)',
      () => affinity([{ key: 'kubernetes.io/arch', operator: 'In', values: ['s390x'] }]),
      undefined,
      () => `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [s390x] not in kubernetes.io/arch In [amd64 arm64]`,
    ],
    [
      'a value below the NodePool’s Gt bound',
      () => ({ nodeSelector: { 'example.com/generation': '3' } }),
      (c) => patchNodePool(c, (t) => t.spec.requirements.push({ key: 'example.com/generation', operator: 'Gt', values: ['5'] })),
      () =>
        `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, key example.com/generation, example.com/generation In [3] not in example.com/generation Exists >5`,
    ],
    [
      'another node’s hostname, when that node is tainted for disruption',
      (c) => ({ nodeSelector: { 'kubernetes.io/hostname': hostnameOf(c.other) } }),
      (c) => {
        const other = c.store.get('nodes', c.other.metadata.name!)!;
        c.store.update('nodes', { ...other, spec: { ...(other.spec as object), taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] } });
      },
      (c) =>
        `incompatible with nodepool "general", ${OVERHEAD}, incompatible requirements, key kubernetes.io/hostname, kubernetes.io/hostname In [${hostnameOf(c.other)}] not in kubernetes.io/hostname In [hostname-placeholder-0001]`,
    ],
  ])('names a pod that asks for %s', (_name, spec, setUp, error) => {
    const c = cluster();
    setUp?.(c);
    const pod = podOn(c, spec(c));
    expect(notAllPodsWouldSchedule(c.simulator.ctx, c.candidate)).toBe(`Not all pods would schedule, default/${pod.metadata.name} => ${error(c)} `);
  });

  it('tries every NodePool, by name, and joins their errors', () => {
    const c = cluster({
      nodePools: [
        { name: 'general', nodeClass: 'default', nodes: 2, arch: ['amd64', 'arm64'] },
        { name: 'batch', nodeClass: 'default', nodes: 1 },
      ],
      workloads: [],
    });
    const pod = podOn(c, { nodeSelector: { dedicated: 'ledger' } });
    const rejected = (pool: string) => `incompatible with nodepool "${pool}", daemonset overhead={"pods":"0"}, incompatible requirements, label "dedicated" does not have known values`;
    expect(notAllPodsWouldSchedule(c.simulator.ctx, c.candidate)).toBe(
      `Not all pods would schedule, default/${pod.metadata.name} => ${rejected('batch')}; ${rejected('general')} `,
    );
  });

  it('names five pods, then counts the others; finished and terminating pods need no place', () => {
    const c = cluster();
    for (let i = 1; i <= 7; i++) podOn(c, { nodeSelector: { dedicated: 'x' } }, { name: `stuck-${i}` });
    podOn(c, { nodeSelector: { dedicated: 'x' } }, { name: 'done', phase: 'Succeeded' });
    const text = notAllPodsWouldSchedule(c.simulator.ctx, c.candidate)!;
    // Karpenter lists them in its map's order, which Go randomises: five of the seven, then the count.
    expect(text.match(/ => /g)).toHaveLength(5);
    expect(text).toMatch(/^Not all pods would schedule, (default\/stuck-\d => [^>]* ){5} and 2 other\(s\)$/);
  });
});

describe('the disruption pass', () => {
  /** Pins the class to the control plane's AMIs, as a client would, and lets Karpenter run. */
  function drift(c: Cluster, seconds: number): void {
    const built = c.built.nodeClasses[0]!;
    const ids = built.arches.map((arch) => newestRelease(catalog, { family: built.family, kubernetesVersion: '1.30', arch, variant: 'standard' })!.imageId);
    const nodeClass = structuredClone(c.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default')!);
    (nodeClass.spec as { amiSelectorTerms: object[] }).amiSelectorTerms = ids.map((id) => ({ id }));
    c.store.update('ec2nodeclasses.karpenter.k8s.aws', nodeClass);
    for (let i = 0; i < seconds; i++) {
      c.clock.advance(1000);
      c.simulator.pass();
    }
  }
  const blocked = (c: Cluster) => c.simulator.ctx.events.published.filter((e) => e.reason === 'DisruptionBlocked');
  const claimOf = (c: Cluster, node: KubeObject) => c.store.list(NODECLAIMS).find((n) => (n.status as { nodeName?: string }).nodeName === node.metadata.name)!;
  const pinned = (c: Cluster) => podOn(c, { nodeSelector: { 'kubernetes.io/hostname': hostnameOf(c.candidate) } }, { owner: false });

  it('skips the node on Node and NodeClaim, every pass, deduplicated per object for 2 minutes, whatever its terminationGracePeriod', () => {
    const c = cluster({ nodePools: [{ name: 'general', nodeClass: 'default', nodes: 2, arch: ['amd64', 'arm64'], terminationGracePeriod: '1h' }] });
    pinned(c);
    drift(c, 5 * 60);
    const claim = claimOf(c, c.candidate);
    expect(isTrue(claim, 'Drifted')).toBe(true);
    expect(isTrue(claim, 'DisruptionReason')).toBe(false);
    // The other node's replacement and its deletion have their own DisruptionBlocked (Node isn't initialized, Node is
    // deleting or marked for deletion): each object is deduplicated on its own.
    const events = blocked(c).filter((e) => e.name === c.candidate.metadata.name || e.name === claim.metadata.name);
    expect(events.filter((e) => e.kind === 'Node').map((e) => e.name)).toEqual([c.candidate.metadata.name, c.candidate.metadata.name, c.candidate.metadata.name]);
    expect(events.filter((e) => e.kind === 'NodeClaim').map((e) => e.name)).toEqual([claim.metadata.name, claim.metadata.name, claim.metadata.name]);
    expect(events[0]!.message).toMatch(/^Not all pods would schedule, default\/app-\d+ => incompatible with nodepool "general", /);
    // The other node was replaced meanwhile.
    expect(c.store.get('nodes', c.other.metadata.name!)).toBeUndefined();
  });

  it('does not simulate while the NodePool has no budget left', () => {
    const c = cluster({ nodePools: [{ name: 'general', nodeClass: 'default', nodes: 2, arch: ['amd64', 'arm64'], budgets: [{ nodes: '0' }] }] });
    pinned(c);
    drift(c, 5 * 60);
    expect(blocked(c).map((e) => e.kind)).toEqual(['NodePool', 'NodePool', 'NodePool', 'NodePool', 'NodePool']);
    expect(c.simulator.ctx.memory.hostnamePlaceholders).toBe(0);
  });
});
