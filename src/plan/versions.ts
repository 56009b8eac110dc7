// Version gates (DOMAIN.md §4): a kubelet must never be newer than the API server and may be at most 3 minors
// older; an alias follows the control plane, so it cannot pin an older minor; aliases need Karpenter v1.
import type { Inventory } from '../karpenter/views.js';
import type { PinMode } from './plan-options.js';
import { check, type Check } from './checks.js';
import { plural } from '../text/words.js';

/** 30 from "1.30", "1.30+", "v1.30.4-eks-a737599". */
export function minorOf(version: string): number {
  return Number(/^v?\d+\.(\d+)/.exec(version)?.[1] ?? NaN);
}

const EVIDENCE_SHOWN = 10;

/** The checks that judge the cluster's control plane and nodes: a plan made from files alone cannot make them. */
export const CLUSTER_CHECKS = ['TARGET-NEWER-THAN-CONTROL-PLANE', 'TARGET-TOO-OLD', 'ALIAS-FOLLOWS-CONTROL-PLANE', 'DOWNGRADE', 'VERSION-SKEW'] as const;

/** A node-by-node check on a large cluster: the first ten lines, then how many more, counted for the JSON too. */
export function withEvidence(c: Check, lines: string[], noun: string): Check {
  if (lines.length <= EVIDENCE_SHOWN) return { ...c, evidence: lines };
  const omitted = lines.length - EVIDENCE_SHOWN;
  return { ...c, evidence: [...lines.slice(0, EVIDENCE_SHOWN), `… and ${plural(omitted, `more ${noun}`)}`], evidenceOmitted: omitted };
}

export function versionChecks(
  inventory: Inventory,
  to: string,
  pin: PinMode,
  replaced: ReadonlySet<string>,
  allowDowngrade = false,
): Check[] {
  const checks: Check[] = [];
  const cp = inventory.controlPlane;
  const target = minorOf(to);
  const control = minorOf(cp.minor);
  const evidence = [`control plane: ${cp.gitVersion || cp.minor}`];
  if (target > control) {
    const steps = Array.from({ length: target - control + 1 }, (_, i) => `1.${control + i}`).join(' → ');
    checks.push(
      check(
        'TARGET-NEWER-THAN-CONTROL-PLANE',
        'error',
        `--to ${to} is newer than the control plane (1.${control}): a kubelet must never be newer than the API server`,
        evidence,
        `upgrade the control plane first, one minor at a time (${steps}), then run karp-drift again`,
      ),
    );
  } else if (control - target > 3) {
    checks.push(
      check(
        'TARGET-TOO-OLD',
        'error',
        `--to ${to} is ${control - target} minors older than the control plane (1.${control}): a kubelet may be at most 3 minors older than the API server`,
        evidence,
        `choose --to 1.${control - 3} or newer; AWS recommends nodes at the control-plane version (--to 1.${control})`,
      ),
    );
  }
  if (pin === 'alias' && target < control) {
    checks.push(
      check(
        'ALIAS-FOLLOWS-CONTROL-PLANE',
        'error',
        `--pin alias cannot pin Kubernetes ${to} AMIs on a 1.${control} control plane: Karpenter resolves an alias for the control-plane version, so the alias would select 1.${control} AMIs`,
        evidence,
        `use --pin id to pin ${to} AMIs, or --to 1.${control}`,
      ),
    );
  }
  if (pin === 'alias' && inventory.karpenterApi === 'v1beta1') {
    checks.push(
      check(
        'ALIAS-NEEDS-KARPENTER-V1',
        'error',
        'alias terms arrived with Karpenter v1 (karpenter.k8s.aws/v1), and this cluster serves v1beta1',
        [`served API: karpenter.sh/${inventory.karpenterApi}`],
        'use --pin id, or upgrade Karpenter to v1 first',
      ),
    );
  }
  // Nodes this plan would take to an older minor than they run: almost always a typo in --to, never a rollout.
  const newer = inventory.nodes.filter((n) => replaced.has(n.name) && n.kubeletVersion !== undefined && minorOf(n.kubeletVersion) > target);
  if (newer.length > 0) {
    checks.push(
      withEvidence(
        check(
          'DOWNGRADE',
          allowDowngrade ? 'warning' : 'error',
          `--to ${to} would downgrade ${plural(newer.length, 'node')} that run a newer kubelet`,
          [],
          allowDowngrade ? 'proceeding because of --allow-downgrade' : `check --to; to go back on purpose pass --allow-downgrade (or use karp-drift rollback after an upgrade)`,
        ),
        newer.map((n) => `node/${n.name}: kubelet ${n.kubeletVersion}`),
        'node',
      ),
    );
  }
  const behind = inventory.nodes.filter(
    (n) => n.kubeletVersion !== undefined && control - minorOf(n.kubeletVersion) > 3,
  );
  if (behind.length > 0) {
    checks.push(
      withEvidence(
        check(
          'VERSION-SKEW',
          'warning',
          `${plural(behind.length, 'node')} run a kubelet more than 3 minors older than the control plane (1.${control}), outside the supported version skew`,
          [],
          'replace these nodes before the next control-plane upgrade: an EKS control-plane upgrade needs every node within 2 minors',
        ),
        behind.map(
          (n) =>
            `node/${n.name}: kubelet ${n.kubeletVersion} (${control - minorOf(n.kubeletVersion!)} minors behind)${replaced.has(n.name) ? ', replaced by this plan' : ', not replaced by this plan'}`,
        ),
        'node',
      ),
    );
  }
  return checks;
}
