// `--hold-with node`: which old Nodes karp-drift holds with `karpenter.sh/do-not-disrupt: "true"`. Pure.
//
// Karpenter never picks a Node with that annotation as a drift candidate (DOMAIN.md §2.5 step 3, §2.7), and reads it
// every pass, so holding all old nodes but `allowance` of them lets at most that many start. Which ones are left
// free follows Karpenter's own order (empty nodes first, then the oldest `Drifted`), so the wave replaces the nodes
// Karpenter would have taken anyway; and the nodes already free stay free, so the set never flips between two passes
// (a flip could let Karpenter start one node of each set). A Node whose do-not-disrupt the user set is never touched:
// it is neither held nor released by karp-drift, and it does not count toward the wave.
import { inOrder } from '../text/order.js';

// The annotation naming the run that put do-not-disrupt on a Node (only such annotations are removed) is
// karpenter/views.ts `NODE_HOLD_ANNOTATION`, read into the Node view.

export interface OldNode {
  name: string;
  /** `karpenter.sh/do-not-disrupt` on the Node, whoever put it. */
  doNotDisrupt: boolean;
  /** karp-drift's hold annotation is there (any run). */
  heldByUs: boolean;
  /** The NodeClaim's `Drifted` lastTransitionTime (ISO 8601); absent while it is not Drifted yet. */
  driftedSince?: string;
  /** No pod that would need rescheduling: Karpenter disrupts empty nodes first. */
  empty: boolean;
}

export interface NodeHoldChanges {
  /** Put do-not-disrupt and the run's annotation on these. */
  hold: string[];
  /** Remove both from these. */
  release: string[];
}

/**
 * The changes that leave exactly `allowance` untouched old nodes free to be disrupted ('release': all of them). `only`:
 * exactly these are free, whatever the order (a `1/ami` wave's picks, stages/ami-picks.ts).
 */
export function nodeHoldChanges(
  nodes: readonly OldNode[],
  allowance: number | 'release',
  only?: readonly string[],
): NodeHoldChanges {
  const ours = nodes.filter((n) => !n.doNotDisrupt || n.heldByUs);
  if (allowance === 'release')
    return {
      hold: [],
      release: ours.filter((n) => n.heldByUs).map((n) => n.name),
    };
  const order = [...ours].sort(
    (a, b) =>
      Number(a.heldByUs) - Number(b.heldByUs) ||
      Number(b.empty) - Number(a.empty) ||
      inOrder(a.driftedSince ?? '\uffff', b.driftedSince ?? '\uffff') ||
      inOrder(a.name, b.name),
  );
  const free = new Set(
    only !== undefined
      ? ours.filter((n) => only.includes(n.name)).map((n) => n.name).slice(0, Math.max(0, allowance))
      : order.slice(0, Math.max(0, allowance)).map((n) => n.name),
  );
  return {
    hold: ours.filter((n) => !free.has(n.name) && !n.heldByUs).map((n) => n.name),
    release: ours.filter((n) => free.has(n.name) && n.heldByUs).map((n) => n.name),
  };
}
