// Everything plan, upgrade and status read from the cluster, read once: every list paged (list.ts) and all of them
// at the same time, converted to views at the boundary (STYLE.md "Convert at the boundary").
import { setMaxListeners } from 'node:events';
import { UsageError } from '../errors.js';
import type { Cluster } from './client.js';
import { discoverCluster, type Discovery } from './discovery.js';
import { inFlight } from './in-flight.js';
import { listAll } from './list.js';
import { clusterFailure } from './failures.js';
import { ApiError, getJson, type Query } from './request.js';
import { READ_RETRY, retrying, retryOn } from './retry.js';
import { nodeClassView, type ApiObject } from '../karpenter/convert.js';
import { KARPENTER_EVENT_REASONS } from '../karpenter/events.js';
import { EVENTS, karpenterResources, NODES, PDBS, PODS, type Resource } from '../karpenter/resources.js';
import type { DiagnosisReads, EventView, Inventory, KarpenterApi, KarpenterObjects, NodeClaimView, NodeClassView, NodePoolView, NodeView, PdbView, PodView } from '../karpenter/views.js';

export interface InventoryOptions {
  /** Only these EC2NodeClasses (each must exist); NodePools, NodeClaims and the rest are not narrowed. */
  nodeClasses?: string[];
  /**
   * Skips discovery when the caller already has it, or has it under way: the lists that do not depend on the
   * Karpenter API served are asked for meanwhile.
   */
  discovery?: Discovery | Promise<Discovery>;
  signal?: AbortSignal;
  /** Tests: a smaller page than 500 to see paging on a small cluster. */
  pageSize?: number;
}

type List = <V>(r: Resource<V>, query?: Query) => Promise<V[]>;

/** How many pages of a read's lists are on the wire at once (in-flight.ts says why not all of them). */
export const PAGES_IN_FLIGHT = 6;

// Lists at once, paged; one failure (an unknown class name, a 403) stops the others instead of letting them page on.
async function listing<T>(cluster: Cluster, options: { signal?: AbortSignal; pageSize?: number }, read: (list: List) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  setMaxListeners(100, signal); // one abort listener per list waiting or in flight: 16 lists at once
  const pages = inFlight(PAGES_IN_FLIGHT);
  const list: List = async (r, query) =>
    (await listAll(cluster, r, { signal, inFlight: pages, ...(query ? { query } : {}), ...(options.pageSize ? { pageSize: options.pageSize } : {}) })).items;
  try {
    return await read(list);
  } catch (err) {
    stop.abort();
    throw err;
  }
}

// NodePools, PDBs and scheduled pods: what a diagnosis reads besides the kinds the follow watches.
async function listDiagnosisReads(list: List, discovery: Discovery): Promise<[NodePoolView[], PdbView[], PodView[]]> {
  const [nodePools, [pdbs, pods]] = await Promise.all([list(karpenterResources(discovery.karpenterApi).nodePools), listPdbsAndPods(list)]);
  return [nodePools, pdbs, pods];
}

function listPdbsAndPods(list: List): Promise<[PdbView[], PodView[]]> {
  return Promise.all([
    // Pods first of all: their pages, one after another, take longest on a large cluster.
    // One paged list of every scheduled pod, kept when its node is Karpenter's. The alternative, one
    // `fieldSelector=spec.nodeName=<node>` list per node, is 5,000 requests on a 5,000-node cluster, and outside
    // the watch cache each of them makes kube-apiserver read every pod from etcd to filter them. Measured on the
    // sandbox's `large` scenario (50,000 pods, no network latency): 100 pages 1.0–1.9 s, 5,000 per-node lists
    // 1.9–2.7 s at 8 or 32 in flight; with a real round trip of 10–20 ms the per-node way only gets worse.
    list(PODS, { fieldSelector: 'spec.nodeName!=' }),
    list(PDBS),
  ]).then(([pods, pdbs]) => [pdbs, pods]);
}

export async function readInventory(cluster: Cluster, options: InventoryOptions = {}): Promise<Inventory> {
  return readInventoryInParts(cluster, options).whole;
}

/** One read of the inventory, told in two parts: what the AMIs depend on as soon as it is in, then the whole. */
export interface InventoryRead {
  /**
   * Discovery, the EC2NodeClasses (narrowed as asked), NodePools and NodeClaims, once their lists end: on a large
   * cluster long before the pods' pages do, so a plan resolves its AMIs meanwhile. Fails as `whole` does when
   * discovery or one of these lists fails.
   */
  karpenter: Promise<Discovery & KarpenterObjects>;
  whole: Promise<Inventory>;
}

export function readInventoryInParts(cluster: Cluster, options: InventoryOptions = {}): InventoryRead {
  const discovering = options.discovery ?? discoverCluster(cluster, options.signal);
  let tell!: (k: Discovery & KarpenterObjects) => void;
  let fail!: (err: unknown) => void;
  const karpenter = new Promise<Discovery & KarpenterObjects>((resolve, reject) => {
    tell = resolve;
    fail = reject;
  });
  const whole = listing(cluster, options, async (list) => {
    // Nodes, pods, PDBs and events are listed the same whichever Karpenter API the cluster serves: on the wire while
    // discovery answers. Awaited after discovery, so a cluster without Karpenter is said to be one, whatever else fails.
    const core = Promise.all([
      listPdbsAndPods(list),
      list(NODES),
      Promise.all(KARPENTER_EVENT_REASONS.map((reason) => list(EVENTS, { fieldSelector: `reason=${reason}` }))).then((perReason) => perReason.flat()),
    ]);
    core.catch(() => undefined);
    const discovery = await discovering;
    const resources = karpenterResources(discovery.karpenterApi);
    const karpenterLists = Promise.all([
      list(resources.nodeClasses).then((all) => selectNodeClasses(all, options.nodeClasses, cluster.context)),
      list(resources.nodeClaims),
      list(resources.nodePools),
    ]);
    karpenterLists.then(([nodeClasses, nodeClaims, nodePools]) => tell({ ...discovery, nodeClasses, nodePools, nodeClaims }), () => undefined);
    const [[nodeClasses, nodeClaims, nodePools], [[pdbs, pods], nodes, events]] = await Promise.all([karpenterLists, core]);
    return {
      ...discovery,
      nodeClasses,
      nodePools,
      nodeClaims,
      nodes,
      pdbs,
      pods: podsOnKarpenterNodes(pods, nodes, nodeClaims),
      events: newestLast(events),
    };
  });
  // Either part may go unawaited (readInventory awaits only the whole; a caller stopped by the first part's failure
  // never awaits the second): neither may surface as an unhandled rejection, and each still rejects for its awaiter.
  whole.catch(fail);
  karpenter.catch(() => undefined);
  return { karpenter, whole };
}

/**
 * Re-reads only what watches do not keep current (follow and `status --watch` watch NodeClaims, Nodes, EC2NodeClasses
 * and events): three paged lists instead of a whole inventory. `known` says which nodes are Karpenter's.
 */
export async function readDiagnosisReads(
  cluster: Cluster,
  discovery: Discovery,
  known: { nodes: NodeView[]; nodeClaims: NodeClaimView[] },
  signal?: AbortSignal,
): Promise<DiagnosisReads> {
  return listing(cluster, signal ? { signal } : {}, async (list) => {
    const [nodePools, pdbs, pods] = await listDiagnosisReads(list, discovery);
    return { nodePools, pdbs, pods: podsOnKarpenterNodes(pods, known.nodes, known.nodeClaims) };
  });
}

export function selectNodeClasses(all: NodeClassView[], names: string[] | undefined, context: string): NodeClassView[] {
  if (!names) return all;
  const missing = names.filter((n) => !all.some((c) => c.name === n));
  if (missing.length > 0) {
    const existing = all.map((c) => c.name).sort();
    throw new UsageError(
      `no EC2NodeClass ${missing.map((n) => `"${n}"`).join(', ')} in context "${context}"; ${existing.length > 0 ? `its EC2NodeClasses: ${existing.join(', ')}` : 'it has no EC2NodeClasses'}`,
      { hint: 'name existing classes (kubectl get ec2nodeclasses), or check the context (--context)' },
    );
  }
  return all.filter((c) => names.includes(c.name));
}

/** A node is Karpenter's when it carries karpenter.sh/nodepool or a NodeClaim names it. */
export function podsOnKarpenterNodes(pods: PodView[], nodes: NodeView[], nodeClaims: NodeClaimView[]): PodView[] {
  const managed = new Set<string>();
  for (const n of nodes) if (n.nodePool) managed.add(n.name);
  for (const c of nodeClaims) if (c.nodeName) managed.add(c.nodeName);
  return pods.filter((p) => p.nodeName !== undefined && managed.has(p.nodeName));
}

export function newestLast(events: EventView[]): EventView[] {
  const at = (e: EventView) => Date.parse(e.lastTimestamp ?? e.firstTimestamp ?? '') || 0;
  return [...events].sort((a, b) => at(a) - at(b));
}

/** One EC2NodeClass, or undefined when there is none of that name: for a wait on its status, without a full read. */
export async function readNodeClass(cluster: Cluster, api: KarpenterApi, name: string, signal?: AbortSignal): Promise<NodeClassView | undefined> {
  const { path } = karpenterResources(api).nodeClasses;
  try {
    return nodeClassView(await retrying(() => getJson<ApiObject>(cluster, `${path}/${encodeURIComponent(name)}`, {}, signal), retryOn(cluster, READ_RETRY), signal));
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw clusterFailure(err, { doing: `reading ec2nodeclass/${name}`, verb: 'get', resource: 'ec2nodeclasses.karpenter.k8s.aws' }, cluster);
  }
}

/** Up to this many nodes, a health gate lists each node's pods; beyond, one paged list of every scheduled pod. */
const PER_NODE_POD_LISTS = 20;

/**
 * What the health gates read each evaluation (the follow watches NodeClaims and Nodes): NodePools (their
 * NodeRegistrationHealthy), PDBs, and the pods on the replaced nodes. A canary's few nodes cost a few small
 * `spec.nodeName=` lists; a wave of hundreds, one paged list (see listDiagnosisReads for why).
 */
export async function readGateReads(
  cluster: Cluster,
  discovery: Discovery,
  nodeNames: readonly string[],
  signal?: AbortSignal,
): Promise<{ nodePools: NodePoolView[]; pdbs: PdbView[]; pods: PodView[] }> {
  return listing(cluster, signal ? { signal } : {}, async (list) => {
    const wanted = new Set(nodeNames);
    const pods =
      nodeNames.length === 0
        ? Promise.resolve([] as PodView[])
        : nodeNames.length <= PER_NODE_POD_LISTS
          ? Promise.all(nodeNames.map((n) => list(PODS, { fieldSelector: `spec.nodeName=${n}` }))).then((l) => l.flat())
          : list(PODS, { fieldSelector: 'spec.nodeName!=' }).then((all) => all.filter((p) => wanted.has(p.nodeName ?? '')));
    const [nodePools, pdbs, onNodes] = await Promise.all([list(karpenterResources(discovery.karpenterApi).nodePools), list(PDBS), pods]);
    return { nodePools, pdbs, pods: onNodes };
  });
}
