// The objects the simulated Karpenter creates, shaped as Karpenter v1 and the AWS provider write them
// (test/fixtures/nodeclaim-drifted.yaml, node-disrupted.yaml). Scenarios use the same factories for the nodes a
// cluster starts with, so a replacement and an original node differ only in their AMI and age.
import type { Arch } from '../../ami/families.js';
import type { KubeObject } from '../kube-api/types.js';

export const TERMINATION_FINALIZER = 'karpenter.sh/termination';
export const DISRUPTED_TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;
/** v1beta1 (Karpenter v0.32–v0.37) marks a disrupting node with this taint instead. */
export const DISRUPTING_TAINT_V1BETA1 = { key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' } as const;
/**
 * The sandbox's kubelet runs no containers: a container with this command is how a scenario says it crashes on start
 * (CrashLoopBackOff, never Ready), and the kubelet keeps such a pod unready wherever its ReplicaSet re-creates it.
 */
export const CRASHING_COMMAND = ['/bin/sh', '-c', 'exit 1'];
export const REGION = 'us-west-2';
export const ZONES = [
  { zone: 'us-west-2a', zoneId: 'usw2-az2' },
  { zone: 'us-west-2b', zoneId: 'usw2-az1' },
  { zone: 'us-west-2c', zoneId: 'usw2-az3' },
] as const;

/** The instance type the sandbox launches for an architecture (and for GPU pools). */
export interface InstanceType {
  name: string;
  arch: Arch;
  family: string;
  category: string;
  generation: string;
  cpu: string;
  memoryMiB: string;
  gpuCount?: string;
  manufacturer: string;
}

export const INSTANCE_TYPES: Record<'amd64' | 'arm64' | 'amd64-gpu', InstanceType> = {
  amd64: { name: 'm7i.xlarge', arch: 'amd64', family: 'm7i', category: 'm', generation: '7', cpu: '4', memoryMiB: '16384', manufacturer: 'intel' },
  arm64: { name: 'm7g.xlarge', arch: 'arm64', family: 'm7g', category: 'm', generation: '7', cpu: '4', memoryMiB: '16384', manufacturer: 'aws' },
  'amd64-gpu': { name: 'g5.xlarge', arch: 'amd64', family: 'g5', category: 'g', generation: '5', cpu: '4', memoryMiB: '16384', gpuCount: '1', manufacturer: 'amd' },
};

/**
 * What an instance of the sandbox's types leaves to pods (the kubelet's reserved CPU and memory taken from 4 vCPUs and
 * 16 GiB, and the ENI limit of an xlarge): written as the NodeClaim's and the Node's status.allocatable.
 */
export const INSTANCE_ALLOCATABLE = { cpu: '3920m', memory: '14162Mi', pods: '58' } as const;

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Sets a condition as Karpenter's status-condition library does: lastTransitionTime moves only when status does. */
export function withCondition(conditions: Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : rfc3339(now);
  const condition: Condition = { ...next, lastTransitionTime };
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  return list;
}

export function withoutCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function conditionOf(object: KubeObject, type: string): Condition | undefined {
  const status = object.status as { conditions?: Condition[] } | undefined;
  return status?.conditions?.find((c) => c.type === type);
}

export function isTrue(object: KubeObject, type: string): boolean {
  return conditionOf(object, type)?.status === 'True';
}

/** metav1.Time: RFC 3339 in seconds. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface NodeClaimInput {
  name: string;
  nodePool: { name: string; uid: string; requirements?: unknown[]; terminationGracePeriod?: string; expireAfter?: string };
  nodeClass: string;
  instanceType: InstanceType;
  zoneIndex: number;
  /** The Node's name once registered, decided at launch as EC2's private DNS name. */
  nodeName: string;
  instanceId: string;
  /**
   * The NodePool template's metadata, copied onto the claim, with the static-drift hashes of the NodePool and its
   * class as the claim was created (hashes.ts nodeClaimHashAnnotations).
   */
  template?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** A NodeClaim as the provisioner (or the disruption controller, for a replacement) creates it: no status yet. */
export function nodeClaimObject(input: Omit<NodeClaimInput, 'nodeName' | 'instanceId'>, apiVersion = 'karpenter.sh/v1'): KubeObject {
  const { nodePool, instanceType: it } = input;
  return {
    apiVersion,
    kind: 'NodeClaim',
    metadata: {
      name: input.name,
      labels: {
        ...input.template?.labels,
        ...instanceLabels(input),
        'karpenter.sh/nodepool': nodePool.name,
        'karpenter.k8s.aws/ec2nodeclass': input.nodeClass,
      },
      annotations: { ...input.template?.annotations },
      finalizers: [TERMINATION_FINALIZER],
      ownerReferences: [{ apiVersion, kind: 'NodePool', name: nodePool.name, uid: nodePool.uid, blockOwnerDeletion: true }],
    },
    spec: {
      expireAfter: nodePool.expireAfter ?? '720h',
      ...(nodePool.terminationGracePeriod ? { terminationGracePeriod: nodePool.terminationGracePeriod } : {}),
      // v1beta1 (Karpenter 0.32–0.37) refers to the class by apiVersion; v1 by group.
      nodeClassRef:
        apiVersion === 'karpenter.sh/v1'
          ? { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: input.nodeClass }
          : { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: input.nodeClass },
      requirements: [
        ...((nodePool.requirements ?? []) as object[]).filter((r) => (r as { key?: string }).key !== 'kubernetes.io/arch'),
        { key: 'kubernetes.io/arch', operator: 'In', values: [it.arch] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [it.name] },
        { key: 'karpenter.sh/nodepool', operator: 'In', values: [nodePool.name] },
      ],
      resources: { requests: { cpu: '1', memory: '1Gi', pods: '10' } },
    },
  };
}

/** The status a NodeClaim has once launched: what EC2 said about the instance. */
export function launchedStatus(input: NodeClaimInput, imageId: string): Record<string, unknown> {
  const zone = ZONES[input.zoneIndex % ZONES.length]!;
  return {
    providerID: `aws:///${zone.zone}/${input.instanceId}`,
    imageID: imageId,
    capacity: { cpu: input.instanceType.cpu, memory: `${input.instanceType.memoryMiB}Mi`, pods: '58', 'ephemeral-storage': '20Gi' },
    allocatable: { ...INSTANCE_ALLOCATABLE, 'ephemeral-storage': '17Gi' },
  };
}

export interface NodeInput extends NodeClaimInput {
  kubeletVersion: string;
  osImage: string;
  nodeClaimUid: string;
  /** Once Initialized; a new Node has only `karpenter.sh/registered`. */
  initialized: boolean;
  ready: boolean;
}

/** The Node the kubelet registers, with the labels Karpenter syncs from the NodeClaim. */
export function nodeObject(input: NodeInput): KubeObject {
  const zone = ZONES[input.zoneIndex % ZONES.length]!;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: input.nodeName,
      labels: {
        ...input.template?.labels,
        ...instanceLabels(input),
        'karpenter.sh/nodepool': input.nodePool.name,
        'karpenter.k8s.aws/ec2nodeclass': input.nodeClass,
        'karpenter.sh/registered': 'true',
        ...(input.initialized ? { 'karpenter.sh/initialized': 'true' } : {}),
        'kubernetes.io/hostname': input.nodeName.split('.')[0]!,
      },
      finalizers: [TERMINATION_FINALIZER],
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: input.name, uid: input.nodeClaimUid, blockOwnerDeletion: true },
      ],
    },
    spec: { providerID: `aws:///${zone.zone}/${input.instanceId}` },
    status: {
      capacity: { cpu: input.instanceType.cpu, memory: `${input.instanceType.memoryMiB}Mi`, pods: '58' },
      allocatable: { ...INSTANCE_ALLOCATABLE },
      conditions: [nodeReadyCondition(input.ready, new Date(0))],
      nodeInfo: {
        kubeletVersion: input.kubeletVersion,
        kubeProxyVersion: input.kubeletVersion,
        osImage: input.osImage,
        architecture: input.instanceType.arch,
        operatingSystem: 'linux',
        containerRuntimeVersion: 'containerd://1.7.27',
      },
    },
  };
}

export function nodeReadyCondition(ready: boolean, now: Date): Record<string, string> {
  const t = rfc3339(now);
  return ready
    ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: t, lastTransitionTime: t }
    : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime network not ready', lastHeartbeatTime: t, lastTransitionTime: t };
}

function instanceLabels(input: Pick<NodeClaimInput, 'instanceType' | 'zoneIndex'>): Record<string, string> {
  const it = input.instanceType;
  const zone = ZONES[input.zoneIndex % ZONES.length]!;
  return {
    'karpenter.k8s.aws/instance-category': it.category,
    'karpenter.k8s.aws/instance-family': it.family,
    'karpenter.k8s.aws/instance-generation': it.generation,
    'karpenter.k8s.aws/instance-cpu': it.cpu,
    'karpenter.k8s.aws/instance-cpu-manufacturer': it.manufacturer,
    'karpenter.k8s.aws/instance-memory': it.memoryMiB,
    'karpenter.k8s.aws/instance-size': 'xlarge',
    ...(it.gpuCount ? { 'karpenter.k8s.aws/instance-gpu-count': it.gpuCount } : {}),
    'karpenter.sh/capacity-type': 'on-demand',
    'kubernetes.io/arch': it.arch,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': it.name,
    'topology.kubernetes.io/region': REGION,
    'topology.kubernetes.io/zone': zone.zone,
    'topology.k8s.aws/zone-id': zone.zoneId,
  };
}

/** kubelet version and OS image a node reports for an AMI name (DOMAIN.md §3.4 naming). */
export function nodeInfoForImage(imageName: string, kubernetesVersion: string): { kubeletVersion: string; osImage: string } {
  const kubeletVersion = `v${kubernetesVersion}.${8 + (kubernetesVersion.length % 3)}-eks-1b3e656`;
  if (imageName.startsWith('bottlerocket')) {
    const v = /-v(\d+\.\d+\.\d+)-/.exec(imageName)?.[1] ?? '1.0.0';
    return { kubeletVersion, osImage: `Bottlerocket OS ${v} (aws-k8s-${kubernetesVersion})` };
  }
  if (imageName.startsWith('Windows')) {
    return { kubeletVersion, osImage: imageName.includes('2019') ? 'Windows Server 2019 Datacenter' : 'Windows Server 2022 Datacenter' };
  }
  if (imageName.includes('al2023')) {
    const date = /-v(\d{8})$/.exec(imageName)?.[1] ?? '20240101';
    return { kubeletVersion, osImage: `Amazon Linux 2023.6.${date}` };
  }
  return { kubeletVersion, osImage: 'Amazon Linux 2' };
}
