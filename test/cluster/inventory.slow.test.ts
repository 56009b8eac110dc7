// readInventory against the sandbox: what is read, that every list pages, and the errors a person meets first.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { discoverCluster, type Discovery } from '../../src/cluster/discovery.js';
import { PAGES_IN_FLIGHT, readInventory, readInventoryInParts } from '../../src/cluster/inventory.js';
import { RuntimeFailure, UsageError } from '../../src/errors.js';
import { pinToControlPlane, run } from '../sandbox/karpenter/harness.js';
import { receivedUrls, sandboxCluster, until } from './helpers.js';

describe('readInventory', () => {
  it('reads the default scenario: 2 classes, 3 pools, 12 NodeClaims and Nodes, 4 PDBs, pods on Karpenter nodes only', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    // A node Karpenter does not manage (a managed node group's), a pod on it, and a pod not scheduled anywhere.
    sandbox.kube.store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-9-9.ec2.internal', labels: { 'eks.amazonaws.com/nodegroup': 'ng' } } });
    for (const [name, nodeName] of [['on-mng', 'ip-10-0-9-9.ec2.internal'], ['pending', undefined]] as const) {
      sandbox.kube.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
      });
    }
    const inventory = await readInventory(cluster);
    expect(inventory.karpenterApi).toBe('v1');
    expect(inventory.controlPlane.minor).toBe('1.30');
    expect(inventory.nodeClasses.map((c) => c.name).sort()).toEqual(['bottlerocket', 'default']);
    expect(inventory.nodePools.map((p) => p.name).sort()).toEqual(['arm', 'general', 'system']);
    expect(inventory.nodeClaims).toHaveLength(12);
    expect(inventory.nodes).toHaveLength(13);
    expect(inventory.nodes.filter((n) => n.nodePool)).toHaveLength(12);
    expect(inventory.pdbs.map((p) => `${p.namespace}/${p.name}`).sort()).toEqual(['ingress/ingress', 'jobs/worker', 'shop/api', 'shop/web']);
    const managed = new Set(inventory.nodeClaims.map((c) => c.nodeName));
    const storedPods = sandbox.kube.store.list('pods');
    expect(inventory.pods.length).toBe(storedPods.length - 2);
    expect(inventory.pods.every((p) => p.nodeName !== undefined && managed.has(p.nodeName))).toBe(true);
    expect(inventory.pods.some((p) => p.daemonSet)).toBe(true);
    expect(inventory.events).toEqual([]);
  });

  it('tells the classes, NodePools and NodeClaims while the pods are still being listed, then the whole', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    // The pods' list answers 1.5 s late: the first part must not wait for it.
    sandbox.kube.faults.delay(1_500, { verbs: ['list'], resources: ['pods'] });
    const started = Date.now();
    const reading = readInventoryInParts(cluster);
    const karpenter = await reading.karpenter;
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(karpenter.karpenterApi).toBe('v1');
    expect(karpenter.nodeClasses.map((c) => c.name).sort()).toEqual(['bottlerocket', 'default']);
    expect(karpenter.nodePools.map((p) => p.name).sort()).toEqual(['arm', 'general', 'system']);
    expect(karpenter.nodeClaims).toHaveLength(12);
    const whole = await reading.whole;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(whole.nodeClaims).toEqual(karpenter.nodeClaims);
    expect(whole.pods.length).toBeGreaterThan(0);
  });

  it('fails the first part when a list it needs fails (as the whole does), and not when only the pods fail', async () => {
    const noKarpenter = await sandboxCluster('default');
    noKarpenter.sandbox.kube.faults.forbid({ resources: ['ec2nodeclasses'] });
    const refused = readInventoryInParts(noKarpenter.cluster);
    await expect(refused.karpenter).rejects.toThrow(/ec2nodeclasses/i);
    await expect(refused.whole).rejects.toThrow(/ec2nodeclasses/i);

    const { sandbox, cluster } = await sandboxCluster('default');
    sandbox.kube.faults.delay(500, { verbs: ['list'], resources: ['pods'] });
    sandbox.kube.faults.forbid({ verbs: ['list'], resources: ['pods'] });
    const reading = readInventoryInParts(cluster);
    expect((await reading.karpenter).nodeClasses).toHaveLength(2);
    await expect(reading.whole).rejects.toBeInstanceOf(RuntimeFailure);
  });

  it("reads Karpenter's events of a rollout, newest last", async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    await pinToControlPlane(sandbox, 'default');
    run(sandbox, 180);
    const { events } = await readInventory(cluster);
    const reasons = new Set(events.map((e) => e.reason));
    expect(reasons).toContain('DisruptionLaunching');
    expect(reasons).toContain('DisruptionTerminating');
    const times = events.map((e) => Date.parse(e.lastTimestamp ?? ''));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('reads only the EC2NodeClasses named, and names the existing ones for a class that does not exist', async () => {
    const { cluster } = await sandboxCluster('default');
    const inventory = await readInventory(cluster, { nodeClasses: ['bottlerocket'] });
    expect(inventory.nodeClasses.map((c) => c.name)).toEqual(['bottlerocket']);
    expect(inventory.nodePools).toHaveLength(3); // the caller narrows pools by nodeClass
    const err = await readInventory(cluster, { nodeClasses: ['default', 'gpu'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('no EC2NodeClass "gpu" in context "karp-drift-sandbox-default"; its EC2NodeClasses: bottlerocket, default');
  });

  it('pages every list with limit and continue', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const urls = receivedUrls(sandbox);
    const inventory = await readInventory(cluster, { pageSize: 5 });
    expect(inventory.nodeClaims).toHaveLength(12);
    const lists = urls.filter((u) => !u.pathname.startsWith('/version') && u.pathname !== '/apis');
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((u) => u.searchParams.get('limit') === '5')).toBe(true);
    const claimPages = lists.filter((u) => u.pathname === '/apis/karpenter.sh/v1/nodeclaims');
    expect(claimPages.map((u) => u.searchParams.has('continue'))).toEqual([false, true, true]);
  });

  it('reads the large scenario (5,000 nodes, 50,000 pods) in pages of 500', async () => {
    const { sandbox, cluster } = await sandboxCluster('large');
    const urls = receivedUrls(sandbox);
    const started = performance.now();
    const inventory = await readInventory(cluster);
    const ms = performance.now() - started;
    expect(inventory.nodes).toHaveLength(5000);
    expect(inventory.nodeClaims).toHaveLength(5000);
    expect(inventory.pods).toHaveLength(50_000);
    const podPages = urls.filter((u) => u.pathname === '/api/v1/pods');
    expect(podPages).toHaveLength(100);
    expect(podPages.every((u) => u.searchParams.get('limit') === '500')).toBe(true);
    expect(podPages.filter((u) => u.searchParams.has('continue'))).toHaveLength(99);
    expect(sandbox.kube.requests.filter((r) => r.resource === 'pods').every((r) => r.verb === 'list' && r.code === 200)).toBe(true);
    console.log(`large: inventory in ${Math.round(ms)} ms over ${urls.length} requests`);
  });

  it('retries 500s and 429s on the way, and names the verb and resource of an RBAC refusal', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    sandbox.kube.faults.fail({ code: 500, next: 3 });
    sandbox.kube.faults.fail({ code: 429, next: 2, retryAfterSeconds: 0 });
    expect((await readInventory(cluster, { pageSize: 5 })).nodeClaims).toHaveLength(12);
    sandbox.kube.faults.forbid({ verbs: ['list'], resources: ['nodeclaims'] });
    const err = await readInventory(cluster).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect((err as RuntimeFailure).message).toMatch(/^listing NodeClaims: forbidden \(403\) by the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\): .*cannot list resource "nodeclaims"/);
    expect((err as RuntimeFailure).hint).toBe('grant the identity "list" on nodeclaims.karpenter.sh (docs/rbac-and-iam.md lists what karp-drift needs)');
  });

  it('lists nodes, pods, PDBs and events while discovery answers, and the Karpenter kinds once it has', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const urls = receivedUrls(sandbox);
    let answer: (d: Discovery) => void = () => undefined;
    const discovery = new Promise<Discovery>((resolve) => (answer = resolve));
    const reading = readInventory(cluster, { discovery });
    const core = ['/api/v1/nodes', '/api/v1/pods', '/apis/policy/v1/poddisruptionbudgets', '/api/v1/events'];
    await until(() => core.every((path) => urls.some((u) => u.pathname === path)), 'the lists that need no discovery');
    expect(urls.filter((u) => u.pathname.startsWith('/apis/karpenter'))).toEqual([]);
    answer(await discoverCluster(cluster));
    const inventory = await reading;
    expect(inventory.nodeClaims).toHaveLength(12);
    expect(urls.filter((u) => u.pathname.startsWith('/apis/karpenter')).map((u) => u.pathname).sort()).toEqual([
      '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
      '/apis/karpenter.sh/v1/nodeclaims',
      '/apis/karpenter.sh/v1/nodepools',
    ]);
  });

  it('says a cluster without Karpenter is one, whatever the lists it started meanwhile met', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    sandbox.kube.faults.forbid({ verbs: ['list'], resources: ['pods'] });
    const err = await readInventory(cluster, { discovery: Promise.reject(new UsageError('no Karpenter CRDs')) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('no Karpenter CRDs');
  });

  it(`reads its 16 lists over at most ${PAGES_IN_FLIGHT} connections, each a TLS handshake`, async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const port = Number(new URL(sandbox.kube.url).port);
    const connections = new Set<number>();
    const started = (message: unknown) => {
      const { request } = message as { request: IncomingMessage };
      if (request.socket.localPort === port && /^\/api(s\/[^/]+)?\/v1\//.test(request.url ?? '')) connections.add(request.socket.remotePort ?? 0);
    };
    subscribe('http.server.request.start', started);
    onTestFinished(() => void unsubscribe('http.server.request.start', started));
    const inventory = await readInventory(cluster, { discovery: await discoverCluster(cluster) });
    expect(inventory.nodeClaims).toHaveLength(12);
    expect(connections.size).toBeGreaterThan(1);
    expect(connections.size).toBeLessThanOrEqual(PAGES_IN_FLIGHT);
  });
});
