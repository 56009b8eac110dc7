// AMI drift as karpenter-provider-aws decides it: the claim's imageID against the first status.amis entry whose
// requirements the instance satisfies (MapToInstanceTypes), and no verdict at all without AMIs.
import { describe, expect, it } from 'vitest';
import { chosenAmi, compatible, isAmiDrifted, type StatusAmi } from '../../../src/sandbox/karpenter/drift-controller.js';
import { withCondition, withoutCondition } from '../../../src/sandbox/karpenter/objects.js';

const standard = (arch: string) => [
  { key: 'kubernetes.io/arch', operator: 'In', values: [arch] },
  { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' },
  { key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' },
];
const nvidia = (arch: string) => [
  { key: 'kubernetes.io/arch', operator: 'In', values: [arch] },
  { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' },
];
const AMIS: StatusAmi[] = [
  { id: 'ami-nvidia-amd64', requirements: nvidia('amd64') },
  { id: 'ami-std-amd64', requirements: standard('amd64') },
  { id: 'ami-std-arm64', requirements: standard('arm64') },
];
const m7i = { 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'm7i.xlarge' };
const m7g = { 'kubernetes.io/arch': 'arm64', 'node.kubernetes.io/instance-type': 'm7g.xlarge' };
const g5 = { 'kubernetes.io/arch': 'amd64', 'karpenter.k8s.aws/instance-gpu-count': '1' };

describe('isAmiDrifted', () => {
  it.each([
    ['on the chosen standard AMI', 'ami-std-amd64', AMIS, m7i, false],
    ['on the other arch’s AMI', 'ami-std-arm64', AMIS, m7i, true],
    ['arm64 on its AMI', 'ami-std-arm64', AMIS, m7g, false],
    ['a GPU instance on the standard AMI', 'ami-std-amd64', AMIS, g5, true],
    ['a GPU instance on the nvidia AMI', 'ami-nvidia-amd64', AMIS, g5, false],
    ['an old AMI no longer listed', 'ami-old', AMIS, m7i, true],
    ['status.amis empty: no verdict ("no amis exist given constraints")', 'ami-old', [], m7i, undefined],
    ['status.amis absent: no verdict', 'ami-old', undefined, m7i, undefined],
    ['not launched yet: no verdict', undefined, AMIS, m7i, undefined],
    ['no AMI fits the instance: no verdict', 'ami-std-amd64', [AMIS[2]!], m7i, undefined],
  ] as const)('%s', (_name, imageId, amis, labels, expected) => {
    expect(isAmiDrifted(imageId, amis as StatusAmi[] | undefined, labels)).toBe(expected);
  });

  it('takes the first compatible AMI, in status.amis order', () => {
    expect(chosenAmi([{ id: 'a', requirements: standard('amd64') }, { id: 'b', requirements: standard('amd64') }], m7i)?.id).toBe('a');
  });

  it.each([
    ['In', { key: 'k', operator: 'In', values: ['a', 'b'] }, { k: 'b' }, true],
    ['In, absent', { key: 'k', operator: 'In', values: ['a'] }, {}, false],
    ['NotIn', { key: 'k', operator: 'NotIn', values: ['a'] }, { k: 'b' }, true],
    ['NotIn, absent', { key: 'k', operator: 'NotIn', values: ['a'] }, {}, true],
    ['Exists', { key: 'k', operator: 'Exists' }, { k: '' }, true],
    ['DoesNotExist', { key: 'k', operator: 'DoesNotExist' }, { k: 'x' }, false],
    ['Gt', { key: 'k', operator: 'Gt', values: ['5'] }, { k: '7' }, true],
    ['Lt', { key: 'k', operator: 'Lt', values: ['5'] }, { k: '7' }, false],
  ] as const)('requirement %s', (_name, requirement, labels, expected) => {
    expect(compatible([requirement as never], labels)).toBe(expected);
  });
});

describe('conditions', () => {
  const t0 = new Date('2026-11-23T10:00:00Z');
  const t1 = new Date('2026-11-23T10:05:00Z');
  it('moves lastTransitionTime only when the status changes, and removes Drifted rather than setting it False', () => {
    const drifted = withCondition([], { type: 'Drifted', status: 'True', reason: 'AMIDrift', message: 'AMIDrift' }, t0);
    expect(withCondition(drifted, { type: 'Drifted', status: 'True', reason: 'AMIDrift', message: 'AMIDrift' }, t1)[0]!.lastTransitionTime).toBe('2026-11-23T10:00:00Z');
    expect(withCondition(drifted, { type: 'Drifted', status: 'Unknown', reason: 'X', message: '' }, t1)[0]!.lastTransitionTime).toBe('2026-11-23T10:05:00Z');
    expect(withoutCondition(drifted, 'Drifted')).toEqual([]);
  });
});
