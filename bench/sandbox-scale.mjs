// Sandbox scale (issue: 5,000 nodes, 5,000 NodeClaims and 50,000 pods in memory; listing 5,000 nodes < 1 s; < 1 GB).
// Objects are created in process through the same store the REST handlers write through, then listed over HTTPS
// with @kubernetes/client-node, as karp-drift lists a real cluster. Prints timings and resident memory.
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadKarpenterCrds } from '../dist/sandbox/kube-api/crds.js';
import { writeKubeconfig } from '../dist/sandbox/kube-api/kubeconfig.js';
import { startKubeApiServer } from '../dist/sandbox/kube-api/server.js';

const NODES = 5000;
const PODS_PER_NODE = 10;

const mb = (bytes) => `${Math.round(bytes / 1048576)} MB`;
async function timed(label, fn) {
  const start = performance.now();
  const result = await fn();
  const ms = performance.now() - start;
  console.log(`  ${label}: ${ms.toFixed(0)} ms`);
  return { ms, result };
}

export async function sandboxScale() {
  const server = await startKubeApiServer({ crds: loadKarpenterCrds('v1') });
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-bench-'));
  try {
    const store = server.store;
    console.log(`sandbox scale: ${NODES} nodes, ${NODES} NodeClaims, ${NODES * PODS_PER_NODE} pods`);
    await timed('create nodes', () => {
      for (let i = 0; i < NODES; i++) {
        const name = `ip-10-0-${Math.floor(i / 250)}-${i % 250}.us-west-2.compute.internal`;
        store.create('nodes', {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            labels: {
              'karpenter.sh/nodepool': 'default',
              'kubernetes.io/arch': i % 2 ? 'arm64' : 'amd64',
              'node.kubernetes.io/instance-type': 'm7i.xlarge',
              'karpenter.k8s.aws/ec2nodeclass': 'default',
            },
          },
          spec: { providerID: `aws:///us-west-2a/i-0${i.toString(16).padStart(16, '0')}` },
          status: {
            conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
            nodeInfo: { kubeletVersion: 'v1.30.4-eks-a737599', osImage: 'Amazon Linux 2023.6.20241010' },
          },
        });
      }
    });
    await timed('create NodeClaims (CRD-validated)', () => {
      for (let i = 0; i < NODES; i++) {
        store.create('nodeclaims.karpenter.sh', {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodeClaim',
          metadata: { name: `default-${i.toString(36).padStart(5, '0')}`, labels: { 'karpenter.sh/nodepool': 'default' } },
          spec: {
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
            requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          },
        });
      }
    });
    await timed('create pods', () => {
      for (let i = 0; i < NODES * PODS_PER_NODE; i++) {
        const node = Math.floor(i / PODS_PER_NODE);
        store.create('pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' } },
          spec: {
            nodeName: `ip-10-0-${Math.floor(node / 250)}-${node % 250}.us-west-2.compute.internal`,
            containers: [{ name: 'web', image: 'public.ecr.aws/nginx/nginx:1.27' }],
          },
        });
      }
    });
    const afterCreate = process.memoryUsage().rss;

    const kubeconfig = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfig, { server: server.url, caData: server.caData, token: server.token });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);

    const cold = await timed('list 5,000 nodes over HTTPS (cold)', () => core.listNode());
    const warm = await timed('list 5,000 nodes over HTTPS (warm)', () => core.listNode());
    await timed('list 5,000 NodeClaims', () =>
      custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' }),
    );
    await timed('list 50,000 pods', () => core.listPodForAllNamespaces());
    await timed('pods of one node (spec.nodeName)', () =>
      core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=ip-10-0-3-7.us-west-2.compute.internal' }),
    );
    const rss = process.memoryUsage().rss;
    console.log(`  resident memory: ${mb(afterCreate)} after creation, ${mb(rss)} after the lists`);
    const items = cold.result.items.length;
    if (items !== NODES) throw new Error(`listed ${items} nodes, expected ${NODES}`);
    const listMs = Math.max(cold.ms, warm.ms);
    return [
      { name: 'list 5,000 nodes', value: listMs, unit: 'ms', target: 1000, ok: listMs < 1000 },
      { name: 'resident memory', value: rss / 1048576, unit: 'MB', target: 1024, ok: rss < 1024 * 1048576 },
    ];
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `karp-drift sandbox --scenario large` start-up: servers, 5,000 nodes + 50,000 pods built, first simulator pass. */
export async function largeScenarioStart() {
  const { startSandbox } = await import('../dist/sandbox/sandbox.js');
  const { ManualClock } = await import('../dist/sandbox/karpenter/clock.js');
  const start = performance.now();
  const sandbox = await startSandbox({ scenario: 'large', manualClock: new ManualClock(new Date()) });
  const startMs = performance.now() - start;
  const passStart = performance.now();
  sandbox.simulator.pass();
  const passMs = performance.now() - passStart;
  await sandbox.stop();
  console.log(`  large scenario: started in ${startMs.toFixed(0)} ms; a simulator pass over 5,000 NodeClaims takes ${passMs.toFixed(0)} ms`);
  return [{ name: 'start the large scenario', value: startMs, unit: 'ms', target: 10000, ok: startMs < 10000 }];
}
