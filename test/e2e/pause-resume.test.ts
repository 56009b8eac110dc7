// pause and resume through the built CLI against the sandbox, as a person or a CI job runs them.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Budget } from '../../src/karpenter/budgets.js';
import type { ManagedFieldsEntry } from '../../src/karpenter/views.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { rawRequest } from '../sandbox/kube-api-sandbox.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

type Obj = {
  metadata: {
    name: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    managedFields?: ManagedFieldsEntry[];
  };
  spec: { disruption?: { budgets?: Budget[] } };
};

const ownsBudgets = (m: ManagedFieldsEntry) => JSON.stringify(m.fieldsV1 ?? {}).includes('"f:budgets"');
/**
 * The entries of the NodePool's spec and metadata. Karpenter's own status entry is left out: its registrationhealth
 * controller writes the NodePool's status on every generation change (NodeRegistrationHealthy back to Unknown), so the
 * entry's time moves with each budget write, as it does on a real cluster.
 */
const specEntries = (fields: ManagedFieldsEntry[] | undefined) =>
  (fields ?? []).filter((m) => !(m.manager === 'karpenter' && m.subresource === 'status'));

/** `kubectl apply --server-side` of a NodePool over HTTP, as kubectl sends it: manager `kubectl`, force only if asked. */
async function kubectlApply(sandbox: Sandbox, manifest: object, force = false) {
  const name = (manifest as Obj).metadata.name;
  const query = `fieldManager=kubectl${force ? '&force=true' : ''}`;
  const res = await rawRequest(sandbox.kube, 'PATCH', `/apis/karpenter.sh/v1/nodepools/${name}?${query}`, {
    body: JSON.stringify(manifest),
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  return { status: res.status, body: JSON.parse(res.body) as Obj & { message?: string } };
}

describe('pause and resume', () => {
  it('holds every NodePool, records it on them, and puts back exactly what was there', async () => {
    const sandbox = await scenario('default');
    const pools = () => sandbox.kube.store.list('nodepools.karpenter.sh') as unknown as Obj[];
    const before = Object.fromEntries(pools().map((p) => [p.metadata.name, p.spec.disruption?.budgets]));
    expect(before.general).toEqual([{ nodes: '20%' }]);

    const paused = await karpDrift(sandbox, ['pause']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain(
      'nodepool/general paused: budget {nodes: "0", reasons: [Drifted]} added (no GitOps or IaC tool manages its budgets)',
    );
    expect(paused.stdout).toContain('no new one starts until: karp-drift resume');
    for (const p of pools()) {
      expect(p.spec.disruption?.budgets?.at(-1)).toEqual({ nodes: '0', reasons: ['Drifted'] });
      expect(JSON.parse(p.metadata.annotations!['karp-drift.io/drift-hold']!)).toMatchObject({
        budgets: before[p.metadata.name],
      });
    }
    const events = (
      sandbox.kube.store.list('events', 'default') as unknown as Array<{
        reason: string;
        involvedObject: { kind: string; name: string };
        source?: { component?: string };
      }>
    ).filter((e) => e.reason === 'StagedRolloutPaused');
    expect(
      events.map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.source?.component}`).sort(),
    ).toEqual(['NodePool/arm karp-drift', 'NodePool/general karp-drift', 'NodePool/system karp-drift']);
    // The lock was given up at the end: the next run takes it at once.
    expect(
      (
        sandbox.kube.store.get('leases.coordination.k8s.io', 'karp-drift', 'kube-system') as unknown as {
          spec: { holderIdentity: string };
        }
      ).spec.holderIdentity,
    ).toBe('');

    const resumed = await karpDrift(sandbox, ['resume', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ action: 'resumed', lock: 'kube-system/karp-drift' });
    for (const p of pools()) {
      expect(p.spec.disruption?.budgets).toEqual(before[p.metadata.name]);
      expect(p.metadata.annotations?.['karp-drift.io/drift-hold']).toBeUndefined();
    }
  });

  it('gives the budgets back to the managers that owned them: managedFields after resume equal those before', async () => {
    const sandbox = await scenario('default');
    const pools = () => sandbox.kube.store.list('nodepools.karpenter.sh') as unknown as Obj[];
    const pool = (name: string) => pools().find((p) => p.metadata.name === name)!;
    // The platform team moved general to server-side apply with a new budget (`kubectl apply --server-side
    // --force-conflicts`), so the `kubectl` manager alone owns its budgets (arm and system stay
    // kubectl-client-side-apply's, the scenario's).
    const { metadata } = pool('general');
    const spec = { ...pool('general').spec, disruption: { ...pool('general').spec.disruption, budgets: [{ nodes: '25%' }] } };
    const manifest = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: metadata.name }, spec };
    expect((await kubectlApply(sandbox, manifest, true)).status).toBe(200);
    const before = Object.fromEntries(pools().map((p) => [p.metadata.name, specEntries(p.metadata.managedFields)]));
    expect(before.general!.filter(ownsBudgets).map((m) => `${m.manager} ${m.operation}`)).toEqual(['kubectl Apply']);

    const paused = await karpDrift(sandbox, ['pause']);
    expect(paused.code, paused.stderr).toBe(0);
    // Holding writes the budgets, and every write takes what it changes: karp-drift owns them while it holds them.
    for (const p of pools()) expect(p.metadata.managedFields?.filter(ownsBudgets).map((m) => m.manager)).toEqual(['karp-drift']);

    const resumed = await karpDrift(sandbox, ['resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const p of pools()) {
      // The same entries, field for field and time for time: the budgets are their owners' again, and karp-drift
      // owns nothing on the NodePool.
      expect(specEntries(p.metadata.managedFields), p.metadata.name).toEqual(before[p.metadata.name]);
      expect(p.metadata.managedFields?.some((m) => m.manager === 'karp-drift')).toBe(false);
    }
    // So the owner's next apply of a changed budget goes through without --force-conflicts.
    const changed = { ...manifest, spec: { ...spec, disruption: { ...spec.disruption, budgets: [{ nodes: '30%' }] } } };
    const applied = await kubectlApply(sandbox, changed);
    expect(applied.status, applied.body.message).toBe(200);
    expect(applied.body.spec.disruption?.budgets).toEqual([{ nodes: '30%' }]);
  });

  it('--held: only what karp-drift holds, at zero; nothing held is exit 0 and no write', async () => {
    const sandbox = await scenario('default');
    const pools = () => sandbox.kube.store.list('nodepools.karpenter.sh') as unknown as Obj[];
    const nothing = await karpDrift(sandbox, ['pause', '--held']);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toBe('nothing to pause: karp-drift holds no drift on these NodePools\n');
    expect(httpWrites(sandbox)).toBe(0);

    // One NodePool held (as a staged rollout's wave would leave it, here by pause itself): --held holds it alone.
    expect((await karpDrift(sandbox, ['pause', '--nodepool', 'arm'])).code).toBe(0);
    const held = await karpDrift(sandbox, ['pause', '--held', '-o', 'json']);
    expect(held.code, held.stderr).toBe(0);
    expect(
      (JSON.parse(held.stdout) as { nodePools: Array<{ nodePool: string }> }).nodePools.map((p) => p.nodePool),
    ).toEqual(['arm']);
    const budgets = Object.fromEntries(pools().map((p) => [p.metadata.name, p.spec.disruption?.budgets?.at(-1)]));
    expect(budgets).toEqual({
      arm: { nodes: '0', reasons: ['Drifted'] },
      general: { nodes: '20%' },
      system: budgets.system,
    });
    expect(budgets.system).not.toEqual({ nodes: '0', reasons: ['Drifted'] });
  });

  it('node holds go on every node of the NodePool and come off only where karp-drift put them', async () => {
    const sandbox = await scenario('default');
    const nodes = () =>
      (sandbox.kube.store.list('nodes') as unknown as Obj[]).filter(
        (n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'arm',
      );
    // The sandbox's controllers write Nodes without managedFields; real Nodes carry the kubelet's.
    for (const n of nodes()) {
      const kubelet: ManagedFieldsEntry = {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-20T09:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:karpenter.sh/nodepool': {} } } },
      };
      sandbox.kube.store.update('nodes', { ...n, metadata: { ...n.metadata, managedFields: [kubelet] } } as never);
    }
    const managedBefore = Object.fromEntries(nodes().map((n) => [n.metadata.name, n.metadata.managedFields]));
    const user = nodes()[0]!;
    sandbox.kube.store.update('nodes', {
      ...user,
      metadata: {
        ...user.metadata,
        annotations: { ...user.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' },
      },
    } as never);

    const paused = await karpDrift(sandbox, ['pause', '--nodepool', 'arm', '--hold-with', 'node']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain(
      `nodepool/arm paused: karpenter.sh/do-not-disrupt on ${nodes().length - 1} nodes (--hold-with node)`,
    );
    expect(nodes().every((n) => n.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true')).toBe(true);

    expect((await karpDrift(sandbox, ['resume', '--nodepool', 'arm'])).code).toBe(0);
    const after = nodes();
    expect(
      after
        .filter((n) => n.metadata.annotations?.['karpenter.sh/do-not-disrupt'] !== undefined)
        .map((n) => n.metadata.name),
    ).toEqual([user.metadata.name]);
    expect(after.some((n) => n.metadata.annotations?.['karp-drift.io/held-by'] !== undefined)).toBe(false);
    // Adding the annotations and removing them again leaves karp-drift no field on any node.
    for (const n of after) expect(n.metadata.managedFields, n.metadata.name).toEqual(managedBefore[n.metadata.name]);
  });

  it.each<[string, number, string[], RegExp]>([
    [
      'resume with nothing held',
      2,
      ['resume'],
      /^error: nothing to resume: karp-drift holds no drift on any NodePool/m,
    ],
    [
      'an unknown NodePool',
      2,
      ['pause', '--nodepool', 'nope'],
      /^error: no NodePool "nope" in this cluster\n {2}next: NodePools here: (arm|general|system), (arm|general|system), (arm|general|system) \(kubectl get nodepools\)$/m,
    ],
    ['a bad --hold-with', 2, ['pause', '--hold-with', 'taint'], /--hold-with "taint" must be auto, budget or node/],
    [
      'a bad --lock-namespace',
      2,
      ['pause', '--lock-namespace', 'Kube_System'],
      /--lock-namespace "Kube_System" is not a namespace name/,
    ],
  ])('%s: exit %i, nothing written', async (_name, code, args, message) => {
    const sandbox = await scenario('default');
    const writes = httpWrites(sandbox);
    const run = await karpDrift(sandbox, args);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(httpWrites(sandbox)).toBe(writes);
  });

  it('a second run while another holds the lock is refused (exit 3) naming it, and changes nothing', async () => {
    const sandbox = await scenario('default');
    const now = new Date().toISOString().replace('Z', '000Z');
    sandbox.kube.store.create('leases.coordination.k8s.io', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'karp-drift',
        namespace: 'kube-system',
        annotations: { 'karp-drift.io/command': 'upgrade --to 1.30 --waves 1,10%,100%' },
      },
      spec: { holderIdentity: 'alice@laptop (run r1)', leaseDurationSeconds: 30, acquireTime: now, renewTime: now },
    });
    // Alice's run is alive: it renews the Lease every 2 s, as a live run does (on its own clock, whatever that says).
    const renewing = setInterval(() => {
      const lease = sandbox.kube.store.get('leases.coordination.k8s.io', 'karp-drift', 'kube-system')!;
      const renewTime = new Date().toISOString().replace('Z', '000Z');
      sandbox.kube.store.update('leases.coordination.k8s.io', { ...lease, spec: { ...(lease.spec as object), renewTime } });
    }, 2_000);
    onTestFinished(() => clearInterval(renewing));
    const writes = httpWrites(sandbox);
    const run = await karpDrift(sandbox, ['pause']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(
      /^error: another karp-drift run holds the lock on this cluster: alice@laptop \(run r1\) \(karp-drift upgrade --to 1\.30 --waves 1,10%,100%\) since .*; it renewed the lease while this run watched$/m,
    );
    // It said why it waited, and not for long: a live run renews well inside the lease's 30 s.
    expect(run.stderr).toMatch(/^the cluster lock \(lease kube-system\/karp-drift\) is held by alice@laptop \(run r1\) .*: waiting up to 30 s to see whether that run still renews it$/m);
    expect(httpWrites(sandbox)).toBe(writes);
    expect(
      (sandbox.kube.store.list('nodepools.karpenter.sh') as unknown as Obj[]).every(
        (p) => p.metadata.annotations?.['karp-drift.io/drift-hold'] === undefined,
      ),
    ).toBe(true);
  });
});
