import { describe, expect, it } from 'vitest';
import { isOnTarget } from '../../src/karpenter/views.js';

const initialized = { Initialized: { status: 'True' } };
const targets = new Set(['ami-new']);

describe('isOnTarget: the one definition plan, upgrade, wait and status count with', () => {
  it.each([
    ['on a target AMI and Initialized', { deleting: false, imageId: 'ami-new', conditions: initialized }, true],
    ['on another AMI', { deleting: false, imageId: 'ami-old', conditions: initialized }, false],
    ['being deleted', { deleting: true, imageId: 'ami-new', conditions: initialized }, false],
    ['not launched yet (no imageID)', { deleting: false, conditions: {} }, false],
    ['registered, not Initialized', { deleting: false, imageId: 'ami-new', conditions: { Initialized: { status: 'False' } } }, false],
    ['Initialized unknown', { deleting: false, imageId: 'ami-new', conditions: {} }, false],
  ])('%s', (_, claim, expected) => {
    expect(isOnTarget(claim as Parameters<typeof isOnTarget>[0], targets)).toBe(expected);
  });
});
