// Karpenter's root condition for an EC2NodeClass (operatorpkg's ConditionSet), as the simulated controller computes it.
import { describe, expect, it } from 'vitest';
import { readyCondition } from '../../../src/sandbox/karpenter/nodeclass-controller.js';
import type { Condition } from '../../../src/sandbox/karpenter/objects.js';

describe('readyCondition (operatorpkg root condition)', () => {
  const c = (
    type: string,
    status: Condition['status'],
    observedGeneration: number,
    lastTransitionTime = '2026-11-23T10:00:00Z',
  ): Condition => ({
    type,
    status,
    reason: type,
    message: '',
    observedGeneration,
    lastTransitionTime,
  });
  const others = [
    c('SubnetsReady', 'True', 2),
    c('SecurityGroupsReady', 'True', 2),
    c('InstanceProfileReady', 'True', 2),
    c('ValidationSucceeded', 'True', 2),
  ];
  it.each<[string, Condition[], Partial<Condition>]>([
    [
      'every dependent True at this generation',
      [c('AMIsReady', 'True', 2), ...others],
      { status: 'True', reason: 'Ready', message: '' },
    ],
    [
      'one False at this generation',
      [c('AMIsReady', 'False', 2), ...others],
      {
        status: 'False',
        reason: 'UnhealthyDependents',
        message: 'AMIsReady=False',
      },
    ],
    [
      'one True of an older generation',
      [c('AMIsReady', 'True', 1), ...others],
      {
        status: 'Unknown',
        reason: 'ReconcilingDependents',
        message: 'AMIsReady=True',
      },
    ],
    [
      'one False of an older generation',
      [c('AMIsReady', 'False', 1), ...others],
      {
        status: 'Unknown',
        reason: 'ReconcilingDependents',
        message: 'AMIsReady=False',
      },
    ],
    [
      'two unhealthy, the most recent first',
      [
        c('AMIsReady', 'Unknown', 2, '2026-11-23T10:00:00Z'),
        c('SubnetsReady', 'False', 2, '2026-11-23T10:05:00Z'),
        ...others.slice(1),
      ],
      {
        status: 'False',
        reason: 'UnhealthyDependents',
        message: 'SubnetsReady=False, AMIsReady=Unknown',
      },
    ],
  ])('%s', (_name, conditions, expected) => {
    expect(readyCondition(conditions, 2)).toMatchObject(expected);
  });
});
