// Every node is on target, yet karp-drift's holds are still on the NodePools: a staged run killed after its last
// replacement, a `pause` after the rollout was done, a windowed rollout whose holds were never released. Nothing is
// wrong with the nodes, but the NodePools are not as their owner left them: a budget holds drift at 0 (the next AMI,
// or any change Karpenter drifts on, will not roll out), the windows' budgets keep it shut outside them, and
// do-not-disrupt keeps Karpenter off the held nodes for every reason. `wait` and a follow that paces nothing end
// there (exit 6) and name what is left and the one command that puts it all back. Pure.
import type { NodePoolView, NodeView } from '../karpenter/views.js';
import { decodeHoldRecord, heldAllowance, HOLD_ANNOTATION, holdWithoutReasons, switchState } from '../apis/budget-hold.js';
import { plural, utcTime } from '../text/words.js';
import { inOrder } from '../text/order.js';

/** What karp-drift left on one NodePool. */
export interface HoldLeft {
  nodePool: string;
  /** The runs that left it (the record's, and the node holds'). */
  runIds: string[];
  /** A budget hold: what its budget still allows (undefined: the record is there, its budget is not). */
  budget?: { allowance?: number; everyReason: boolean; switchedAt?: string };
  /** The upgrade windows' budgets recorded with the hold: the flags that asked for them. */
  windows?: string[];
  /** Nodes that carry karp-drift's do-not-disrupt. */
  nodes?: number;
  /** A record karp-drift cannot read (resume refuses it: it is cleared by hand). */
  unreadable?: string;
}

/** What karp-drift holds on `pools` now, NodePools by name; [] when nothing. */
export function holdsLeft(pools: readonly NodePoolView[], nodes: readonly NodeView[], now: Date): HoldLeft[] {
  return [...pools]
    .sort((a, b) => inOrder(a.name, b.name))
    .flatMap((pool): HoldLeft[] => {
      const held = nodes.filter((n) => n.nodePool === pool.name && n.heldBy !== undefined);
      const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
      if (record === undefined && held.length === 0) return [];
      const runIds = [...new Set([...(record !== undefined && !('error' in record) ? [record.runId] : []), ...held.map((n) => n.heldBy!)])].sort();
      const left: HoldLeft = { nodePool: pool.name, runIds, ...(held.length > 0 ? { nodes: held.length } : {}) };
      if (record === undefined) return [left];
      if ('error' in record) return [{ ...left, unreadable: record.error }];
      const allowance = heldAllowance(pool.budgets, record);
      const sw = switchState(pool.budgets, now, record);
      const switchedAt = sw?.active === true && allowance !== 0 ? (sw.at ?? now).toISOString() : undefined;
      return [
        {
          ...left,
          budget: {
            ...(allowance !== undefined ? { allowance } : {}),
            everyReason: holdWithoutReasons(pool.budgets, record),
            ...(switchedAt !== undefined ? { switchedAt } : {}),
          },
          ...(record.windows !== undefined && record.windows.length > 0 ? { windows: record.windowFlags ?? [] } : {}),
        },
      ];
    });
}

/** "nodepool/general: a budget holding Drifted disruption at 0 and the upgrade windows' budgets (…)", and its runs. */
function leftText(h: HoldLeft, runs: boolean): string {
  const what: string[] = [];
  if (h.unreadable !== undefined) what.push(`an unreadable hold record (${h.unreadable})`);
  const b = h.budget;
  if (b !== undefined) {
    const reasons = b.everyReason ? 'every disruption reason' : 'Drifted disruption';
    if (b.allowance === undefined) what.push(`its hold record (${HOLD_ANNOTATION}; the budget itself is gone)`);
    else if (b.switchedAt !== undefined)
      what.push(`a budget whose dead man's switch has held ${reasons} at 0 since ${utcTime(new Date(b.switchedAt)).slice(11, 16)} UTC`);
    else if (b.allowance === 0) what.push(`a budget holding ${reasons} at 0`);
    else what.push(`a budget limiting ${reasons} to ${plural(b.allowance, 'more replacement')}`);
  }
  if (h.windows !== undefined) what.push(`the upgrade windows' budgets${h.windows.length > 0 ? ` (${h.windows.join(' ')})` : ''}, which keep drift shut outside them`);
  if (h.nodes !== undefined) what.push(`karpenter.sh/do-not-disrupt on ${plural(h.nodes, 'node')}`);
  return `nodepool/${h.nodePool}: ${what.join(' and ')}${runs && h.runIds.length > 0 ? ` (run ${h.runIds.join(', ')})` : ''}`;
}

/**
 * The message and the one command that clears it all: `resume` releases every hold named, each NodePool's own
 * budgets put back exactly and the windows' budgets gone with them. `flags`: what the command line needs besides
 * (`--lock-namespace`, `--context`).
 */
export function holdsLeftMessage(left: readonly HoldLeft[], flags = ''): { message: string; hint: string } {
  const resume = `karp-drift resume${left.map((h) => ` --nodepool ${h.nodePool}`).join('')}${flags}`;
  // One run left them all (the usual case): named once, not on every NodePool.
  const runs = [...new Set(left.map((h) => h.runIds.join(', ')))];
  const one = runs.length === 1 && runs[0] !== '' ? ` by run ${runs[0]}` : '';
  return {
    message: `every node runs the target AMIs, but karp-drift's holds are left${one}: ${left.map((h) => leftText(h, one === '')).join('; ')}; until they are released, Karpenter does not disrupt those NodePools as their own budgets allow (the next AMI, or any change it drifts on, waits)`,
    hint: `release them, each NodePool's own budgets put back exactly: ${resume}`,
  };
}
