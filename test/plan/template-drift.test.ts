// templateDriftChecks: the findings on an `upgrade --templates` diff, exactly. The cluster: class `default` with
// NodePools `default` (3 nodes, 2 already on the target AMI ami-new, one of them a spot node) and `other` (1 node
// on the target AMI), and a NodeClaim being deleted that counts for nothing.
import { describe, expect, it } from 'vitest';
import type { LiveObject, TemplateClaim } from '../../src/karpenter/views.js';
import { objectDiff, type ManifestDiff, type ObjectDiff, type RenderedObject } from '../../src/manifests/diff.js';
import type { Check } from '../../src/plan/checks.js';
import { templateDriftChecks, type TemplateDriftInput } from '../../src/plan/template-drift.js';

const claim = (name: string, o: Partial<TemplateClaim> = {}): TemplateClaim => ({
  name,
  nodePool: 'default',
  nodeClass: 'default',
  imageId: 'ami-new',
  labels: {
    'kubernetes.io/arch': 'amd64',
    'karpenter.sh/capacity-type': 'on-demand',
  },
  deleting: false,
  ...o,
});
const CLAIMS = [
  claim('default-a'),
  claim('default-b', {
    labels: {
      'kubernetes.io/arch': 'amd64',
      'karpenter.sh/capacity-type': 'spot',
    },
  }),
  claim('default-c', { imageId: 'ami-old' }),
  claim('other-a', { nodePool: 'other' }),
  claim('default-gone', { deleting: true }),
];

const NODECLASS = {
  role: 'R',
  amiFamily: 'AL2023',
  amiSelectorTerms: [{ id: 'ami-new' }],
  subnetSelectorTerms: [{ tags: { d: 'prod' } }],
  securityGroupSelectorTerms: [{ tags: { d: 'prod' } }],
};
const REQUIREMENTS = [
  {
    key: 'karpenter.sh/capacity-type',
    operator: 'In',
    values: ['on-demand', 'spot'],
  },
];
const NODEPOOL = {
  template: {
    spec: {
      requirements: REQUIREMENTS,
      nodeClassRef: {
        group: 'karpenter.k8s.aws',
        kind: 'EC2NodeClass',
        name: 'default',
      },
    },
  },
};

const obj = (spec: object): RenderedObject => ({
  metadata: { name: 'default' },
  spec,
});
const live = (spec: object): LiveObject => ({
  resourceVersion: '1',
  labels: {},
  annotations: {},
  spec: structuredClone(spec) as Record<string, unknown>,
  managedFields: [],
});

function diff(nodeClass: object, nodePool: object, liveClass: object | undefined = NODECLASS, livePool: object | undefined = NODEPOOL): ManifestDiff {
  const d = (kind: ObjectDiff['kind'], r: object, l: object | undefined) => objectDiff(kind, obj(r), l ? live(l) : undefined, 'karp-drift');
  return {
    nodeClass: d('EC2NodeClass', nodeClass, liveClass),
    nodePool: d('NodePool', nodePool, livePool),
  };
}

function run(d: ManifestDiff, o: Partial<TemplateDriftInput> = {}): Check[] {
  const requirements =
    (d.nodePool.changes.find((c) => c.reason === 'RequirementsDrifted')?.after as TemplateDriftInput['requirements'] | undefined) ?? REQUIREMENTS;
  return templateDriftChecks({
    diff: d,
    nodeClaims: CLAIMS,
    targetImageIds: ['ami-new'],
    requirements,
    accepted: false,
    ...o,
  });
}

const NEXT_CLASS =
  'make the templates match the live EC2NodeClass (kubectl get ec2nodeclass/default -o yaml), or pass --accept-template-drift to apply them and let Karpenter replace those nodes';
const NEXT_POOL =
  'make the templates match the live NodePool (kubectl get nodepool/default -o yaml), or pass --accept-template-drift to apply them and let Karpenter replace those nodes';
const onDemandOnly = {
  template: {
    spec: {
      ...NODEPOOL.template.spec,
      requirements: [
        {
          key: 'karpenter.sh/capacity-type',
          operator: 'In',
          values: ['on-demand'],
        },
      ],
    },
  },
};

describe('templateDriftChecks', () => {
  it.each<[string, ManifestDiff, Check[]]>([
    ['only the AMI selection changes: no check', diff({ ...NODECLASS, amiSelectorTerms: [{ id: 'ami-newer' }] }, NODEPOOL), []],
    ['both objects new: nothing drifts', diff(NODECLASS, NODEPOOL, undefined, undefined), []],
    [
      'role and tags: NodeClassDrift, every node of the class (both pools), deleting ones left out',
      diff({ ...NODECLASS, role: 'R2', tags: { team: 'ml' } }, NODEPOOL),
      [
        {
          code: 'TEMPLATE-DRIFT',
          level: 'error',
          message:
            'ec2nodeclass/default: the templates change spec.role and spec.tags, which Karpenter hashes: every NodeClaim of the class would drift (NodeClassDrift): 4 nodes, 3 of them already on the target AMI',
          evidence: ['spec.role: R → R2', 'spec.tags: (unset) → {team: ml}'],
          next: NEXT_CLASS,
        },
      ],
    ],
    [
      'nodeClassRef: NodePoolDrifted, the pool only',
      diff(NODECLASS, {
        template: {
          spec: {
            ...NODEPOOL.template.spec,
            nodeClassRef: { ...NODEPOOL.template.spec.nodeClassRef, name: 'x' },
          },
        },
      }),
      [
        {
          code: 'TEMPLATE-DRIFT',
          level: 'error',
          message:
            'nodepool/default: the templates change spec.template.spec.nodeClassRef.name, which Karpenter hashes: every NodeClaim of the NodePool would drift (NodePoolDrifted): 3 nodes, 2 of them already on the target AMI',
          evidence: ['spec.template.spec.nodeClassRef.name: default → x'],
          next: NEXT_POOL,
        },
      ],
    ],
    [
      'capacity type narrowed to on-demand: RequirementsDrifted reaches the spot node only',
      diff(NODECLASS, onDemandOnly),
      [
        {
          code: 'TEMPLATE-DRIFT',
          level: 'error',
          message:
            'nodepool/default: the templates change spec.template.spec.requirements: the NodeClaims whose labels no longer satisfy them would drift (RequirementsDrifted): 1 node, 1 of them already on the target AMI',
          evidence: [
            'spec.template.spec.requirements: - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}; + {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}',
          ],
          next: NEXT_POOL,
        },
      ],
    ],
    [
      'subnet selector: a warning, whatever the flag',
      diff({ ...NODECLASS, subnetSelectorTerms: [{ tags: { d: 'staging' } }] }, NODEPOOL),
      [
        {
          code: 'TEMPLATE-SELECTORS',
          level: 'warning',
          message:
            'ec2nodeclass/default: the templates change spec.subnetSelectorTerms: Karpenter does not hash them, but its nodes drift (SubnetDrift) if the new terms select other subnets, security groups or capacity reservations than those they run in',
          evidence: ['spec.subnetSelectorTerms: - {tags: {d: prod}}; + {tags: {d: staging}}'],
          next: "after a --dry-run, compare what the class resolves now (kubectl get ec2nodeclass/default -o jsonpath='{.status.subnets} {.status.securityGroups}') with what the new terms select, or keep the live terms in the template",
        },
      ],
    ],
    [
      'budgets and weight: info',
      diff(NODECLASS, {
        ...NODEPOOL,
        weight: 10,
        disruption: { budgets: [{ nodes: '5%' }] },
      }),
      [
        {
          code: 'TEMPLATE-CHANGES',
          level: 'info',
          message: 'nodepool/default: the templates also change spec.weight and spec.disruption, which drift no node',
          evidence: ['spec.weight: (unset) → 10', 'spec.disruption: (unset) → {budgets: [{nodes: 5%}]}'],
        },
      ],
    ],
  ])('%s', (_name, d, expected) => {
    expect(run(d)).toEqual(expected);
  });

  it('--accept-template-drift turns the error into a warning that says so', () => {
    const [c] = run(diff({ ...NODECLASS, role: 'R2' }, NODEPOOL), {
      accepted: true,
    });
    expect(c).toMatchObject({
      code: 'TEMPLATE-DRIFT',
      level: 'warning',
      next: 'accepted with --accept-template-drift: Karpenter replaces these nodes after the apply, AMI or not',
    });
  });

  it('a NodePool with both a hashed and a requirements change gets one finding per drift reason', () => {
    const both = {
      template: {
        metadata: { labels: { team: 'ml' } },
        spec: onDemandOnly.template.spec,
      },
    };
    expect(run(diff(NODECLASS, both)).map((c) => c.message.match(/\((\w+Drift\w*)\)/)?.[1])).toEqual(['NodePoolDrifted', 'RequirementsDrifted']);
  });
});
