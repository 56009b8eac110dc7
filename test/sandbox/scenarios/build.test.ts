import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { nodePoolView, type ApiObject } from '../../../src/karpenter/convert.js';
import { amiCatalog } from '../../../src/sandbox/aws/catalog.js';
import { imageById, seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import { loadKarpenterCrds } from '../../../src/sandbox/kube-api/crds.js';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { buildCluster } from '../../../src/sandbox/scenarios/build.js';
import { chooseHold } from '../../../src/stages/hold-mechanism.js';
import { loadScenario } from '../../../src/sandbox/scenarios/load.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';

// Scenarios built into an in-process store, as the sandbox builds them before it serves the API.
const NOW = new Date('2026-11-01T12:00:00Z');
const catalog = amiCatalog();

function sandboxStore(api: 'v1' | 'v1beta1' = 'v1'): KubeStore {
  const store = new KubeStore(new ObjectStore(1000), new ResourceRegistry(), () => NOW);
  store.controllers = sandboxControllers();
  for (const name of ['default', 'kube-system']) {
    store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const crd of loadKarpenterCrds(api)) {
    store.create('customresourcedefinitions.apiextensions.k8s.io', structuredClone(crd) as never);
  }
  return store;
}

async function built(name: string, api: 'v1' | 'v1beta1' = 'v1') {
  const store = sandboxStore(api);
  const cluster = buildCluster(loadScenario(name), { store, catalog, now: NOW });
  await Promise.resolve(); // PDB status is written in a microtask
  return { store, cluster };
}

function inline(scenario: Record<string, unknown>, api: 'v1' | 'v1beta1' = 'v1') {
  const store = sandboxStore(api);
  const cluster = buildCluster(
    parseScenario(dump({ name: 'inline', controlPlaneVersion: '1.30', ...scenario }), 'inline'),
    {
      store,
      catalog,
      now: NOW,
    },
  );
  return { store, cluster };
}

// The parts of objects the tests read.
interface ClassSpec {
  amiFamily?: string;
  amiSelectorTerms: Array<Record<string, string>>;
}
interface PoolSpec {
  disruption: { budgets?: unknown[] };
}
interface ClaimSpec {
  terminationGracePeriod?: string;
  nodeClassRef: Record<string, string>;
}
interface ClaimStatus {
  imageID: string;
  providerID: string;
  nodeName: string;
  conditions: Array<{ type: string; status: string; reason: string }>;
}
interface NodeStatus {
  conditions: Array<{ type: string; status: string }>;
  nodeInfo: { kubeletVersion: string };
}
const spec = <T = { providerID?: string; nodeName?: string }>(o: KubeObject | undefined) => o?.spec as T;
const status = <T = ClaimStatus>(o: KubeObject | undefined) => o?.status as T;
const pdbStatuses = (store: KubeStore) =>
  Object.fromEntries(
    store
      .list('poddisruptionbudgets.policy')
      .map((p) => [p.metadata.name ?? '', status<{ disruptionsAllowed: number }>(p).disruptionsAllowed]),
  );

describe('buildCluster', () => {
  it('builds the default scenario: two classes, three pools, 12 nodes and their pods', async () => {
    const { store, cluster } = await built('default');
    expect(store.list('ec2nodeclasses.karpenter.k8s.aws').map((o) => o.metadata.name)).toEqual([
      'bottlerocket',
      'default',
    ]);
    expect(store.list('nodepools.karpenter.sh').map((o) => o.metadata.name)).toEqual(['arm', 'general', 'system']);
    expect(store.list('nodeclaims.karpenter.sh')).toHaveLength(12);
    expect(store.list('nodes')).toHaveLength(12);
    expect(store.list('pods')).toHaveLength(12 + 6 + 6 + 3 + 6);
    expect(cluster.pods).toBe(33);
    expect(store.list('namespaces').map((o) => o.metadata.name)).toEqual([
      'default',
      'ingress',
      'jobs',
      'kube-system',
      'monitoring',
      'shop',
    ]);
    expect(cluster.nodePools.map((p) => [p.name, p.nodeClass, p.nodes.length])).toEqual([
      ['general', 'default', 6],
      ['arm', 'default', 3],
      ['system', 'bottlerocket', 3],
    ]);
    expect(cluster.nodeClasses.map((c) => [c.name, c.family, c.kubernetesVersion, c.arches])).toEqual([
      ['default', 'al2023', '1.29', ['amd64', 'arm64']],
      ['bottlerocket', 'bottlerocket', '1.29', ['amd64', 'arm64']],
    ]);
    expect(cluster.karpenterApi).toBe('v1');
  });

  it('pins each class by id terms plus amiFamily, and runs every node on its class’s AMI for its arch', async () => {
    const { store, cluster } = await built('default');
    const classes = new Map(store.list('ec2nodeclasses.karpenter.k8s.aws').map((c) => [c.metadata.name, c]));
    expect(spec(classes.get('default'))).toMatchObject({
      amiFamily: 'AL2023',
      role: 'KarpenterNodeRole-sandbox',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'sandbox' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'sandbox' } }],
    });
    expect(spec<ClassSpec>(classes.get('bottlerocket')).amiFamily).toBe('Bottlerocket');
    for (const c of cluster.nodeClasses) {
      const terms = spec<ClassSpec>(classes.get(c.name)).amiSelectorTerms;
      expect(terms).toEqual(c.arches.map((a) => ({ id: c.imageIds[a] })));
      for (const arch of c.arches) {
        const newest = seriesReleases(catalog, {
          family: c.family,
          kubernetesVersion: '1.29',
          arch,
          variant: 'standard',
        }).at(-1);
        expect(c.imageIds[arch]).toBe(newest?.imageId);
      }
    }
    for (const claim of store.list('nodeclaims.karpenter.sh')) {
      const labels = claim.metadata.labels ?? {};
      const nodeClass = cluster.nodeClasses.find((c) => c.name === labels['karpenter.k8s.aws/ec2nodeclass']);
      const imageId = status(claim).imageID;
      expect(imageId).toBe(nodeClass?.imageIds[labels['kubernetes.io/arch'] as 'amd64' | 'arm64']);
      expect(spec<ClassSpec>(classes.get(nodeClass?.name ?? '')).amiSelectorTerms).toContainEqual({ id: imageId });
      expect(imageById(catalog, imageId)?.name).toContain('1.29');
    }
  });

  it('leaves NodeClaims launched, registered, initialized and not drifted, each linked to its Ready Node', async () => {
    const { store } = await built('default');
    const nodes = new Map(store.list('nodes').map((n) => [n.metadata.name, n]));
    for (const claim of store.list('nodeclaims.karpenter.sh')) {
      expect(claim.metadata.name).toMatch(/^(general|arm|system)-[a-z0-9]{5}$/);
      const s = status(claim);
      expect(s.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
        ['Launched', 'True', 'Launched'],
        ['Registered', 'True', 'Registered'],
        ['Initialized', 'True', 'Initialized'],
        ['Ready', 'True', 'Ready'],
        ['ConsistentStateFound', 'True', 'ConsistentStateFound'],
      ]);
      expect(s.providerID).toMatch(/^aws:\/\/\/us-west-2[abc]\/i-0[0-9a-f]{16}$/);
      const node = nodes.get(s.nodeName);
      expect(s.nodeName).toMatch(/^ip-10-0-\d+-\d+\.us-west-2\.compute\.internal$/);
      expect(spec(node).providerID).toBe(s.providerID);
      expect(node?.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'NodeClaim',
        name: claim.metadata.name,
        uid: claim.metadata.uid,
      });
      expect(node?.metadata.labels).toMatchObject({
        'karpenter.sh/initialized': 'true',
        'karpenter.sh/registered': 'true',
      });
      expect(status<NodeStatus>(node).conditions).toContainEqual(
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      );
      expect(status<NodeStatus>(node).nodeInfo.kubeletVersion).toMatch(/^v1\.29\./);
    }
  });

  it('spreads pods round-robin over their pool, Running and owned by a ReplicaSet or DaemonSet', async () => {
    const { store, cluster } = await built('default');
    const general = cluster.nodePools.find((p) => p.name === 'general')?.nodes.map((n) => n.nodeName) ?? [];
    const web = store.list('pods', 'shop').filter((p) => p.metadata.labels?.app === 'web');
    expect(web).toHaveLength(12);
    for (const node of general) expect(web.filter((p) => spec(p).nodeName === node)).toHaveLength(2);
    const [first] = web;
    expect(first?.metadata.name).toMatch(/^web-[a-z0-9]{10}-[a-z0-9]{5}$/);
    expect(first?.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: `web-${first?.metadata.labels?.['pod-template-hash']}`,
        controller: true,
      }),
    ]);
    expect(status<unknown>(first)).toMatchObject({ phase: 'Running' });
    expect(status<{ conditions: unknown[] }>(first).conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'True' }),
        expect.objectContaining({ type: 'PodScheduled', status: 'True' }),
      ]),
    );
    const agents = store.list('pods', 'monitoring');
    expect(agents.map((p) => spec(p).nodeName).sort()).toEqual([...general].sort());
    expect(agents[0]?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'DaemonSet', name: 'log-agent' });
  });

  it('pins the unschedulable agent pod to its node by hostname, with no owner', async () => {
    const { store, cluster } = await built('unschedulable');
    const [agent, ...more] = store.list('pods', 'mirrord');
    expect(more).toEqual([]);
    expect(agent?.metadata.name).toMatch(/^mirrord-agent-[a-z0-9]{5}$/);
    expect(agent?.metadata.ownerReferences).toBeUndefined();
    expect(agent?.metadata.labels).toEqual({ app: 'mirrord-agent' });
    const node = store.get('nodes', cluster.nodePools[0]!.nodes[0]!.nodeName);
    expect(spec<{ nodeName: string; nodeSelector: unknown }>(agent)).toMatchObject({
      nodeName: node?.metadata.name,
      nodeSelector: { 'kubernetes.io/hostname': node?.metadata.labels?.['kubernetes.io/hostname'] },
    });
  });

  it('runs nodeSelector pods on the pool nodes that have the labels, selecting their NodePool too, and refuses labels no node has', () => {
    const pool = { name: 'general', nodeClass: 'default', nodes: 3, arch: ['amd64', 'arm64'] };
    const scenario = (nodeSelector: Record<string, string>) => ({
      nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
      nodePools: [pool],
      workloads: [{ name: 'cache', nodePool: 'general', replicas: 4, nodeSelector }],
    });
    const { store } = inline(scenario({ 'kubernetes.io/arch': 'arm64' }));
    const pods = store.list('pods', 'default');
    expect(pods).toHaveLength(4);
    for (const pod of pods) {
      expect(spec<{ nodeSelector: unknown }>(pod).nodeSelector).toEqual({ 'karpenter.sh/nodepool': 'general', 'kubernetes.io/arch': 'arm64' });
      expect(store.get('nodes', spec(pod).nodeName ?? '')?.metadata.labels?.['kubernetes.io/arch']).toBe('arm64');
    }
    expect(() => inline(scenario({ 'topology.kubernetes.io/zone': 'us-west-2d' }))).toThrow(
      'workload default/cache: no node of nodePool "general" has the labels of its nodeSelector (topology.kubernetes.io/zone=us-west-2d)',
    );
  });

  it('has PDBs that allow progress in default, and one that never does in pdb-blocked', async () => {
    expect(pdbStatuses((await built('default')).store)).toEqual({ api: 3, ingress: 1, web: 1, worker: 2 });
    expect(pdbStatuses((await built('pdb-blocked')).store)).toEqual({ ledger: 0, web: 1 });
  });

  it('creates classes, pools and PDBs as kubectl apply does', async () => {
    const { store } = await built('default');
    const applied = [
      ...store.list('ec2nodeclasses.karpenter.k8s.aws'),
      ...store.list('nodepools.karpenter.sh'),
      ...store.list('poddisruptionbudgets.policy'),
    ];
    for (const object of applied) {
      // A PDB's status is the disruption controller's (kube-controller-manager).
      const managers = object.metadata.managedFields?.filter((m) => m.subresource !== 'status');
      expect(managers?.map((m) => [m.manager, m.operation])).toEqual([['kubectl-client-side-apply', 'Update']]);
      const lastApplied = object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '';
      expect(lastApplied.endsWith('}\n')).toBe(true);
      const manifest = JSON.parse(lastApplied) as { metadata: unknown; spec: object };
      expect(manifest.metadata).toEqual({
        annotations: {},
        name: object.metadata.name,
        ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
      });
      expect(object.spec).toMatchObject(manifest.spec);
    }
    const general = store.get('nodepools.karpenter.sh', 'general');
    expect(spec(general)).toMatchObject({
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: expect.arrayContaining([
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ]),
        },
      },
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '0s',
        budgets: [{ nodes: '20%' }],
      },
    });
    // No budgets in the scenario: the CRD default.
    expect(spec<PoolSpec>(store.get('nodepools.karpenter.sh', 'arm')).disruption.budgets).toEqual([{ nodes: '10%' }]);
  });

  it('lets Argo CD own the gitops-owned EC2NodeClass through server-side apply', async () => {
    const { store } = await built('gitops-owned');
    const owned = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default');
    const [entry, ...others] = owned?.metadata.managedFields ?? [];
    expect(others).toEqual([]);
    expect(entry).toMatchObject({
      manager: 'argocd-controller',
      operation: 'Apply',
      apiVersion: 'karpenter.k8s.aws/v1',
    });
    expect((entry?.fieldsV1 as { 'f:spec': Record<string, unknown> })['f:spec']['f:amiSelectorTerms']).toEqual({});
    expect(owned?.metadata.labels).toEqual({ 'app.kubernetes.io/instance': 'karpenter' });
    expect(owned?.metadata.annotations).toEqual({
      'argocd.argoproj.io/tracking-id': 'karpenter:karpenter.k8s.aws/EC2NodeClass:karpenter/default',
    });
    const other = store.get('ec2nodeclasses.karpenter.k8s.aws', 'bottlerocket');
    expect(other?.metadata.managedFields?.[0]?.manager).toBe('kubectl-client-side-apply');
  });

  it('lets Argo CD own the staged NodePool batch’s budgets, so a staged rollout holds its nodes, not its budget', async () => {
    const { store, cluster } = await built('staged');
    expect(cluster.nodePools.map((p) => [p.name, p.nodeClass, p.nodes.length])).toEqual([
      ['canary', 'default', 3],
      ['general', 'default', 24],
      ['batch', 'bottlerocket', 6],
    ]);
    const batch = store.get('nodepools.karpenter.sh', 'batch');
    const [entry, ...others] = batch?.metadata.managedFields ?? [];
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ manager: 'argocd-controller', operation: 'Apply', apiVersion: 'karpenter.sh/v1' });
    const fields = entry?.fieldsV1 as { 'f:spec': { 'f:disruption': Record<string, unknown> } };
    expect(fields['f:spec']['f:disruption']['f:budgets']).toEqual({});
    expect(batch?.metadata.labels).toEqual({ 'app.kubernetes.io/instance': 'karpenter' });
    expect(batch?.metadata.annotations).toEqual({
      'argocd.argoproj.io/tracking-id': 'karpenter:karpenter.sh/NodePool:karpenter/batch',
    });
    expect(spec<PoolSpec>(batch).disruption.budgets).toEqual([{ nodes: '50%' }]);

    const view = (name: string) => nodePoolView(store.get('nodepools.karpenter.sh', name) as ApiObject);
    expect(view('batch').budgetOwners).toEqual([{ manager: 'argocd-controller', operation: 'Apply' }]);
    expect(chooseHold(view('batch'), 'auto', false)).toEqual({
      nodePool: 'batch',
      mechanism: 'node',
      why: 'its budgets are managed by Argo CD (field manager argocd-controller), which would put them back',
    });
    for (const name of ['canary', 'general']) {
      expect(view(name).budgetOwners).toEqual([{ manager: 'kubectl-client-side-apply', operation: 'Update' }]);
      expect(chooseHold(view(name), 'auto', false)).toMatchObject({ nodePool: name, mechanism: 'budget' });
    }
    // No EC2NodeClass is Argo CD's: the upgrade itself is not refused.
    for (const c of store.list('ec2nodeclasses.karpenter.k8s.aws')) {
      expect(c.metadata.managedFields?.map((m) => m.manager)).toEqual(['kubectl-client-side-apply']);
    }
  });

  it('lets Argo CD own no budgets of a NodePool whose manifest has none (the CRD default is nobody’s)', () => {
    const { store } = inline({
      nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
      nodePools: [{ name: 'general', nodeClass: 'default', nodes: 1, fieldManager: 'argocd' }],
    });
    const pool = store.get('nodepools.karpenter.sh', 'general') as ApiObject;
    expect(spec<PoolSpec>(pool as KubeObject).disruption.budgets).toEqual([{ nodes: '10%' }]);
    expect(nodePoolView(pool).budgetOwners).toEqual([]);
    expect(chooseHold(nodePoolView(pool), 'auto', false)).toMatchObject({ mechanism: 'budget' });
  });

  it('marks do-not-disrupt pods and nodes', async () => {
    const { store } = await built('do-not-disrupt');
    const marked = (objects: KubeObject[]) =>
      objects.filter((o) => o.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true');
    const nodes = marked(store.list('nodes'));
    expect(nodes.map((n) => n.metadata.labels?.['karpenter.sh/nodepool'])).toEqual(['general']);
    expect(marked(store.list('pods', 'ml'))).toHaveLength(3);
    expect(marked(store.list('pods', 'default'))).toHaveLength(0);
  });

  it('writes a blocking drift budget for budget-blocked', async () => {
    const { store } = await built('budget-blocked');
    expect(spec<PoolSpec>(store.get('nodepools.karpenter.sh', 'frozen')).disruption.budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'] },
    ]);
  });

  it('names everything from the seed', () => {
    const names = (seed: number) => {
      const { store } = inline({
        seed,
        nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
        nodePools: [{ name: 'general', nodeClass: 'default', nodes: 3 }],
        workloads: [{ name: 'web', nodePool: 'general', replicas: 3 }],
      });
      return [...store.list('nodeclaims.karpenter.sh'), ...store.list('nodes'), ...store.list('pods')].map(
        (o) => o.metadata.name,
      );
    };
    expect(names(1)).toEqual(names(1));
    expect(names(2)).not.toEqual(names(1));
  });

  it('writes alias terms: pinned to the release, or @latest', () => {
    const { store, cluster } = inline({
      nodeClasses: [
        { name: 'pinned', family: 'al2023', kubernetesVersion: '1.30', pin: 'alias' },
        { name: 'floating', family: 'al2023', kubernetesVersion: '1.30', pin: 'alias', release: 'latest' },
        { name: 'bottlerocket', family: 'bottlerocket', kubernetesVersion: '1.30', pin: 'alias' },
      ],
      nodePools: [
        { name: 'a', nodeClass: 'pinned', nodes: 1 },
        { name: 'b', nodeClass: 'floating', nodes: 1 },
        { name: 'c', nodeClass: 'bottlerocket', nodes: 1 },
      ],
    });
    const terms = (name: string) =>
      spec<ClassSpec>(store.get('ec2nodeclasses.karpenter.k8s.aws', name)).amiSelectorTerms;
    const release = (name: string) => cluster.nodeClasses.find((c) => c.name === name)?.release;
    expect(terms('pinned')).toEqual([{ alias: `al2023@${release('pinned')}` }]);
    expect(release('pinned')).toMatch(/^v\d{8}$/);
    expect(terms('floating')).toEqual([{ alias: 'al2023@latest' }]);
    expect(terms('bottlerocket')).toEqual([{ alias: `bottlerocket@v${release('bottlerocket')}` }]);
    expect(spec<ClassSpec>(store.get('ec2nodeclasses.karpenter.k8s.aws', 'pinned')).amiFamily).toBeUndefined();
  });

  it('runs a given release, and names the releases there are when it does not exist', () => {
    const [older] = seriesReleases(catalog, {
      family: 'al2023',
      kubernetesVersion: '1.29',
      arch: 'amd64',
      variant: 'standard',
    });
    const scenario = (release: string) => ({
      nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29', release }],
      nodePools: [{ name: 'general', nodeClass: 'default', nodes: 1 }],
    });
    const { store } = inline(scenario(older?.release ?? ''));
    expect(status(store.list('nodeclaims.karpenter.sh')[0]).imageID).toBe(older?.imageId);
    expect(() => inline(scenario('v20200101'))).toThrow(
      /^nodeClasses\[0\]\.release: the AMI catalog has no al2023 1\.29 amd64 standard release v20200101 \(it has: v\d{8}, /,
    );
  });

  it('launches GPU pools on g5.xlarge with the nvidia AMI, and copies terminationGracePeriod', () => {
    const { store, cluster } = inline({
      nodeClasses: [{ name: 'gpu', family: 'al2023', kubernetesVersion: '1.29' }],
      nodePools: [{ name: 'gpu', nodeClass: 'gpu', nodes: 1, gpu: true, terminationGracePeriod: '24h' }],
    });
    const [claim] = store.list('nodeclaims.karpenter.sh');
    expect(claim?.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('g5.xlarge');
    expect(spec<ClaimSpec>(claim).terminationGracePeriod).toBe('24h');
    const nvidia = seriesReleases(catalog, {
      family: 'al2023',
      kubernetesVersion: '1.29',
      arch: 'amd64',
      variant: 'nvidia',
    }).at(-1);
    expect(status(claim).imageID).toBe(nvidia?.imageId);
    expect(cluster.nodeClasses[0]).toMatchObject({ variant: 'nvidia', imageIds: { amd64: nvidia?.imageId } });
  });

  it('runs a Windows class’s nodes as Windows', () => {
    const { store } = inline({
      nodeClasses: [{ name: 'windows', family: 'windows2022', kubernetesVersion: '1.29' }],
      nodePools: [{ name: 'windows', nodeClass: 'windows', nodes: 1 }],
    });
    expect(spec<ClassSpec>(store.get('ec2nodeclasses.karpenter.k8s.aws', 'windows')).amiFamily).toBe('Windows2022');
    expect(store.list('nodeclaims.karpenter.sh')[0]?.metadata.labels?.['kubernetes.io/os']).toBe('windows');
    const [node] = store.list('nodes');
    expect(node?.metadata.labels?.['kubernetes.io/os']).toBe('windows');
    expect(status<{ nodeInfo: { operatingSystem: string; osImage: string } }>(node).nodeInfo).toMatchObject({
      operatingSystem: 'windows',
      osImage: 'Windows Server 2022 Datacenter',
    });
  });

  it('builds a v1beta1 install for Karpenter 0.37', () => {
    const { store, cluster } = inline(
      {
        karpenterVersion: '0.37.8',
        nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
        nodePools: [
          { name: 'general', nodeClass: 'default', nodes: 2, arch: ['amd64', 'arm64'], budgets: [{ nodes: '1' }] },
        ],
      },
      'v1beta1',
    );
    expect(cluster.karpenterApi).toBe('v1beta1');
    const pool = store.get('nodepools.karpenter.sh', 'general');
    expect(pool?.apiVersion).toBe('karpenter.sh/v1beta1');
    expect(spec(pool)).toMatchObject({
      template: {
        spec: { nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' } },
      },
      disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h', budgets: [{ nodes: '1' }] },
    });
    const claims = store.list('nodeclaims.karpenter.sh');
    expect(claims.map((c) => c.apiVersion)).toEqual(['karpenter.sh/v1beta1', 'karpenter.sh/v1beta1']);
    expect(spec<ClaimSpec>(claims[0]).nodeClassRef).toEqual({
      apiVersion: 'karpenter.k8s.aws/v1beta1',
      kind: 'EC2NodeClass',
      name: 'default',
    });
    expect(status(claims[0]).imageID).toMatch(/^ami-0/);
  });

  it('refuses a store serving another Karpenter API than the scenario installs', () => {
    const scenario = parseScenario(dump({ ...loadScenario('pdb-blocked'), karpenterVersion: '0.37.8' }), 'x');
    expect(() => buildCluster(scenario, { store: sandboxStore('v1'), catalog })).toThrow(
      "the scenario installs the Karpenter v1beta1 API, but the store holds ec2nodeclasses.karpenter.k8s.aws as v1: load loadKarpenterCrds('v1beta1')",
    );
  });
});
