// The pure half of discovery: /version as EKS reports it, and which Karpenter API the served groups allow.
import { describe, expect, it } from 'vitest';
import { controlPlaneVersion, servedKarpenterVersions } from '../../src/cluster/discovery.js';
import { RefusedError, UsageError } from '../../src/errors.js';

describe('controlPlaneVersion', () => {
  it.each([
    [{ major: '1', minor: '30+', gitVersion: 'v1.30.4-eks-a737599' }, { minor: '1.30', gitVersion: 'v1.30.4-eks-a737599' }],
    [{ major: '1', minor: '29', gitVersion: 'v1.29.0' }, { minor: '1.29', gitVersion: 'v1.29.0' }],
  ])('%j → %j', (version, expected) => expect(controlPlaneVersion(version)).toEqual(expected));
});

describe('servedKarpenterVersions', () => {
  it.each([
    [['v1'], ['v1'], [], ['v1']],
    [['v1', 'v1beta1'], ['v1', 'v1beta1'], [], ['v1', 'v1beta1']],
    [['v1beta1'], ['v1beta1'], [], ['v1beta1']],
    [['v1'], ['v1'], ['v1'], ['v1']],
  ])('karpenter.sh %j, karpenter.k8s.aws %j, eks.amazonaws.com %j → %j', (core, aws, auto, expected) => {
    expect(servedKarpenterVersions(core, aws, auto, 'prod')).toEqual(expected);
  });

  it.each([
    [[], [], [], UsageError, 'no Karpenter CRDs in context "prod" (neither karpenter.sh nor karpenter.k8s.aws is served): is Karpenter installed?'],
    [['v1'], [], [], UsageError, `context "prod" serves karpenter.sh but not karpenter.k8s.aws: karp-drift needs Karpenter's AWS provider (EC2NodeClass)`],
    [['v1alpha5'], ['v1alpha1'], [], UsageError, 'context "prod" serves Karpenter APIs karpenter.sh v1alpha5 and karpenter.k8s.aws v1alpha1, but karp-drift needs v1 or v1beta1 (Karpenter v0.32 or later) in both'],
    [['v1'], [], ['v1'], RefusedError, 'context "prod" is an EKS Auto Mode cluster: its nodes use NodeClass (eks.amazonaws.com), which has no AMI fields; AWS chooses and updates Auto Mode AMIs itself, so karp-drift has nothing to pin'],
  ])('karpenter.sh %j, karpenter.k8s.aws %j, eks.amazonaws.com %j → %s', (core, aws, auto, type, message) => {
    expect(() => servedKarpenterVersions(core, aws, auto, 'prod')).toThrow(type);
    expect(() => servedKarpenterVersions(core, aws, auto, 'prod')).toThrow(message);
  });
});
