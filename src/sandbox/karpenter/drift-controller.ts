// Drift (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/disruption/drift.go isDrifted; karpenter-provider-aws
// pkg/cloudprovider/drift.go): a launched NodeClaim is Drifted with the first reason found, in Karpenter's order
// (DOMAIN.md §2.1): static drift against its NodePool (`NodePoolDrifted`: the NodePool's `karpenter.sh/nodepool-hash`
// annotation is not the claim's, at the same hash version), then the provider's static drift against its class
// (`NodeClassDrift`, the same with `karpenter.k8s.aws/ec2nodeclass-hash`), then `AMIDrift` (its status.imageID is not
// the AMI its class's status.amis chooses for its instance type). The condition is only ever True: it is removed,
// never set False, when the claim is no longer drifted; its reason follows the first reason found.
import type { KubeObject } from '../kube-api/types.js';
import { EC2NODECLASSES, NODECLAIMS, NODEPOOLS, setConditions, spec, status, writeStatus, type SimContext } from './context.js';
import { NODECLASS_HASH, NODECLASS_HASH_VERSION, NODEPOOL_HASH, NODEPOOL_HASH_VERSION } from './hashes.js';
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

/**
 * areStaticFieldsDrifted (core and provider alike): the object's hash annotation against the claim's, only when both
 * carry both annotations at the same hash version.
 */
export function staticallyDrifted(
  object: KubeObject | undefined,
  claim: KubeObject,
  hashKey: string,
  versionKey: string,
): boolean {
  const theirs = object?.metadata.annotations ?? {};
  const ours = claim.metadata.annotations ?? {};
  if ([theirs[hashKey], theirs[versionKey], ours[hashKey], ours[versionKey]].some((v) => v === undefined)) return false;
  return theirs[versionKey] === ours[versionKey] && theirs[hashKey] !== ours[hashKey];
}

export type DriftReason = 'NodePoolDrifted' | 'NodeClassDrift' | 'AMIDrift';

// Per version of the claim, its NodePool and its class (the store never mutates a stored object): a pass looks at
// every NodeClaim of the fleet, and few of them, or of their NodePools and classes, changed since the last.
const reasons = new WeakMap<
  KubeObject,
  { pool: KubeObject | undefined; nodeClass: KubeObject | undefined; reason: DriftReason | '' | undefined }
>();

/** The first drift reason, '' when not drifted, undefined when it cannot be told (no AMIs to compare with). */
function driftReason(ctx: SimContext, claim: KubeObject, classes: ReadonlyMap<string, KubeObject>): DriftReason | '' | undefined {
  const pool = ctx.store.get(NODEPOOLS, claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '');
  const nodeClass = classes.get(spec<{ nodeClassRef?: { name?: string } }>(claim).nodeClassRef?.name ?? '');
  const known = reasons.get(claim);
  if (known !== undefined && known.pool === pool && known.nodeClass === nodeClass) return known.reason;
  const reason = readDriftReason(claim, pool, nodeClass);
  reasons.set(claim, { pool, nodeClass, reason });
  return reason;
}

function readDriftReason(
  claim: KubeObject,
  pool: KubeObject | undefined,
  nodeClass: KubeObject | undefined,
): DriftReason | '' | undefined {
  if (conditionOf(claim, 'Launched')?.status !== 'True') return '';
  if (staticallyDrifted(pool, claim, NODEPOOL_HASH, NODEPOOL_HASH_VERSION)) return 'NodePoolDrifted';
  if (staticallyDrifted(nodeClass, claim, NODECLASS_HASH, NODECLASS_HASH_VERSION)) return 'NodeClassDrift';
  const amis = nodeClass ? status<{ amis?: StatusAmi[] }>(nodeClass).amis : undefined;
  const ami = isAmiDrifted(status<{ imageID?: string }>(claim).imageID, amis, claim.metadata.labels ?? {});
  return ami === undefined ? undefined : ami ? 'AMIDrift' : '';
}

export function reconcileDrift(ctx: SimContext): void {
  const now = ctx.clock.now();
  const classes = new Map(ctx.store.list(EC2NODECLASSES).map((c) => [c.metadata.name ?? '', c]));
  for (const claim of ctx.store.list(NODECLAIMS)) {
    const name = claim.metadata.name ?? '';
    const reason = driftReason(ctx, claim, classes);
    const current = conditionOf(claim, 'Drifted');
    if (reason && current?.reason !== reason) {
      // Karpenter notices within seconds (it watches NodePools and NodeClasses); the delay stands for that and is
      // configurable.
      const seen = ctx.memory.driftSeenAt.get(name) ?? now.getTime();
      ctx.memory.driftSeenAt.set(name, seen);
      // Bounded per pass (ctx.budget): a class change drifts the whole fleet at once, marked over a few passes.
      if (now.getTime() - seen >= ctx.timing.driftDetectionSeconds * 1000 && !ctx.budget.exhausted()) markDrifted(ctx, claim, reason);
    } else if (reason === '' && current && !ctx.budget.exhausted()) {
      ctx.memory.driftSeenAt.delete(name);
      writeStatus(ctx, NODECLAIMS, claim, { ...status<Record<string, unknown>>(claim), conditions: withoutCondition(status<{ conditions?: Condition[] }>(claim).conditions, 'Drifted') });
      ctx.log(`removing drifted status condition, not drifted: nodeclaim ${name}`);
    } else if (!reason || current?.reason === reason) {
      ctx.memory.driftSeenAt.delete(name);
    }
  }
}

/** SetTrueWithReason: a claim already Drifted keeps its transition time and takes the new reason. */
function markDrifted(ctx: SimContext, claim: KubeObject, reason: DriftReason): void {
  ctx.memory.driftSeenAt.delete(claim.metadata.name ?? '');
  setConditions(ctx, NODECLAIMS, claim, [{ type: 'Drifted', status: 'True', reason, message: reason }]);
  ctx.log(`marking drifted: nodeclaim ${claim.metadata.name} reason=${reason}`);
}
