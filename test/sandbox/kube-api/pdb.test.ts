import { describe, expect, it } from 'vitest';
import { pdbStatus } from '../../../src/sandbox/kube-api/pdb.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';

const T1 = '2025-08-20T14:00:00Z';
const T2 = '2025-08-20T14:05:00.250Z';

function pod(
  name: string,
  opts: { ready?: boolean; labels?: Record<string, string>; namespace?: string; deleting?: boolean } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.namespace ?? 'shop',
      labels: opts.labels ?? { app: 'web' },
      ...(opts.deleting ? { deletionTimestamp: T1 } : {}),
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

function pdb(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'shop', generation: 2 },
    spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    ...(status ? { status } : {}),
  };
}

/** n pods of app=web, the first `unhealthy` of them not Ready. */
const pods = (n: number, unhealthy = 0) =>
  Array.from({ length: n }, (_, i) => pod(`web-${i}`, { ready: i >= unhealthy }));

describe('pdbStatus', () => {
  it.each([
    { name: 'minAvailable 2, 3 healthy', spec: { minAvailable: 2 }, pods: pods(3), expected: [3, 2, 3, 1] },
    { name: 'minAvailable 2, 1 of 3 unhealthy', spec: { minAvailable: 2 }, pods: pods(3, 1), expected: [2, 2, 3, 0] },
    { name: 'maxUnavailable 1, 4 healthy', spec: { maxUnavailable: 1 }, pods: pods(4), expected: [4, 3, 4, 1] },
    {
      name: 'maxUnavailable 1, 1 of 4 unhealthy',
      spec: { maxUnavailable: 1 },
      pods: pods(4, 1),
      expected: [3, 3, 4, 0],
    },
    { name: 'maxUnavailable 0', spec: { maxUnavailable: 0 }, pods: pods(4), expected: [4, 4, 4, 0] },
    {
      name: 'minAvailable 50% of 5 rounds up to 3, 1 unhealthy',
      spec: { minAvailable: '50%' },
      pods: pods(5, 1),
      expected: [4, 3, 5, 1],
    },
    {
      name: 'maxUnavailable 25% of 5 rounds up to 2',
      spec: { maxUnavailable: '25%' },
      pods: pods(5),
      expected: [5, 3, 5, 2],
    },
    {
      name: 'maxUnavailable 30% of 3 rounds up to 1, 1 unhealthy',
      spec: { maxUnavailable: '30%' },
      pods: pods(3, 1),
      expected: [2, 2, 3, 0],
    },
    { name: 'minAvailable 100%', spec: { minAvailable: '100%' }, pods: pods(3), expected: [3, 3, 3, 0] },
    {
      name: 'a terminating pod counts as expected, not healthy',
      spec: { maxUnavailable: 1 },
      pods: [...pods(2), pod('web-going', { deleting: true })],
      expected: [2, 2, 3, 0],
    },
    { name: 'no matching pod allows nothing', spec: { maxUnavailable: 1 }, pods: [], expected: [0, 0, 0, 0] },
  ])('$name', ({ spec, pods: podList, expected }) => {
    const status = pdbStatus(pdb(spec), podList, T1);
    expect([status.currentHealthy, status.desiredHealthy, status.expectedPods, status.disruptionsAllowed]).toEqual(
      expected,
    );
  });

  it('counts only pods of its namespace that its selector matches; a null selector matches none, {} all', () => {
    const cluster = [
      pod('web-0'),
      pod('web-1', { labels: { app: 'web', tier: 'canary' } }),
      pod('api-0', { labels: { app: 'api' } }),
      pod('web-other', { namespace: 'other' }),
    ];
    const count = (selector: unknown) => pdbStatus(pdb({ minAvailable: 0, selector }), cluster, T1).expectedPods;
    expect(count({ matchLabels: { app: 'web' } })).toBe(2);
    expect(count({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['canary'] }] })).toBe(2);
    expect(
      count({
        matchExpressions: [
          { key: 'app', operator: 'In', values: ['web', 'api'] },
          { key: 'tier', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe(2);
    expect(count({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] })).toBe(1);
    expect(count({})).toBe(3);
    expect(count(null)).toBe(0);
  });

  it('writes the whole status with the DisruptionAllowed condition, moving lastTransitionTime only when it flips', () => {
    const first = pdbStatus(pdb({ maxUnavailable: 1 }), pods(3), T1);
    expect(first).toEqual({
      observedGeneration: 2,
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          observedGeneration: 2,
          lastTransitionTime: T1,
          reason: 'SufficientPods',
          message: '',
        },
      ],
    });
    const same = pdbStatus(pdb({ maxUnavailable: 1 }, { ...first }), pods(3), T2);
    expect(same.conditions[0]?.lastTransitionTime).toBe(T1);
    const flipped = pdbStatus(pdb({ maxUnavailable: 1 }, { ...first }), pods(3, 1), T2);
    expect(flipped.conditions).toEqual([
      {
        type: 'DisruptionAllowed',
        status: 'False',
        observedGeneration: 2,
        lastTransitionTime: '2025-08-20T14:05:00Z',
        reason: 'InsufficientPods',
        message: '',
      },
    ]);
  });

  it('fails safe on a value that is neither an integer nor a percentage', () => {
    const status = pdbStatus(pdb({ minAvailable: '2' }), pods(3), T1);
    expect(status.disruptionsAllowed).toBe(0);
    expect(status.conditions).toEqual([
      {
        type: 'DisruptionAllowed',
        status: 'False',
        lastTransitionTime: T1,
        reason: 'SyncFailed',
        message: 'invalid value for IntOrString: invalid type: string is not a percentage',
      },
    ]);
  });
});
