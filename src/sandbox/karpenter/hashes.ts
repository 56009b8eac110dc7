// Static drift's hashes (DOMAIN.md §2.2): what Karpenter hashes of a NodePool (`NodePool.Hash()`,
// kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go: `spec.template`, its requirements `hash:"ignore"`) and of an
// EC2NodeClass (`EC2NodeClass.Hash()`, karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go: the spec less its
// `hash:"ignore"` fields, plus the resolved AMI family), with hashstructure's options (SlicesAsSets,
// IgnoreZeroValue, ZeroNil): list order, and a zero value where nothing was, change no hash. The number is not
// hashstructure's (FNV-64a over a canonical JSON here), but it changes exactly when Karpenter's does, and Karpenter
// only ever compares two of its own. Pure.
import { AMI_FAMILIES, FAMILIES } from '../../ami/families.js';
import type { KubeObject } from '../kube-api/types.js';

export const NODEPOOL_HASH = 'karpenter.sh/nodepool-hash';
export const NODEPOOL_HASH_VERSION = 'karpenter.sh/nodepool-hash-version';
export const NODECLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';
export const NODECLASS_HASH_VERSION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';

/** The hash versions a release writes (DOMAIN.md §1.2, §1.3, §5): a version bump re-stamps rather than drifts. */
export interface HashVersions {
  nodePool: string;
  nodeClass: string;
}

/** EC2NodeClass spec fields tagged `hash:"ignore"`: the selector terms (dynamic drift) and ipPrefixCount. */
const NODECLASS_UNHASHED = new Set([
  'amiSelectorTerms',
  'amiFamily', // hashed as the resolved family instead
  'subnetSelectorTerms',
  'securityGroupSelectorTerms',
  'capacityReservationSelectorTerms',
  'ipPrefixCount',
]);

type Template = { metadata?: unknown; spec?: Record<string, unknown> };

export function nodePoolHash(nodePool: KubeObject): string {
  const template = ((nodePool.spec as { template?: Template } | undefined)?.template ?? {});
  const { requirements: _ignored, ...spec } = template.spec ?? {};
  return hash({ metadata: template.metadata, spec });
}

export function nodeClassHash(nodeClass: KubeObject): string {
  const spec = (nodeClass.spec ?? {}) as Record<string, unknown>;
  const hashed = Object.fromEntries(Object.entries(spec).filter(([field]) => !NODECLASS_UNHASHED.has(field)));
  return hash({ ...hashed, amiFamily: resolvedAmiFamily(spec) });
}

/**
 * The metadata a NodeClaim is created with (scheduling/nodeclaimtemplate.go, the provider's Create): the NodePool
 * template's labels and annotations, and the hashes of its NodePool and class as they are now.
 */
export function nodeClaimTemplateMetadata(
  nodePool: KubeObject,
  nodeClass: KubeObject | undefined,
  versions: HashVersions,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const metadata = ((nodePool.spec as { template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } } } | undefined)?.template?.metadata) ?? {};
  return {
    labels: { ...metadata.labels },
    annotations: {
      ...metadata.annotations,
      [NODEPOOL_HASH]: nodePoolHash(nodePool),
      [NODEPOOL_HASH_VERSION]: versions.nodePool,
      ...(nodeClass ? { [NODECLASS_HASH]: nodeClassHash(nodeClass) } : {}),
      [NODECLASS_HASH_VERSION]: versions.nodeClass,
    },
  };
}

/** `AMIFamily()`: the explicit field, else the alias's family, else Custom. */
function resolvedAmiFamily(spec: Record<string, unknown>): string {
  if (typeof spec.amiFamily === 'string') return spec.amiFamily;
  const terms = Array.isArray(spec.amiSelectorTerms) ? (spec.amiSelectorTerms as Array<{ alias?: unknown }>) : [];
  const alias = terms.map((t) => (typeof t?.alias === 'string' ? t.alias : undefined)).find((a) => a !== undefined);
  const family = AMI_FAMILIES.find((f) => f === alias?.split('@')[0]);
  return family ? FAMILIES[family].amiFamily : 'Custom';
}

function hash(value: unknown): string {
  return fnv1a64(JSON.stringify(canonical(value) ?? null));
}

/** Zero values dropped (IgnoreZeroValue, ZeroNil), keys sorted, lists as sets (SlicesAsSets). */
function canonical(value: unknown): unknown {
  if (value == null || value === false || value === 0 || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonical).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items.map((v) => JSON.stringify(v)).sort();
  }
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, printed as Karpenter prints its uint64 hash: decimal. */
function fnv1a64(text: string): string {
  let h = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK;
  return h.toString();
}
