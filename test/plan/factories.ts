// View factories with overrides, in the style of Karpenter's pkg/test (`test.NodeClaim(v1.NodeClaim{...})`): each
// returns a complete, healthy object and the test overrides only what it is about. The defaults describe one moment:
// a 1.31 control plane whose `default` EC2NodeClass still selects the 1.30 AL2023 AMIs (alias al2023@v20240917),
// with the `general` NodePool's NodeClaims running them.
import type { Arch, Variant } from '../../src/ami/families.js';
import type { ResolvedAmi } from '../../src/ami/verify.js';
import type {
  ConditionView,
  Inventory,
  NodeClaimView,
  NodeClassView,
  NodePoolView,
  NodeView,
  PdbView,
  PodView,
  Requirement,
} from '../../src/karpenter/views.js';

type Pair = `${Arch}/${Variant}`;

// AMI ids look like EC2's (ami-[0-9a-z]+) and say what they are: 0old = the 1.30 release, 0new = the 1.31 target.
export const OLD: Record<Pair, string> = {
  'amd64/standard': 'ami-0old0amd64std',
  'amd64/nvidia': 'ami-0old0amd64gpu',
  'amd64/neuron': 'ami-0old0amd64neu',
  'arm64/standard': 'ami-0old0arm64std',
  'arm64/nvidia': 'ami-0old0arm64gpu',
  'arm64/neuron': 'ami-0old0arm64neu',
};
export const NEW: Record<Pair, string> = {
  'amd64/standard': 'ami-0new0amd64std',
  'amd64/nvidia': 'ami-0new0amd64gpu',
  'amd64/neuron': 'ami-0new0amd64neu',
  'arm64/standard': 'ami-0new0arm64std',
  'arm64/nvidia': 'ami-0new0arm64gpu',
  'arm64/neuron': 'ami-0new0arm64neu',
};

const AL2023_PAIRS: Pair[] = ['amd64/standard', 'amd64/nvidia', 'amd64/neuron', 'arm64/standard', 'arm64/nvidia'];
const ssm = (arch: Arch) => (arch === 'amd64' ? 'x86_64' : 'arm64');

export const condition = (status: ConditionView['status'] = 'True', reason = '', message = ''): ConditionView => ({
  status,
  reason,
  message,
});

export function al2023Name(pair: Pair, kubernetesVersion: string, release: string): string {
  const [arch, variant] = pair.split('/') as [Arch, Variant];
  return `amazon-eks-node-al2023-${ssm(arch)}-${variant}-${kubernetesVersion}-${release}`;
}

/** status.amis as Karpenter writes it for an al2023 alias: one AMI per (arch, variant), the variant as requirements. */
export function aliasStatusAmis(
  ids: Record<Pair, string> = OLD,
  kubernetesVersion = '1.30',
  release = 'v20240917',
): NodeClassView['statusAmis'] {
  return AL2023_PAIRS.map((pair) => {
    const [arch, variant] = pair.split('/') as [Arch, Variant];
    const requirements: Requirement[] = [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch] }];
    if (variant === 'nvidia') requirements.push({ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' });
    if (variant === 'neuron')
      requirements.push({ key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'Exists' });
    if (variant === 'standard') {
      requirements.push({ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'DoesNotExist' });
      requirements.push({ key: 'karpenter.k8s.aws/instance-accelerator-count', operator: 'DoesNotExist' });
    }
    return { id: ids[pair], name: al2023Name(pair, kubernetesVersion, release), requirements };
  });
}

/** status.amis for id (or name, tags) terms: Karpenter knows only the arch. */
export function idStatusAmis(
  pairs: Pair[],
  ids: Record<Pair, string> = OLD,
  kubernetesVersion = '1.30',
  release = 'v20240917',
): NodeClassView['statusAmis'] {
  return pairs.map((pair) => ({
    id: ids[pair],
    name: al2023Name(pair, kubernetesVersion, release),
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [pair.split('/')[0]!] }],
  }));
}

export function nodeClass(overrides: Partial<NodeClassView> = {}): NodeClassView {
  const name = overrides.name ?? 'default';
  return {
    name,
    uid: `uid-ec2nodeclass-${name}`,
    resourceVersion: '1000',
    generation: 1,
    amiSelectorTerms: [{ alias: 'al2023@v20240917' }],
    statusAmis: aliasStatusAmis(),
    conditions: { AMIsReady: condition(), Ready: condition() },
    owners: [],
    labels: {},
    annotations: {},
    ...overrides,
  };
}

/** The getting-started NodePool: amd64 only, general-purpose categories (so never a GPU instance). */
export function nodePool(overrides: Partial<NodePoolView> = {}): NodePoolView {
  const name = overrides.name ?? 'general';
  return {
    name,
    uid: `uid-nodepool-${name}`,
    nodeClass: 'default',
    requirements: [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
    ],
    conditions: { Ready: condition() },
    ...overrides,
  };
}

export function nodeClaim(overrides: Partial<NodeClaimView> = {}): NodeClaimView {
  const name = overrides.name ?? 'general-a1b2c';
  return {
    name,
    uid: `uid-nodeclaim-${name}`,
    resourceVersion: '2000',
    nodePool: 'general',
    nodeClass: 'default',
    imageId: OLD['amd64/standard'],
    nodeName: `ip-${name}`,
    arch: 'amd64',
    instanceType: 'm6i.large',
    gpu: false,
    accelerator: false,
    deleting: false,
    conditions: { Launched: condition(), Registered: condition(), Initialized: condition(), Ready: condition() },
    ...overrides,
  };
}

/** `count` NodeClaims of one pool, named `<pool>-<i>`, with the same overrides. */
export function nodeClaims(count: number, overrides: Partial<NodeClaimView> = {}): NodeClaimView[] {
  const pool = overrides.nodePool ?? 'general';
  return Array.from({ length: count }, (_, i) => nodeClaim({ ...overrides, name: `${pool}-${i + 1}` }));
}

export function node(overrides: Partial<NodeView> = {}): NodeView {
  const name = overrides.name ?? 'ip-general-a1b2c';
  return {
    name,
    uid: `uid-node-${name}`,
    resourceVersion: '3000',
    nodePool: 'general',
    kubeletVersion: 'v1.30.4-eks-a737599',
    ready: true,
    initialized: true,
    doNotDisrupt: false,
    taints: [],
    deleting: false,
    ...overrides,
  };
}

/** The Node of each NodeClaim, healthy. */
export const nodesOf = (claims: readonly NodeClaimView[]): NodeView[] =>
  claims.filter((c) => c.nodeName !== undefined).map((c) => node({ name: c.nodeName!, nodePool: c.nodePool! }));

export function pod(overrides: Partial<PodView> = {}): PodView {
  return {
    namespace: 'shop',
    name: 'web-6d4b9c7f8-x2x9k',
    nodeName: 'ip-general-1',
    labels: { app: 'web' },
    phase: 'Running',
    daemonSet: false,
    deleting: false,
    ...overrides,
  };
}

export function pdb(overrides: Partial<PdbView> = {}): PdbView {
  return {
    namespace: 'shop',
    name: 'web',
    selector: { matchLabels: { app: 'web' } },
    disruptionsAllowed: 1,
    ...overrides,
  };
}

/** A cluster: the defaults above, with the Nodes of the given NodeClaims unless `nodes` is given. */
export function inventory(overrides: Partial<Inventory> = {}): Inventory {
  const claims = overrides.nodeClaims ?? nodeClaims(3);
  return {
    karpenterApi: 'v1',
    controlPlane: { minor: '1.31', gitVersion: 'v1.31.2-eks-7f9249a' },
    nodeClasses: [nodeClass()],
    nodePools: [nodePool()],
    nodes: nodesOf(claims),
    pdbs: [],
    pods: [],
    events: [],
    ...overrides,
    nodeClaims: claims,
  };
}

export function resolvedAmi(pair: Pair, overrides: Partial<ResolvedAmi> = {}): ResolvedAmi {
  const [arch, variant] = pair.split('/') as [Arch, Variant];
  const kubernetesVersion = overrides.kubernetesVersion ?? '1.31';
  const release = overrides.release ?? 'v20241109';
  return {
    family: 'al2023',
    arch,
    variant,
    kubernetesVersion,
    release,
    releaseVersion: `${kubernetesVersion}.2-${release.slice(1)}`,
    id: NEW[pair],
    name: al2023Name(pair, kubernetesVersion, release),
    parameter: `/aws/service/eks/optimized-ami/${kubernetesVersion}/amazon-linux-2023/${ssm(arch)}/${variant}/recommended/image_id`,
    state: 'available',
    architecture: ssm(arch),
    deprecated: false,
    problems: [],
    usable: true,
    ...overrides,
  };
}

/** Every al2023 AMI for 1.31 at v20241109: what the command resolves for a cluster that needs them all. */
export const targetAmis = (): ResolvedAmi[] => AL2023_PAIRS.map((p) => resolvedAmi(p));

export const NOW = new Date('2024-11-13T10:00:00Z'); // a Wednesday
