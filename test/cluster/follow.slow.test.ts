// followCluster against the sandbox: watches from a listed resourceVersion, resumed after a cut, relisted after 410,
// retried through 500s, given up on with what was last known, and closed by the AbortSignal.
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/cluster/client.js';
import { followCluster, type ClusterChange, type FollowOptions } from '../../src/cluster/follow.js';
import { RuntimeFailure, type KarpDriftError } from '../../src/errors.js';
import { applyChange, emptySnapshot } from '../../src/rollout/snapshot.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { NODECLAIMS, pinToControlPlane, run } from '../sandbox/karpenter/harness.js';
import { receivedUrls, sandboxCluster, tick, until } from './helpers.js';

type Kind = 'NodeClaim' | 'Node' | 'EC2NodeClass' | 'Event';

/** A consumer as the rollout tracker will be: `synced` replaces a kind's set, changes update it by uid. */
function follow(cluster: Cluster, extra: Partial<FollowOptions> = {}) {
  const controller = new AbortController();
  const changes: ClusterChange[] = [];
  const errors: KarpDriftError[] = [];
  const model: Record<Kind, Map<string, { name: string; resourceVersion?: string }>> = {
    NodeClaim: new Map(),
    Node: new Map(),
    EC2NodeClass: new Map(),
    Event: new Map(),
  };
  const done = followCluster(cluster, {
    karpenterApi: 'v1',
    signal: controller.signal,
    onChange: (c) => {
      changes.push(c);
      if (c.type === 'synced') model[c.kind] = new Map(c.items.map((v) => [v.uid, { name: 'name' in v ? v.name : v.uid, ...('resourceVersion' in v ? { resourceVersion: v.resourceVersion } : {}) }]));
      else if (c.type === 'DELETED') model[c.kind].delete(c.view.uid);
      else model[c.kind].set(c.view.uid, { name: 'name' in c.view ? c.view.name : c.view.uid, ...('resourceVersion' in c.view ? { resourceVersion: c.view.resourceVersion } : {}) });
    },
    onError: (e) => errors.push(e),
    ...extra,
  });
  const synced = (kind: Kind) => changes.filter((c) => c.type === 'synced' && c.kind === kind).length;
  const allSynced = () => until(() => (['NodeClaim', 'Node', 'EC2NodeClass', 'Event'] as const).every((k) => synced(k) > 0), 'the first synced of every kind');
  return { controller, changes, errors, model, done, synced, allSynced };
}

/** Simulated seconds, yielding to the event loop between passes so watch data flows. */
async function simulate(sandbox: Parameters<typeof run>[0], seconds: number, stopWhen: () => boolean = () => false): Promise<void> {
  for (let i = 0; i < seconds && !stopWhen(); i++) {
    run(sandbox, 1);
    await tick();
  }
}

const drifted = (c: ClusterChange) => c.kind === 'NodeClaim' && c.type === 'MODIFIED' && c.view.conditions.Drifted?.status === 'True';
const deletedClaim = (c: ClusterChange) => c.kind === 'NodeClaim' && c.type === 'DELETED';
const storeState = (sandbox: Sandbox, resource: string) =>
  new Map(sandbox.kube.store.list(resource).map((o) => [o.metadata.uid ?? '', { name: o.metadata.name ?? '', resourceVersion: o.metadata.resourceVersion }]));

describe('followCluster', () => {
  it('delivers the full sets, then the drift of a pinned class: NodeClaims Drifted, replacements, deletions, events', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const f = follow(cluster);
    await f.allSynced();
    expect(f.model.NodeClaim.size).toBe(12);
    expect(f.model.Node.size).toBe(12);
    expect(f.model.EC2NodeClass.size).toBe(2);
    await pinToControlPlane(sandbox, 'default');
    await simulate(sandbox, 900, () => f.changes.some(deletedClaim) && f.changes.some(drifted));
    await until(() => f.changes.some(deletedClaim), 'a NodeClaim DELETED');
    expect(f.changes.some(drifted)).toBe(true);
    expect(f.changes.some((c) => c.kind === 'EC2NodeClass' && c.type === 'MODIFIED')).toBe(true);
    expect(f.changes.some((c) => c.kind === 'Event' && c.type === 'ADDED' && c.view.reason === 'DisruptionLaunching')).toBe(true);
    await tick();
    await until(() => sameState(f.model.NodeClaim, storeState(sandbox, NODECLAIMS)), 'the followed NodeClaims to match the store');
    f.controller.abort();
    await f.done;
    expect(f.errors).toEqual([]);
  });

  it('resumes a dropped watch from the last resourceVersion, without listing again', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const urls = receivedUrls(sandbox);
    const f = follow(cluster);
    await f.allSynced();
    await until(() => urls.filter(isWatch('/apis/karpenter.sh/v1/nodeclaims')).length === 1, 'the NodeClaim watch');
    const first = urls.filter(isWatch('/apis/karpenter.sh/v1/nodeclaims'))[0]!;
    expect(first.searchParams.get('allowWatchBookmarks')).toBe('true');
    await pinToControlPlane(sandbox, 'default');
    await simulate(sandbox, 60, () => f.changes.some(drifted));
    await until(() => f.changes.some(drifted), 'a NodeClaim Drifted');
    const seenBefore = f.changes.length;
    const requestsBefore = sandbox.kube.requests.length;
    sandbox.kube.faults.dropWatches();
    await until(() => urls.filter(isWatch('/apis/karpenter.sh/v1/nodeclaims')).length === 2, 'the NodeClaim watch to be re-established');
    const resumed = urls.filter(isWatch('/apis/karpenter.sh/v1/nodeclaims'))[1]!;
    expect(Number(resumed.searchParams.get('resourceVersion'))).toBeGreaterThan(Number(first.searchParams.get('resourceVersion')));
    const after = sandbox.kube.requests.slice(requestsBefore);
    expect(after.filter((r) => r.verb === 'list')).toEqual([]);
    expect(after.filter((r) => r.verb === 'watch' && r.resource === 'nodeclaims')).toHaveLength(1);
    // Changes made after the drop still arrive, and nothing is delivered twice as a new full set.
    await simulate(sandbox, 300, () => f.changes.slice(seenBefore).some(deletedClaim));
    await until(() => f.changes.slice(seenBefore).some(deletedClaim), 'a NodeClaim DELETED after the drop');
    expect(f.synced('NodeClaim')).toBe(1);
    f.controller.abort();
    await f.done;
  });

  it('lists again and emits synced when the history is gone (410 Expired)', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const f = follow(cluster);
    await f.allSynced();
    await pinToControlPlane(sandbox, 'default'); // moves the store's resourceVersion past every watch's
    await tick();
    const requestsBefore = sandbox.kube.requests.length;
    sandbox.kube.store.objects.compact();
    sandbox.kube.faults.dropWatches();
    await until(() => f.synced('NodeClaim') === 2 && f.synced('Node') === 2, 'a second synced of NodeClaims and Nodes');
    const after = sandbox.kube.requests.slice(requestsBefore);
    expect(after.some((r) => r.verb === 'list' && r.resource === 'nodeclaims')).toBe(true);
    const last = f.changes.filter((c) => c.type === 'synced' && c.kind === 'NodeClaim').at(-1);
    expect(last?.type === 'synced' && last.items).toHaveLength(12);
    f.controller.abort();
    await f.done;
    expect(f.errors).toEqual([]);
  });

  it('relists after a watch closed with 410 (a watcher that fell behind), dropping what vanished meanwhile and keeping the baseline', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    let snapshot = emptySnapshot();
    const f = follow(cluster);
    await f.allSynced();
    for (const c of f.changes) snapshot = applyChange(snapshot, c);
    const baseline = new Map(snapshot.baseline);
    expect(baseline.size).toBe(12);
    const folded = f.changes.length;
    // The watches end with ERROR 410; a NodeClaim then goes while no watch is open, so only a relist can tell.
    sandbox.kube.faults.expireWatches();
    const gone = sandbox.kube.store.list(NODECLAIMS)[0]!;
    sandbox.kube.store.delete(NODECLAIMS, gone.metadata.name ?? '');
    const marked = sandbox.kube.store.get(NODECLAIMS, gone.metadata.name ?? '')!;
    sandbox.kube.store.update(NODECLAIMS, { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
    await until(() => f.synced('NodeClaim') === 2, 'a second synced of NodeClaims');
    for (const c of f.changes.slice(folded)) snapshot = applyChange(snapshot, c);
    expect(f.changes.slice(folded).some((c) => c.kind === 'NodeClaim' && c.type === 'DELETED')).toBe(false);
    expect([...snapshot.nodeClaims.keys()]).not.toContain(gone.metadata.name);
    expect(snapshot.nodeClaims.size).toBe(11);
    expect(snapshot.baseline).toEqual(baseline);
    f.controller.abort();
    await f.done;
    expect(f.errors).toEqual([]);
  });

  it('converges through 30% of requests failing with 500 and watches dropped', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    await pinToControlPlane(sandbox, 'default');
    sandbox.kube.faults.fail({ code: 500, rate: 0.3 });
    // Short backoffs: the test is about converging, and a loaded CI machine should not turn it into a wait.
    const f = follow(cluster, { pageSize: 5, retry: { baseMs: 20, capMs: 500, budgetMs: 60_000, connectErrors: true } });
    await f.allSynced();
    for (let round = 0; round < 6; round++) {
      await simulate(sandbox, 60);
      sandbox.kube.faults.dropWatches();
    }
    expect(sandbox.kube.requests.some((r) => r.code === 500)).toBe(true);
    await until(() => sameState(f.model.NodeClaim, storeState(sandbox, NODECLAIMS)) && sameState(f.model.Node, storeState(sandbox, 'nodes')), 'the followed state to match the store');
    expect(f.changes.some(deletedClaim)).toBe(true);
    f.controller.abort();
    await f.done;
    expect(f.errors).toEqual([]);
  });

  it('gives up after the retry budget with what it last knew, and at once on a 403', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const f = follow(cluster, { retry: { baseMs: 10, capMs: 50, budgetMs: 300, connectErrors: true } });
    await f.allSynced();
    sandbox.kube.faults.fail({ code: 500, rate: 1 });
    sandbox.kube.faults.dropWatches();
    await f.done;
    expect(f.errors).toHaveLength(1);
    const err = f.errors[0]!;
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect(err.message).toMatch(/^following the cluster stopped: watching \w+ at the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\) failed: HTTP 500 InternalError/);
    expect(err.message).toMatch(/\(kept failing for \d+ s\); last known: NodeClaim 12 at resourceVersion \d+, Node 12 at resourceVersion \d+, EC2NodeClass 2 at resourceVersion \d+, Event 0 at resourceVersion \d+$/);

    sandbox.kube.faults.clear();
    const g = follow(cluster);
    await g.allSynced();
    sandbox.kube.faults.forbid({ verbs: ['watch'], resources: ['nodes'] });
    sandbox.kube.faults.dropWatches();
    await g.done;
    expect(g.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^following the cluster stopped: watching Nodes: forbidden \(403\) by the Kubernetes API/)]);
    expect(g.errors[0]?.hint).toBe('grant the identity "watch" on nodes (docs/rbac-and-iam.md lists what karp-drift needs)');
  });

  it('closes every watch and timer when the signal aborts', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const f = follow(cluster);
    await f.allSynced();
    // Some streams wait out a 30-second Retry-After, the others have their watches open.
    sandbox.kube.faults.fail({ code: 429, next: 3, retryAfterSeconds: 30 });
    sandbox.kube.faults.dropWatches();
    await until(() => sandbox.kube.requests.filter((r) => r.code === 429).length === 3, 'three 429 answers');
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeGreaterThan(timersBefore);
    // Let the re-opened watches arrive, so that what reaches the server after the abort can only be a leak.
    for (let seen = -1; seen !== sandbox.kube.requests.length; ) {
      seen = sandbox.kube.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = performance.now();
    f.controller.abort();
    await f.done;
    expect(performance.now() - started).toBeLessThan(500);
    // The server's own per-watch timers (timeoutSeconds) go when it sees the sockets close, a moment later; a
    // leaked 30-second backoff would still be there.
    await until(() => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= timersBefore, 'the timers to go', 1000);
    const requests = sandbox.kube.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sandbox.kube.requests.slice(requests)).toEqual([]);
  });
});

const isWatch = (path: string) => (u: URL) => u.pathname === path && u.searchParams.get('watch') === '1';

function sameState(a: Map<string, { name: string; resourceVersion?: string }>, b: Map<string, { name: string; resourceVersion?: string }>): boolean {
  return a.size === b.size && [...a].every(([uid, v]) => b.get(uid)?.resourceVersion === v.resourceVersion);
}
