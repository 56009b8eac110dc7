// Which Karpenter API a scenario's Karpenter version serves, and which Kubernetes versions it supports
// (DOMAIN.md §0 compatibility matrix, §2.9 pre-v1 differences).
import { minorNumber } from '../../ami/families.js';

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

/** Parses a version the schema has already accepted. */
export function karpenterApiOf(text: string): KarpenterApi {
  const v = parseKarpenterVersion(text);
  const api = v && karpenterApi(v);
  if (!api) throw new Error(`not a Karpenter version the sandbox serves: ${text}`);
  return api;
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
