// The cluster a machine-readable document names: the context, the server (without credentials) and a cluster name
// (the EKS name of an `aws eks update-kubeconfig` ARN entry, else the kubeconfig entry's own name).
import { describe, expect, it } from 'vitest';
import { clusterIdentity } from '../../src/apis/cluster-identity.js';

describe('clusterIdentity', () => {
  it.each([
    [
      'aws eks update-kubeconfig: the ARN names the cluster',
      ['arn:aws:eks:us-west-2:111122223333:cluster/prod', 'arn:aws:eks:us-west-2:111122223333:cluster/prod', 'https://ABC.gr7.us-west-2.eks.amazonaws.com'],
      { context: 'arn:aws:eks:us-west-2:111122223333:cluster/prod', server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com', kubeconfigCluster: 'arn:aws:eks:us-west-2:111122223333:cluster/prod', name: 'prod' },
    ],
    [
      'GovCloud and China partitions are ARNs too',
      ['gov', 'arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/secure-1', 'https://x.eks.amazonaws.com'],
      { context: 'gov', server: 'https://x.eks.amazonaws.com', kubeconfigCluster: 'arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/secure-1', name: 'secure-1' },
    ],
    [
      'eksctl: the entry name as it is',
      ['admin@prod.us-west-2.eksctl.io', 'prod.us-west-2.eksctl.io', 'https://x.eks.amazonaws.com'],
      { context: 'admin@prod.us-west-2.eksctl.io', server: 'https://x.eks.amazonaws.com', kubeconfigCluster: 'prod.us-west-2.eksctl.io', name: 'prod.us-west-2.eksctl.io' },
    ],
    [
      'an ARN of something else is not an EKS cluster',
      ['c', 'arn:aws:iam::111122223333:role/cluster/x', 'https://x'],
      { context: 'c', server: 'https://x', kubeconfigCluster: 'arn:aws:iam::111122223333:role/cluster/x', name: 'arn:aws:iam::111122223333:role/cluster/x' },
    ],
    [
      'credentials in the server URL are left out',
      ['c', 'c', 'https://admin:s3cret@api.example:6443'],
      { context: 'c', server: 'https://api.example:6443', kubeconfigCluster: 'c', name: 'c' },
    ],
  ] as const)('%s', (_name, [context, entry, server], expected) => {
    expect(clusterIdentity(context, entry, server)).toEqual(expected);
  });
});
