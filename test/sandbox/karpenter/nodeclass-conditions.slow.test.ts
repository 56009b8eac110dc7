// Which conditions an EC2NodeClass's status has, release by release (src/sandbox/scenarios/versions.ts
// `nodeClassConditions`, from aws/karpenter-provider-aws at the tags): none on v0.32–v0.36, Ready alone on v0.37,
// AMIsReady and its siblings under Ready from v1.0. The sandbox once set AMIsReady on every release, and karp-drift
// waited for it: on a real v0.36 cluster it never comes. Pinned classes still drift and launch on every release.
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { claimsOf, imageOf, manualSandbox, pinToControlPlane, run } from './harness.js';

async function release(karpenterVersion: string, controlPlaneVersion: string, nodeVersion: string) {
  const sandbox = await manualSandbox(
    parseScenario(
      [
        'name: conditions',
        `controlPlaneVersion: "${controlPlaneVersion}"`,
        `karpenterVersion: "${karpenterVersion}"`,
        `nodeClasses: [{ name: default, family: al2, kubernetesVersion: "${nodeVersion}" }]`,
        'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64] }]',
        'workloads: [{ name: web, nodePool: general, replicas: 4 }]',
      ].join('\n'),
      'inline',
    ),
  );
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

const conditionTypes = (sandbox: Awaited<ReturnType<typeof release>>) => {
  const nodeClass = sandbox.kube.store.get('ec2nodeclasses.karpenter.k8s.aws', 'default');
  const status = nodeClass?.status as { conditions?: Array<{ type: string; status: string }>; amis?: unknown[] };
  return { types: (status.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort(), amis: status.amis?.length ?? 0 };
};

const nodePoolStatus = (sandbox: Awaited<ReturnType<typeof release>>) => {
  const status = sandbox.kube.store.get('nodepools.karpenter.sh', 'general')?.status as Record<string, unknown> & {
    conditions?: Array<{ type: string; status: string }>;
    resources?: Record<string, string>;
  };
  return {
    // `nodes` aside: the sandbox serves v1.14.1's CRD (which has it, from v1.8) to every v1 release.
    fields: Object.keys(status).filter((k) => k !== 'nodes').sort(),
    conditions: (status.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort(),
    nodes: status.resources?.nodes,
  };
};

// NodePoolStatus at the tags (kubernetes-sigs/karpenter pkg/apis/*/nodepool_status.go): `resources` alone through
// v0.37 (the simulator writes conditions on every release, and the sandbox's API server prunes them by the v1beta1
// storage schema, as a real one does), `conditions` from v1.0, `nodeClassObservedGeneration` from v1.4.
describe('NodePool status per Karpenter release', () => {
  it.each([
    ['0.36.2', '1.29', '1.28', ['resources'], []],
    ['0.37.5', '1.30', '1.29', ['resources'], []],
    ['1.0.8', '1.30', '1.29', ['conditions', 'resources'], ['NodeClassReady=True', 'Ready=True', 'ValidationSucceeded=True']],
    [
      '1.8.0',
      '1.32',
      '1.31',
      ['conditions', 'nodeClassObservedGeneration', 'resources'],
      // True: its nodes registered before the sandbox started, as under a running Karpenter.
      ['NodeClassReady=True', 'NodeRegistrationHealthy=True', 'Ready=True', 'ValidationSucceeded=True'],
    ],
  ])('Karpenter %s: status %j, conditions %j', async (version, controlPlane, nodes, fields, conditions) => {
    const sandbox = await release(version, controlPlane, nodes);
    run(sandbox, 30);
    expect(nodePoolStatus(sandbox)).toEqual({ fields, conditions, nodes: '2' });
  });
});

describe('EC2NodeClass status conditions per Karpenter release', () => {
  it.each([
    ['0.36.2', '1.29', '1.28', []],
    ['0.37.5', '1.30', '1.29', ['Ready=True']],
    [
      '1.0.8',
      '1.30',
      '1.29',
      ['AMIsReady=True', 'InstanceProfileReady=True', 'Ready=True', 'SecurityGroupsReady=True', 'SubnetsReady=True', 'ValidationSucceeded=True'],
    ],
  ])('Karpenter %s (control plane %s, nodes %s): conditions %j; a pin still drifts and replaces every node', async (version, controlPlane, nodes, types) => {
    const sandbox = await release(version, controlPlane, nodes);
    expect(conditionTypes(sandbox)).toEqual({ types, amis: 1 });
    const targets = await pinToControlPlane(sandbox, 'default', undefined, version.startsWith('0.') ? 'v1beta1' : 'v1');
    expect(targets).toHaveLength(1);
    const onTarget = () => claimsOf(sandbox, 'general').filter((c) => imageOf(c) === targets[0] && !c.metadata.deletionTimestamp);
    for (let i = 0; i < 120 && (onTarget().length < 2 || claimsOf(sandbox, 'general').length > 2); i++) run(sandbox, 30);
    expect(claimsOf(sandbox, 'general').map(imageOf)).toEqual([targets[0], targets[0]]);
    expect(conditionTypes(sandbox).types).toEqual(types);
  });
});
