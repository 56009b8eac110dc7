import { describe, expect, it } from 'vitest';
import { evaluateJsonPath, parseJsonPath } from '../../../src/sandbox/kube-api/jsonpath.js';
import { humanDuration } from '../../../src/sandbox/kube-api/printers.js';
import { toTable } from '../../../src/sandbox/kube-api/table.js';
import type { KubeObject, ResourceInfo } from '../../../src/sandbox/kube-api/types.js';
import { events, fixture, karpenterCrd, namespaces, nodes, podDisruptionBudgets, pods } from './resources.js';

// The fixtures' moment: 2025-08-20 15:00 UTC, about an hour after the NodeClaim was marked Drifted.
const now = new Date('2025-08-20T15:00:00Z');
const nodeClaims = karpenterCrd('karpenter.sh_nodeclaims.yaml').resource;
const nodePools = karpenterCrd('karpenter.sh_nodepools.yaml').resource;
const driftedNodeClaim = fixture('nodeclaim-drifted.yaml') as KubeObject;
const disruptedNode = fixture('node-disrupted.yaml') as KubeObject;

const cells = (resource: ResourceInfo, obj: KubeObject) =>
  toTable(resource, [obj], { includeObject: 'None', now }).rows[0]?.cells;
const headers = (resource: ResourceInfo) =>
  toTable(resource, [], { includeObject: 'None', now }).columnDefinitions.map(
    (c) => `${c.name}${c.priority > 0 ? ' (wide)' : ''}`,
  );

describe('toTable for custom resources', () => {
  it('prints the real NodeClaim printer columns of a drifted NodeClaim, the -o wide ones included', () => {
    const table = toTable(nodeClaims, [driftedNodeClaim], {
      includeObject: 'Metadata',
      now,
      listMeta: { resourceVersion: '48215200' },
    });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Type', 'string', 0],
      ['Capacity', 'string', 0],
      ['Zone', 'string', 0],
      ['Node', 'string', 0],
      ['Ready', 'string', 0],
      ['Age', 'date', 0],
      ['ImageID', 'string', 1],
      ['ID', 'string', 1],
      ['NodePool', 'string', 1],
      ['NodeClass', 'string', 1],
      ['Drifted', 'string', 1],
    ]);
    expect(table.columnDefinitions[1]).toEqual({
      name: 'Type',
      type: 'string',
      format: '',
      description:
        'Custom resource definition column (in JSONPath format): .metadata.labels.node\\.kubernetes\\.io/instance-type',
      priority: 0,
    });
    expect(table.metadata).toEqual({ resourceVersion: '48215200' });
    expect(table.rows).toEqual([
      {
        cells: [
          'general-purpose-8zq4v',
          'm6i.xlarge',
          'on-demand',
          'us-west-2a',
          'ip-10-0-47-183.us-west-2.compute.internal',
          'True',
          '16d',
          'ami-0c7d1e4a9f2b85e63',
          'aws:///us-west-2a/i-0a9c3f7e51d2b8046',
          'general-purpose',
          'default',
          'True',
        ],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: driftedNodeClaim.metadata },
      },
    ]);
  });

  it('leaves a cell null when its path finds nothing, as a NodeClaim just created has no status', () => {
    const launching = {
      ...driftedNodeClaim,
      metadata: { ...driftedNodeClaim.metadata, creationTimestamp: '2025-08-20T14:59:30Z' },
      status: {},
    };
    expect(cells(nodeClaims, launching)).toEqual([
      'general-purpose-8zq4v',
      'm6i.xlarge',
      'on-demand',
      'us-west-2a',
      null,
      null,
      '30s',
      null,
      null,
      'general-purpose',
      'default',
      null,
    ]);
  });

  it('prints a non-string value in a string column as text, and keeps integers typed', () => {
    const nodePool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'general-purpose', creationTimestamp: '2025-08-20T14:52:30Z' },
      spec: {
        weight: 10,
        template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      },
      status: {
        nodes: 3,
        resources: { cpu: '12', memory: '47247312Ki' },
        conditions: [{ type: 'Ready', status: 'False' }],
      },
    };
    expect(cells(nodePools, nodePool)).toEqual([
      'general-purpose',
      'default',
      '3',
      'False',
      '7m30s',
      10,
      '12',
      '47247312Ki',
    ]);
  });

  it('adds only an Age column when the CRD declares none', () => {
    const plain: ResourceInfo = { ...nodeClaims, crd: { name: 'widgets.example.com' } };
    expect(headers(plain)).toEqual(['Name', 'Age']);
  });

  it.each([
    { includeObject: 'Object' as const, object: driftedNodeClaim },
    { includeObject: 'None' as const, object: null },
  ])('carries the row object per includeObject=$includeObject', ({ includeObject, object }) => {
    expect(toTable(nodeClaims, [driftedNodeClaim], { includeObject, now }).rows[0]?.object).toEqual(object);
  });
});

describe('toTable for core kinds', () => {
  it('prints nodes as kubectl get nodes -o wide shows them', () => {
    expect(headers(nodes)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP (wide)',
      'External-IP (wide)',
      'OS-Image (wide)',
      'Kernel-Version (wide)',
      'Container-Runtime (wide)',
    ]);
    expect(cells(nodes, disruptedNode)).toEqual([
      'ip-10-0-47-183.us-west-2.compute.internal',
      'Ready',
      '<none>',
      '16d',
      'v1.33.0-eks-802817d',
      '10.0.47.183',
      '<none>',
      'Amazon Linux 2023.8.20250715',
      '6.1.141-155.222.amzn2023.x86_64',
      'containerd://1.7.27',
    ]);
    const cordoned = {
      ...disruptedNode,
      metadata: { ...disruptedNode.metadata, labels: { 'node-role.kubernetes.io/worker': '' } },
      spec: { unschedulable: true },
    };
    expect(cells(nodes, cordoned)?.slice(1, 3)).toEqual(['Ready,SchedulingDisabled', 'worker']);
  });

  const pod = (status: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-7d4b9c8f5-x2x9k', namespace: 'shop', creationTimestamp: '2025-08-20T12:00:00Z' },
    spec: { nodeName: 'ip-10-0-47-183.us-west-2.compute.internal', containers: [{ name: 'app' }, { name: 'proxy' }] },
    status,
    ...extra,
  });
  const running = (name: string, restartCount = 0) => ({
    name,
    ready: true,
    restartCount,
    state: { running: { startedAt: '2025-08-20T12:00:05Z' } },
  });

  it.each([
    {
      name: 'running and ready',
      obj: pod({
        phase: 'Running',
        podIPs: [{ ip: '10.0.47.20' }],
        containerStatuses: [running('app'), running('proxy')],
      }),
      expected: [
        'web-7d4b9c8f5-x2x9k',
        '2/2',
        'Running',
        '0',
        '3h',
        '10.0.47.20',
        'ip-10-0-47-183.us-west-2.compute.internal',
        '<none>',
        '<none>',
      ],
    },
    {
      name: 'restarting',
      obj: pod({
        phase: 'Running',
        containerStatuses: [
          { ...running('app', 2), lastState: { terminated: { exitCode: 1, finishedAt: '2025-08-20T14:55:00Z' } } },
          { name: 'proxy', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      }),
      expected: [
        'web-7d4b9c8f5-x2x9k',
        '1/2',
        'CrashLoopBackOff',
        '3 (5m ago)',
        '3h',
        '<none>',
        'ip-10-0-47-183.us-west-2.compute.internal',
        '<none>',
        '<none>',
      ],
    },
    {
      name: 'evicted from a drifted node',
      obj: pod(
        { phase: 'Running', containerStatuses: [running('app'), running('proxy')] },
        {
          metadata: {
            name: 'web-7d4b9c8f5-x2x9k',
            creationTimestamp: '2025-08-20T12:00:00Z',
            deletionTimestamp: '2025-08-20T14:59:00Z',
          },
        },
      ),
      expected: [
        'web-7d4b9c8f5-x2x9k',
        '2/2',
        'Terminating',
        '0',
        '3h',
        '<none>',
        'ip-10-0-47-183.us-west-2.compute.internal',
        '<none>',
        '<none>',
      ],
    },
    {
      name: 'waiting on an init container',
      obj: pod(
        { phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 0, state: { running: {} } }] },
        { spec: { initContainers: [{ name: 'migrate' }], containers: [{ name: 'app' }] } },
      ),
      expected: ['web-7d4b9c8f5-x2x9k', '0/1', 'Init:0/1', '0', '3h', '<none>', '<none>', '<none>', '<none>'],
    },
  ])('prints a pod $name', ({ obj, expected }) => {
    expect(cells(pods, obj)).toEqual(expected);
  });

  it('marks a succeeded pod Completed in the row conditions', () => {
    const done = pod({
      phase: 'Succeeded',
      containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    });
    expect(toTable(pods, [done], { includeObject: 'None', now }).rows[0]).toMatchObject({
      cells: [
        'web-7d4b9c8f5-x2x9k',
        '0/2',
        'Completed',
        '0',
        '3h',
        '<none>',
        'ip-10-0-47-183.us-west-2.compute.internal',
        '<none>',
        '<none>',
      ],
      conditions: [
        { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
      ],
    });
  });

  it('prints events, namespaces and PodDisruptionBudgets', () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'general-purpose-8zq4v.185d2a1b3c4d5e6f', namespace: 'default' },
      involvedObject: { kind: 'NodeClaim', name: 'general-purpose-8zq4v' },
      reason: 'DisruptionBlocked',
      message: 'Node is deleting or marked for deletion ',
      type: 'Normal',
      source: { component: 'karpenter' },
      firstTimestamp: '2025-08-20T14:05:41Z',
      lastTimestamp: '2025-08-20T14:55:41Z',
      count: 6,
    };
    expect(cells(events, event)).toEqual([
      '4m19s',
      'Normal',
      'DisruptionBlocked',
      'nodeclaim/general-purpose-8zq4v',
      '',
      'karpenter',
      'Node is deleting or marked for deletion',
      '54m',
      6,
      'general-purpose-8zq4v.185d2a1b3c4d5e6f',
    ]);
    const ns = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', creationTimestamp: '2025-06-01T00:00:00Z' },
      status: { phase: 'Active' },
    };
    expect(cells(namespaces, ns)).toEqual(['shop', 'Active', '80d']);
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'shop', creationTimestamp: '2025-08-20T13:00:00Z' },
      spec: { maxUnavailable: '25%' },
      status: { disruptionsAllowed: 1 },
    };
    expect(headers(podDisruptionBudgets)).toEqual([
      'Name',
      'Min Available',
      'Max Unavailable',
      'Allowed Disruptions',
      'Age',
    ]);
    expect(cells(podDisruptionBudgets, pdb)).toEqual(['web', 'N/A', '25%', 1, '120m']);
  });
});

describe('printer helpers', () => {
  it.each([
    [-5_000, '<invalid>'],
    [-1_500, '0s'],
    [45_000, '45s'],
    [119_000, '119s'],
    [330_000, '5m30s'],
    [7_200_000, '120m'],
    [4.5 * 3_600_000, '4h30m'],
    [30 * 3_600_000, '30h'],
    [(2 * 24 + 4) * 3_600_000, '2d4h'],
    [400 * 86_400_000, '400d'],
    [(3 * 365 + 12) * 86_400_000, '3y12d'],
    [9 * 365 * 86_400_000, '9y'],
  ])('humanDuration(%d ms) is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it.each([
    ['.status.conditions[?(@.type=="Drifted")].status', ['True']],
    [
      '.status.conditions[?(@.type!="Ready")].type',
      [
        'Launched',
        'Registered',
        'Initialized',
        'ConsistentStateFound',
        'Consolidatable',
        'Drifted',
        'DisruptionReason',
      ],
    ],
    ['.metadata.labels.karpenter\\.sh/nodepool', ['general-purpose']],
    ["{.metadata.labels['topology.kubernetes.io/zone']}", ['us-west-2a']],
    ['.spec.requirements[0].values[*]', ['default']],
    ['.spec.requirements[-1].key', ['node.kubernetes.io/instance-type']],
    ['.status.missing.field', []],
  ])('evaluates %s on the drifted NodeClaim', (path, results) => {
    expect(evaluateJsonPath(parseJsonPath(path), driftedNodeClaim)).toEqual(results);
  });
});
