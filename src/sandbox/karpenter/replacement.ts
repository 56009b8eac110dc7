// The NodeClaims Karpenter creates from a scheduling run (provisioner.go Create, scheduling/nodeclaim.go
// ToNodeClaim): from the NodePool's template, for an instance type that fits the pods (the sandbox has one per
// architecture: that of the node the pods come from, else of the NodePool's other nodes), in a seeded zone. The
// disruption queue creates them as a command's replacements, the provisioner for pods that fit nowhere.
import type { KubeObject } from '../kube-api/types.js';
import { EC2NODECLASSES, NODECLAIMS, spec, type SimContext } from './context.js';
import { nodeClaimTemplateMetadata } from './hashes.js';
import { instanceId, nodeClaimName, privateDnsName } from '../scenarios/names.js';
import { INSTANCE_TYPES, ZONES, nodeClaimObject, type InstanceType } from './objects.js';

export function instanceTypeOf(claim: KubeObject): InstanceType {
  const name = claim.metadata.labels?.['node.kubernetes.io/instance-type'];
  return Object.values(INSTANCE_TYPES).find((t) => t.name === name) ?? INSTANCE_TYPES.amd64;
}

/** What EC2 will answer for a new instance in that zone: its ID and private DNS name, unique in the cluster. */
export function newInstance(ctx: SimContext, zoneIndex: number): { instanceId: string; nodeName: string } {
  return { instanceId: instanceId(ctx.rng, ctx.taken.instanceIds), nodeName: privateDnsName(ctx.rng, zoneIndex, ctx.taken.dnsNames) };
}

type PoolTemplate = {
  template?: {
    spec?: { requirements?: Array<{ key: string; values?: string[] }>; terminationGracePeriod?: string; expireAfter?: string; nodeClassRef?: { name?: string } };
  };
};

/**
 * The instance type for a new NodeClaim of `pool` that takes `pods`: the type of the first pod's node in that pool
 * (a replacement keeps its candidate's architecture), else of any node of the pool, else the template's first arch.
 */
export function instanceTypeFor(ctx: SimContext, pool: KubeObject, pods: readonly KubeObject[]): InstanceType {
  const poolName = pool.metadata.name ?? '';
  const ofPool = (claim: KubeObject | undefined) => (claim?.metadata.labels?.['karpenter.sh/nodepool'] === poolName ? claim : undefined);
  for (const pod of pods) {
    const nodeName = spec<{ nodeName?: string }>(pod).nodeName;
    const owner = nodeName ? ctx.store.get('nodes', nodeName)?.metadata.ownerReferences?.find((r) => r.kind === 'NodeClaim') : undefined;
    const claim = ofPool(owner ? ctx.store.get(NODECLAIMS, owner.name ?? '') : undefined);
    if (claim) return instanceTypeOf(claim);
  }
  const sibling = ctx.store.list(NODECLAIMS).find((c) => ofPool(c));
  if (sibling) return instanceTypeOf(sibling);
  const arch = spec<PoolTemplate>(pool).template?.spec?.requirements?.find((r) => r.key === 'kubernetes.io/arch')?.values?.[0];
  return arch === 'arm64' ? INSTANCE_TYPES.arm64 : INSTANCE_TYPES.amd64;
}

/** Creates the NodeClaim, as `karpenter` (provisioner.go Create: `created nodeclaim`). */
export function createNodeClaim(ctx: SimContext, pool: KubeObject, instanceType: InstanceType): KubeObject {
  const template = spec<PoolTemplate>(pool).template?.spec ?? {};
  const poolName = pool.metadata.name ?? '';
  const apiVersion = ctx.karpenterApi === 'v1' ? 'karpenter.sh/v1' : 'karpenter.sh/v1beta1';
  const claim = nodeClaimObject(
    {
      name: nodeClaimName(ctx.rng, poolName, ctx.taken.names),
      nodePool: {
        name: poolName,
        uid: pool.metadata.uid ?? '',
        requirements: template.requirements,
        terminationGracePeriod: template.terminationGracePeriod,
        expireAfter: template.expireAfter,
      },
      nodeClass: template.nodeClassRef?.name ?? '',
      instanceType,
      zoneIndex: ctx.rng.int(0, ZONES.length - 1),
      template: nodeClaimTemplateMetadata(pool, ctx.store.get(EC2NODECLASSES, template.nodeClassRef?.name ?? ''), ctx.hashVersions),
    },
    apiVersion,
  );
  return ctx.store.create(NODECLAIMS, claim, { manager: 'karpenter' });
}
