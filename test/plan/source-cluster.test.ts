// What a source cluster (`--from-context`) has tested: the images its classes pin and its nodes run, one per (family,
// arch, variant), or a refusal (exit 3) with the evidence when it has no one tested state; and its region, read from
// its kubeconfig entry. The factories' default moment is a settled source: class `default` pins the 1.30 AL2023
// release v20240917 (alias) and three NodeClaims run its amd64 standard image.
import { describe, expect, it } from 'vitest';
import type { ClusterAmis, OtherSourceClass, PromotedAmi } from '../../src/ami/amis-file.js';
import type { Inventory } from '../../src/karpenter/views.js';
import { RefusedError } from '../../src/errors.js';
import { sourceClusterAmis, sourceRegion, type NeededKey } from '../../src/plan/source-cluster.js';
import {
  al2023Name,
  condition,
  idStatusAmis,
  inventory,
  nodeClaim,
  nodeClaims,
  nodeClass,
  NEW,
  OLD,
} from './factories.js';

const SOURCE = { context: 'staging', server: 'https://staging.example:443' };
const read = (inv: Inventory, region?: string) => ({
  ...SOURCE,
  ...(region !== undefined ? { region } : {}),
  inventory: inv,
});

const amd64: PromotedAmi = {
  family: 'al2023',
  arch: 'amd64',
  variant: 'standard',
  release: 'v20240917',
  id: OLD['amd64/standard'],
  name: al2023Name('amd64/standard', '1.30', 'v20240917'),
};
const arm64: PromotedAmi = {
  ...amd64,
  arch: 'arm64',
  id: OLD['arm64/standard'],
  name: al2023Name('arm64/standard', '1.30', 'v20240917'),
};

function refusal(fn: () => unknown): RefusedError {
  try {
    fn();
  } catch (err) {
    if (err instanceof RefusedError) return err;
    throw err;
  }
  throw new Error('expected a RefusedError');
}

describe('sourceClusterAmis: what the source pins and runs', () => {
  it.each<[string, Inventory, string | undefined, Omit<ClusterAmis, 'kind' | 'context' | 'server'>]>([
    [
      'settled: the one image the nodes run, with its release, and the region its kubeconfig tells',
      inventory(),
      'us-east-1',
      { kubernetesVersion: '1.30', region: 'us-east-1', amis: [amd64] },
    ],
    [
      'pinned but run by no node is not tested: only amd64 (arm64 and the GPU images are left out); no region',
      inventory({ nodeClaims: nodeClaims(2) }),
      undefined,
      { kubernetesVersion: '1.30', amis: [amd64] },
    ],
    [
      'two classes sharing an image (and arm64 on one of them): one AMI per (family, arch, variant)',
      inventory({
        nodeClasses: [nodeClass(), nodeClass({ name: 'batch' })],
        nodeClaims: [
          ...nodeClaims(2),
          nodeClaim({ name: 'batch-1', nodeClass: 'batch', nodePool: 'batch' }),
          nodeClaim({
            name: 'batch-2',
            nodeClass: 'batch',
            nodePool: 'batch',
            arch: 'arm64',
            imageId: OLD['arm64/standard'],
          }),
        ],
      }),
      undefined,
      { kubernetesVersion: '1.30', amis: [amd64, arm64] },
    ],
    [
      'an id-pinned class: the variant comes from the image name',
      inventory({
        nodeClasses: [
          nodeClass({
            amiSelectorTerms: [{ id: OLD['amd64/nvidia'] }],
            amiFamily: 'AL2023',
            statusAmis: idStatusAmis(['amd64/nvidia']),
          }),
        ],
        nodeClaims: [nodeClaim({ imageId: OLD['amd64/nvidia'], gpu: true })],
      }),
      undefined,
      {
        kubernetesVersion: '1.30',
        amis: [
          {
            ...amd64,
            variant: 'nvidia',
            id: OLD['amd64/nvidia'],
            name: al2023Name('amd64/nvidia', '1.30', 'v20240917'),
          },
        ],
      },
    ],
    [
      'a NodeClaim being deleted (consolidation) and one not launched yet count for nothing',
      inventory({
        nodeClaims: [
          nodeClaim(),
          nodeClaim({ name: 'general-gone', arch: 'arm64', imageId: OLD['arm64/standard'], deleting: true }),
          nodeClaim({ name: 'general-new', imageId: undefined }),
        ],
      }),
      undefined,
      { kubernetesVersion: '1.30', amis: [amd64] },
    ],
    [
      'a Custom class brings its own images: nothing to promote from it, the others still count',
      inventory({
        nodeClasses: [
          nodeClass(),
          nodeClass({
            name: 'golden',
            amiFamily: 'Custom',
            amiSelectorTerms: [{ id: 'ami-0golden' }],
            statusAmis: [{ id: 'ami-0golden', name: 'golden-2026-01', requirements: [] }],
          }),
        ],
        nodeClaims: [nodeClaim(), nodeClaim({ name: 'golden-1', nodeClass: 'golden', imageId: 'ami-0golden' })],
      }),
      undefined,
      { kubernetesVersion: '1.30', amis: [amd64] },
    ],
  ])('%s', (_name, inv, region, expected) => {
    expect(sourceClusterAmis(read(inv, region), '1.30')).toEqual({ kind: 'cluster', ...SOURCE, ...expected });
  });
});

describe('sourceClusterAmis: no one tested state is refused (exit 3) with its evidence', () => {
  const where = 'source context staging (https://staging.example:443)';
  const midRollout = `${where} is mid-rollout: its nodes do not all run what its EC2NodeClasses pin, so it has no one tested state to promote; nothing was changed`;
  it.each<[string, Inventory, string, string]>([
    [
      'a NodeClaim on an image status.amis no longer lists (AMIDrift before Karpenter marks it)',
      inventory({ nodeClaims: [nodeClaim(), nodeClaim({ name: 'general-old', imageId: 'ami-0older' })] }),
      [
        midRollout,
        '  nodeclaim/general-old runs ami-0older, which status.amis of ec2nodeclass/default does not list (AMIDrift)',
      ].join('\n'),
      'let the rollout there finish (karp-drift wait --context staging), then promote',
    ],
    [
      'a NodeClaim with the Drifted condition (any reason), even on a pinned image',
      inventory({ nodeClaims: [nodeClaim({ conditions: { Drifted: condition('True', 'NodePoolDrifted') } })] }),
      [
        midRollout,
        `  nodeclaim/general-a1b2c (ec2nodeclass/default, ${OLD['amd64/standard']}) is Drifted (NodePoolDrifted)`,
      ].join('\n'),
      'let the rollout there finish (karp-drift wait --context staging), then promote',
    ],
    [
      'a class whose new terms Karpenter has not resolved yet, and one without status.amis',
      inventory({
        nodeClasses: [
          nodeClass({ generation: 3, conditions: { AMIsReady: { ...condition(), observedGeneration: 2 } } }),
          nodeClass({ name: 'empty', statusAmis: [] }),
          nodeClass({
            name: 'gpu',
            conditions: { AMIsReady: condition('False', 'AMINotFound', 'AMISelector did not match any AMIs') },
          }),
          nodeClass({ name: 'new', conditions: {} }),
        ],
      }),
      [
        midRollout,
        '  ec2nodeclass/default: AMIsReady has observed generation 2, not 3: Karpenter has not resolved its new amiSelectorTerms yet',
        '  ec2nodeclass/empty has no status.amis',
        '  ec2nodeclass/gpu is AMIsReady=False (AMINotFound: AMISelector did not match any AMIs)',
        '  ec2nodeclass/new has no AMIsReady condition: Karpenter has not resolved its AMIs',
      ].join('\n'),
      'let the rollout there finish (karp-drift wait --context staging), then promote',
    ],
    [
      'mixed releases for one (family, arch, variant), across two classes',
      inventory({
        nodeClasses: [
          nodeClass(),
          nodeClass({
            name: 'batch',
            statusAmis: idStatusAmis(['amd64/standard'], NEW, '1.30', 'v20241109'),
            amiSelectorTerms: [{ id: NEW['amd64/standard'] }],
            amiFamily: 'AL2023',
          }),
        ],
        nodeClaims: [
          ...nodeClaims(4),
          nodeClaim({ name: 'batch-1', nodeClass: 'batch', imageId: NEW['amd64/standard'] }),
        ],
      }),
      [
        `${where} runs more than one release of al2023 amd64 standard: which one was tested is ambiguous; nothing was changed`,
        `  al2023 amd64 standard: ${NEW['amd64/standard']} (${al2023Name('amd64/standard', '1.30', 'v20241109')}) on nodeclaim/batch-1 (ec2nodeclass/batch); ${OLD['amd64/standard']} (${al2023Name('amd64/standard', '1.30', 'v20240917')}) on nodeclaim/general-1, nodeclaim/general-2, nodeclaim/general-3, 1 more (ec2nodeclass/default)`,
      ].join('\n'),
      'pin one release for each in staging and let its nodes run it (karp-drift upgrade --to 1.30 --context staging), then promote',
    ],
    [
      'another minor than --to (the source was not upgraded yet)',
      inventory({ nodeClasses: [nodeClass({ statusAmis: idStatusAmis(['amd64/standard'], OLD, '1.29') })] }),
      [
        `${where} runs Kubernetes 1.29 AMIs, not 1.30 (--to); nothing was changed`,
        `  ${OLD['amd64/standard']} (${al2023Name('amd64/standard', '1.29', 'v20240917')}) on nodeclaim/general-1, nodeclaim/general-2, nodeclaim/general-3 (ec2nodeclass/default)`,
      ].join('\n'),
      'pass --to 1.29 to promote what staging runs, or upgrade staging to 1.30 first (karp-drift upgrade --to 1.30 --context staging)',
    ],
    [
      'another minor on some classes only',
      inventory({
        nodeClasses: [
          nodeClass(),
          nodeClass({ name: 'batch', statusAmis: idStatusAmis(['arm64/standard'], OLD, '1.29') }),
        ],
        nodeClaims: [
          nodeClaim(),
          nodeClaim({ name: 'batch-1', nodeClass: 'batch', arch: 'arm64', imageId: OLD['arm64/standard'] }),
        ],
      }),
      [
        `${where} runs Kubernetes 1.29 AMIs on some nodes, not 1.30 (--to); nothing was changed`,
        `  ${OLD['arm64/standard']} (${al2023Name('arm64/standard', '1.29', 'v20240917')}) on nodeclaim/batch-1 (ec2nodeclass/batch)`,
      ].join('\n'),
      'upgrade ec2nodeclass/batch of staging to 1.30 first (karp-drift upgrade --to 1.30 --context staging --nodeclass batch), then promote',
    ],
    [
      'no node at all',
      inventory({ nodeClaims: [] }),
      `${where} has no node that runs an EKS-optimized AMI its EC2NodeClass pins: nothing was tested there to promote; nothing was changed`,
      'check --from-context, or run nodes on the AMIs in staging first',
    ],
  ])('%s', (_name, inv, message, hint) => {
    const err = refusal(() => sourceClusterAmis(read(inv), '1.30'));
    expect(err.message).toBe(message);
    expect(err.hint).toBe(hint);
    expect(err.exitCode).toBe(3);
  });

  it('evidence stops after ten lines', () => {
    const claims = Array.from({ length: 12 }, (_, i) =>
      nodeClaim({ name: `general-${i + 10}`, imageId: 'ami-0older' }),
    );
    const err = refusal(() => sourceClusterAmis(read(inventory({ nodeClaims: claims })), '1.30'));
    expect(err.message.split('\n')).toHaveLength(12);
    expect(err.message.split('\n').at(-1)).toBe('  … and 2 more');
  });
});

describe('sourceClusterAmis with what this cluster needs: only that must be settled on --to there', () => {
  const where = 'source context staging (https://staging.example:443)';
  const AL2023_AMD64: NeededKey = { family: 'al2023', arch: 'amd64', variant: 'standard' };
  const BR_AMD64: NeededKey = { family: 'bottlerocket', arch: 'amd64', variant: 'standard' };
  const BR_ID = 'ami-0b0771e0000000129';
  const BR_NAME = 'bottlerocket-aws-k8s-1.29-x86_64-v1.26.0-fc52b5c7';
  const bottlerocket = (overrides: Parameters<typeof nodeClass>[0] = {}) =>
    nodeClass({
      name: 'bottlerocket',
      amiSelectorTerms: [{ alias: 'bottlerocket@v1.26.0' }],
      statusAmis: [
        { id: BR_ID, name: BR_NAME, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
      ],
      ...overrides,
    });
  const brClaim = (overrides: Parameters<typeof nodeClaim>[0] = {}) =>
    nodeClaim({ name: 'system-1', nodePool: 'system', nodeClass: 'bottlerocket', imageId: BR_ID, ...overrides });
  const brOnOldMinor: Omit<OtherSourceClass, 'settled'> = {
    name: 'bottlerocket',
    family: 'bottlerocket',
    amis: [
      {
        family: 'bottlerocket',
        arch: 'amd64',
        variant: 'standard',
        release: '1.26.0',
        id: BR_ID,
        name: BR_NAME,
        kubernetesVersion: '1.29',
      },
    ],
  };

  it.each<[string, Inventory, NeededKey[], Pick<ClusterAmis, 'amis' | 'others'>]>([
    [
      "staging's Bottlerocket class still on 1.29, the target pins AL2023 only: promoted, the class reported",
      inventory({ nodeClasses: [nodeClass(), bottlerocket()], nodeClaims: [nodeClaim(), brClaim()] }),
      [AL2023_AMD64],
      { amis: [amd64], others: [{ ...brOnOldMinor, settled: true }] },
    ],
    [
      'that class mid-rollout (a Drifted node) blocks nothing either',
      inventory({
        nodeClasses: [nodeClass(), bottlerocket()],
        nodeClaims: [nodeClaim(), brClaim({ conditions: { Drifted: condition('True', 'AMIDrift') } })],
      }),
      [AL2023_AMD64],
      { amis: [amd64], others: [{ ...brOnOldMinor, settled: false }] },
    ],
    [
      'arm64 still on 1.29 in the same class, the target launches amd64 only: the amd64 image, arm64 reported',
      inventory({
        nodeClasses: [
          nodeClass({
            amiSelectorTerms: [{ id: OLD['amd64/standard'] }, { id: OLD['arm64/standard'] }],
            amiFamily: 'AL2023',
            statusAmis: [
              ...idStatusAmis(['amd64/standard']),
              ...idStatusAmis(['arm64/standard'], OLD, '1.29'),
            ],
          }),
        ],
        nodeClaims: [nodeClaim(), nodeClaim({ name: 'arm-1', arch: 'arm64', imageId: OLD['arm64/standard'] })],
      }),
      [AL2023_AMD64],
      {
        amis: [amd64],
        others: [
          {
            name: 'default',
            family: 'al2023',
            amis: [{ ...arm64, name: al2023Name('arm64/standard', '1.29', 'v20240917'), kubernetesVersion: '1.29' }],
            settled: true,
          },
        ],
      },
    ],
    [
      'a Custom class and one Karpenter has not resolved (of a family not needed) are reported, not judged',
      inventory({
        nodeClasses: [
          nodeClass(),
          bottlerocket({ conditions: {}, statusAmis: [] }),
          nodeClass({
            name: 'golden',
            amiFamily: 'Custom',
            amiSelectorTerms: [{ id: 'ami-0golden' }],
            statusAmis: [],
          }),
        ],
        nodeClaims: [nodeClaim(), nodeClaim({ name: 'golden-1', nodeClass: 'golden', imageId: 'ami-0golden' })],
      }),
      [AL2023_AMD64],
      {
        amis: [amd64],
        others: [
          { name: 'bottlerocket', family: 'bottlerocket', amis: [], settled: false },
          { name: 'golden', family: null, amis: [], settled: false },
        ],
      },
    ],
  ])('%s', (_name, inv, needed, expected) => {
    expect(sourceClusterAmis(read(inv), '1.30', needed)).toEqual({
      kind: 'cluster',
      ...SOURCE,
      kubernetesVersion: '1.30',
      ...expected,
    });
  });

  it.each<[string, Inventory, NeededKey[], string, string]>([
    [
      'the Bottlerocket class on 1.29 when the target pins Bottlerocket too',
      inventory({ nodeClasses: [nodeClass(), bottlerocket()], nodeClaims: [nodeClaim(), brClaim()] }),
      [AL2023_AMD64, BR_AMD64],
      [
        `${where} runs Kubernetes 1.29 AMIs on some nodes, not 1.30 (--to), for what this plan pins (bottlerocket amd64 standard); nothing was changed`,
        `  ${BR_ID} (${BR_NAME}) on nodeclaim/system-1 (ec2nodeclass/bottlerocket)`,
      ].join('\n'),
      'upgrade ec2nodeclass/bottlerocket of staging to 1.30 first (karp-drift upgrade --to 1.30 --context staging --nodeclass bottlerocket), then promote; or promote only the classes here that need none of it (--nodeclass)',
    ],
    [
      'a class of a needed family that tells nothing of its AMIs yet might serve them: mid-rollout',
      inventory({ nodeClasses: [nodeClass(), nodeClass({ name: 'new', conditions: {}, statusAmis: [] })] }),
      [AL2023_AMD64],
      [
        `${where} is mid-rollout: its nodes do not all run what its EC2NodeClasses pin, so it has no one tested state to promote; nothing was changed`,
        '  ec2nodeclass/new has no AMIsReady condition: Karpenter has not resolved its AMIs',
      ].join('\n'),
      'let the rollout there finish (karp-drift wait --context staging), then promote',
    ],
  ])('refused: %s', (_name, inv, needed, message, hint) => {
    const err = refusal(() => sourceClusterAmis(read(inv), '1.30', needed));
    expect(err.message).toBe(message);
    expect(err.hint).toBe(hint);
  });
});

describe('sourceRegion: where the source cluster is, from its kubeconfig entry', () => {
  const exec = (args: string[], env: Record<string, string> = {}) => ({
    args,
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
  });
  it.each<[string, Parameters<typeof sourceRegion>[0], string | undefined]>([
    [
      'the EKS endpoint',
      { server: 'https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com', kubeconfigCluster: 'staging' },
      'eu-west-1',
    ],
    [
      'a China endpoint',
      { server: 'https://0123ABCD.yl4.cn-north-1.eks.amazonaws.com.cn', kubeconfigCluster: 'staging' },
      'cn-north-1',
    ],
    [
      'the cluster entry ARN',
      { server: 'https://10.0.0.1', kubeconfigCluster: 'arn:aws:eks:us-east-2:111122223333:cluster/staging' },
      'us-east-2',
    ],
    [
      'aws eks get-token --region',
      {
        server: 'https://10.0.0.1',
        kubeconfigCluster: 'staging',
        exec: exec(['--region', 'ap-southeast-2', 'eks', 'get-token', '--cluster-name', 'staging']),
      },
      'ap-southeast-2',
    ],
    [
      '--region=',
      {
        server: 'https://10.0.0.1',
        kubeconfigCluster: 'staging',
        exec: exec(['eks', 'get-token', '--region=us-gov-west-1']),
      },
      'us-gov-west-1',
    ],
    [
      'AWS_REGION in the exec env',
      {
        server: 'https://10.0.0.1',
        kubeconfigCluster: 'staging',
        exec: exec(['eks', 'get-token'], { AWS_REGION: 'sa-east-1' }),
      },
      'sa-east-1',
    ],
    [
      'the endpoint wins over the exec plugin',
      {
        server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com',
        kubeconfigCluster: 'staging',
        exec: exec(['--region', 'us-east-1']),
      },
      'us-west-2',
    ],
    [
      'nothing tells: unknown',
      { server: 'https://127.0.0.1:6443', kubeconfigCluster: 'karp-drift-sandbox-default' },
      undefined,
    ],
    [
      'not a region',
      { server: 'https://10.0.0.1', kubeconfigCluster: 'staging', exec: exec(['--region', '$(REGION)']) },
      undefined,
    ],
  ])('%s', (_name, entry, expected) => {
    expect(sourceRegion(entry)).toBe(expected);
  });
});
