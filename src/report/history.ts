// `karp-drift history`: the runs a cluster remembers, newest first (as `helm history` lists a release's revisions),
// and one run in full; text for a person, JSON with the same fields for a script. A record still `running` is said to
// be running, or not to have finished (its run was killed: apis/run-record.ts `runLiveness`). Pure.
import type { ReplacementColumns, RunLiveness, RunRecord, RunSummary } from '../apis/run-record.js';
import { shortRunId } from '../apis/run-record.js';
import { columns } from '../text/table.js';
import { humanDuration, plural, utcTime } from '../text/words.js';

export interface ListedRun {
  summary: RunSummary;
  liveness: RunLiveness;
}

/** The result as a person should read it: a record still `running` whose run is gone did not finish. */
export function resultText(s: RunSummary, liveness: RunLiveness): string {
  if (liveness === 'did-not-finish') return `did not finish (last written ${utcTime(new Date(s.updatedAt))})`;
  return s.exitCode != null ? `${s.result} (exit ${s.exitCode})` : s.result;
}

/** The AMIs a run took the nodes to: the targets' IDs, else the terms (`alias=…`), at most two then a count. */
function amisText(s: RunSummary): string {
  const after = [...new Set(s.amis.flatMap((a) => (a.targets?.length ? a.targets.map((t) => t.id) : a.after.map((t) => t.replace(/^id=/, '')))))];
  if (after.length === 0) return '-';
  return after.length > 2 ? `${after.slice(0, 2).join(',')} +${after.length - 2}` : after.join(',');
}

export function historyListText(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return '';
  const rows = runs.map(({ summary: s, liveness }) => [
    shortRunId(s.runId),
    utcTime(new Date(s.startedAt)),
    s.user.name,
    s.commandLine,
    resultText(s, liveness),
    String(s.nodesReplaced),
    amisText(s),
  ]);
  return columns(['RUN', 'STARTED', 'USER', 'COMMAND', 'RESULT', 'REPLACED', 'AMIS'], rows);
}

export function historyListJson(runs: readonly ListedRun[]): string {
  return `${JSON.stringify({ runs: runs.map((r) => ({ ...r.summary, liveness: r.liveness })) }, null, 2)}\n`;
}

/** One NodePool's replacements in a line: how many, when the first started and the last ended, which failed. */
function replacementsLine(name: string, c: ReplacementColumns | undefined, startedAt: number): string {
  if (!c || c.names.length === 0) return `  nodepool/${name}: no replacement`;
  const at = (s: number) => utcTime(new Date(startedAt + s * 1000));
  const ends = c.end.filter((e): e is number => e != null);
  const open = c.end.length - ends.length;
  const last = ends.length > 0 ? `, the last done ${at(Math.max(...ends))}` : '';
  const failed = c.failed.map((i) => c.names[i]!);
  return `  nodepool/${name}: ${plural(c.names.length, 'replacement')}, the first started ${at(Math.min(...c.start))}${last}${open > 0 ? `; ${open} not up` : ''}${failed.length > 0 ? `; failed: ${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ` and ${failed.length - 5} more` : ''}` : ''}`;
}

function eventLine(e: RunRecord['timeline']['events'][number]): string {
  const t = utcTime(new Date(e.time));
  switch (e.type) {
    case 'stage':
      return `${t} stage ${e.stage} (${e.name}) begins: ${plural(e.size, 'old node')} of ${e.nodePools.map((p) => `nodepool/${p}`).join(', ')}`;
    case 'wave':
      return `${t} stage ${e.stage} wave ${e.wave}/${e.waves} opens: up to ${e.target} of ${e.size} replaced${e.picks ? ` (${e.picks.join('; ')})` : ''}`;
    case 'soak':
      return `${t} stage ${e.stage} wave ${e.wave} done${e.until > e.time ? `; soaking until ${utcTime(new Date(e.until))}` : ''}`;
    case 'gate': {
      const where = e.stage !== undefined ? ` (stage ${e.stage}${e.wave !== undefined ? `, wave ${e.wave}` : ''})` : '';
      const lines = [`${t} ${e.gate} gate ${e.result} at ${e.point}${where}${e.failures !== undefined && e.result !== 'passed' ? `: failure ${e.failures} of ${e.failureLimit ?? '?'}` : ''}`];
      for (const f of e.findings ?? []) {
        lines.push(`    ${f.code} ${f.message}`);
        for (const v of f.evidence ?? []) lines.push(`      - ${v}`);
      }
      return lines.join('\n');
    }
    case 'window':
      return `${t} window ${e.event}${e.opensAt ? `; the next opens ${e.opensAt}` : ''}`;
    case 'blocked':
      return [`${t} ${e.stage === 'stall' ? 'stalled' : 'blocked'}: ${e.code}${e.where ? ` ${e.where}` : ''}: ${e.message}`, ...(e.evidence ?? []).map((v) => `      - ${v}`)].join('\n');
    case 'release':
      return `${t} nodepool/${e.nodePool}: karp-drift's hold released (${e.mechanism})`;
    case 'holds':
      return `${t} ${e.action}: ${e.nodePools.map((p) => `nodepool/${p.nodePool}${p.mechanism ? ` (${p.mechanism})` : ''}`).join(', ')}`;
    case 'done':
      return `${t} ${e.result}${e.cause ? ` (${e.cause})` : ''}${e.paused?.length ? `, held: ${e.paused.map((p) => `nodepool/${p}`).join(', ')}` : ''}${e.message ? `: ${e.message}` : ''}`;
  }
}

export function historyRunText(record: RunRecord, liveness: RunLiveness): string {
  const s = record.summary;
  const started = Date.parse(s.startedAt);
  const ended = s.endedAt ?? (liveness === 'running' ? undefined : s.updatedAt);
  const lines = [
    `Run:       ${s.runId}`,
    `Command:   karp-drift ${s.commandLine}`,
    `User:      ${s.user.name} (${s.user.source === 'SelfSubjectReview' ? 'as the API server authenticated it' : "the kubeconfig's user"}; ${s.host})`,
    `Cluster:   ${s.cluster.name} (${s.cluster.server}, context ${s.cluster.context})`,
    `Started:   ${utcTime(new Date(started))}${ended ? `, ended ${utcTime(new Date(ended))} (${humanDuration(Date.parse(ended) - started)})` : ''}`,
    `Result:    ${resultText(s, liveness)}${s.message ? `: ${s.message}` : ''}`,
    `Replaced:  ${plural(s.nodesReplaced, 'node')}${s.target ? ` to Kubernetes ${s.target}` : ''}`,
  ];
  if (s.amis.length > 0) {
    lines.push('AMIs:');
    for (const a of s.amis)
      lines.push(`  ec2nodeclass/${a.nodeClass}: ${a.before.join(' ') || '-'} -> ${a.after.join(' ') || '-'}${a.targets?.length ? ` (${a.targets.map((t) => t.name ?? t.id).join(', ')})` : ''}`);
  }
  const pools = [...new Set([...record.timeline.nodePools.map((p) => p.name), ...Object.keys(record.timeline.replacements)])];
  if (pools.length > 0) {
    lines.push('Replacements:');
    for (const p of pools) lines.push(replacementsLine(p, record.timeline.replacements[p], started));
  }
  if (record.timeline.events.length > 0) lines.push('Timeline:', ...record.timeline.events.map((e) => `  ${eventLine(e)}`));
  return `${lines.join('\n')}\n`;
}

export function historyRunJson(record: RunRecord, liveness: RunLiveness): string {
  return `${JSON.stringify({ ...record.summary, liveness, timeline: record.timeline }, null, 2)}\n`;
}
