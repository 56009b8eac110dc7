// AMI drift (karpenter-provider-aws pkg/cloudprovider/drift.go `isAMIDrifted`; core
// pkg/controllers/nodeclaim/disruption/drift.go): a launched NodeClaim is Drifted with reason AMIDrift when its
// status.imageID is not the AMI its class's status.amis chooses for its instance type. The condition is only ever
// True: it is removed, never set False, when the claim is no longer drifted.
import type { KubeObject } from '../kube-api/types.js';
import { EC2NODECLASSES, NODECLAIMS, setConditions, spec, status, writeStatus, type SimContext } from './context.js';
import { conditionOf, withoutCondition, type Condition } from './objects.js';

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface StatusAmi {
  id: string;
  name?: string;
  requirements: Requirement[];
}

/** Does an instance with these labels satisfy the requirements (In, NotIn, Exists, DoesNotExist, Gt, Lt)? */
export function compatible(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => {
    const value = labels[r.key];
    switch (r.operator) {
      case 'In':
        return value !== undefined && (r.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(r.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      case 'Gt':
        return value !== undefined && Number(value) > Number(r.values?.[0]);
      case 'Lt':
        return value !== undefined && Number(value) < Number(r.values?.[0]);
      default:
        return false;
    }
  });
}

/** The AMI Karpenter would launch for an instance with these labels: the first compatible one (MapToInstanceTypes). */
export function chosenAmi(amis: readonly StatusAmi[], labels: Readonly<Record<string, string>>): StatusAmi | undefined {
  return amis.find((a) => compatible(a.requirements, labels));
}

/** Pure: is this claim AMI-drifted against these status.amis? undefined when it cannot be told (no amis). */
export function isAmiDrifted(imageId: string | undefined, amis: readonly StatusAmi[] | undefined, labels: Readonly<Record<string, string>>): boolean | undefined {
  if (imageId === undefined || amis === undefined || amis.length === 0) return undefined; // "no amis exist given constraints"
  const chosen = chosenAmi(amis, labels);
  return chosen === undefined ? undefined : chosen.id !== imageId;
}

export function reconcileDrift(ctx: SimContext): void {
  const now = ctx.clock.now();
  const classes = new Map(ctx.store.list(EC2NODECLASSES).map((c) => [c.metadata.name ?? '', c]));
  for (const claim of ctx.store.list(NODECLAIMS)) {
    const name = claim.metadata.name ?? '';
    const launched = conditionOf(claim, 'Launched')?.status === 'True';
    const nodeClass = classes.get(spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '');
    const amis = nodeClass ? status<{ amis?: StatusAmi[] }>(nodeClass).amis : undefined;
    const drifted = launched ? isAmiDrifted(status<{ imageID?: string }>(claim).imageID, amis, claim.metadata.labels ?? {}) : false;
    const current = conditionOf(claim, 'Drifted');
    if (drifted === true && !current) {
      // Karpenter notices within seconds (it watches NodeClasses); the delay stands for that and is configurable.
      const seen = ctx.memory.driftSeenAt.get(name) ?? now.getTime();
      ctx.memory.driftSeenAt.set(name, seen);
      // Bounded per pass (ctx.budget): a class change drifts the whole fleet at once, marked over a few passes.
      if (now.getTime() - seen >= ctx.timing.driftDetectionSeconds * 1000 && !ctx.budget.exhausted()) markDrifted(ctx, claim);
    } else if (drifted === false && current && !ctx.budget.exhausted()) {
      ctx.memory.driftSeenAt.delete(name);
      writeStatus(ctx, NODECLAIMS, claim, { ...status<Record<string, unknown>>(claim), conditions: withoutCondition(status<{ conditions?: Condition[] }>(claim).conditions, 'Drifted') });
      ctx.log(`removing drifted status condition, not drifted: nodeclaim ${name}`);
    } else if (drifted !== true) {
      ctx.memory.driftSeenAt.delete(name);
    }
  }
}

function markDrifted(ctx: SimContext, claim: KubeObject): void {
  setConditions(ctx, NODECLAIMS, claim, [{ type: 'Drifted', status: 'True', reason: 'AMIDrift', message: 'AMIDrift' }]);
  ctx.log(`marking drifted: nodeclaim ${claim.metadata.name} reason=AMIDrift`);
}
