// The NodePool status Karpenter's counter and readiness controllers write, as `kubectl get nodepools` shows it: NODES
// and READY, and the resources of the NodePool's NodeClaims, kept as NodeClaims come and go.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { kubectlPath, manualSandbox, NODECLAIMS, pinToControlPlane, run } from './harness.js';

type Pool = {
  status?: { nodes?: number; resources?: Record<string, string>; conditions?: Array<{ type: string; status: string }> };
};

describe('NodePool status', () => {
  it('nodes, resources and Ready, written once and kept through a drift rollout', async () => {
    const sandbox = await manualSandbox('default');
    onTestFinished(() => sandbox.stop());
    run(sandbox, 2);
    const pool = () => sandbox.kube.store.get('nodepools.karpenter.sh', 'general') as unknown as Pool;
    const claims = () =>
      sandbox.kube.store.list(NODECLAIMS).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === 'general');
    expect(pool().status?.nodes).toBe(claims().length);
    expect(pool().status?.resources?.nodes).toBe(String(claims().length));
    expect(Object.keys(pool().status!.resources!).sort()).toEqual([
      'cpu',
      'ephemeral-storage',
      'memory',
      'nodes',
      'pods',
    ]);
    const cpu = claims().reduce((n, c) => n + Number((c.status as { capacity: { cpu: string } }).capacity.cpu), 0);
    expect(pool().status?.resources?.cpu).toBe(String(cpu));
    for (const type of ['NodeClassReady', 'ValidationSucceeded', 'Ready'])
      expect(pool().status?.conditions?.find((c) => c.type === type)?.status, type).toBe('True');
    // Nothing changed: nothing written again.
    const version = sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!.metadata.resourceVersion;
    run(sandbox, 3);
    expect(sandbox.kube.store.get('nodepools.karpenter.sh', 'general')!.metadata.resourceVersion).toBe(version);

    // A rollout: replacements are counted while they run beside the old nodes, and the count settles after.
    const before = claims().length;
    const target = await pinToControlPlane(sandbox, 'default');
    const settled = () =>
      claims().every(
        (c) =>
          !c.metadata.deletionTimestamp &&
          target.includes((c.status as { imageID?: string } | undefined)?.imageID ?? ''),
      );
    let most = 0;
    for (let i = 0; i < 30 * 60 && !settled(); i++) {
      // Counted at the start of each pass, before the controllers that launch and delete: one pass behind at most.
      const counted = claims().length;
      run(sandbox, 1);
      most = Math.max(most, pool().status?.nodes ?? 0);
      expect(pool().status?.nodes).toBe(counted);
    }
    expect(settled()).toBe(true);
    run(sandbox, 1);
    expect(most).toBeGreaterThan(before);
    expect(pool().status?.nodes).toBe(claims().length);

    const kubectl = kubectlPath;
    if (kubectl === undefined) {
      console.log('kubectl is not on PATH: skipped the `kubectl get nodepools` columns check');
      return;
    }
    const { stdout } = await promisify(execFile)(kubectl, [
      '--kubeconfig',
      sandbox.kubeconfigPath,
      'get',
      'nodepools',
      'general',
      '--no-headers',
    ]);
    expect(stdout.trim().split(/\s+/).slice(0, 4)).toEqual(['general', 'default', String(claims().length), 'True']);
  }, 120_000);
});
