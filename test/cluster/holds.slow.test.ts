// The holds' writes against the sandbox API server: budgets written whole and put back exactly, a change somebody
// made meanwhile folded in (409 → read again), and node holds that never touch the user's own do-not-disrupt.
import { describe, expect, it } from 'vitest';
import { holdNode, holdWithBudget, readHeldNodePool, releaseBudgetHold, releaseNode } from '../../src/cluster/holds.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { sandboxCluster } from './helpers.js';

const NODEPOOLS = 'nodepools.karpenter.sh';
type Obj = {
  metadata: { annotations?: Record<string, string>; resourceVersion?: string };
  spec: { disruption?: { budgets?: Budget[] } };
};
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
  return { sandbox, cluster, pool, setBudgets };
}

describe('budget holds', () => {
  it('appends a Drifted budget, lowers it, and puts the user list back exactly', async () => {
    const { cluster, pool, setBudgets } = await setUp();
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

describe('node holds', () => {
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
