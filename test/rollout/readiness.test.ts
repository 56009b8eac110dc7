// Has Karpenter taken the applied AMI selection (generation 2 of EC2NodeClass "default", target ami-new)? Each row is
// the class as Karpenter leaves it after one kind of reconcile.
import { describe, expect, it } from 'vitest';
import type { NodeClassView } from '../../src/karpenter/views.js';
import { nodeClassReadiness, type Readiness } from '../../src/rollout/readiness.js';
import { nodeClass, scope, snapshotOf } from './factories.js';

const condition = (
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  observedGeneration: number,
) => ({
  status,
  reason,
  message,
  observedGeneration,
});

const readiness = (view: NodeClassView): Readiness =>
  nodeClassReadiness(snapshotOf({ nodeClasses: [view] }), scope())[0]!;

describe('nodeClassReadiness', () => {
  it.each<[string, NodeClassView, Partial<Readiness>]>([
    [
      'AMIsReady with the target at the applied generation',
      nodeClass(),
      {
        state: 'ready',
        amis: [
          {
            id: 'ami-new',
            name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20250801',
          },
        ],
      },
    ],
    [
      'v0.32–v0.36 write no condition: status.amis holding the target is all there is',
      nodeClass({ conditions: {} }),
      { state: 'ready', amis: [{ id: 'ami-new', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20250801' }] },
    ],
    [
      'v0.32–v0.36, status.amis not updated yet',
      nodeClass({ statusAmis: [{ id: 'ami-old', requirements: [] }], conditions: {} }),
      { state: 'pending' },
    ],
    [
      "v0.37's Ready alone, at the applied generation",
      nodeClass({ conditions: { Ready: condition('True', 'Ready', '', 2) } }),
      { state: 'ready' },
    ],
    [
      "v0.37's Ready alone, not at the applied generation yet",
      nodeClass({ statusAmis: [{ id: 'ami-old', requirements: [] }], conditions: { Ready: condition('True', 'Ready', '', 1) } }),
      { state: 'pending' },
    ],
    [
      'Karpenter has not reconciled the applied generation yet',
      nodeClass({
        statusAmis: [{ id: 'ami-old', requirements: [] }],
        conditions: {
          AMIsReady: condition('True', 'AMIsReady', '', 1),
          Ready: condition('True', 'Ready', '', 1),
        },
      }),
      { state: 'pending' },
    ],
    [
      'an alias term not yet reconciled either',
      nodeClass({
        amiSelectorTerms: [{ alias: 'al2023@v20990101' }],
        conditions: {
          AMIsReady: condition('True', 'AMIsReady', '', 1),
          Ready: condition('True', 'Ready', '', 1),
        },
      }),
      { state: 'pending' },
    ],
    [
      'AMIsReady=True at the generation, status.amis without the target (another writer)',
      nodeClass({ statusAmis: [{ id: 'ami-other', requirements: [] }] }),
      { state: 'pending' },
    ],
    [
      'AMINotFound at the applied generation',
      nodeClass({
        statusAmis: [],
        conditions: {
          AMIsReady: condition('False', 'AMINotFound', 'AMISelector did not match any AMIs', 2),
        },
      }),
      {
        state: 'failed',
        message:
          'Karpenter could not resolve the new AMIs: AMIsReady=False, reason AMINotFound: AMISelector did not match any AMIs. EC2NodeClass "default" now launches no node at all (Ready=False): no replacement and no scale-up until it is fixed or rolled back',
        next: "check that the AMIs exist and are shared with the cluster's account in its region (kubectl get ec2nodeclass default -o yaml); to go back now: karp-drift rollback --nodeclass default",
      },
    ],
    [
      'UnsupportedAlias at the applied generation (status.amis kept)',
      nodeClass({
        amiSelectorTerms: [{ alias: 'al2@latest' }],
        statusAmis: [{ id: 'ami-old', requirements: [] }],
        conditions: {
          AMIsReady: condition('False', 'UnsupportedAlias', 'AL2 aliases are no longer supported on EKS 1.33+', 2),
          Ready: condition('False', 'UnhealthyDependents', 'AMIsReady=False', 2),
        },
      }),
      {
        state: 'failed',
        next: "pin a family that supports the control plane's Kubernetes version (AL2 ends at 1.32, Windows Server 2025 starts at 1.35); to go back now: karp-drift rollback --nodeclass default",
      },
    ],
    [
      'an alias whose SSM parameters all miss: Ready observed the generation, AMIsReady did not',
      nodeClass({
        amiSelectorTerms: [{ alias: 'al2023@v20990101' }],
        statusAmis: [{ id: 'ami-old', requirements: [] }],
        conditions: {
          AMIsReady: condition('True', 'AMIsReady', '', 1),
          Ready: condition('Unknown', 'ReconcilingDependents', 'AMIsReady=True', 2),
        },
      }),
      {
        state: 'failed',
        message:
          'Karpenter could not resolve alias "al2023@v20990101": it reconciled generation 2 but AMIsReady is still at generation 1 (Ready=Unknown ReconcilingDependents: AMIsReady=True; Karpenter logs "failed to discover any AMIs for alias" and retries). EC2NodeClass "default" now launches no node at all (Ready=Unknown): no replacement and no scale-up until it is fixed or rolled back',
        next: 'check that release exists for the control plane\'s Kubernetes version (kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter | grep "failed to discover any AMIs"); to go back now: karp-drift rollback --nodeclass default',
      },
    ],
  ])('%s', (_name, view, expected) => {
    expect(readiness(view)).toMatchObject({
      nodeClass: 'default',
      generation: 2,
      ...expected,
    });
  });
});
