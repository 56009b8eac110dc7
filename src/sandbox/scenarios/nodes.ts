// A NodePool's running nodes as Karpenter and the kubelet leave them: a NodeClaim launched, registered and
// initialized, and the Node the kubelet registered, Ready and initialized. None is drifted: drift is the
// simulator's to decide. Controllers' objects carry no managedFields: recording them costs about 0.3 ms an object
// (seconds for the large scenario), and karp-drift reads managedFields only on the objects people apply.
import { DO_NOT_DISRUPT } from '../../karpenter/labels.js';
import {
  INSTANCE_TYPES,
  ZONES,
  launchedStatus,
  nodeClaimObject,
  nodeInfoForImage,
  nodeObject,
  nodeReadyCondition,
  withCondition,
  type Condition,
  type NodeClaimInput,
} from '../karpenter/objects.js';
import type { Arch } from '../../ami/families.js';
import { nodeClaimTemplateMetadata, type HashVersions } from '../karpenter/hashes.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import { instanceId, ipOfDnsName, nodeClaimName, privateDnsName } from './names.js';
import type { ClassImages } from './node-classes.js';
import type { SeededRandom } from './random.js';
import type { ScenarioNodePool } from './schema.js';

export interface BuiltNode {
  nodeClaim: string;
  nodeName: string;
  arch: Arch;
  /** The node's IPv4 address, for pods' hostIP. */
  ip: string;
}

export interface NodeBuildContext {
  store: KubeStore;
  rng: SeededRandom;
  now: Date;
  /** Names and IDs already used, shared by every pool (see names.ts). */
  taken: { names: Set<string>; dnsNames: Set<string>; instanceIds: Set<string> };
  /** The static-drift hash versions the scenario's Karpenter writes. */
  hashVersions: HashVersions;
}

export function buildPoolNodes(
  ctx: NodeBuildContext,
  pool: ScenarioNodePool,
  nodePool: KubeObject,
  images: ClassImages,
): BuiltNode[] {
  const { store, rng, now, taken } = ctx;
  const template = (nodePool.spec as { template: { spec: { requirements?: unknown[] } } }).template.spec;
  // The claims Karpenter made from the NodePool as it is: its template's metadata and its and its class's hashes.
  const nodeClass = store.get('ec2nodeclasses.karpenter.k8s.aws', pool.nodeClass);
  const metadata = nodeClaimTemplateMetadata(nodePool, nodeClass, ctx.hashVersions);
  const built: BuiltNode[] = [];
  for (let k = 0; k < pool.nodes; k++) {
    const arch = pool.arch[k % pool.arch.length] ?? 'amd64';
    const zoneIndex = k % ZONES.length;
    const nodeName = privateDnsName(rng, zoneIndex, taken.dnsNames);
    const input: NodeClaimInput = {
      name: nodeClaimName(rng, pool.name, taken.names),
      nodePool: {
        name: pool.name,
        uid: nodePool.metadata.uid ?? '',
        requirements: template.requirements,
        ...(pool.terminationGracePeriod ? { terminationGracePeriod: pool.terminationGracePeriod } : {}),
      },
      nodeClass: pool.nodeClass,
      instanceType: pool.gpu ? INSTANCE_TYPES['amd64-gpu'] : INSTANCE_TYPES[arch],
      zoneIndex,
      nodeName,
      instanceId: instanceId(rng, taken.instanceIds),
      template: metadata,
    };
    const launched = launchedNodeClaim(input, nodePool.apiVersion, images, arch, now);
    const claim = store.create('nodeclaims.karpenter.sh', launched, { wholeObject: true });
    const node = registeredNode(input, images, arch, claim.metadata.uid ?? '', now);
    if (k < pool.doNotDisruptNodes) node.metadata.annotations = { [DO_NOT_DISRUPT]: 'true' };
    store.create('nodes', node, { wholeObject: true });
    built.push({ nodeClaim: input.name, nodeName, arch, ip: ipOfDnsName(nodeName) });
  }
  return built;
}

/** One write for spec and status, as if launch, registration and initialization had all been observed. */
function launchedNodeClaim(input: NodeClaimInput, apiVersion: string, images: ClassImages, arch: Arch, now: Date) {
  const claim = nodeClaimObject(input, apiVersion);
  if (apiVersion === 'karpenter.sh/v1beta1') {
    // v1beta1 refers to the class by apiVersion (DOMAIN.md §2.9).
    const nodeClassRef = { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: input.nodeClass };
    claim.spec = { ...(claim.spec as object), nodeClassRef };
  }
  let conditions: Condition[] = [];
  for (const type of ['Launched', 'Registered', 'Initialized', 'Ready', 'ConsistentStateFound']) {
    const condition = { type, status: 'True' as const, reason: type, message: '', observedGeneration: 1 };
    conditions = withCondition(conditions, condition, now);
  }
  claim.status = { ...launchedStatus(input, images.imageIds[arch] ?? ''), nodeName: input.nodeName, conditions };
  if (images.family.startsWith('windows')) setWindows(claim);
  return claim;
}

/** The Node as the kubelet registered it and Karpenter labelled it: Ready, initialized, with its addresses. */
function registeredNode(input: NodeClaimInput, images: ClassImages, arch: Arch, nodeClaimUid: string, now: Date) {
  const imageName = images.releases[arch]?.imageName ?? '';
  const node = nodeObject({
    ...input,
    ...nodeInfoForImage(imageName, images.kubernetesVersion),
    nodeClaimUid,
    initialized: true,
    ready: true,
  });
  const ip = ipOfDnsName(input.nodeName);
  node.status = {
    ...(node.status as object),
    conditions: [nodeReadyCondition(true, now)],
    addresses: [
      { type: 'InternalIP', address: ip },
      { type: 'InternalDNS', address: input.nodeName },
      { type: 'Hostname', address: input.nodeName },
    ],
  };
  if (images.family.startsWith('windows')) setWindows(node);
  return node;
}

// The factories describe Linux instances; a Windows class's nodes say windows wherever the OS shows.
function setWindows(object: KubeObject): void {
  if (object.metadata.labels) object.metadata.labels['kubernetes.io/os'] = 'windows';
  const nodeInfo = (object.status as { nodeInfo?: Record<string, unknown> } | undefined)?.nodeInfo;
  if (nodeInfo) nodeInfo.operatingSystem = 'windows';
}
