// `--result-file`: the run's outcome as one JSON document, written when the command ends whatever the output mode, so
// that a CI step (the GitHub Action in action/, a GitLab job, a script) reads the verdict without parsing the human
// output or giving it up for `-o json`. Built from the same record as `--summary-file` (report/summary.ts). Pure.
import { runResult, type SummaryRecord } from './summary.js';

type Doc = Record<string, unknown>;

const withoutType = ({ type: _type, ...doc }: Doc): Doc => doc;

/** The document; docs/reference/json-output.md lists its fields. */
export function resultDocument(r: SummaryRecord, exitCode: number): Doc {
  const pools = (r.done?.nodePools as Doc[] | undefined) ?? [];
  const replaced = pools.reduce((n, p) => n + (typeof p.replaced === 'number' ? p.replaced : 0), 0);
  const cluster = r.done?.cluster ?? r.plan?.cluster ?? r.wait?.cluster ?? r.status?.cluster;
  return {
    apiVersion: 'karp-drift.io/v1',
    kind: 'Result',
    command: r.command,
    exitCode,
    result: runResult(r, exitCode),
    // null when the command follows no rollout (plan, status): "none replaced" would claim a rollout that never was.
    nodesReplaced: r.done !== undefined ? replaced : null,
    ...(cluster !== undefined ? { cluster } : {}),
    ...(r.plan !== undefined ? { plan: r.plan } : {}),
    // The document `status -o json` prints: the record's `type` (which event or document it was) is not part of it.
    ...(r.status !== undefined ? { status: withoutType(r.status) } : {}),
    ...(r.done !== undefined ? { done: r.done } : {}),
    blocked: [...r.blocked.values()],
    ...(r.gate !== undefined ? { gate: r.gate } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
  };
}
