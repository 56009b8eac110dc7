// `plan` output for one scenario, as text and as JSON: a 1.31 control plane whose nodes still run 1.30 AL2023 AMIs.
// `default` (alias, both arches, kubectl-managed) and `gpu` (an nvidia id pin, its budget closed until 19:00 UTC)
// move to the v20241109 AMIs by id; `batch` is left out and floats on @latest; a PDB allows no disruption.
import { describe, expect, it } from 'vitest';
import { clusterIdentity } from '../../src/apis/cluster-identity.js';
import { plan, type Plan, type PlanSource } from '../../src/plan/plan.js';
import { planJson, planText } from '../../src/report/plan.js';
import {
  NEW,
  NOW,
  OLD,
  idStatusAmis,
  inventory,
  nodeClaim,
  nodeClaims,
  nodeClass,
  nodePool,
  pdb,
  pod,
  targetAmis,
} from '../plan/factories.js';

function scenario(source: PlanSource = { kind: 'ssm', region: 'us-west-2' }): Plan {
  const inv = inventory({
    nodeClasses: [
      nodeClass({
        owners: [
          {
            manager: 'kubectl-client-side-apply',
            operation: 'Update',
            ownsAmiSelectorTerms: true,
            ownsAmiFamily: false,
          },
        ],
      }),
      nodeClass({
        name: 'gpu',
        amiFamily: 'AL2023',
        amiSelectorTerms: [{ id: OLD['amd64/nvidia'] }],
        statusAmis: idStatusAmis(['amd64/nvidia']),
      }),
      nodeClass({ name: 'batch', amiSelectorTerms: [{ alias: 'al2023@latest' }] }),
    ],
    nodePools: [
      nodePool({
        budgets: [{ nodes: '20%' }],
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
          { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
        ],
      }),
      nodePool({
        name: 'gpu',
        nodeClass: 'gpu',
        budgets: [{ nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * 1-5', duration: '10h' }, { nodes: '1' }],
        requirements: [
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' },
        ],
      }),
      nodePool({ name: 'batch', nodeClass: 'batch' }),
    ],
    nodeClaims: [
      ...nodeClaims(4),
      nodeClaim({ name: 'general-5', arch: 'arm64', imageId: OLD['arm64/standard'], instanceType: 'm7g.large' }),
      nodeClaim({ name: 'general-6', arch: 'arm64', imageId: OLD['arm64/standard'], instanceType: 'm7g.large' }),
      ...nodeClaims(3, {
        nodePool: 'gpu',
        nodeClass: 'gpu',
        imageId: OLD['amd64/nvidia'],
        gpu: true,
        instanceType: 'g5.xlarge',
      }),
    ],
    pdbs: [pdb({ disruptionsAllowed: 0 })],
    pods: [pod({ nodeName: 'ip-general-1' })],
  });
  return plan(
    inv,
    targetAmis(),
    { to: '1.31', nodeClasses: ['default', 'gpu'], pin: 'id', release: 'latest', fieldManager: 'karp-drift', source },
    NOW,
  );
}

describe('plan report', () => {
  it('reads like terraform plan', () => {
    expect(planText(scenario(), { color: false })).toMatchInlineSnapshot(`
      "Kubernetes 1.31 (control plane 1.31), latest release, pinned by id

      ~ ec2nodeclass/default (al2023)
        + amiFamily: AL2023
        - amiSelectorTerms: [{alias: al2023@v20240917}]
        + amiSelectorTerms: [{id: ami-0new0amd64std}, {id: ami-0new0arm64std}]
            amd64 standard: ami-0new0amd64std amazon-eks-node-al2023-x86_64-standard-1.31-v20241109
            arm64 standard: ami-0new0arm64std amazon-eks-node-al2023-arm64-standard-1.31-v20241109
        nodepool/general: 6 nodes, 6 will drift, 0 on target; Drifted budget allows 2 now (20%) → ~3 waves

      ~ ec2nodeclass/gpu (al2023)
        - amiSelectorTerms: [{id: ami-0old0amd64gpu}]
        + amiSelectorTerms: [{id: ami-0new0amd64gpu}]
            amd64 nvidia: ami-0new0amd64gpu amazon-eks-node-al2023-x86_64-nvidia-1.31-v20241109
        nodepool/gpu: 3 nodes, 3 will drift, 0 on target; Drifted budget allows 0 now (0 until 2024-11-13 19:00 UTC) → blocked

      Warnings (2):
        BUDGET-BLOCKS-DRIFT: nodepool/gpu: the disruption budget allows no Drifted disruptions now, so its 3 nodes to drift wait: spec.disruption.budgets[0] {nodes: "0", reasons: [Drifted], schedule: "0 9 * * 1-5", duration: 10h} is active until 2024-11-13 19:00 UTC
            · Karpenter reports a DisruptionBlocked event on the NodePool: "No allowed disruptions for disruption reason Drifted due to blocking budget"
            next: wait for the window to close at 2024-11-13 19:00 UTC, or change the budget (budgets are not hashed: editing one never causes drift)
        PDB-BLOCKS: poddisruptionbudget shop/web allows 0 disruptions and covers 1 pod on 1 node that will drift: Karpenter skips those nodes (DisruptionBlocked: Pdb prevents pod evictions (PodDisruptionBudget=[shop/web]))
            · pod shop/web-6d4b9c7f8-x2x9k on node/ip-general-1
            next: let the PDB allow a disruption (more replicas, or a looser minAvailable/maxUnavailable) before the rollout reaches these nodes

      Info (2):
        FIELD-OWNER-KUBECTL: spec.amiSelectorTerms of ec2nodeclass/default was last set by hand (kubectl-client-side-apply): karp-drift takes the field over with a forced server-side apply
            next: update the manifest you apply from as well, or the next kubectl apply of it puts the old terms back
        LATEST-ALIAS: ec2nodeclass/batch selects its AMIs with alias al2023@latest, which floats: its nodes drift on their own whenever AWS publishes a new AMI or the control plane is upgraded
            next: pin it too: karp-drift plan --nodeclass batch

      Plan: 2 EC2NodeClasses to change, 9 nodes to replace.
      "
    `);
  });

  it('prints one JSON document, with null for unlimited and never', () => {
    expect(planJson(scenario(), clusterIdentity('prod', 'arn:aws:eks:us-west-2:111122223333:cluster/prod', 'https://ABC.gr7.us-west-2.eks.amazonaws.com'))).toMatchInlineSnapshot(`
      "{
        "cluster": {
          "context": "prod",
          "server": "https://ABC.gr7.us-west-2.eks.amazonaws.com",
          "kubeconfigCluster": "arn:aws:eks:us-west-2:111122223333:cluster/prod",
          "name": "prod"
        },
        "kubernetesVersion": "1.31",
        "controlPlaneVersion": "1.31",
        "nodeClasses": [
          {
            "name": "default",
            "family": "al2023",
            "before": {
              "amiSelectorTerms": [
                {
                  "alias": "al2023@v20240917"
                }
              ]
            },
            "after": {
              "amiFamily": "AL2023",
              "amiSelectorTerms": [
                {
                  "id": "ami-0new0amd64std"
                },
                {
                  "id": "ami-0new0arm64std"
                }
              ]
            },
            "changed": true,
            "owners": {
              "takeOver": [
                "kubectl-client-side-apply"
              ],
              "conflicts": []
            },
            "targets": [
              {
                "arch": "amd64",
                "variant": "standard",
                "id": "ami-0new0amd64std",
                "name": "amazon-eks-node-al2023-x86_64-standard-1.31-v20241109",
                "release": "v20241109"
              },
              {
                "arch": "arm64",
                "variant": "standard",
                "id": "ami-0new0arm64std",
                "name": "amazon-eks-node-al2023-arm64-standard-1.31-v20241109",
                "release": "v20241109"
              }
            ],
            "current": [
              {
                "id": "ami-0old0amd64std",
                "name": "amazon-eks-node-al2023-x86_64-standard-1.30-v20240917"
              },
              {
                "id": "ami-0old0amd64gpu",
                "name": "amazon-eks-node-al2023-x86_64-nvidia-1.30-v20240917"
              },
              {
                "id": "ami-0old0amd64neu",
                "name": "amazon-eks-node-al2023-x86_64-neuron-1.30-v20240917"
              },
              {
                "id": "ami-0old0arm64std",
                "name": "amazon-eks-node-al2023-arm64-standard-1.30-v20240917"
              },
              {
                "id": "ami-0old0arm64gpu",
                "name": "amazon-eks-node-al2023-arm64-nvidia-1.30-v20240917"
              }
            ],
            "needs": [
              {
                "arch": "amd64",
                "variant": "standard",
                "from": [
                  "nodepool/general",
                  "4 NodeClaims"
                ]
              },
              {
                "arch": "arm64",
                "variant": "standard",
                "from": [
                  "nodepool/general",
                  "2 NodeClaims"
                ]
              }
            ]
          },
          {
            "name": "gpu",
            "family": "al2023",
            "before": {
              "amiFamily": "AL2023",
              "amiSelectorTerms": [
                {
                  "id": "ami-0old0amd64gpu"
                }
              ]
            },
            "after": {
              "amiFamily": "AL2023",
              "amiSelectorTerms": [
                {
                  "id": "ami-0new0amd64gpu"
                }
              ]
            },
            "changed": true,
            "owners": {
              "takeOver": [],
              "conflicts": []
            },
            "targets": [
              {
                "arch": "amd64",
                "variant": "nvidia",
                "id": "ami-0new0amd64gpu",
                "name": "amazon-eks-node-al2023-x86_64-nvidia-1.31-v20241109",
                "release": "v20241109"
              }
            ],
            "current": [
              {
                "id": "ami-0old0amd64gpu",
                "name": "amazon-eks-node-al2023-x86_64-nvidia-1.30-v20240917"
              }
            ],
            "needs": [
              {
                "arch": "amd64",
                "variant": "nvidia",
                "from": [
                  "status.amis",
                  "nodepool/gpu",
                  "3 NodeClaims"
                ]
              }
            ]
          }
        ],
        "nodePools": [
          {
            "name": "general",
            "nodeClass": "default",
            "nodes": 6,
            "toDrift": 6,
            "onTarget": 0,
            "allowedDisruptions": 2,
            "waves": 3,
            "limit": 2,
            "launching": 0,
            "blockingBudget": {
              "index": 0,
              "nodes": "20%"
            },
            "disrupting": [],
            "drifting": [
              {
                "nodeClaim": "general-1",
                "node": "ip-general-1",
                "imageId": "ami-0old0amd64std"
              },
              {
                "nodeClaim": "general-2",
                "node": "ip-general-2",
                "imageId": "ami-0old0amd64std"
              },
              {
                "nodeClaim": "general-3",
                "node": "ip-general-3",
                "imageId": "ami-0old0amd64std"
              },
              {
                "nodeClaim": "general-4",
                "node": "ip-general-4",
                "imageId": "ami-0old0amd64std"
              },
              {
                "nodeClaim": "general-5",
                "node": "ip-general-5",
                "imageId": "ami-0old0arm64std"
              },
              {
                "nodeClaim": "general-6",
                "node": "ip-general-6",
                "imageId": "ami-0old0arm64std"
              }
            ]
          },
          {
            "name": "gpu",
            "nodeClass": "gpu",
            "nodes": 3,
            "toDrift": 3,
            "onTarget": 0,
            "allowedDisruptions": 0,
            "waves": null,
            "limit": 0,
            "launching": 0,
            "blockingBudget": {
              "index": 0,
              "nodes": "0",
              "reasons": [
                "Drifted"
              ],
              "schedule": "0 9 * * 1-5",
              "duration": "10h",
              "windowEnd": "2024-11-13T19:00:00.000Z"
            },
            "disrupting": [],
            "drifting": [
              {
                "nodeClaim": "gpu-1",
                "node": "ip-gpu-1",
                "imageId": "ami-0old0amd64gpu"
              },
              {
                "nodeClaim": "gpu-2",
                "node": "ip-gpu-2",
                "imageId": "ami-0old0amd64gpu"
              },
              {
                "nodeClaim": "gpu-3",
                "node": "ip-gpu-3",
                "imageId": "ami-0old0amd64gpu"
              }
            ]
          }
        ],
        "checks": [
          {
            "code": "BUDGET-BLOCKS-DRIFT",
            "level": "warning",
            "message": "nodepool/gpu: the disruption budget allows no Drifted disruptions now, so its 3 nodes to drift wait: spec.disruption.budgets[0] {nodes: \\"0\\", reasons: [Drifted], schedule: \\"0 9 * * 1-5\\", duration: 10h} is active until 2024-11-13 19:00 UTC",
            "evidence": [
              "Karpenter reports a DisruptionBlocked event on the NodePool: \\"No allowed disruptions for disruption reason Drifted due to blocking budget\\""
            ],
            "next": "wait for the window to close at 2024-11-13 19:00 UTC, or change the budget (budgets are not hashed: editing one never causes drift)"
          },
          {
            "code": "PDB-BLOCKS",
            "level": "warning",
            "message": "poddisruptionbudget shop/web allows 0 disruptions and covers 1 pod on 1 node that will drift: Karpenter skips those nodes (DisruptionBlocked: Pdb prevents pod evictions (PodDisruptionBudget=[shop/web]))",
            "evidence": [
              "pod shop/web-6d4b9c7f8-x2x9k on node/ip-general-1"
            ],
            "next": "let the PDB allow a disruption (more replicas, or a looser minAvailable/maxUnavailable) before the rollout reaches these nodes"
          },
          {
            "code": "FIELD-OWNER-KUBECTL",
            "level": "info",
            "message": "spec.amiSelectorTerms of ec2nodeclass/default was last set by hand (kubectl-client-side-apply): karp-drift takes the field over with a forced server-side apply",
            "evidence": [],
            "next": "update the manifest you apply from as well, or the next kubectl apply of it puts the old terms back"
          },
          {
            "code": "LATEST-ALIAS",
            "level": "info",
            "message": "ec2nodeclass/batch selects its AMIs with alias al2023@latest, which floats: its nodes drift on their own whenever AWS publishes a new AMI or the control plane is upgraded",
            "evidence": [],
            "next": "pin it too: karp-drift plan --nodeclass batch"
          }
        ],
        "blocked": false,
        "pin": "id",
        "release": "latest",
        "fieldManager": "karp-drift",
        "forceConflicts": false,
        "source": {
          "kind": "ssm",
          "region": "us-west-2"
        },
        "summary": {
          "nodeClassesToChange": 2,
          "nodesToReplace": 9
        }
      }
      "
    `);
  });

  it.each<[string, PlanSource, string]>([
    [
      'promoted from a file of this region',
      { kind: 'file', path: 'artifacts/amis.json', shape: 'amis', region: 'us-west-2', fileRegion: 'us-west-2', kubernetesVersion: '1.31', lookup: 'id' },
      'Kubernetes 1.31 (control plane 1.31), AMIs promoted from artifacts/amis.json (release v20241109), verified by ID in us-west-2, pinned by id',
    ],
    [
      'promoted from a file of another region',
      { kind: 'file', path: 'plan.json', shape: 'plan', region: 'us-west-2', fileRegion: 'eu-west-1', kubernetesVersion: '1.31', lookup: 'name' },
      "Kubernetes 1.31 (control plane 1.31), AMIs promoted from plan.json (release v20241109), found by image name in us-west-2 (the file's IDs are eu-west-1's), pinned by id",
    ],
    [
      'promoted from a plan that did not record its region',
      { kind: 'file', path: 'plan.json', shape: 'plan', region: 'us-west-2', fileRegion: null, kubernetesVersion: '1.31', lookup: 'name' },
      'Kubernetes 1.31 (control plane 1.31), AMIs promoted from plan.json (release v20241109), found by image name in us-west-2, pinned by id',
    ],
    [
      'promoted from a source cluster whose region its kubeconfig does not tell',
      { kind: 'cluster', context: 'staging', server: 'https://127.0.0.1:6443', region: 'us-west-2', sourceRegion: null, kubernetesVersion: '1.31', lookup: 'name', otherClasses: [] },
      'Kubernetes 1.31 (control plane 1.31), AMIs promoted from context staging at https://127.0.0.1:6443 (release v20241109), found by image name in us-west-2, pinned by id',
    ],
    [
      'promoted from a source cluster of another region',
      { kind: 'cluster', context: 'staging', server: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', region: 'us-west-2', sourceRegion: 'eu-west-1', kubernetesVersion: '1.31', lookup: 'name', otherClasses: [] },
      "Kubernetes 1.31 (control plane 1.31), AMIs promoted from context staging at https://ABC.gr7.eu-west-1.eks.amazonaws.com (release v20241109), found by image name in us-west-2 (context staging's IDs are eu-west-1's), pinned by id",
    ],
  ])('says where the AMIs came from: %s', (_name, source, first) => {
    const p = scenario(source);
    expect(planText(p, { color: false }).split('\n')[0]).toBe(first);
    expect((JSON.parse(planJson(p, clusterIdentity('prod', 'prod', 'https://x'))) as { source: unknown }).source).toEqual(source);
  });

  it("says which of the source's classes were not promoted, and that they need not be on --to there", () => {
    const br = {
      family: 'bottlerocket' as const,
      arch: 'amd64' as const,
      variant: 'standard' as const,
      release: '1.26.0',
      id: 'ami-0b0771e0000000129',
      name: 'bottlerocket-aws-k8s-1.30-x86_64-v1.26.0-fc52b5c7',
    };
    const source: PlanSource = {
      kind: 'cluster',
      context: 'staging',
      server: 'https://127.0.0.1:6443',
      region: 'us-west-2',
      sourceRegion: null,
      kubernetesVersion: '1.31',
      lookup: 'name',
      otherClasses: [
        { name: 'bottlerocket', family: 'bottlerocket', amis: [{ ...br, kubernetesVersion: '1.30' }], settled: false },
        { name: 'golden', family: null, amis: [], settled: true },
      ],
    };
    const p = scenario(source);
    expect(planText(p, { color: false }).split('\n')[1]).toBe(
      'Not promoted from context staging, so not required to be on 1.31 there: ec2nodeclass/bottlerocket (bottlerocket amd64 standard on Kubernetes 1.30, mid-rollout), ec2nodeclass/golden (no EKS-optimized family)',
    );
    const json = JSON.parse(planJson(p, clusterIdentity('prod', 'prod', 'https://x'))) as { source: { otherClasses: unknown } };
    expect(json.source.otherClasses).toEqual(source.otherClasses);
    // Nothing left out: no line.
    expect(planText(scenario({ ...source, otherClasses: [] }), { color: false }).split('\n')[1]).toBe('');
  });

  it('colours the diff and the check levels when asked', () => {
    const text = planText(scenario(), { color: true });
    expect(text).toContain('\x1b[33m~ ec2nodeclass/default\x1b[0m');
    expect(text).toContain('\x1b[31m  - amiSelectorTerms: [{alias: al2023@v20240917}]\x1b[0m');
    expect(text).toContain('\x1b[32m  + amiFamily: AL2023\x1b[0m');
    expect(text).toContain('\x1b[33mWarnings (2):\x1b[0m');
  });

  it('shows an unchanged class and its remaining drift (a resumed rollout)', () => {
    const inv = inventory({
      nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20241109' }] })],
      nodePools: [nodePool({ budgets: [] })],
      nodeClaims: [
        nodeClaim({ name: 'general-1', imageId: NEW['amd64/standard'] }),
        nodeClaim({ name: 'general-2' }),
        nodeClaim({ name: 'general-3', imageId: undefined, nodeName: undefined, conditions: {} }),
      ],
    });
    const p = plan(
      inv,
      targetAmis(),
      { to: '1.31', pin: 'alias', release: 'v20241109', fieldManager: 'karp-drift' },
      NOW,
    );
    expect(planText(p, { color: false })).toMatchInlineSnapshot(`
      "Kubernetes 1.31 (control plane 1.31), release v20241109, pinned by alias

        ec2nodeclass/default (al2023): no changes, already selects [{alias: al2023@v20241109}]
            amd64 standard: ami-0new0amd64std amazon-eks-node-al2023-x86_64-standard-1.31-v20241109
        nodepool/general: 3 nodes, 1 will drift, 1 on target, 1 launching; Drifted budget: no limit now → 1 wave

      Info (1):
        ALREADY-PINNED: ec2nodeclass/default already selects the target AMIs: nothing to apply, and a rollout in progress is followed from where it is

      No changes: the EC2NodeClasses already select the target AMIs; 1 node still to replace.
      "
    `);
  });

  const s = scenario();
  const error = { code: 'AMI-MISSING' as const, level: 'error' as const, message: 'x', evidence: [] };
  it.each<[string, Plan, string]>([
    ['changes', s, 'Plan: 2 EC2NodeClasses to change, 9 nodes to replace.'],
    [
      'one of each',
      {
        ...s,
        nodeClasses: s.nodeClasses.slice(0, 1),
        nodePools: s.nodePools.map((p) => ({ ...p, toDrift: p.name === 'gpu' ? 1 : 0 })),
      },
      'Plan: 1 EC2NodeClass to change, 1 node to replace.',
    ],
    [
      'blocked',
      { ...s, checks: [error], blocked: true },
      'Plan: 2 EC2NodeClasses to change, 9 nodes to replace. Blocked by 1 error: nothing will be applied.',
    ],
    [
      'already pinned, nodes left',
      { ...s, nodeClasses: s.nodeClasses.map((c) => ({ ...c, changed: false })) },
      'No changes: the EC2NodeClasses already select the target AMIs; 9 nodes still to replace.',
    ],
    [
      'all done',
      {
        ...s,
        nodeClasses: s.nodeClasses.map((c) => ({ ...c, changed: false })),
        nodePools: s.nodePools.map((p) => ({ ...p, toDrift: 0 })),
      },
      'No changes: the EC2NodeClasses already select the target AMIs, and every node runs them.',
    ],
    [
      'nothing in scope',
      { ...s, nodeClasses: [], nodePools: [], checks: [], blocked: false },
      'No changes: no EC2NodeClass to plan.',
    ],
  ])('final line: %s', (_name, p, last) => {
    expect(planText(p, { color: false }).trimEnd().split('\n').at(-1)).toBe(last);
  });
});
