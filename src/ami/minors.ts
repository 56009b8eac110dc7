// Pure: what a Kubernetes minor that EKS never had most likely meant. YAML reads an unquoted `to: 1.30` as the float
// 1.3 (1.20 as 1.2, 1.10 as 1.1), and a workflow passes that number on as the string "1.3". EKS began with Kubernetes
// 1.10, so a one-digit minor never has an EKS-optimized AMI: it is such a float, and the minor it was ends in 0.
// Shared by the CLI's --to check and the GitHub Action's check of its `to` input.

/** The first Kubernetes minor EKS supported (June 2018): no EKS-optimized AMI exists for an older one. */
export const FIRST_EKS_MINOR = 10;

/** The minor `1.3` (or `v1.3`, `1.3.0`) was before YAML read it as a number: `1.30`; undefined for any other input. */
export function likelyMinor(value: string): string | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(value.trim());
  if (!m || m[1]!.length !== 1 || m[1] === '0') return undefined;
  return `1.${m[1]}0`;
}

/** Why `value` names no minor EKS ever had, with the minor it most likely meant; undefined when it may be a real one. */
export function preEksMinor(value: string): { minor: string; meant?: string } | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(value.trim());
  if (!m || Number(m[1]) >= FIRST_EKS_MINOR) return undefined;
  const meant = likelyMinor(value);
  return { minor: `1.${Number(m[1])}`, ...(meant ? { meant } : {}) };
}

/** Why `1.30` came in as `1.3`, and the fix, as a sentence both the CLI and the action print. */
export function yamlFloatNote(meant: string): string {
  return `YAML reads an unquoted ${meant} as the number ${Number(meant)}: quote the version (to: '${meant}')`;
}
