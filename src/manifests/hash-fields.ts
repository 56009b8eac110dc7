// Which EC2NodeClass and NodePool fields Karpenter hashes for static drift, and what a change to each makes it do.
// Its own file because it changes when Karpenter does, not when the diff does.
//
// Which changes re-roll nodes (Karpenter v1.x):
// - EC2NodeClass: Hash() hashes the whole spec except fields tagged `hash:"ignore"` — subnetSelectorTerms,
//   securityGroupSelectorTerms, capacityReservationSelectorTerms, ipPrefixCount, amiSelectorTerms and amiFamily —
//   plus the *resolved* family (`AMIFamily()`: amiFamily, else the alias's family). A change to any other spec field
//   makes every NodeClaim of the class drift: `NodeClassDrift` (karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go,
//   `EC2NodeClassSpec` tags and `Hash()`; DOMAIN.md §1.2, §2.2).
// - The selector terms are not hashed, but Karpenter compares an instance's subnet, security groups and capacity
//   reservation with what the terms resolve to: `SubnetDrift`, `SecurityGroupDrift`, `CapacityReservationDrift`
//   (pkg/cloudprovider/drift.go) when the new terms select other ones — which only EC2 can tell.
// - NodePool: Hash() hashes `spec.template` minus `requirements` (`hash:"ignore"`): `NodePoolDrifted`. A requirements
//   change drifts the NodeClaims whose labels no longer satisfy them: `RequirementsDrifted`. Disruption (budgets
//   included), limits and weight are outside the template (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go,
//   `NodeClaimTemplateSpec` tags and `NodePool.Hash()`; DOMAIN.md §1.3).
// - Both hashes use hashstructure with SlicesAsSets and IgnoreZeroValue/ZeroNil: list order and a zero value set
//   where nothing was (false, 0, "", {}) change no hash.
import { AMI_FAMILIES, FAMILIES } from '../ami/families.js';

export type ManifestKind = 'EC2NodeClass' | 'NodePool';

/** What a change makes Karpenter do. */
export type ChangeClass = 'ami-selection' | 'hashed' | 'requirements' | 'selectors' | 'behavioural';

/** Karpenter's drift reasons a template change can cause (DOMAIN.md §2.1). */
export type DriftReason = 'NodeClassDrift' | 'NodePoolDrifted' | 'RequirementsDrifted' | 'SubnetDrift' | 'SecurityGroupDrift' | 'CapacityReservationDrift';

export const isMap = (v: unknown): v is Record<string, unknown> => v != null && typeof v === 'object' && !Array.isArray(v);

const isZero = (v: unknown): boolean =>
  v == null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** `AMIFamily()`: the explicit field, else the alias's family, else Custom (ec2nodeclass.go). */
export function resolvedAmiFamily(spec: Record<string, unknown>): string {
  if (typeof spec.amiFamily === 'string') return spec.amiFamily;
  const terms = Array.isArray(spec.amiSelectorTerms) ? spec.amiSelectorTerms : [];
  const alias = terms.map((t) => (isMap(t) && typeof t.alias === 'string' ? t.alias : undefined)).find((a) => a !== undefined);
  const family = AMI_FAMILIES.find((f) => f === alias?.split('@')[0]);
  return family ? FAMILIES[family].amiFamily : 'Custom';
}

const NODECLASS_SELECTORS: Record<string, DriftReason> = {
  subnetSelectorTerms: 'SubnetDrift',
  securityGroupSelectorTerms: 'SecurityGroupDrift',
  capacityReservationSelectorTerms: 'CapacityReservationDrift',
};
/** Other `hash:"ignore"` EC2NodeClass spec fields that change no node. */
const NODECLASS_UNHASHED = ['ipPrefixCount'];

/** What a change at `segments` makes Karpenter do. Unknown spec fields count as hashed: the safe guess. */
export function classify(
  kind: ManifestKind,
  segments: readonly string[],
  context: { familyChanges?: boolean; before?: unknown; after?: unknown } = {},
): { class: ChangeClass; reason?: DriftReason } {
  const [root, field] = segments;
  if (root !== 'spec') return { class: 'behavioural' }; // labels and annotations of the object itself
  let result: { class: ChangeClass; reason?: DriftReason };
  if (kind === 'EC2NodeClass') {
    if (field === 'amiSelectorTerms') return { class: 'ami-selection' };
    if (field === 'amiFamily') return context.familyChanges ? { class: 'hashed', reason: 'NodeClassDrift' } : { class: 'ami-selection' };
    const selector = field !== undefined ? NODECLASS_SELECTORS[field] : undefined;
    if (selector) return { class: 'selectors', reason: selector };
    if (field !== undefined && NODECLASS_UNHASHED.includes(field)) return { class: 'behavioural' };
    result = { class: 'hashed', reason: 'NodeClassDrift' };
  } else {
    if (field !== 'template') return { class: 'behavioural' }; // disruption (budgets), limits, weight, replicas
    if (segments[2] === 'spec' && segments[3] === 'requirements') return { class: 'requirements', reason: 'RequirementsDrifted' };
    result = { class: 'hashed', reason: 'NodePoolDrifted' };
  }
  // IgnoreZeroValue/ZeroNil: a zero value where there was none leaves the hash as it was.
  return isZero(context.before) && isZero(context.after) ? { class: 'behavioural' } : result;
}
