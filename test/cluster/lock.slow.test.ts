// The cluster lock against the sandbox's API server: one run takes it, a second is refused naming the first, a
// released lock is taken at once, and one left by a killed run (not renewed for longer than its duration) is taken.
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
      /^another karp-drift run holds the lock on this cluster: alice@laptop \(run r1\) \(karp-drift upgrade --to 1\.31 --canary canary\) since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \(lease kube-system\/karp-drift\)$/,
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

  it('takes a lease that a killed run stopped renewing', async () => {
    const { sandbox, cluster } = await sandboxCluster();
    const first = await acquireLock(cluster, 'kube-system', alice);
    // Killed: no release, and its last renewal a minute ago.
    const lease = leaseOf(sandbox);
    const stale = new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z');
    sandbox.kube.store.update(LEASES, {
      ...lease,
      spec: { ...lease.spec, renewTime: stale },
    } as never);
    const second = await acquireLock(cluster, 'kube-system', bob);
    expect(leaseOf(sandbox).spec.holderIdentity).toBe('bob@ci-7 (run r2)');
    await second.release();
    await first.release(); // finds the lease no longer its own: leaves it alone
    expect(leaseOf(sandbox).spec.holderIdentity).toBe('');
  });

  it('says which namespace is missing', async () => {
    const { cluster } = await sandboxCluster();
    await expect(acquireLock(cluster, 'no-such-ns', alice)).rejects.toThrow(
      'taking the cluster lock: namespace no-such-ns does not exist',
    );
  });
});
