// What pause and resume print: one line per NodePool on stdout (or one JSON document), saying what holds it now.
import type { Budget } from '../karpenter/budgets.js';
import { plural } from '../text/words.js';
import type { HoldMechanism } from '../stages/hold-mechanism.js';

export interface PoolHoldOutcome {
  nodePool: string;
  mechanism: HoldMechanism;
  why?: string;
  /** Budget holds: the list now on the NodePool (pause) or put back (resume); null = the field is absent. */
  budgets?: Budget[] | null;
  /** Node holds: how many Nodes were held (pause) or released (resume). */
  nodes?: number;
  /** Already so: nothing was written. */
  unchanged?: boolean;
  warning?: string;
}

export interface HoldReport {
  action: 'paused' | 'resumed';
  nodePools: PoolHoldOutcome[];
  lock: string;
}

const budgetText = (b: Budget) =>
  `{nodes: "${b.nodes}"${b.reasons ? `, reasons: [${b.reasons.join(', ')}]` : ''}${b.schedule ? `, schedule: "${b.schedule}", duration: ${b.duration ?? ''}` : ''}}`;

/** One NodePool's line, also the message of its `StagedRolloutPaused`/`Resumed` Event. */
export function holdOutcomeText(action: HoldReport['action'], p: PoolHoldOutcome): string {
  if (action === 'paused') {
    const how =
      p.mechanism === 'budget'
        ? `budget {nodes: "0", reasons: [Drifted]} ${p.unchanged ? 'already there' : 'added'}`
        : `karpenter.sh/do-not-disrupt on ${plural(p.nodes ?? 0, 'node')}`;
    return `nodepool/${p.nodePool} paused: ${how}${p.why ? ` (${p.why})` : ''}`;
  }
  if (p.mechanism === 'budget') {
    const list =
      p.budgets == null
        ? 'the CRD default'
        : p.budgets.length === 0
          ? '[]'
          : `[${p.budgets.map(budgetText).join(', ')}]`;
    return `nodepool/${p.nodePool} resumed: its budgets are back: ${list}`;
  }
  return `nodepool/${p.nodePool} resumed: karp-drift's do-not-disrupt removed from ${plural(p.nodes ?? 0, 'node')}`;
}

export function holdReportText(r: HoldReport): string {
  const lines = r.nodePools.map((p) => holdOutcomeText(r.action, p));
  const warnings = r.nodePools.filter((p) => p.warning).map((p) => `warning: ${p.warning}`);
  const after =
    r.action === 'paused'
      ? 'Drift replacements already started finish; no new one starts until: karp-drift resume'
      : "Karpenter replaces drifted nodes again, at the pace of each NodePool's own budgets.";
  return [...lines, ...warnings, after].join('\n') + '\n';
}

export function holdReportJson(r: HoldReport, cluster?: Record<string, unknown>): string {
  return `${JSON.stringify({ ...r, ...(cluster ? { cluster } : {}) }, null, 2)}\n`;
}
