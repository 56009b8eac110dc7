// The replacement NodeClaim a drift command creates: from the NodePool's template, for the same instance type as the
// node it replaces (the scheduling simulation's answer when every instance type fits the pods), in a seeded zone.
import type { KubeObject } from '../kube-api/types.js';
import { spec, type SimContext } from './context.js';
import { instanceId, nodeClaimName, privateDnsName } from '../scenarios/names.js';
import { INSTANCE_TYPES, ZONES, nodeClaimObject, type InstanceType, type NodeClaimInput } from './objects.js';

/** A NodeClaim before launch: EC2 has not chosen its instance yet. */
type ReplacementInput = Omit<NodeClaimInput, 'nodeName' | 'instanceId'>;

export function instanceTypeOf(claim: KubeObject): InstanceType {
  const name = claim.metadata.labels?.['node.kubernetes.io/instance-type'];
  return Object.values(INSTANCE_TYPES).find((t) => t.name === name) ?? INSTANCE_TYPES.amd64;
}

/** What EC2 will answer for a new instance in that zone: its ID and private DNS name, unique in the cluster. */
export function newInstance(ctx: SimContext, zoneIndex: number): { instanceId: string; nodeName: string } {
  return { instanceId: instanceId(ctx.rng, ctx.taken.instanceIds), nodeName: privateDnsName(ctx.rng, zoneIndex, ctx.taken.dnsNames) };
}

export function replacementInput(ctx: SimContext, pool: KubeObject, old: KubeObject): ReplacementInput {
  const template = spec<{ template?: { spec?: { requirements?: unknown[]; terminationGracePeriod?: string; expireAfter?: string; nodeClassRef?: { name?: string } } } }>(pool).template?.spec ?? {};
  const poolName = pool.metadata.name ?? '';
  return {
    name: nodeClaimName(ctx.rng, poolName, ctx.taken.names),
    nodePool: {
      name: poolName,
      uid: pool.metadata.uid ?? '',
      requirements: template.requirements,
      terminationGracePeriod: template.terminationGracePeriod,
      expireAfter: template.expireAfter,
    },
    nodeClass: template.nodeClassRef?.name ?? '',
    instanceType: instanceTypeOf(old),
    zoneIndex: ctx.rng.int(0, ZONES.length - 1),
  };
}

export function replacementFor(ctx: SimContext, pool: KubeObject, old: KubeObject): KubeObject {
  const apiVersion = ctx.karpenterApi === 'v1' ? 'karpenter.sh/v1' : 'karpenter.sh/v1beta1';
  return nodeClaimObject(replacementInput(ctx, pool, old), apiVersion);
}
