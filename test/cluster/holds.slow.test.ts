// The holds' writes against the sandbox API server: budgets written whole and put back exactly, a change somebody
// made meanwhile folded in (409 → read again), and node holds that never touch the user's own do-not-disrupt.
import { describe, expect, it } from 'vitest';
import { HoldWriteFailed, holdNode, holdWithBudget, readHeldNodePool, releaseBudgetHold, releaseNode } from '../../src/cluster/holds.js';
import { LockLost } from '../../src/cluster/lock.js';
import { LOCKED_RETRY } from '../../src/cluster/retry.js';
import { sendJson } from '../../src/cluster/request.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import type { ManagedFieldsEntry } from '../../src/karpenter/views.js';
import { rawRequest } from '../sandbox/kube-api-sandbox.js';
import { sandboxCluster } from './helpers.js';

const NODEPOOLS = 'nodepools.karpenter.sh';
type Obj = {
  metadata: { annotations?: Record<string, string>; resourceVersion?: string; managedFields?: ManagedFieldsEntry[] };
  spec: { disruption?: { budgets?: Budget[] } };
};
const budgetOwners = (o: Obj) =>
  (o.metadata.managedFields ?? [])
    .filter((m) => JSON.stringify(m.fieldsV1).includes('"f:budgets"'))
    .map((m) => `${m.manager} ${m.operation}`);
const run = { runId: 'r1', now: new Date('2026-11-25T12:00:00Z') };

async function setUp() {
  const { sandbox, cluster } = await sandboxCluster('default');
  const store = sandbox.kube.store;
  const pool = () => store.get(NODEPOOLS, 'general') as unknown as Obj;
  const setBudgets = (budgets: Budget[] | undefined) => {
    const p = structuredClone(pool());
    if (budgets === undefined) delete p.spec.disruption?.budgets;
    else p.spec.disruption = { ...p.spec.disruption, budgets };
    store.update(NODEPOOLS, p as never);
  };
  // Karpenter's status writes: another writer between two of karp-drift's (a new resourceVersion, no spec change).
  const writeStatus = () => {
    const p = pool() as Obj & { status?: Record<string, unknown> };
    store.update(NODEPOOLS, { ...p, status: { ...p.status, nodes: Math.random() } } as never, { subresource: 'status' });
  };
  return { sandbox, cluster, pool, setBudgets, writeStatus };
}

describe('budget holds', () => {
  it('appends a Drifted budget, lowers it, and puts the user list back exactly', async () => {
    const { cluster, pool, setBudgets } = await setUp();
    const applied = pool().metadata.managedFields?.find((m) => m.manager === 'kubectl-client-side-apply');
    const user: Budget[] = [
      { nodes: '20%' },
      {
        nodes: '0',
        schedule: '0 22 * * *',
        duration: '8h',
        reasons: ['Drifted'],
      },
    ];
    setBudgets(user);
    const held = await holdWithBudget(cluster, 'v1', 'general', 0, {
      ...run,
      target: '1.31',
      stageSize: 7,
    });
    expect(held.changed).toBe(true);
    expect(pool().spec.disruption?.budgets).toEqual([...user, { nodes: '0', reasons: ['Drifted'] }]);
    expect(JSON.parse(pool().metadata.annotations!['karp-drift.io/drift-hold']!)).toEqual({
      runId: 'r1',
      since: '2026-11-25T12:00:00.000Z',
      budgets: user,
      target: '1.31',
      stageSize: 7,
      // kubectl apply created the NodePool: its entry owned the budgets, and gets them back on release.
      owners: [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'karpenter.sh/v1', time: applied?.time }],
    });

    expect((await holdWithBudget(cluster, 'v1', 'general', 0, run)).changed).toBe(false);
    // A second run holding the same way (pause twice) changes nothing either, and the record keeps the first run.
    expect((await holdWithBudget(cluster, 'v1', 'general', 0, { ...run, runId: 'r2' })).changed).toBe(false);
    expect((await readHeldNodePool(cluster, 'v1', 'general')).record?.runId).toBe('r1');
    await holdWithBudget(cluster, 'v1', 'general', 2, {
      ...run,
      now: new Date('2026-11-25T12:30:00Z'),
    });
    expect(pool().spec.disruption?.budgets?.at(-1)).toEqual({
      nodes: '2',
      reasons: ['Drifted'],
    });
    expect((await readHeldNodePool(cluster, 'v1', 'general')).record).toMatchObject({
      since: '2026-11-25T12:00:00.000Z',
      stageSize: 7,
    });

    const released = await releaseBudgetHold(cluster, 'v1', 'general');
    expect(released.changed).toBe(true);
    expect(pool().spec.disruption?.budgets).toEqual(user);
    expect(pool().metadata.annotations?.['karp-drift.io/drift-hold']).toBeUndefined();
    expect((await releaseBudgetHold(cluster, 'v1', 'general')).changed).toBe(false);
  });

  it("a run for another target (a rollback taking over an upgrade's holds) never inherits the other's wave sizes", async () => {
    const { cluster } = await setUp();
    await holdWithBudget(cluster, 'v1', 'general', 0, { ...run, target: '1.31', stageSize: 17, poolSize: 12 });
    // The rollback's pacer holds a NodePool whose stage has not begun: no size of its own yet.
    await holdWithBudget(cluster, 'v1', 'general', 0, { ...run, runId: 'r2', target: '1.30' });
    const record = (await readHeldNodePool(cluster, 'v1', 'general')).record;
    expect(record).toMatchObject({ target: '1.30', since: '2026-11-25T12:00:00.000Z' });
    expect(record?.stageSize).toBeUndefined();
    expect(record?.poolSize).toBeUndefined();
    // The same target keeps what it recorded (a soak's rewrite of a stage not begun), and a pause (no target) too.
    await holdWithBudget(cluster, 'v1', 'general', 0, { ...run, target: '1.30', stageSize: 3 });
    await holdWithBudget(cluster, 'v1', 'general', 1, { ...run, target: '1.30' });
    await holdWithBudget(cluster, 'v1', 'general', 0, run);
    expect((await readHeldNodePool(cluster, 'v1', 'general')).record).toMatchObject({ target: '1.30', stageSize: 3 });
  });

  it('folds in a change that lands between its read and its write (409), never clobbering it', async () => {
    const { sandbox, cluster, pool, setBudgets } = await setUp();
    setBudgets([{ nodes: '20%' }]);
    await holdWithBudget(cluster, 'v1', 'general', 0, run);
    // A GitOps sync replaces the list just before karp-drift's next write.
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodepools'] }, () => setBudgets([{ nodes: '5%' }]));
    await holdWithBudget(cluster, 'v1', 'general', 1, run);
    expect(pool().spec.disruption?.budgets).toEqual([{ nodes: '5%' }, { nodes: '1', reasons: ['Drifted'] }]);
    await releaseBudgetHold(cluster, 'v1', 'general');
    expect(pool().spec.disruption?.budgets).toEqual([{ nodes: '5%' }]);
  });

  it('a hand-edited record is an error naming the annotation', async () => {
    const { sandbox, cluster, pool } = await setUp();
    const p = structuredClone(pool());
    p.metadata.annotations = {
      ...p.metadata.annotations,
      'karp-drift.io/drift-hold': 'not json',
    };
    sandbox.kube.store.update(NODEPOOLS, p as never);
    await expect(holdWithBudget(cluster, 'v1', 'general', 0, run)).rejects.toThrow(
      'nodepool/general: annotation karp-drift.io/drift-hold is not JSON',
    );
  });
});

describe('budget holds and field ownership', () => {
  it('gives the budgets back to the manager that set them: managedFields after the release equal those before', async () => {
    const { sandbox, cluster, pool, writeStatus } = await setUp();
    const before = pool().metadata.managedFields;
    expect(budgetOwners(pool())).toEqual(['kubectl-client-side-apply Update']);
    await holdWithBudget(cluster, 'v1', 'general', 0, run);
    expect(budgetOwners(pool())).toEqual(['karp-drift Update']);
    await holdWithBudget(cluster, 'v1', 'general', 2, run);
    // Karpenter writes the NodePool's status between the release's two writes: the second fails its resourceVersion
    // test (422) and is computed again from a fresh read.
    const patches = () => sandbox.kube.requests.filter((r) => r.verb === 'patch' && r.resource === 'nodepools').length;
    const patched = patches();
    sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodepools'] }, () =>
      sandbox.kube.faults.beforeNext({ verbs: ['patch'], resources: ['nodepools'] }, writeStatus),
    );
    await releaseBudgetHold(cluster, 'v1', 'general');
    expect(patches() - patched).toBe(3);
    expect(pool().metadata.managedFields).toEqual(before);
    expect(pool().metadata.managedFields?.some((m) => m.manager === 'karp-drift')).toBe(false);
  });

  it('budgets nobody owns (defaulted under a server-side apply that did not set them) stay nobody\'s', async () => {
    const { cluster, sandbox } = await setUp();
    const spec = structuredClone((sandbox.kube.store.get(NODEPOOLS, 'arm') as unknown as { spec: Obj['spec'] }).spec);
    delete spec.disruption?.budgets;
    const manifest = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'applied' }, spec };
    const applied = await rawRequest(sandbox.kube, 'PATCH', '/apis/karpenter.sh/v1/nodepools/applied?fieldManager=kubectl', {
      body: JSON.stringify(manifest),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(applied.status).toBe(201);
    const pool = () => sandbox.kube.store.get(NODEPOOLS, 'applied') as unknown as Obj;
    const before = pool().metadata.managedFields;
    expect(pool().spec.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    expect(budgetOwners(pool())).toEqual([]);
    await holdWithBudget(cluster, 'v1', 'applied', 0, run);
    expect(budgetOwners(pool())).toEqual(['karp-drift Update']);
    await releaseBudgetHold(cluster, 'v1', 'applied');
    expect(pool().spec.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    expect(pool().metadata.managedFields).toEqual(before);
  });

  it('whoever changed the budgets while they were held owns them afterwards, as they would have without the hold', async () => {
    const { cluster, pool } = await setUp();
    await holdWithBudget(cluster, 'v1', 'general', 0, run);
    // kubectl edit of the first budget, keeping karp-drift's hold last.
    const held = pool();
    await sendJson(
      cluster,
      '/apis/karpenter.sh/v1/nodepools/general',
      {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { spec: { disruption: { budgets: [{ nodes: '30%' }, ...held.spec.disruption!.budgets!.slice(1)] } } },
      },
      { fieldManager: 'kubectl-edit' },
    );
    expect(budgetOwners(pool())).toEqual(['kubectl-edit Update']);
    await holdWithBudget(cluster, 'v1', 'general', 1, run);
    await releaseBudgetHold(cluster, 'v1', 'general');
    expect(pool().spec.disruption?.budgets).toEqual([{ nodes: '30%' }]);
    expect(budgetOwners(pool())).toEqual(['kubectl-edit Update']);
  });
});

describe('node holds', () => {
  it('leave no field karp-drift owns: managedFields after the release equal those before', async () => {
    const { sandbox, cluster } = await setUp();
    const store = sandbox.kube.store;
    // The sandbox's controllers write Nodes without managedFields; a real Node has the kubelet's (and Karpenter's).
    const name = (store.list('nodes')[0] as unknown as { metadata: { name: string } }).metadata.name;
    const node = () => store.get('nodes', name) as unknown as Obj;
    const kubelet: ManagedFieldsEntry = {
      manager: 'kubelet',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-20T09:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/arch': {} } }, 'f:spec': { 'f:providerID': {} } },
    };
    store.update('nodes', { ...node(), metadata: { ...node().metadata, managedFields: [kubelet] } } as never);
    const before = node().metadata.managedFields;
    expect(await holdNode(cluster, name, 'r1')).toBe(true);
    expect(node().metadata.managedFields?.map((m) => m.manager)).toEqual(['kubelet', 'karp-drift']);
    expect(await releaseNode(cluster, name)).toBe(true);
    // Removing both annotations removed them (and the map karp-drift created) from its entry, which went with them.
    expect(node().metadata.annotations).toBeUndefined();
    expect(node().metadata.managedFields).toEqual(before);
  });

  it('holds and releases only its own do-not-disrupt', async () => {
    const { sandbox, cluster } = await setUp();
    const nodes = sandbox.kube.store.list('nodes') as unknown as Array<Obj & { metadata: { name: string } }>;
    const [mine, users] = [nodes[0]!.metadata.name, nodes[1]!.metadata.name];
    const annotations = (name: string) =>
      (sandbox.kube.store.get('nodes', name) as unknown as Obj).metadata.annotations ?? {};
    const u = structuredClone(sandbox.kube.store.get('nodes', users) as unknown as Obj);
    u.metadata.annotations = {
      ...u.metadata.annotations,
      'karpenter.sh/do-not-disrupt': 'true',
    };
    sandbox.kube.store.update('nodes', u as never);

    expect(await holdNode(cluster, mine, 'r1')).toBe(true);
    expect(await holdNode(cluster, mine, 'r1')).toBe(false);
    expect(await holdNode(cluster, users, 'r1')).toBe(false);
    expect(annotations(mine)).toMatchObject({
      'karpenter.sh/do-not-disrupt': 'true',
      'karp-drift.io/held-by': 'r1',
    });

    expect(await releaseNode(cluster, mine)).toBe(true);
    expect(await releaseNode(cluster, users)).toBe(false);
    expect(annotations(mine)['karpenter.sh/do-not-disrupt']).toBeUndefined();
    expect(annotations(mine)['karp-drift.io/held-by']).toBeUndefined();
    expect(annotations(users)['karpenter.sh/do-not-disrupt']).toBe('true');
    expect(await releaseNode(cluster, 'gone-already')).toBe(false);
  });
});

// Issue 35 item 7: an API server gone for a moment while a staged run writes a hold. Under the run's cluster lock
// (`Cluster.lease`, set by commands/hold-shared.ts) the write is tried again until it lands or the lock lapses; a
// one-shot command (pause, resume: no lease) says at once that it cannot reach the API server.
describe('a hold write the API server refuses for a moment', () => {
  it("under a staged run's lock: it lands once the API server is back", async () => {
    const { sandbox, cluster, pool } = await setUp();
    cluster.lease = { retry: LOCKED_RETRY, lost: new AbortController().signal };
    await sandbox.kube.outage('refuse');
    setTimeout(() => void sandbox.kube.restore(), 2_000);
    const started = Date.now();
    const r = await holdWithBudget(cluster, 'v1', 'general', 0, run);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(r.changed).toBe(true);
    expect(pool().spec.disruption?.budgets?.at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
  });

  it('under a lock that lapses meanwhile: it stops there, with the lock as the reason, and writes nothing after', async () => {
    const { sandbox, cluster, pool } = await setUp();
    const lost = new AbortController();
    cluster.lease = { retry: LOCKED_RETRY, lost: lost.signal };
    const before = pool().metadata.resourceVersion;
    await sandbox.kube.outage('refuse');
    const lapse = new LockLost('could not renew the cluster lock (lease kube-system/karp-drift) for 30 s');
    setTimeout(() => lost.abort(lapse), 1_000);
    setTimeout(() => void sandbox.kube.restore(), 1_500);
    const err = await holdWithBudget(cluster, 'v1', 'general', 0, run).catch((e: unknown) => e);
    expect(err).toBe(lapse);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(pool().metadata.resourceVersion).toBe(before);
  });

  it("in a one-shot command (no lock lease): refused at once, in karp-drift's words", async () => {
    const { sandbox, cluster } = await setUp();
    await sandbox.kube.outage('refuse');
    const started = Date.now();
    const err = await holdWithBudget(cluster, 'v1', 'general', 0, run).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(HoldWriteFailed);
    expect((err as Error).message).toMatch(/^cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "[^"]+"\): connect ECONNREFUSED/);
    await sandbox.kube.restore();
  });
});
