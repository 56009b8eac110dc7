// Each check code, with the exact finding it makes, and the near misses that must not make it. The baseline (the
// factories' defaults: a 1.31 control plane, `default` on al2023@v20240917, three amd64 nodes on the old AMI, the
// default 10% budget) plans cleanly with no check at all.
import { describe, expect, it } from 'vitest';
import type { ResolvedAmi } from '../../src/ami/verify.js';
import type { FieldOwner, Inventory } from '../../src/karpenter/views.js';
import { CHECK_CODES, type Check, type CheckCode } from '../../src/plan/checks.js';
import { plan, type PlanOptions } from '../../src/plan/plan.js';
import {
  NEW,
  OLD,
  NOW,
  condition,
  idStatusAmis,
  inventory,
  node,
  nodeClaim,
  nodeClaims,
  nodeClass,
  nodePool,
  nodesOf,
  pdb,
  pod,
  resolvedAmi,
  targetAmis,
} from './factories.js';

interface Case {
  inventory?: Partial<Inventory>;
  options?: Partial<PlanOptions>;
  amis?: ResolvedAmi[];
}
const run = (c: Case = {}) =>
  plan(
    inventory(c.inventory),
    c.amis ?? targetAmis(),
    { to: '1.31', pin: 'id', release: 'latest', fieldManager: 'karp-drift', ...c.options },
    NOW,
  );

const owner = (manager: string, operation: FieldOwner['operation']): FieldOwner => ({
  manager,
  operation,
  ownsAmiSelectorTerms: true,
  ownsAmiFamily: false,
});
const at = (to: string) => targetAmis().map((a) => ({ ...a, kubernetesVersion: to }));
const bothArches = nodePool({
  requirements: [
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
  ],
});
const oneNotReady = () => {
  const claims = nodeClaims(3);
  return { nodeClaims: claims, nodes: nodesOf(claims).map((n, i) => (i === 0 ? node({ ...n, ready: false }) : n)) };
};
const KUBECTL_NEXT =
  'update the manifest you apply from as well, or the next kubectl apply of it puts the old terms back';
const SCHEDULED_NEXT =
  'add an unscheduled budget such as {nodes: "10%", reasons: [Drifted]} to cap drift outside the windows; to block drift outside them, use nodes: "0" with a schedule that covers those hours';

it('plans the baseline with no checks', () => {
  expect(run()).toMatchObject({ checks: [], blocked: false });
});

const EXACT: Array<[string, Case, Check]> = [
  [
    'NODECLASS-NOT-FOUND',
    { options: { nodeClasses: ['nope'] } },
    {
      code: 'NODECLASS-NOT-FOUND',
      level: 'error',
      message: '--nodeclass nope: no EC2NodeClass named nope',
      evidence: ['EC2NodeClasses: default'],
      next: 'name an existing EC2NodeClass, or omit --nodeclass to plan them all',
    },
  ],
  [
    'FAMILY-UNKNOWN, planning all: left out',
    { inventory: { nodeClasses: [nodeClass({ amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0abc' }] })] } },
    {
      code: 'FAMILY-UNKNOWN',
      level: 'warning',
      message:
        'ec2nodeclass/default: spec.amiFamily is Custom: the class brings its own AMIs and user data, so karp-drift cannot tell which EKS-optimized family it runs; it is left out of the plan',
      evidence: [],
      next: 'karp-drift pins EKS-optimized AMIs of the AL2, AL2023, Bottlerocket and Windows families',
    },
  ],
  [
    'FAMILY-UNKNOWN, named: refused',
    {
      inventory: { nodeClasses: [nodeClass({ amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0abc' }] })] },
      options: { nodeClasses: ['default'] },
    },
    {
      code: 'FAMILY-UNKNOWN',
      level: 'error',
      message:
        'ec2nodeclass/default: spec.amiFamily is Custom: the class brings its own AMIs and user data, so karp-drift cannot tell which EKS-optimized family it runs',
      evidence: [],
      next: 'karp-drift pins EKS-optimized AMIs of the AL2, AL2023, Bottlerocket and Windows families',
    },
  ],
  [
    'TARGET-NEWER-THAN-CONTROL-PLANE',
    { options: { to: '1.32' }, amis: at('1.32') },
    {
      code: 'TARGET-NEWER-THAN-CONTROL-PLANE',
      level: 'error',
      message: '--to 1.32 is newer than the control plane (1.31): a kubelet must never be newer than the API server',
      evidence: ['control plane: v1.31.2-eks-7f9249a'],
      next: 'upgrade the control plane first, one minor at a time (1.31 → 1.32), then run karp-drift again',
    },
  ],
  [
    'TARGET-TOO-OLD',
    { options: { to: '1.27' }, amis: at('1.27') },
    {
      code: 'TARGET-TOO-OLD',
      level: 'error',
      message:
        '--to 1.27 is 4 minors older than the control plane (1.31): a kubelet may be at most 3 minors older than the API server',
      evidence: ['control plane: v1.31.2-eks-7f9249a'],
      next: 'choose --to 1.28 or newer; AWS recommends nodes at the control-plane version (--to 1.31)',
    },
  ],
  [
    'DOWNGRADE',
    { options: { to: '1.29' }, amis: at('1.29') },
    {
      code: 'DOWNGRADE',
      level: 'error',
      message: '--to 1.29 would downgrade 3 nodes that run a newer kubelet',
      evidence: ['node/ip-general-1: kubelet v1.30.4-eks-a737599', 'node/ip-general-2: kubelet v1.30.4-eks-a737599', 'node/ip-general-3: kubelet v1.30.4-eks-a737599'],
      next: 'check --to; to go back on purpose pass --allow-downgrade (or use karp-drift rollback after an upgrade)',
    },
  ],
  [
    'VERSION-SKEW',
    {
      inventory: {
        nodes: [
          ...nodesOf(nodeClaims(3)).map((n) =>
            n.name === 'ip-general-1' ? node({ ...n, kubeletVersion: 'v1.27.16-eks-a737599' }) : n,
          ),
          node({ name: 'ip-other', nodePool: undefined, kubeletVersion: 'v1.26.15-eks-1552ad0' }),
        ],
      },
    },
    {
      code: 'VERSION-SKEW',
      level: 'warning',
      message:
        '2 nodes run a kubelet more than 3 minors older than the control plane (1.31), outside the supported version skew',
      evidence: [
        'node/ip-general-1: kubelet v1.27.16-eks-a737599 (4 minors behind), replaced by this plan',
        'node/ip-other: kubelet v1.26.15-eks-1552ad0 (5 minors behind), not replaced by this plan',
      ],
      next: 'replace these nodes before the next control-plane upgrade: an EKS control-plane upgrade needs every node within 2 minors',
    },
  ],
  [
    'ALIAS-FOLLOWS-CONTROL-PLANE',
    { options: { to: '1.30', pin: 'alias' }, amis: at('1.30') },
    {
      code: 'ALIAS-FOLLOWS-CONTROL-PLANE',
      level: 'error',
      message:
        '--pin alias cannot pin Kubernetes 1.30 AMIs on a 1.31 control plane: Karpenter resolves an alias for the control-plane version, so the alias would select 1.31 AMIs',
      evidence: ['control plane: v1.31.2-eks-7f9249a'],
      next: 'use --pin id to pin 1.30 AMIs, or --to 1.31',
    },
  ],
  [
    'ALIAS-NEEDS-KARPENTER-V1',
    { inventory: { karpenterApi: 'v1beta1' }, options: { pin: 'alias' } },
    {
      code: 'ALIAS-NEEDS-KARPENTER-V1',
      level: 'error',
      message: 'alias terms arrived with Karpenter v1 (karpenter.k8s.aws/v1), and this cluster serves v1beta1',
      evidence: ['served API: karpenter.sh/v1beta1'],
      next: 'use --pin id, or upgrade Karpenter to v1 first',
    },
  ],
  [
    'AL2-UNSUPPORTED',
    {
      inventory: {
        nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'al2@v20240917' }], statusAmis: [] })],
        controlPlane: { minor: '1.33', gitVersion: 'v1.33.1-eks-1' },
      },
      options: { to: '1.33' },
    },
    {
      code: 'AL2-UNSUPPORTED',
      level: 'error',
      message:
        'ec2nodeclass/default: al2 has no EKS-optimized AMIs for Kubernetes 1.33: 1.32 was the last version with AL2 AMIs (Karpenter rejects the alias with UnsupportedAlias)',
      evidence: [],
      next: 'move the workloads to an AL2023 or Bottlerocket EC2NodeClass (a new class, then point the NodePools at it), or choose --to 1.32',
    },
  ],
  [
    'WINDOWS2025-UNSUPPORTED',
    {
      inventory: {
        nodeClasses: [nodeClass({ amiFamily: 'Windows2025', amiSelectorTerms: [{ id: 'ami-0win' }], statusAmis: [] })],
      },
    },
    {
      code: 'WINDOWS2025-UNSUPPORTED',
      level: 'error',
      message: 'ec2nodeclass/default: windows2025 needs Kubernetes 1.35 or later (asked for 1.31)',
      evidence: [],
      next: 'choose --to 1.35 or later, or use Windows2022',
    },
  ],
  [
    'RELEASE-NOT-FOR-FAMILY',
    {
      inventory: {
        nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'bottlerocket@v1.20.4' }], statusAmis: [] })],
      },
      options: { release: 'v20241109' },
    },
    {
      code: 'RELEASE-NOT-FOR-FAMILY',
      level: 'error',
      message:
        'ec2nodeclass/default: bottlerocket releases look like X.Y.Z, e.g. 1.26.1; --release v20241109 names a dated AL2/AL2023 release',
      evidence: [],
      next: 'pass a --release of this family, or plan the other families with --nodeclass',
    },
  ],
  [
    'RELEASE-NOT-FOR-FAMILY: a release policy for Windows, which publishes only its latest AMI',
    {
      inventory: {
        nodeClasses: [nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [{ id: 'ami-0win' }], statusAmis: [] })],
      },
      options: { release: 'latest~1', minAge: '7d' },
    },
    {
      code: 'RELEASE-NOT-FOR-FAMILY',
      level: 'error',
      message:
        'ec2nodeclass/default: windows2022 has no release to choose by --release latest~1 --min-age 7d: AWS publishes only the latest Windows AMI, and Karpenter accepts Windows aliases only as windows2022@latest',
      evidence: [],
      next: 'ask for windows2022 with --release latest alone, or promote a tested Windows AMI with --amis-file, or plan the other families with --nodeclass',
    },
  ],
  [
    'ALIAS-NOT-PINNABLE',
    {
      inventory: {
        nodeClasses: [nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [{ id: 'ami-0win' }], statusAmis: [] })],
      },
      options: { pin: 'alias' },
    },
    {
      code: 'ALIAS-NOT-PINNABLE',
      level: 'error',
      message:
        'ec2nodeclass/default: --pin alias cannot pin windows2022: Karpenter accepts Windows aliases only as windows2022@latest, which floats',
      evidence: [],
      next: 'use --pin id to pin the windows2022 AMI by ID',
    },
  ],
  [
    'ALIAS-RELEASE-MIXED',
    {
      inventory: { nodePools: [bothArches] },
      options: { pin: 'alias' },
      amis: [
        resolvedAmi('amd64/standard'),
        resolvedAmi('arm64/standard', {
          release: 'v20241101',
          name: 'amazon-eks-node-al2023-arm64-standard-1.31-v20241101',
        }),
      ],
    },
    {
      code: 'ALIAS-RELEASE-MIXED',
      level: 'error',
      message:
        'ec2nodeclass/default: the resolved al2023 AMIs come from different releases, and an alias pins one release for every architecture and variant',
      evidence: [
        'amd64 standard: v20241109 (amazon-eks-node-al2023-x86_64-standard-1.31-v20241109)',
        'arm64 standard: v20241101 (amazon-eks-node-al2023-arm64-standard-1.31-v20241101)',
      ],
      next: 'pass a --release published for all of them, or use --pin id',
    },
  ],
  [
    'AMI-MISSING: not resolved',
    { inventory: { nodePools: [bothArches] }, amis: [resolvedAmi('amd64/standard')] },
    {
      code: 'AMI-MISSING',
      level: 'error',
      message:
        'no al2023 arm64 standard AMI is published for Kubernetes 1.31 (release latest) in SSM, and ec2nodeclass/default needs one',
      evidence: ['needed by nodepool/general'],
      next: 'check it with: karp-drift amis --to 1.31 --family al2023 --arch arm64 --variant standard --release latest',
    },
  ],
  [
    'AMI-MISSING: EC2 no longer returns it',
    {
      amis: [
        resolvedAmi('amd64/standard', {
          state: 'missing',
          usable: false,
          problems: ['EC2 DescribeImages does not return the image the parameter points to: it is unavailable or deregistered'],
        }),
      ],
    },
    {
      code: 'AMI-MISSING',
      level: 'error',
      message: `the al2023 amd64 standard AMI for Kubernetes 1.31 (${NEW['amd64/standard']}) is not usable: EC2 DescribeImages does not return the image the parameter points to: it is unavailable or deregistered`,
      evidence: ['needed by nodepool/general', 'needed by 3 NodeClaims'],
      next: 'check it with: karp-drift amis --to 1.31 --family al2023 --arch amd64 --variant standard --release latest',
    },
  ],
  [
    'AMI-MISSING: no such AMI exists',
    { inventory: { nodeClaims: [nodeClaim({ arch: 'arm64', accelerator: true, instanceType: 'trn1.2xlarge' })] } },
    {
      code: 'AMI-MISSING',
      level: 'error',
      message: 'ec2nodeclass/default needs an AMI for arm64 neuron instances, and al2023 publishes none',
      evidence: ['needed by 1 NodeClaim'],
      next: "move those instances to a class of a family that publishes arm64 neuron AMIs, or narrow the NodePool's requirements",
    },
  ],
  [
    'AMI-DEPRECATED',
    {
      amis: [
        resolvedAmi('amd64/standard', {
          deprecated: true,
          deprecationTime: '2024-11-01T00:00:00.000Z',
          problems: ['deprecated since 2024-11-01'],
        }),
      ],
    },
    {
      code: 'AMI-DEPRECATED',
      level: 'error',
      message:
        'ec2nodeclass/default: the target al2023 amd64 standard AMI ami-0new0amd64std (amazon-eks-node-al2023-x86_64-standard-1.31-v20241109): deprecated since 2024-11-01',
      evidence: [],
      next: 'pin a newer --release, or pass --allow-deprecated to pin it anyway',
    },
  ],
  [
    'FIELD-OWNER-GITOPS: Argo CD',
    { inventory: { nodeClasses: [nodeClass({ owners: [owner('argocd-controller', 'Apply')] })] } },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'error',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by Argo CD (field manager argocd-controller): Argo CD would put the old terms back on its next sync; change the AMIs in its source of truth instead',
      evidence: ['managedFields: argocd-controller owns spec.amiSelectorTerms'],
      next: 'change spec.amiSelectorTerms where Argo CD reads it from, and let upgrade --apply-by git pace the rollout its sync starts; or pass --force-conflicts to apply anyway',
    },
  ],
  [
    'FIELD-OWNER-GITOPS: the Application that tracks it, read, and the pin command for its files',
    {
      inventory: { nodeClasses: [nodeClass({ owners: [owner('argocd-controller', 'Apply')], annotations: { 'argocd.argoproj.io/tracking-id': 'karpenter:karpenter.k8s.aws/EC2NodeClass:karpenter/default' } })] },
      options: {
        release: 'latest~1',
        pinFlags: '--to 1.31 --release latest~1',
        gitopsSources: new Map([
          [
            'Application/*/karpenter',
            {
              ref: { tool: 'Argo CD', kind: 'Application', name: 'karpenter', trackedBy: 'annotation argocd.argoproj.io/tracking-id' },
              source: {
                owner: { tool: 'Argo CD', kind: 'Application', name: 'karpenter', namespace: 'argocd', trackedBy: 'annotation argocd.argoproj.io/tracking-id' },
                sources: [{ repoURL: 'https://github.com/acme/fleet.git', path: 'clusters/prod/karpenter', ref: 'main' }],
                revision: '3f2a1c9e0b7d4a5f8c6e1d2b3a4f5e6d7c8b9a01',
                status: 'Synced',
              },
            },
          ],
        ]),
      },
    },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'error',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by Argo CD (field manager argocd-controller): Argo CD would put the old terms back on its next sync; change the AMIs in its source of truth instead',
      evidence: [
        'managedFields: argocd-controller owns spec.amiSelectorTerms',
        'source: Argo CD Application argocd/karpenter: repository https://github.com/acme/fleet.git, path clusters/prod/karpenter, revision main (synced at 3f2a1c9, Synced)',
      ],
      next: 'change spec.amiSelectorTerms where Argo CD reads it from: karp-drift pin --to 1.31 --release latest~1 clusters/prod/karpenter   (in a checkout of https://github.com/acme/fleet.git at main), and let upgrade --apply-by git pace the rollout its sync starts; or pass --force-conflicts to apply anyway',
    },
  ],
  [
    'FIELD-OWNER-GITOPS: --apply-by git makes it information, the change merged where the tool reads it',
    {
      inventory: { nodeClasses: [nodeClass({ owners: [owner('argocd-controller', 'Apply')], labels: { 'app.kubernetes.io/instance': 'argocd_karpenter' } })] },
      options: {
        applyBy: 'git',
        gitopsSources: new Map([
          ['Application/argocd/karpenter', { ref: { tool: 'Argo CD', kind: 'Application', name: 'karpenter', namespace: 'argocd', trackedBy: 'label app.kubernetes.io/instance' }, unread: 'applications.argoproj.io "karpenter" is forbidden (the optional ClusterRole karp-drift-gitops-reader grants it)' }],
        ]),
      },
    },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'info',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by Argo CD (field manager argocd-controller): with --apply-by git karp-drift writes nothing there; the change is merged where Argo CD reads it from, and the run waits for its sync to apply it',
      evidence: [
        'managedFields: argocd-controller owns spec.amiSelectorTerms',
        'source: Argo CD Application argocd/karpenter (its source was not read: applications.argoproj.io "karpenter" is forbidden (the optional ClusterRole karp-drift-gitops-reader grants it))',
      ],
      next: 'merge the change where Argo CD reads spec.amiSelectorTerms from',
    },
  ],
  [
    'FIELD-OWNER-GITOPS: --force-conflicts makes it a warning',
    {
      inventory: { nodeClasses: [nodeClass({ owners: [owner('argocd-controller', 'Apply')] })] },
      options: { forceConflicts: true },
    },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'warning',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by Argo CD (field manager argocd-controller): --force-conflicts takes the field, but Argo CD would put the old terms back on its next sync unless its source changes too',
      evidence: ['managedFields: argocd-controller owns spec.amiSelectorTerms'],
    },
  ],
  [
    'FIELD-OWNER-GITOPS: a hand edit of a Flux-tracked object',
    {
      inventory: {
        nodeClasses: [
          nodeClass({
            owners: [owner('kubectl-edit', 'Update')],
            labels: { 'kustomize.toolkit.fluxcd.io/name': 'nodes' },
          }),
        ],
      },
    },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'error',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by Flux (field manager kubectl-edit): Flux would put the old terms back on its next sync; change the AMIs in its source of truth instead',
      evidence: [
        'managedFields: kubectl-edit owns spec.amiSelectorTerms',
        'Flux tracks the object: label kustomize.toolkit.fluxcd.io/name',
      ],
      next: 'change spec.amiSelectorTerms where Flux reads it from, and let upgrade --apply-by git pace the rollout its sync starts; or pass --force-conflicts to apply anyway',
    },
  ],
  [
    'FIELD-OWNER-GITOPS: another server-side applier',
    { inventory: { nodeClasses: [nodeClass({ owners: [owner('platform-operator', 'Apply')] })] } },
    {
      code: 'FIELD-OWNER-GITOPS',
      level: 'error',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default is owned by field manager platform-operator, which applies it with server-side apply: it would put the old terms back the next time it applies; change the AMIs in its source of truth instead',
      evidence: ['managedFields: platform-operator owns spec.amiSelectorTerms'],
      next: 'change spec.amiSelectorTerms where platform-operator reads it from, and let upgrade --apply-by git pace the rollout that starts; or pass --force-conflicts to apply anyway',
    },
  ],
  [
    'APPLY-BY-GIT-UNSYNCED',
    { inventory: { nodeClasses: [nodeClass({ owners: [owner('kubectl-client-side-apply', 'Update')] })] }, options: { applyBy: 'git' } },
    {
      code: 'APPLY-BY-GIT-UNSYNCED',
      level: 'warning',
      message:
        'no GitOps or IaC tool owns spec.amiSelectorTerms of ec2nodeclass/default (last set by kubectl-client-side-apply): with --apply-by git the run waits for whoever applies the planned terms',
      evidence: [],
      next: 'apply the planned terms yourself (kubectl apply of the manifest you keep), or drop --apply-by git and let karp-drift apply them',
    },
  ],
  [
    'FIELD-OWNER-KUBECTL',
    { inventory: { nodeClasses: [nodeClass({ owners: [owner('kubectl-client-side-apply', 'Update')] })] } },
    {
      code: 'FIELD-OWNER-KUBECTL',
      level: 'info',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default was last set by hand (kubectl-client-side-apply): karp-drift takes the field over with a forced server-side apply',
      evidence: [],
      next: KUBECTL_NEXT,
    },
  ],
  [
    'FIELD-OWNER-OTHER',
    { inventory: { nodeClasses: [nodeClass({ owners: [owner('Mozilla', 'Update')] })] } },
    {
      code: 'FIELD-OWNER-OTHER',
      level: 'warning',
      message:
        'spec.amiSelectorTerms of ec2nodeclass/default was last written by Mozilla (an update, not a known GitOps or IaC tool): karp-drift takes the field over with a forced server-side apply',
      evidence: [],
      next: 'if Mozilla is a controller, it may write the old terms back: change its source too',
    },
  ],
  [
    'NODECLASS-NOT-READY',
    {
      inventory: {
        nodeClasses: [
          nodeClass({
            conditions: { AMIsReady: condition('False', 'AMINotFound', 'AMISelector did not match any AMIs') },
          }),
        ],
      },
    },
    {
      code: 'NODECLASS-NOT-READY',
      level: 'warning',
      message:
        'ec2nodeclass/default: AMIsReady is False (AMINotFound): Karpenter neither drifts nor launches nodes for the class until its AMIs resolve',
      evidence: ['AMISelector did not match any AMIs'],
      next: 'the new terms replace the failing ones; after the apply, check that AMIsReady turns True',
    },
  ],
  [
    'ALREADY-PINNED',
    {
      inventory: { nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20241109' }] })] },
      options: { pin: 'alias' },
    },
    {
      code: 'ALREADY-PINNED',
      level: 'info',
      message:
        'ec2nodeclass/default already selects the target AMIs: nothing to apply, and a rollout in progress is followed from where it is',
      evidence: [],
    },
  ],
  [
    'LATEST-ALIAS',
    {
      inventory: {
        nodeClasses: [nodeClass(), nodeClass({ name: 'batch', amiSelectorTerms: [{ alias: 'al2023@latest' }] })],
      },
      options: { nodeClasses: ['default'] },
    },
    {
      code: 'LATEST-ALIAS',
      level: 'info',
      message:
        'ec2nodeclass/batch selects its AMIs with alias al2023@latest, which floats: its nodes drift on their own whenever AWS publishes a new AMI or the control plane is upgraded',
      evidence: [],
      next: 'pin it too: karp-drift plan --nodeclass batch',
    },
  ],
  [
    'SELECTOR-REPLACED: tags that float',
    {
      inventory: {
        nodeClasses: [
          nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { team: 'platform' } }], statusAmis: idStatusAmis(['amd64/standard']) }),
        ],
      },
    },
    {
      code: 'SELECTOR-REPLACED',
      level: 'info',
      message: `ec2nodeclass/default: the pin replaces terms that float with id=${NEW['amd64/standard']}; from then on the class launches only these AMIs, and new images reach it only through the next upgrade`,
      evidence: [
        'tags={team: platform} selects the newest image that matches, so a newly registered image is picked up',
        `they resolve now to ${OLD['amd64/standard']} (amazon-eks-node-al2023-x86_64-standard-1.30-v20240917)`,
      ],
      next: 'karp-drift rollback restores the floating terms',
    },
  ],
  [
    'CUSTOM-AMI: a golden image pinned by id',
    {
      inventory: {
        nodeClasses: [
          nodeClass({
            amiFamily: 'AL2023',
            amiSelectorTerms: [{ id: 'ami-0900000000000000a' }],
            statusAmis: [{ id: 'ami-0900000000000000a', name: 'acme-golden-al2023-1.30', requirements: [] }],
          }),
        ],
      },
    },
    {
      code: 'CUSTOM-AMI',
      level: 'error',
      message: `ec2nodeclass/default runs custom AMIs, not EKS-optimized al2023 images: the pin would replace them with id=${NEW['amd64/standard']}, and the nodes would lose whatever those images add`,
      evidence: ['amiSelectorTerms: id=ami-0900000000000000a', 'status.amis: ami-0900000000000000a (acme-golden-al2023-1.30)'],
      next: 'build your image for the target version and point amiSelectorTerms at it yourself, or re-run with --replace-custom-amis to move the class to EKS-optimized AMIs on purpose',
    },
  ],
  [
    'BUDGET-INVALID: a cron Karpenter cannot parse',
    { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '10%', schedule: '0 9 * * 8', duration: '8h' }] })] } },
    {
      code: 'BUDGET-INVALID',
      level: 'error',
      message:
        'nodepool/general: spec.disruption.budgets[0] {nodes: "10%", schedule: "0 9 * * 8", duration: 8h} is invalid (invalid cron "0 9 * * 8": end of range (8) above maximum (6): 8); Karpenter fails closed and allows no disruption in the pool, so its 3 nodes would drift and never be replaced',
      evidence: [
        'Karpenter logs "detected disruption budget errors" and reports a DisruptionBlocked event on the NodePool: "No allowed disruptions for disruption reason Drifted due to blocking budget"',
      ],
      next: 'fix the budget first (kubectl edit nodepool general); budgets are not hashed, so editing one never causes drift',
    },
  ],
  [
    'BUDGET-BLOCKS-DRIFT: an unscheduled nodes "0"',
    { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '0' }] })] } },
    {
      code: 'BUDGET-BLOCKS-DRIFT',
      level: 'warning',
      message:
        'nodepool/general: the disruption budget allows no Drifted disruptions now, so its 3 nodes to drift wait: spec.disruption.budgets[0] {nodes: "0"} blocks it until the budget changes',
      evidence: [
        'Karpenter reports a DisruptionBlocked event on the NodePool: "No allowed disruptions for disruption reason Drifted due to blocking budget"',
      ],
      next: "raise the budget's nodes (kubectl edit nodepool general); budgets are not hashed, so editing one never causes drift",
    },
  ],
  [
    'BUDGET-EXHAUSTED: a NotReady node',
    { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '1' }] })], ...oneNotReady() } },
    {
      code: 'BUDGET-EXHAUSTED',
      level: 'warning',
      message:
        'nodepool/general: the whole Drifted budget (1) is used by 1 node that is NotReady, deleting or being disrupted, so drift cannot start until they are gone or Ready',
      evidence: ['nodeclaim/general-1: NotReady'],
      next: 'find out why the NotReady nodes are not Ready (kubectl describe node): Karpenter counts them against every disruption budget',
    },
  ],
  [
    'BUDGET-EXHAUSTED: a replacement in flight is only info',
    {
      inventory: {
        nodePools: [nodePool({ budgets: [{ nodes: '1' }] })],
        nodeClaims: [
          ...nodeClaims(2),
          nodeClaim({
            name: 'general-9',
            conditions: { ...nodeClaim().conditions, DisruptionReason: condition('True', 'Drifted') },
          }),
        ],
      },
    },
    {
      code: 'BUDGET-EXHAUSTED',
      level: 'info',
      message:
        'nodepool/general: 1 node already being replaced or deleted uses the whole Drifted budget (1): more drift starts as they finish',
      evidence: ['nodeclaim/general-9: disrupted'],
    },
  ],
  [
    'BUDGET-SCHEDULED-ONLY: outside the window, unlimited',
    { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '20%', schedule: '0 22 * * *', duration: '4h' }] })] } },
    {
      code: 'BUDGET-SCHEDULED-ONLY',
      level: 'warning',
      message:
        'nodepool/general: every disruption budget for Drifted is scheduled, and none is active now: Karpenter may disrupt all 3 nodes to drift at once',
      evidence: ['schedule "0 22 * * *", duration 4h: nodes "20%"'],
      next: SCHEDULED_NEXT,
    },
  ],
  [
    'BUDGET-SCHEDULED-ONLY: inside the window',
    {
      inventory: {
        nodePools: [
          nodePool({
            budgets: [
              { nodes: '20%', schedule: '0 9 * * *', duration: '4h', reasons: ['Drifted'] },
              { nodes: '0', reasons: ['Underutilized'] },
            ],
          }),
        ],
      },
    },
    {
      code: 'BUDGET-SCHEDULED-ONLY',
      level: 'info',
      message:
        'nodepool/general: every disruption budget for Drifted is scheduled: the limit holds only inside a window (this one closes at 2024-11-13 13:00 UTC); outside its windows Karpenter may disrupt any number of drifting nodes at once',
      evidence: ['schedule "0 9 * * *", duration 4h: nodes "20%"'],
      next: SCHEDULED_NEXT,
    },
  ],
  [
    'DRIFT-HELD: paused by karp-drift with a budget; the pace judged by the NodePool\'s own budgets',
    {
      inventory: {
        nodePools: [
          nodePool({
            budgets: [{ nodes: '1' }, { nodes: '0', reasons: ['Drifted'] }],
            annotations: {
              'karp-drift.io/drift-hold': JSON.stringify({ runId: 'run-1', since: '2024-11-13T08:00:00Z', budgets: [{ nodes: '1' }] }),
            },
          }),
        ],
      },
      options: { lock: { state: 'none' } },
    },
    {
      code: 'DRIFT-HELD',
      level: 'info',
      message:
        'nodepool/general: karp-drift holds its Drifted disruption (paused): a staged upgrade re-run takes the hold over and goes on; otherwise none of its 3 drifting nodes is replaced until karp-drift resume',
      evidence: ['budget {nodes: "0", reasons: [Drifted]} added by karp-drift run run-1 at 2024-11-13T08:00:00Z'],
      next: "karp-drift resume --nodepool general releases it (the NodePool's own budgets come back exactly)",
    },
  ],
  [
    'DRIFT-HELD: a live run paces it (a second upgrade meets its lock): said as live, resume not offered',
    {
      inventory: {
        nodePools: [
          nodePool({
            budgets: [{ nodes: '1' }, { nodes: '1', reasons: ['Drifted'] }],
            annotations: {
              'karp-drift.io/drift-hold': JSON.stringify({ runId: 'run-1', since: '2024-11-13T08:00:00Z', budgets: [{ nodes: '1' }] }),
            },
          }),
        ],
      },
      options: { lock: { state: 'live', holder: 'ci@runner-7 (run run-1)', command: 'upgrade --to 1.31 --canary general', durationSeconds: 30 } },
    },
    {
      code: 'DRIFT-HELD',
      level: 'info',
      message:
        'nodepool/general: karp-drift holds its Drifted disruption: paced by the live run ci@runner-7 (run run-1) (karp-drift upgrade --to 1.31 --canary general)',
      evidence: ['budget {nodes: "1", reasons: [Drifted]} added by karp-drift run run-1 at 2024-11-13T08:00:00Z'],
      next: 'the live run releases its holds as it goes and when it ends; follow it with: karp-drift wait (pause, resume, rollback and another upgrade are refused while it holds the cluster lock)',
    },
  ],
  [
    'DRIFT-HELD: a dead run whose hold still lets replacements start: a warning, and pause stops it',
    {
      inventory: {
        nodePools: [
          nodePool({
            budgets: [{ nodes: '1' }, { nodes: '2', reasons: ['Drifted'] }],
            annotations: {
              'karp-drift.io/drift-hold': JSON.stringify({ runId: 'run-1', since: '2024-11-13T08:00:00Z', budgets: [{ nodes: '1' }] }),
            },
          }),
        ],
      },
      options: { lock: { state: 'none' } },
    },
    {
      code: 'DRIFT-HELD',
      level: 'warning',
      message:
        'nodepool/general: karp-drift holds its Drifted disruption: not paused: no run is live, and the hold still lets Karpenter start up to 2 more replacements',
      evidence: ['budget {nodes: "2", reasons: [Drifted]} added by karp-drift run run-1 at 2024-11-13T08:00:00Z'],
      next: 'stop it now: karp-drift pause --nodepool general; then re-run the staged upgrade to go on, or karp-drift rollback',
    },
  ],
  [
    'PDB-BLOCKS',
    {
      inventory: {
        nodeClaims: [
          nodeClaim({ name: 'general-1' }),
          nodeClaim({ name: 'general-2', terminationGracePeriod: '24h' }),
          nodeClaim({ name: 'general-3' }),
        ],
        pdbs: [pdb({ disruptionsAllowed: 0 })],
        pods: [
          pod({ nodeName: 'ip-general-1' }),
          pod({ name: 'web-2', nodeName: 'ip-general-2' }),
          pod({ name: 'agent', daemonSet: true, toleratesDisrupted: true }),
          pod({ name: 'job', phase: 'Succeeded' }),
        ],
      },
    },
    {
      code: 'PDB-BLOCKS',
      level: 'warning',
      message:
        'poddisruptionbudget shop/web allows 0 disruptions and covers 2 pods on 2 nodes that will drift: Karpenter skips those nodes (DisruptionBlocked: Pdb prevents pod evictions (PodDisruptionBudget=[shop/web]))',
      evidence: [
        'pod shop/web-6d4b9c7f8-x2x9k on node/ip-general-1',
        'pod shop/web-2 on node/ip-general-2',
        'node/ip-general-2 (nodeclaim/general-2) has terminationGracePeriod 24h: Karpenter drifts it anyway and deletes the remaining pods when that runs out',
      ],
      next: 'let the PDB allow a disruption (more replicas, or a looser minAvailable/maxUnavailable) before the rollout reaches these nodes',
    },
  ],
  [
    'PDB-MULTIPLE',
    {
      inventory: {
        pdbs: [pdb(), pdb({ name: 'web-all', selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } })],
        pods: [pod()],
      },
    },
    {
      code: 'PDB-MULTIPLE',
      level: 'warning',
      message:
        '1 pod on nodes that will drift is selected by more than one PodDisruptionBudget: the eviction API refuses such pods, so Karpenter skips their nodes (DisruptionBlocked: Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[shop/web shop/web-all]))',
      evidence: ['pod shop/web-6d4b9c7f8-x2x9k on node/ip-general-1: shop/web, shop/web-all'],
      next: 'change the PDB selectors so that each pod matches one PodDisruptionBudget',
    },
  ],
  [
    'MIXED-GPU-ID-PIN',
    {
      inventory: {
        nodePools: [nodePool({ requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] })],
        nodeClaims: [],
      },
    },
    {
      code: 'MIXED-GPU-ID-PIN',
      level: 'error',
      message:
        'ec2nodeclass/default needs standard and nvidia AMIs for arm64, which --pin id cannot express: Karpenter knows only the architecture of an id term and keeps one AMI per architecture (the newest), so every arm64 node would launch from the same one',
      evidence: [
        'arm64 standard: ami-0new0arm64std (amazon-eks-node-al2023-arm64-standard-1.31-v20241109)',
        'arm64 nvidia: ami-0new0arm64gpu (amazon-eks-node-al2023-arm64-nvidia-1.31-v20241109)',
      ],
      next: 'use --pin alias (an alias keeps the variant), or split the class: one EC2NodeClass per variant, with NodePools that select GPU instances by karpenter.k8s.aws/instance-gpu-count',
    },
  ],
  [
    'NAME-AMBIGUOUS',
    {
      options: { pin: 'name' },
      amis: targetAmis().map((a) => ({ ...a, owner: '602401143452', nameMatches: 3 })),
    },
    {
      code: 'NAME-AMBIGUOUS',
      level: 'error',
      message:
        'ec2nodeclass/default: --pin name would select 3 images named amazon-eks-node-al2023-x86_64-standard-1.31-v20241109 owned by 602401143452, and Karpenter keeps only the newest of them',
      evidence: ['al2023 amd64 standard: ami-0new0amd64std is the one resolved'],
      next: 'pin it with --pin id (the image ID is unique)',
    },
  ],
  [
    'DO-NOT-DISRUPT',
    {
      inventory: {
        pods: [
          pod({ doNotDisrupt: 'true' }),
          pod({ name: 'train-1', nodeName: 'ip-general-3', doNotDisrupt: '2h', startTime: '2024-11-13T09:00:00Z' }),
        ],
        nodes: nodesOf(nodeClaims(3)).map((n) => (n.name === 'ip-general-2' ? node({ ...n, doNotDisrupt: true }) : n)),
      },
    },
    {
      code: 'DO-NOT-DISRUPT',
      level: 'warning',
      message:
        '1 node and 2 pods on nodes that will drift carry karpenter.sh/do-not-disrupt: Karpenter skips those nodes for drift while the annotation holds (DisruptionBlocked: Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=shop/web-6d4b9c7f8-x2x9k); Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation)',
      evidence: [
        'node/ip-general-2: annotated, so Karpenter never picks it for drift (terminationGracePeriod does not help)',
        'pod shop/web-6d4b9c7f8-x2x9k on node/ip-general-1: "true"',
        'pod shop/train-1 on node/ip-general-3: "2h", which holds until 2024-11-13 11:00 UTC',
      ],
      next: 'remove the annotation once the work is safe to interrupt, e.g. kubectl annotate pod -n <namespace> <pod> karpenter.sh/do-not-disrupt-',
    },
  ],
  [
    'DO-NOT-DISRUPT-IGNORED',
    {
      inventory: {
        pods: [
          pod({ name: 'a', doNotDisrupt: 'True' }),
          pod({ name: 'b', doNotDisrupt: '30m', startTime: '2024-11-13T09:00:00Z' }),
          pod({ name: 'c', doNotDisrupt: 'false' }),
        ],
      },
    },
    {
      code: 'DO-NOT-DISRUPT-IGNORED',
      level: 'info',
      message:
        '2 pods on nodes that will drift carry a karpenter.sh/do-not-disrupt value that Karpenter ignores, so they do not hold the drift: only "true", or (Karpenter v1.12+) a positive duration such as "2h" counted from the pod\'s start, holds a node',
      evidence: [
        'pod shop/a on node/ip-general-1: "True" (InvalidDoNotDisruptAnnotation: Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "True" as a duration: time: invalid duration "True", ignoring annotation)',
        'pod shop/b on node/ip-general-1: "30m" ran out at 2024-11-13 09:30 UTC',
      ],
      next: 'to keep such a pod from being disrupted, write "true": kubectl annotate pod -n <namespace> <pod> karpenter.sh/do-not-disrupt=true --overwrite; otherwise remove the annotation',
    },
  ],
  [
    'POD-PINNED',
    { inventory: { pods: [pod({ namespace: 'debug', name: 'node-shell', pinnedTo: 'ip-general-1' })] } },
    {
      code: 'POD-PINNED',
      level: 'warning',
      message:
        '1 pod on nodes that will drift is pinned to its node by name: no replacement can run it, so Karpenter skips those nodes (DisruptionBlocked: Not all pods would schedule), and terminationGracePeriod does not help because the drain never starts',
      evidence: ['pod debug/node-shell on node/ip-general-1: requires the node ip-general-1 (kubernetes.io/hostname or metadata.name)'],
      next: 'delete the pods or re-create them without the node pin before the rollout reaches these nodes, e.g. kubectl delete pod -n debug node-shell',
    },
  ],
];

describe('each check, exactly', () => {
  it('has a case for every code', () => {
    expect(new Set(EXACT.map(([, , c]) => c.code))).toEqual(new Set(CHECK_CODES));
  });

  it.each(EXACT)('%s', (_name, c, expected) => {
    const p = run(c);
    expect(p.checks.filter((x) => x.code === expected.code)).toEqual([expected]);
    expect(p.blocked).toBe(p.checks.some((x) => x.level === 'error'));
  });
});

describe('POD-PINNED', () => {
  it("matches a pod's kubernetes.io/hostname pin against the node's hostname label, not only its name", () => {
    const claims = nodeClaims(3);
    const nodes = nodesOf(claims).map((n) => ({ ...n, hostname: n.name.replace('ip-', 'host-') }));
    const pinned = (pinnedTo: string) => run({ inventory: { nodes, pods: [pod({ pinnedTo })] } }).checks.map((c) => c.code);
    expect(pinned('host-general-1')).toContain('POD-PINNED');
    expect(pinned('host-general-2')).not.toContain('POD-PINNED'); // pinned to another node: the scheduler's business
  });
});

// Karpenter's rules (karpenter/disruptable.ts): do-not-disrupt holds for "true" or a running positive duration, on every
// active pod; PDBs count only for the pods Karpenter would evict. NOW is 10:00; the pods started at 09:00.
describe('do-not-disrupt values, as Karpenter reads them', () => {
  const started = '2024-11-13T09:00:00Z';
  it.each<[string, string, string | undefined, CheckCode | undefined]>([
    ['"true"', 'true', started, 'DO-NOT-DISRUPT'],
    ['"True"', 'True', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"yes"', 'yes', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"false"', 'false', started, undefined],
    ['""', '', started, undefined],
    ['"90m", started 60m ago', '90m', started, 'DO-NOT-DISRUPT'],
    ['"30m", started 60m ago', '30m', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"1h", started exactly 1h ago', '1h', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"30m", not started (no startTime: fail safe)', '30m', undefined, 'DO-NOT-DISRUPT'],
    ['"0s"', '0s', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"-5m"', '-5m', started, 'DO-NOT-DISRUPT-IGNORED'],
    ['"garbage"', 'garbage', started, 'DO-NOT-DISRUPT-IGNORED'],
  ])('%s', (_name, value, startTime, expected) => {
    const pods = [pod({ doNotDisrupt: value, ...(startTime !== undefined ? { startTime } : {}) })];
    const codes = run({ inventory: { pods } }).checks.map((c) => c.code);
    const found = codes.filter((c) => c === 'DO-NOT-DISRUPT' || c === 'DO-NOT-DISRUPT-IGNORED');
    expect(found).toEqual(expected === undefined ? [] : [expected]);
  });
});

describe('which pods count', () => {
  const zero = pdb({ disruptionsAllowed: 0 });
  const alwaysAllow = pdb({ disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
  const ifHealthy = pdb({ disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'IfHealthyBudget' });
  it.each<[string, Partial<Inventory>, CheckCode[]]>([
    ['an ordinary pod under a zero PDB', { pdbs: [zero], pods: [pod()] }, ['PDB-BLOCKS']],
    ['a DaemonSet pod that does not tolerate karpenter.sh/disrupted', { pdbs: [zero], pods: [pod({ daemonSet: true })] }, ['PDB-BLOCKS']],
    ['a DaemonSet pod that tolerates karpenter.sh/disrupted', { pdbs: [zero], pods: [pod({ daemonSet: true, toleratesDisrupted: true })] }, []],
    ['a mirror (static) pod', { pdbs: [zero], pods: [pod({ mirror: true })] }, []],
    ['an unready pod under an AlwaysAllow PDB', { pdbs: [alwaysAllow], pods: [pod({ notReady: true })] }, []],
    ['a ready pod under an AlwaysAllow PDB', { pdbs: [alwaysAllow], pods: [pod()] }, ['PDB-BLOCKS']],
    ['an unready pod under an IfHealthyBudget PDB', { pdbs: [ifHealthy], pods: [pod({ notReady: true })] }, ['PDB-BLOCKS']],
    ['a do-not-disrupt pod under a zero PDB (do-not-disrupt comes first)', { pdbs: [zero], pods: [pod({ doNotDisrupt: 'true' })] }, ['DO-NOT-DISRUPT']],
    ['a tolerating DaemonSet pod under two PDBs', { pdbs: [pdb(), pdb({ name: 'all', selector: {} })], pods: [pod({ daemonSet: true, toleratesDisrupted: true })] }, []],
    ['a do-not-disrupt DaemonSet pod', { pods: [pod({ daemonSet: true, toleratesDisrupted: true, doNotDisrupt: 'true' })] }, ['DO-NOT-DISRUPT']],
    ['a do-not-disrupt mirror pod', { pods: [pod({ mirror: true, doNotDisrupt: 'true' })] }, ['DO-NOT-DISRUPT']],
    ['a finished do-not-disrupt pod', { pods: [pod({ phase: 'Succeeded', doNotDisrupt: 'true' })] }, []],
  ])('%s', (_name, inv, expected) => {
    const codes = run({ inventory: inv }).checks.map((c) => c.code);
    const found = codes.filter((c) => ['PDB-BLOCKS', 'PDB-MULTIPLE', 'DO-NOT-DISRUPT'].includes(c));
    expect(found).toEqual(expected);
  });
});

describe('near misses make no check', () => {
  const onTarget = nodeClaims(3, { imageId: NEW['amd64/standard'] });
  it.each<[string, CheckCode, Case]>([
    ['--to at the control plane', 'TARGET-NEWER-THAN-CONTROL-PLANE', { options: { to: '1.31' } }],
    ['--to 3 minors behind', 'TARGET-TOO-OLD', { options: { to: '1.28' }, amis: at('1.28') }],
    [
      'a kubelet 3 minors behind',
      'VERSION-SKEW',
      { inventory: { nodes: nodesOf(nodeClaims(3)).map((n) => node({ ...n, kubeletVersion: 'v1.28.15-eks-1' })) } },
    ],
    ['--pin id to an older minor', 'ALIAS-FOLLOWS-CONTROL-PLANE', { options: { to: '1.30' }, amis: at('1.30') }],
    ['--pin id on v1beta1', 'ALIAS-NEEDS-KARPENTER-V1', { inventory: { karpenterApi: 'v1beta1' } }],
    [
      'AL2 on 1.32',
      'AL2-UNSUPPORTED',
      {
        inventory: { nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'al2@v20240917' }], statusAmis: [] })] },
        options: { to: '1.31' },
        amis: targetAmis().map((a) => ({ ...a, family: 'al2' as const })),
      },
    ],
    [
      'Windows2025 on 1.35',
      'WINDOWS2025-UNSUPPORTED',
      {
        inventory: {
          nodeClasses: [
            nodeClass({ amiFamily: 'Windows2025', amiSelectorTerms: [{ id: 'ami-0win' }], statusAmis: [] }),
          ],
          controlPlane: { minor: '1.35', gitVersion: 'v1.35.0-eks-1' },
        },
        options: { to: '1.35' },
      },
    ],
    [
      'a Bottlerocket release for Bottlerocket',
      'RELEASE-NOT-FOR-FAMILY',
      {
        inventory: {
          nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'bottlerocket@v1.20.4' }], statusAmis: [] })],
        },
        options: { release: '1.26.1' },
      },
    ],
    [
      'Windows by id',
      'ALIAS-NOT-PINNABLE',
      {
        inventory: {
          nodeClasses: [
            nodeClass({ amiFamily: 'Windows2022', amiSelectorTerms: [{ id: 'ami-0win' }], statusAmis: [] }),
          ],
        },
      },
    ],
    [
      'one release for both arches',
      'ALIAS-RELEASE-MIXED',
      { inventory: { nodePools: [bothArches] }, options: { pin: 'alias' } },
    ],
    ['every AMI resolved', 'AMI-MISSING', { inventory: { nodePools: [bothArches] } }],
    ['an AMI that is not deprecated', 'AMI-DEPRECATED', {}],
    ['a name one image carries', 'NAME-AMBIGUOUS', { options: { pin: 'name' }, amis: targetAmis().map((a) => ({ ...a, owner: '602401143452', nameMatches: 1 })) }],
    [
      'a GPU class by alias',
      'MIXED-GPU-ID-PIN',
      { inventory: { nodePools: [nodePool({ requirements: [] })] }, options: { pin: 'alias' } },
    ],
    [
      'Argo CD owns an unchanged class',
      'FIELD-OWNER-GITOPS',
      {
        inventory: {
          nodeClasses: [
            nodeClass({
              amiSelectorTerms: [{ alias: 'al2023@v20241109' }],
              owners: [owner('argocd-controller', 'Apply')],
            }),
          ],
        },
        options: { pin: 'alias' },
      },
    ],
    [
      'karp-drift owns the terms',
      'FIELD-OWNER-KUBECTL',
      { inventory: { nodeClasses: [nodeClass({ owners: [owner('karp-drift', 'Apply')] })] } },
    ],
    [
      'AMIsReady Unknown',
      'NODECLASS-NOT-READY',
      { inventory: { nodeClasses: [nodeClass({ conditions: { AMIsReady: condition('Unknown') } })] } },
    ],
    ['a class that changes', 'ALREADY-PINNED', {}],
    [
      'an @latest class in the plan',
      'LATEST-ALIAS',
      { inventory: { nodeClasses: [nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest' }] })] } },
    ],
    ['a pinned alias', 'SELECTOR-REPLACED', {}],
    ['EKS-optimized images by tags', 'CUSTOM-AMI', { inventory: { nodeClasses: [nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { team: 'platform' } }], statusAmis: idStatusAmis(['amd64/standard']) })] } }],
    [
      'an invalid budget with nothing to drift',
      'BUDGET-INVALID',
      { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '10%', schedule: '0 9 * * 8', duration: '8h' }] })], nodeClaims: onTarget } },
    ],
    [
      'nodes "0" with nothing to drift',
      'BUDGET-BLOCKS-DRIFT',
      { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '0' }] })], nodeClaims: onTarget } },
    ],
    [
      'a NotReady node within budget',
      'BUDGET-EXHAUSTED',
      { inventory: { nodePools: [nodePool({ budgets: [{ nodes: '2' }] })], ...oneNotReady() } },
    ],
    [
      'a scheduled budget next to an unscheduled one',
      'BUDGET-SCHEDULED-ONLY',
      {
        inventory: {
          nodePools: [nodePool({ budgets: [{ nodes: '0', schedule: '0 9 * * *', duration: '8h' }, { nodes: '10%' }] })],
        },
      },
    ],
    [
      'a zero PDB over pods on nodes already on target',
      'PDB-BLOCKS',
      { inventory: { nodeClaims: onTarget, pdbs: [pdb({ disruptionsAllowed: 0 })], pods: [pod()] } },
    ],
    [
      'a zero PDB over a DaemonSet pod that tolerates karpenter.sh/disrupted',
      'PDB-BLOCKS',
      { inventory: { pdbs: [pdb({ disruptionsAllowed: 0 })], pods: [pod({ daemonSet: true, toleratesDisrupted: true })] } },
    ],
    [
      'a zero PDB in another namespace',
      'PDB-BLOCKS',
      { inventory: { pdbs: [pdb({ namespace: 'other', disruptionsAllowed: 0 })], pods: [pod()] } },
    ],
    [
      'one PDB per pod',
      'PDB-MULTIPLE',
      { inventory: { pdbs: [pdb(), pdb({ name: 'api', selector: { matchLabels: { app: 'api' } } })], pods: [pod()] } },
    ],
    ['a pod pinned to a node already on target', 'POD-PINNED', { inventory: { nodeClaims: onTarget, pods: [pod({ pinnedTo: 'ip-general-1' })] } }],
    ['a DaemonSet pod (pinned by metadata.name)', 'POD-PINNED', { inventory: { pods: [pod({ daemonSet: true, pinnedTo: 'ip-general-1' })] } }],
    [
      'do-not-disrupt on a node already on target',
      'DO-NOT-DISRUPT',
      { inventory: { nodeClaims: onTarget, pods: [pod({ doNotDisrupt: 'true' })] } },
    ],
  ])('%s: no %s', (_name, code, c) => {
    expect(run(c).checks.map((x) => x.code)).not.toContain(code);
  });
});

describe('--allow-downgrade', () => {
  it('turns DOWNGRADE into a warning, so the plan may be applied', () => {
    const p = run({ options: { to: '1.29', allowDowngrade: true }, amis: at('1.29') });
    expect(p.checks.find((c) => c.code === 'DOWNGRADE')).toMatchObject({ level: 'warning', next: 'proceeding because of --allow-downgrade' });
    expect(p.blocked).toBe(false);
  });
});

describe('--allow-deprecated', () => {
  const deprecated = (deprecationTime: string) => [resolvedAmi('amd64/standard', { deprecated: true, deprecationTime, problems: ['deprecated'] })];
  it.each([
    ['already deprecated', '2024-11-01T00:00:00.000Z', false, 'error'],
    ['already deprecated, allowed', '2024-11-01T00:00:00.000Z', true, 'warning'],
    ['deprecated within 30 days', new Date(NOW.getTime() + 10 * 86_400_000).toISOString(), false, 'warning'],
  ])('%s → %s', (_name, deprecationTime, allowDeprecated, level) => {
    const p = run({ options: { allowDeprecated }, amis: deprecated(deprecationTime) });
    expect(p.checks.find((c) => c.code === 'AMI-DEPRECATED')?.level).toBe(level);
  });
});
