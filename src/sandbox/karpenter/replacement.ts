// The replacement NodeClaim a drift command creates: from the NodePool's template, for the same instance type as the
// node it replaces (the scheduling simulation's answer when every instance type fits the pods), in a seeded zone.
import type { KubeObject } from '../kube-api/types.js';
import { spec, type SimContext } from './context.js';
import { INSTANCE_TYPES, ZONES, nodeClaimObject, type InstanceType, type NodeClaimInput } from './objects.js';

export function instanceTypeOf(claim: KubeObject): InstanceType {
  const name = claim.metadata.labels?.['node.kubernetes.io/instance-type'];
  return Object.values(INSTANCE_TYPES).find((t) => t.name === name) ?? INSTANCE_TYPES.amd64;
}

function randomName(ctx: SimContext, prefix: string): string {
  return `${prefix}-${ctx.rng.int(0, 36 ** 5 - 1).toString(36).padStart(5, '0')}`;
}

function hex(ctx: SimContext, digits: number): string {
  let out = '';
  while (out.length < digits) out += ctx.rng.int(0, 0xffff).toString(16).padStart(4, '0');
  return out.slice(0, digits);
}

/** What EC2 will answer for a new instance: its ID and private DNS name. */
export function newInstance(ctx: SimContext): { instanceId: string; nodeName: string } {
  const ip = [ctx.rng.int(0, 255), ctx.rng.int(0, 255), ctx.rng.int(1, 254)];
  return { instanceId: `i-0${hex(ctx, 16)}`, nodeName: `ip-10-${ip.join('-')}.us-west-2.compute.internal` };
}

export function replacementInput(ctx: SimContext, pool: KubeObject, old: KubeObject): NodeClaimInput {
  const template = spec<{ template?: { spec?: { requirements?: unknown[]; terminationGracePeriod?: string; expireAfter?: string; nodeClassRef?: { name?: string } } } }>(pool).template?.spec ?? {};
  const poolName = pool.metadata.name ?? '';
  return {
    name: randomName(ctx, poolName),
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
    ...newInstance(ctx),
  };
}

export function replacementFor(ctx: SimContext, pool: KubeObject, old: KubeObject): KubeObject {
  const apiVersion = ctx.karpenterApi === 'v1' ? 'karpenter.sh/v1' : 'karpenter.sh/v1beta1';
  return nodeClaimObject(replacementInput(ctx, pool, old), apiVersion);
}
