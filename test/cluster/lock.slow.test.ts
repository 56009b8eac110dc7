// The cluster lock against the sandbox's API server: one run takes it, a second is refused naming the first once it
// has seen the first renew, a released lock is taken at once, one left by a killed run is taken after the second
// run has watched it go unrenewed for its duration, and clocks far apart never let two runs hold it.
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/cluster/lock.js';
import { RefusedError } from '../../src/errors.js';
import type { LockHolder } from '../../src/apis/lock.js';
import { sandboxCluster } from './helpers.js';

const alice: LockHolder = {
  runId: 'r1',
  user: 'alice',
  host: 'laptop',
  command: 'upgrade --to 1.31 --canary canary',
};
const bob: LockHolder = {
  runId: 'r2',
  user: 'bob',
  host: 'ci-7',
  command: 'pause',
};
const LEASES = 'leases.coordination.k8s.io';
type Lease = {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown>;
};
const leaseOf = (sandbox: Awaited<ReturnType<typeof sandboxCluster>>['sandbox']) =>
  sandbox.kube.store.get(LEASES, 'karp-drift', 'kube-system') as unknown as Lease;

describe('acquireLock', () => {
  it('refuses a second run while the first holds the lease, naming it; takes it once released', async () => {
    const { sandbox, cluster } = await sandboxCluster();
    const first = await acquireLock(cluster, 'kube-system', alice);
    const lease = leaseOf(sandbox);
    expect(lease.spec).toMatchObject({
      holderIdentity: 'alice@laptop (run r1)',
      leaseDurationSeconds: 30,
      leaseTransitions: 0,
    });

    const refused = await acquireLock(cluster, 'kube-system', bob).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as RefusedError).exitCode).toBe(3);
    expect((refused as RefusedError).message).toMatch(
      /^another karp-drift run holds the lock on this cluster: alice@laptop \(run r1\) \(karp-drift upgrade --to 1\.31 --canary canary\) since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \(lease kube-system\/karp-drift\); it renewed the lease while this run watched$/,
    );

    await first.release();
    expect(leaseOf(sandbox).spec.holderIdentity).toBe('');
    const second = await acquireLock(cluster, 'kube-system', bob);
    expect(leaseOf(sandbox).spec).toMatchObject({
      holderIdentity: 'bob@ci-7 (run r2)',
      leaseTransitions: 1,
    });
    await second.release();
  });

  it('takes a lease that a killed run stopped renewing, once it has watched it unrenewed for its duration', async () => {
    const { sandbox, cluster } = await sandboxCluster();
    // What a killed run leaves: its Lease, never released, never renewed again (a short duration keeps the test short).
    const renewed = new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z');
    sandbox.kube.store.create(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'karp-drift', namespace: 'kube-system', annotations: { 'karp-drift.io/command': alice.command } },
      spec: { holderIdentity: 'alice@laptop (run r1)', leaseDurationSeconds: 3, acquireTime: renewed, renewTime: renewed, leaseTransitions: 0 },
    });
    const told: string[] = [];
    const started = performance.now();
    const second = await acquireLock(cluster, 'kube-system', bob, undefined, { onWatch: (m) => told.push(m) });
    // Not from its renewTime a minute ago by this clock: from this run's own watch.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(told).toEqual([
      'the cluster lock (lease kube-system/karp-drift) is held by alice@laptop (run r1) (karp-drift upgrade --to 1.31 --canary canary): waiting up to 3 s to see whether that run still renews it',
    ]);
    expect(leaseOf(sandbox).spec).toMatchObject({ holderIdentity: 'bob@ci-7 (run r2)', leaseTransitions: 1 });
    await second.release();
    expect(leaseOf(sandbox).spec.holderIdentity).toBe('');
  });

  it('never lets two runs hold it when their clocks are far apart', async () => {
    const { sandbox, cluster } = await sandboxCluster();
    // Alice's clock is 45 s behind: by Bob's clock her every renewal is already past the lease's 30 s.
    const first = await acquireLock(cluster, 'kube-system', alice, undefined, { now: () => new Date(Date.now() - 45_000) });
    const refused = await acquireLock(cluster, 'kube-system', bob).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RefusedError);
    expect(leaseOf(sandbox).spec.holderIdentity).toBe('alice@laptop (run r1)');
    await first.release();
  });

  it('says which namespace is missing', async () => {
    const { cluster } = await sandboxCluster();
    await expect(acquireLock(cluster, 'no-such-ns', alice)).rejects.toThrow(
      'taking the cluster lock: namespace no-such-ns does not exist',
    );
  });
});
