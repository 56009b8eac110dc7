// discoverCluster against the sandbox: the control-plane version as EKS reports it, and the Karpenter API served.
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { discoverCluster } from '../../src/cluster/discovery.js';
import { readInventory } from '../../src/cluster/inventory.js';
import { RefusedError } from '../../src/errors.js';
import { ManualClock } from '../../src/sandbox/karpenter/clock.js';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { parseScenario } from '../../src/sandbox/scenarios/schema.js';
import { receivedUrls, sandboxCluster } from './helpers.js';

const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';

describe('discoverCluster', () => {
  it('reads Karpenter v1 and the control plane 1.30 from the default scenario, logging each request for -v', async () => {
    const { sandbox } = await sandboxCluster('default');
    const lines: string[] = [];
    const cluster = loadCluster({ kubeconfig: sandbox.kubeconfigPath, log: (line) => lines.push(line) });
    onTestFinished(() => cluster.close());
    await expect(discoverCluster(cluster)).resolves.toEqual({
      karpenterApi: 'v1',
      controlPlane: { minor: '1.30', gitVersion: 'v1.30.4-eks-a737599' },
    });
    expect(lines.map((l) => l.replace(/\d+ ms$/, 'N ms')).sort()).toEqual(['GET /apis 200 in N ms', 'GET /version 200 in N ms']);
    expect(lines.join('\n')).not.toContain(sandbox.kube.token);
  });

  it('reads v1beta1 from a Karpenter 0.37 install, which serves v1 too but stores v1beta1', async () => {
    const scenario = parseScenario(
      [
        'name: old-karpenter',
        'controlPlaneVersion: "1.29"',
        'karpenterVersion: "0.37.8"',
        'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.28" }]',
        'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64] }]',
      ].join('\n'),
      'inline',
    );
    const sandbox = await startSandbox({ scenario, manualClock: new ManualClock(new Date('2026-11-23T10:00:00Z')) });
    const cluster = loadCluster({ kubeconfig: sandbox.kubeconfigPath });
    onTestFinished(async () => {
      cluster.close();
      await sandbox.stop();
    });
    const urls = receivedUrls(sandbox);
    const discovery = await discoverCluster(cluster);
    expect(discovery).toEqual({ karpenterApi: 'v1beta1', controlPlane: { minor: '1.29', gitVersion: 'v1.29.4-eks-a737599' } });
    // Everything after discovery reads at the served version.
    const inventory = await readInventory(cluster, { discovery });
    expect(inventory.nodeClaims).toHaveLength(2);
    expect(inventory.nodeClasses.map((c) => c.name)).toEqual(['default']);
    const karpenterPaths = new Set(urls.map((u) => u.pathname).filter((p) => p.startsWith('/apis/karpenter')));
    expect(karpenterPaths).toEqual(
      new Set(['/apis/karpenter.sh/v1beta1/nodeclaims', '/apis/karpenter.sh/v1beta1/nodepools', '/apis/karpenter.k8s.aws/v1beta1/ec2nodeclasses']),
    );
  });

  it('refuses EKS Auto Mode: a NodeClass of eks.amazonaws.com and no EC2NodeClass', async () => {
    const { sandbox, cluster } = await sandboxCluster('default');
    sandbox.kube.store.delete(CRDS, 'ec2nodeclasses.karpenter.k8s.aws');
    sandbox.kube.store.create(CRDS, autoModeNodeClassCrd() as never);
    const err = await discoverCluster(cluster).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as Error).message).toContain('EKS Auto Mode cluster: its nodes use NodeClass (eks.amazonaws.com), which has no AMI fields');
  });
});

function autoModeNodeClassCrd(): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'nodeclasses.eks.amazonaws.com' },
    spec: {
      group: 'eks.amazonaws.com',
      names: { kind: 'NodeClass', listKind: 'NodeClassList', plural: 'nodeclasses', singular: 'nodeclass' },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {} },
        },
      ],
    },
  };
}
