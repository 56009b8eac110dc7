import { expect, it } from 'vitest';
import { amiCatalog } from '../../../src/sandbox/aws/catalog.js';
import { loadKarpenterCrds } from '../../../src/sandbox/kube-api/crds.js';
import { sandboxControllers } from '../../../src/sandbox/kube-api/garbage-collector.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import { buildCluster } from '../../../src/sandbox/scenarios/build.js';
import { loadScenario } from '../../../src/sandbox/scenarios/load.js';

// The large scenario end to end in the store (counts only; its build time is reported, not asserted).
it('builds the large scenario: 5,000 nodes and 50,000 pods', async () => {
  const store = new KubeStore(new ObjectStore(), new ResourceRegistry());
  store.controllers = sandboxControllers();
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  for (const crd of loadKarpenterCrds('v1')) {
    store.create('customresourcedefinitions.apiextensions.k8s.io', structuredClone(crd) as never);
  }
  const started = performance.now();
  const cluster = buildCluster(loadScenario('large'), { store, catalog: amiCatalog() });
  await Promise.resolve();
  console.log(`large scenario built in ${Math.round(performance.now() - started)} ms`);

  expect(store.list('nodeclaims.karpenter.sh')).toHaveLength(5000);
  expect(store.list('nodes')).toHaveLength(5000);
  expect(store.list('pods')).toHaveLength(50_000);
  expect(cluster.pods).toBe(50_000);
  expect(cluster.nodePools.map((p) => [p.name, p.nodes.length])).toEqual([
    ['general-amd64', 2000],
    ['general-arm64', 2000],
    ['system', 1000],
  ]);
  expect(
    store
      .list('poddisruptionbudgets.policy')
      .map((p) => [p.metadata.name, (p.status as { expectedPods: number }).expectedPods]),
  ).toEqual([
    ['ingress', 5000],
    ['api', 15_000],
    ['web', 20_000],
  ]);
});
