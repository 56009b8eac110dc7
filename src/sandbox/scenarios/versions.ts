// Which Karpenter API a scenario's Karpenter version serves, and which Kubernetes versions it supports
// (DOMAIN.md §0 compatibility matrix, §2.9 pre-v1 differences).
import { minorNumber } from '../../ami/families.js';
import type { RegistrationHealthRule } from '../../karpenter/registration-health.js';
import type { HashVersions } from '../karpenter/hashes.js';

export type KarpenterApi = 'v1' | 'v1beta1';

export interface KarpenterVersion {
  major: number;
  minor: number;
  patch: number;
}

export function parseKarpenterVersion(text: string): KarpenterVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

/** v0.32–v0.37 serve NodePool/NodeClaim as v1beta1; v1.0 served both, and v1.1 dropped v1beta1. */
export function karpenterApi(v: KarpenterVersion): KarpenterApi | undefined {
  if (v.major >= 1) return 'v1';
  if (v.major === 0 && v.minor >= 32 && v.minor <= 37) return 'v1beta1';
  return undefined;
}

/**
 * What a release's NodePool has of disruption budgets, as each tag's CRDs and `pkg/apis` have it (aws/
 * karpenter-provider-aws `pkg/apis/crds/karpenter.sh_nodepools.yaml`, kubernetes-sigs/karpenter
 * `pkg/apis/v1beta1/nodepool.go`, read at every v0.32.x–v0.37.x tag):
 * - `none`: v0.32.0–v0.33.12. `spec.disruption` is `consolidationPolicy`, `consolidateAfter` and `expireAfter`, so a
 *   written `budgets` is pruned; the disruption controller starts no command while one is in flight
 *   (`controller.go`: "TODO this should be removed when disruption budgets are added in").
 * - `any-reason`: v0.34.0–v0.37.x. `budgets` defaults to `[{nodes: "10%"}]`, but v1beta1's `Budget` never had
 *   `reasons` (not in any v0.34–v0.37 schema, v0.37 included): `NodePool.GetAllowedDisruptions` takes no reason, and
 *   the disruption controller builds one allowance per NodePool (`helpers.go` `BuildDisruptionBudgets`) that drift,
 *   emptiness, expiration and consolidation all draw on.
 * - `by-reason`: v1.0 on, `reasons` per budget (`GetAllowedDisruptionsByReason`).
 */
export type BudgetSupport = 'none' | 'any-reason' | 'by-reason';

export function budgetSupport(v: KarpenterVersion): BudgetSupport {
  if (v.major >= 1) return 'by-reason';
  return v.minor >= 34 ? 'any-reason' : 'none';
}

/**
 * The static-drift hash versions a release writes (DOMAIN.md §1.2, §1.3): the NodePool's `v3` since v1.0; the
 * EC2NodeClass's `v3` at v1.0, `v4` from v1.1, `v5` from v1.12 (the cluster CA joined the hash); `v2` for both in the
 * v1beta1 releases.
 */
export function hashVersions(v: KarpenterVersion): HashVersions {
  if (v.major === 0) return { nodePool: 'v2', nodeClass: 'v2' };
  const nodeClass = v.major > 1 || v.minor >= 12 ? 'v5' : v.minor >= 1 ? 'v4' : 'v3';
  return { nodePool: 'v3', nodeClass };
}

/**
 * How a release keeps a NodePool's NodeRegistrationHealthy (src/karpenter/registration-health.ts): the 2-of-4 buffer
 * from v1.8.0, the first-failure rule in v1.4.0–v1.7.x, and no such condition before v1.4.0 (kubernetes-sigs/karpenter
 * `pkg/controllers/nodepool/registrationhealth/` appears at v1.4.0, `pkg/state/nodepoolhealth/` at v1.8.0).
 */
export function registrationHealthRule(v: KarpenterVersion): RegistrationHealthRule | undefined {
  if (v.major > 1 || (v.major === 1 && v.minor >= 8)) return 'buffer';
  if (v.major === 1 && v.minor >= 4) return 'unknown-only';
  return undefined;
}

/**
 * Which conditions a release's EC2NodeClass status has (aws/karpenter-provider-aws, read at the tags):
 * - `none`: v0.32–v0.36. `EC2NodeClassStatus` is subnets, security groups, `amis` and the instance profile, no
 *   `conditions`: `status.amis` is all that says the AMIs were resolved.
 * - `ready`: v0.37. `conditions` arrive with operatorpkg's `NewReadyConditions`, Ready alone
 *   (`pkg/controllers/nodeclass/status/readiness.go`: False "NodeClassNotReady" "Failed to resolve AMIs" while
 *   `status.amis` is empty).
 * - `all`: v1.0 on. `AMIsReady`, `SubnetsReady`, `SecurityGroupsReady`, `InstanceProfileReady`, … and Ready over them.
 */
export type NodeClassConditions = 'none' | 'ready' | 'all';

export function nodeClassConditions(v: KarpenterVersion): NodeClassConditions {
  if (v.major >= 1) return 'all';
  return v.minor >= 37 ? 'ready' : 'none';
}

/**
 * Whether a v1beta1 release also serves karpenter.sh/v1 and karpenter.k8s.aws/v1 (through its conversion webhook;
 * v1beta1 stays the storage version): the patches that prepared the upgrade to v1.0, v0.33.6+, v0.34.7+, v0.35.6+,
 * v0.36.3+ and v0.37.1+ (their CRDs list v1 first, `served: true, storage: false`, with `conversion.strategy:
 * Webhook`). Earlier patches, and v0.32.x, serve v1beta1 alone.
 */
export function servesV1(v: KarpenterVersion): boolean {
  if (v.major >= 1) return true;
  const firstPatch: Readonly<Record<number, number>> = { 33: 6, 34: 7, 35: 6, 36: 3, 37: 1 };
  const first = firstPatch[v.minor];
  return first !== undefined && v.patch >= first;
}

/** Parses a version the schema has already accepted. */
export function karpenterApiOf(text: string): KarpenterApi {
  return karpenterVersionOf(text).api;
}

/** A version the schema has already accepted, with the API it serves. */
export function karpenterVersionOf(text: string): KarpenterVersion & { api: KarpenterApi } {
  const v = parseKarpenterVersion(text);
  const api = v && karpenterApi(v);
  if (!api) throw new Error(`not a Karpenter version the sandbox serves: ${text}`);
  return { ...v, api };
}

// karpenter-provider-aws website/content/en/docs/upgrading/compatibility.md: the oldest Karpenter for each minor.
const MIN_KARPENTER: Readonly<Record<string, KarpenterVersion>> = {
  '1.28': { major: 0, minor: 31, patch: 0 },
  '1.29': { major: 0, minor: 34, patch: 0 },
  '1.30': { major: 0, minor: 37, patch: 0 },
  '1.31': { major: 1, minor: 0, patch: 5 },
  '1.32': { major: 1, minor: 2, patch: 0 },
  '1.33': { major: 1, minor: 5, patch: 0 },
  '1.34': { major: 1, minor: 6, patch: 0 },
  '1.35': { major: 1, minor: 9, patch: 0 },
  '1.36': { major: 1, minor: 13, patch: 0 },
};

function older(a: KarpenterVersion, b: KarpenterVersion): boolean {
  return a.major !== b.major ? a.major < b.major : a.minor !== b.minor ? a.minor < b.minor : a.patch < b.patch;
}

const show = (v: KarpenterVersion) => `${v.major}.${v.minor}.${v.patch}`;

/** Why this Karpenter cannot run against this control plane, or undefined when it can. */
export function compatibilityProblem(v: KarpenterVersion, controlPlaneVersion: string): string | undefined {
  const needed = MIN_KARPENTER[controlPlaneVersion];
  if (needed && older(v, needed)) {
    return `Karpenter ${show(v)} does not support Kubernetes ${controlPlaneVersion} (needs ${show(needed)} or later, per Karpenter's compatibility matrix)`;
  }
  return undefined;
}

/** The kubelet may be up to three minors older than the API server and never newer (version skew policy). */
export function skewProblem(nodeVersion: string, controlPlaneVersion: string): string | undefined {
  const skew = minorNumber(controlPlaneVersion) - minorNumber(nodeVersion);
  if (skew < 0) return `nodes on ${nodeVersion} would be newer than the control plane (${controlPlaneVersion})`;
  if (skew > 3)
    return `nodes on ${nodeVersion} are more than three minors behind the control plane (${controlPlaneVersion})`;
  return undefined;
}
