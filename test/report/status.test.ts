// `karp-drift status` for one cluster, as a table and as JSON: EC2NodeClass "default" was pinned to ami-new (kubelet
// 1.30); NodePool "general" is halfway through its drift, NodePool "frozen" has a budget of 0 for Drifted.
import { describe, expect, it } from 'vitest';
import { clusterIdentity } from '../../src/apis/cluster-identity.js';
import type { Inventory } from '../../src/karpenter/views.js';
import stringWidth from 'string-width';
import { clusterStatus, statusFrame, statusJson, statusTable } from '../../src/report/status.js';
import { at, event, iso, members, nodeClaim, nodeClass, nodePool } from '../rollout/factories.js';

const claims = members(
  nodeClaim({ name: 'general-old01', drifted: true, disruptionReason: true }),
  nodeClaim({ name: 'general-new01', imageId: 'ami-new' }),
  nodeClaim({ name: 'general-new02', imageId: 'ami-new', phase: 'launched', launchedAt: at(19) }),
  nodeClaim({ name: 'frozen-old01', nodePool: 'frozen', drifted: true }),
  nodeClaim({ name: 'frozen-old02', nodePool: 'frozen', drifted: true }),
);

const inventory: Inventory = {
  karpenterApi: 'v1',
  controlPlane: { minor: '1.30', gitVersion: 'v1.30.8-eks-2d98532' },
  nodeClasses: [nodeClass()],
  nodePools: [nodePool(), nodePool({ name: 'frozen', budgets: [{ nodes: '0', reasons: ['Drifted'] }] })],
  ...claims,
  pdbs: [],
  pods: [],
  events: [event({ involvedName: 'frozen', count: 12, firstTimestamp: iso(at(2)), lastTimestamp: iso(at(19, 30)) })],
};

describe('status report', () => {
  const status = clusterStatus(inventory, at(20));

  it('counts each NodePool by kubelet and AMI and attaches its blockers', () => {
    expect(
      status.nodePools.map((p) => [
        p.name,
        p.nodes,
        p.byKubeletVersion,
        p.byImage,
        p.drifted,
        p.disrupting,
        p.launching,
        p.blockers.map((b) => b.code),
      ]),
    ).toEqual([
      ['frozen', 2, { 'v1.29.8-eks-a1b2c3d': 2 }, { 'ami-old': 2 }, 2, 0, 0, ['STALL-BUDGET']],
      [
        'general',
        3,
        { 'v1.29.8-eks-a1b2c3d': 1, 'v1.30.4-eks-e5f6a7b': 1 },
        { 'ami-new': 2, 'ami-old': 1 },
        1,
        1,
        1,
        [],
      ],
    ]);
  });

  it('draws a kubectl-style table, then the blockers', () => {
    expect(statusTable(status, { wide: true })).toMatchInlineSnapshot(`
      "NODEPOOL   NODECLASS   NODES   UP-TO-DATE   DRIFTED   DISRUPTING   LAUNCHING   KUBELET                                       AMI                   AMI-SELECTOR
      frozen     default     2       0            2         0            0           v1.29.8-eks-a1b2c3d=2                         ami-old=2             id=ami-new
      general    default     3       1            1         1            1           v1.29.8-eks-a1b2c3d=1,v1.30.4-eks-e5f6a7b=1   ami-new=2,ami-old=1   id=ami-new

      STALL-BUDGET: No allowed disruptions for reason Drifted (NodePool frozen)
        - spec.disruption.budgets[0] {nodes: "0", reasons: [Drifted]} is always active
        - Drifted: limit 0 over 2 initialized nodes, 0 disrupting, 2 drifted waiting
        - event DisruptionBlocked on NodePool/frozen (30s ago, x12 over 18m): "No allowed disruptions for disruption reason Drifted due to blocking budget"
        next: Allow Drifted disruptions in spec.disruption.budgets (budgets are not hashed: editing them causes no drift): kubectl edit nodepool frozen
      "
    `);
  });

  it('puts KUBELET, AMI and AMI-SELECTOR behind -o wide: the default table fits 80 columns mid-rollout', () => {
    const table = statusTable(status);
    expect(
      table
        .split('\n')
        .slice(0, 3)
        .every((l) => l.length <= 80),
    ).toBe(true);
    expect(table).not.toMatch(/KUBELET|AMI-SELECTOR/);
    expect(statusTable(status, { wide: true }).split('\n')[0]).toMatch(/LAUNCHING +KUBELET +AMI +AMI-SELECTOR$/);
  });

  it('fits --watch frames to the screen: tables to the width, evidence cut, the next: command wrapped whole', () => {
    expect(statusFrame(status, { columns: 60, rows: 24 })).toMatchInlineSnapshot(`
      [
        "NODEPOOL: frozen",
        "  NODECLASS: default  NODES: 2  UP-TO-DATE: 0  DRIFTED: 2",
        "  DISRUPTING: 0  LAUNCHING: 0",
        "NODEPOOL: general",
        "  NODECLASS: default  NODES: 3  UP-TO-DATE: 1  DRIFTED: 1",
        "  DISRUPTING: 1  LAUNCHING: 1",
        "",
        "STALL-BUDGET: No allowed disruptions for reason Drifted",
        "  (NodePool frozen)",
        "  - spec.disruption.budgets[0] {nodes: "0", reasons: [Drift…",
        "  - Drifted: limit 0 over 2 initialized nodes, 0 disrupting…",
        "  - event DisruptionBlocked on NodePool/frozen (30s ago, x1…",
        "  next: Allow Drifted disruptions in spec.disruption.budgets",
        "        (budgets are not hashed: editing them causes no",
        "        drift): kubectl edit nodepool frozen",
      ]
    `);
    // Each row within the width, headers whole at every width, and the command on screen whole or not at all.
    for (const columns of [30, 40, 50, 60, 80, 120]) {
      const frame = statusFrame(status, { columns, rows: 40 });
      expect(frame.filter((l) => stringWidth(l) > columns)).toEqual([]);
      const text = frame.join(' ').replace(/ +/g, ' ');
      for (const header of ['NODEPOOL', 'NODECLASS', 'NODES', 'UP-TO-DATE', 'DRIFTED', 'DISRUPTING', 'LAUNCHING'])
        expect(text).toMatch(new RegExp(`(^| )${header}( |:)`));
      expect(text).toContain('kubectl edit nodepool frozen');
    }
    // Too short for the next: line's two rows: left out whole, the rows counted.
    expect(statusFrame(status, { columns: 80, rows: 10 }).slice(-2)).toEqual([
      '  - event DisruptionBlocked on NodePool/frozen (30s ago, x12 over 18m): "No all…',
      '… 2 more lines: a taller terminal shows them, as does status without --watch',
    ]);
  });

  it('prints one JSON document, naming the cluster', () => {
    expect(
      statusJson(
        status,
        clusterIdentity(
          'prod',
          'arn:aws:eks:us-west-2:111122223333:cluster/prod',
          'https://ABC.gr7.us-west-2.eks.amazonaws.com',
        ),
      ),
    ).toMatchInlineSnapshot(`
      "{
        "cluster": {
          "context": "prod",
          "server": "https://ABC.gr7.us-west-2.eks.amazonaws.com",
          "kubeconfigCluster": "arn:aws:eks:us-west-2:111122223333:cluster/prod",
          "name": "prod"
        },
        "kubernetesVersion": "1.30",
        "karpenterApi": "v1",
        "nodePools": [
          {
            "name": "frozen",
            "nodeClass": "default",
            "nodes": 2,
            "upToDate": 0,
            "byKubeletVersion": {
              "v1.29.8-eks-a1b2c3d": 2
            },
            "byImage": {
              "ami-old": 2
            },
            "drifted": 2,
            "disrupting": 0,
            "launching": 0,
            "amiSelectorTerms": [
              {
                "id": "ami-new"
              }
            ],
            "blockers": [
              {
                "code": "STALL-BUDGET",
                "message": "No allowed disruptions for reason Drifted (NodePool frozen)",
                "evidence": [
                  "spec.disruption.budgets[0] {nodes: \\"0\\", reasons: [Drifted]} is always active",
                  "Drifted: limit 0 over 2 initialized nodes, 0 disrupting, 2 drifted waiting",
                  "event DisruptionBlocked on NodePool/frozen (30s ago, x12 over 18m): \\"No allowed disruptions for disruption reason Drifted due to blocking budget\\""
                ],
                "next": "Allow Drifted disruptions in spec.disruption.budgets (budgets are not hashed: editing them causes no drift): kubectl edit nodepool frozen"
              }
            ]
          },
          {
            "name": "general",
            "nodeClass": "default",
            "nodes": 3,
            "upToDate": 1,
            "byKubeletVersion": {
              "v1.29.8-eks-a1b2c3d": 1,
              "v1.30.4-eks-e5f6a7b": 1
            },
            "byImage": {
              "ami-new": 2,
              "ami-old": 1
            },
            "drifted": 1,
            "disrupting": 1,
            "launching": 1,
            "amiSelectorTerms": [
              {
                "id": "ami-new"
              }
            ],
            "blockers": []
          }
        ],
        "holds": []
      }
      "
    `);
  });

  it("lists karp-drift's own holds after the table, within 80 columns, and in the JSON document", () => {
    const paused = clusterStatus(
      {
        ...inventory,
        nodePools: [
          nodePool({
            budgets: [{ nodes: '20%' }, { nodes: '0', reasons: ['Drifted'] }],
            annotations: {
              'karp-drift.io/drift-hold': JSON.stringify({
                runId: '3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f',
                since: '2025-08-20T14:08:00Z',
                budgets: [{ nodes: '20%' }],
              }),
            },
          }),
          nodePool({ name: 'frozen', budgets: [{ nodes: '0', reasons: ['Drifted'] }] }),
        ],
        nodes: inventory.nodes.map((n) =>
          n.nodePool === 'frozen' ? { ...n, doNotDisrupt: true, heldBy: '77ab12cd-0000-4000-8000-000000000000' } : n,
        ),
      },
      at(20),
    );
    const text = statusTable(paused);
    expect(text.slice(0, text.indexOf('STALL-'))).toMatchInlineSnapshot(`
      "NODEPOOL   NODECLASS   NODES   UP-TO-DATE   DRIFTED   DISRUPTING   LAUNCHING
      frozen     default     2       0            2         0            0
      general    default     3       1            1         1            1

      Drift held by karp-drift:
      NODEPOOL   HOLD                        AGE   RUN
      frozen     do-not-disrupt on 2 nodes   -     77ab12cd…
      general    budget (Drifted: 0 more)    12m   3f2a9c1e…
      karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on

      "
    `);
    expect(
      text
        .slice(0, text.indexOf('STALL-'))
        .split('\n')
        .every((l) => l.length <= 80),
    ).toBe(true);
    const doc = statusJson(paused, clusterIdentity('prod', 'prod', 'https://x'));
    expect(doc.slice(doc.indexOf('"holds"'))).toMatchInlineSnapshot(`
      ""holds": [
          {
            "nodePool": "frozen",
            "mechanism": "node",
            "runId": "77ab12cd-0000-4000-8000-000000000000",
            "nodes": 2,
            "state": "paused"
          },
          {
            "nodePool": "general",
            "mechanism": "budget",
            "since": "2025-08-20T14:08:00Z",
            "runId": "3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f",
            "allowance": 0,
            "budgets": [
              {
                "nodes": "20%"
              }
            ],
            "state": "paused"
          }
        ]
      }
      "
    `);
  });

  it('takes an EC2NodeClass that is not ready as no target at all', () => {
    const broken = clusterStatus(
      {
        ...inventory,
        nodeClasses: [
          nodeClass({
            statusAmis: [],
            conditions: {
              AMIsReady: {
                status: 'False',
                reason: 'AMINotFound',
                message: 'AMISelector did not match any AMIs',
                observedGeneration: 2,
              },
            },
          }),
        ],
      },
      at(20),
    );
    expect(broken.nodePools.map((p) => p.blockers.map((b) => b.code))).toEqual([
      ['STALL-AMIS-NOT-READY', 'STALL-BUDGET'],
      ['STALL-AMIS-NOT-READY'],
    ]);
    expect(statusTable(broken).match(/^STALL-AMIS-NOT-READY/gm)).toHaveLength(1);
  });
});
