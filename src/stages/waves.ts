// Wave arithmetic of a staged rollout (`upgrade --waves 1,10%,100%`). Pure.
//
// A wave list is cumulative, over one stage's old nodes counted when the stage begins: `1,10%,100%` means one node,
// then up to 10 % of the stage, then the rest. Percentages round up, as GKE's and AKS's surge/batch percentages and
// Karpenter's own budget percentages do (intstr.GetScaledValueFromIntOrPercent(…, roundUp=true)), so a wave is never
// empty because the stage is small. A list that stops short of the whole stage gets a last wave for the rest: a
// rollout that would leave nodes on the old AMI forever is never what `upgrade` means.
//
// `1/ami` (first only) is one node per target AMI the stage's old nodes move onto (its family, arch and variant): the
// wave that tests each AMI on one replacement before anything else starts, which is what `upgrade` does by default
// (docs/staged-rollouts.md). Which nodes it takes is the pacer's choice (stages/ami-picks.ts); here it counts as one
// node per such AMI.

export type WaveStep =
  | { kind: 'count'; value: number; text: string }
  | { kind: 'percent'; value: number; text: string }
  | { kind: 'ami'; value: 1; text: '1/ami' };

/** The wave step that tests each target AMI on one node first. */
export const AMI_WAVE: WaveStep = { kind: 'ami', value: 1, text: '1/ami' };

/** Whether the stage's first wave is the one-per-AMI wave: the steps start with it and some AMI has nodes to test. */
export const opensWithAmiWave = (steps: readonly WaveStep[], amiCount: number, total: number): boolean =>
  steps[0]?.kind === 'ami' && amiCount > 0 && total > 0;

export type WaveParse = { steps: WaveStep[] } | { error: string };

const COUNT = /^[1-9][0-9]*$/;
const PERCENT = /^([1-9][0-9]?|100)%$/;

/**
 * `--waves` as given: comma-separated counts (`1`, `25`) and percentages (`10%`, `100%`), strictly increasing, the
 * first of them possibly `1/ami`.
 */
export function parseWaves(text: string): WaveParse {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) {
    return {
      error: `"${text}" is not a list of wave sizes: use counts and percentages separated by commas, e.g. 1,10%,100%`,
    };
  }
  const steps: WaveStep[] = [];
  for (const part of parts) {
    if (part.toLowerCase() === AMI_WAVE.text) {
      if (steps.length > 0) return { error: `"${part}" tests each target AMI first, so it can only be the first wave` };
      steps.push(AMI_WAVE);
    } else if (COUNT.test(part)) steps.push({ kind: 'count', value: Number(part), text: part });
    else if (PERCENT.test(part))
      steps.push({
        kind: 'percent',
        value: Number(part.slice(0, -1)),
        text: part,
      });
    else if (/^0+%?$/.test(part))
      return {
        error: `wave "${part}" replaces no node: every wave must be at least 1 or 1%`,
      };
    else if (/^[0-9]+%$/.test(part)) return { error: `wave "${part}" is over 100%` };
    else
      return {
        error: `wave "${part}" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)`,
      };
  }
  // Counts and percentages can only be compared against a stage's size, so each kind must increase on its own,
  // and a count may not follow 100%.
  for (let i = 1; i < steps.length; i++) {
    const a = steps[i - 1]!;
    const b = steps[i]!;
    if (a.kind === b.kind && a.kind !== 'ami' && b.value <= a.value) {
      return {
        error: `waves are cumulative and must increase: "${b.text}" follows "${a.text}"`,
      };
    }
    if (a.kind === 'percent' && a.value === 100) {
      return {
        error: `"${b.text}" follows "100%", which is already the whole stage`,
      };
    }
  }
  return { steps };
}

/**
 * The cumulative number of a stage's old nodes that must be replaced by the end of each wave, for a stage of `total`
 * old nodes, `amiCount` of its target AMIs having old nodes with pods (a `1/ami` wave is one node for each). Steps
 * that add no node at this size collapse (with 3 nodes, `1,10%,100%` is 1, 3: 10 % of 3 rounds up to 1; `1/ami`
 * with no AMI to test), and the last wave always reaches `total`.
 */
export function waveTargets(steps: readonly WaveStep[], total: number, amiCount = 0): number[] {
  if (total <= 0) return [];
  const targets: number[] = [];
  for (const step of steps) {
    const wanted =
      step.kind === 'ami' ? amiCount : step.kind === 'count' ? step.value : Math.ceil((step.value * total) / 100);
    const target = Math.min(total, Math.max(wanted, targets.at(-1) ?? 0));
    if (target > (targets.at(-1) ?? 0)) targets.push(target);
  }
  if ((targets.at(-1) ?? 0) < total) targets.push(total);
  return targets;
}

/** Sizes of the waves (how many nodes each adds), for the plan's table. */
export function waveSizes(targets: readonly number[]): number[] {
  return targets.map((t, i) => t - (i === 0 ? 0 : targets[i - 1]!));
}

/**
 * Which wave a stage is in, counted from the cluster (not from local state), so a re-run resumes where the cluster
 * stands: `replaced` old nodes of the stage are gone or replaced. The current wave is the first whose target is not
 * reached yet; `undefined` when every wave is complete.
 */
export function currentWave(targets: readonly number[], replaced: number): number | undefined {
  const index = targets.findIndex((t) => replaced < t);
  return index === -1 ? undefined : index;
}

/**
 * A wave's cumulative target shared among a stage's NodePools: first one each, largest NodePool first, so that every
 * AMI of the stage is exercised from the earliest wave that can (not only in the 100 % wave); then the rest in
 * proportion to their old nodes, seat by seat by Sainte-Laguë quotients. Seat by seat, so a later (larger) target never
 * gives a NodePool less than an earlier one did (a wave must never have to take back a start); the shares add up to
 * the target exactly, and none exceeds its NodePool's old nodes.
 */
export function waveShares(target: number, oldNodes: readonly number[]): number[] {
  const shares = oldNodes.map(() => 0);
  let left = Math.max(0, Math.min(target, oldNodes.reduce((a, b) => a + b, 0)));
  const bySize = oldNodes.map((n, i) => ({ n, i })).filter((p) => p.n > 0).sort((a, b) => b.n - a.n || a.i - b.i);
  for (const { i } of bySize) {
    if (left === 0) break;
    shares[i] = 1;
    left -= 1;
  }
  while (left > 0) {
    let best = -1;
    let quotient = -1;
    oldNodes.forEach((n, i) => {
      if (shares[i]! >= n) return;
      const q = n / (2 * shares[i]! + 1);
      if (q > quotient) {
        best = i;
        quotient = q;
      }
    });
    shares[best]! += 1;
    left -= 1;
  }
  return shares;
}
