// `--summary-file`: a short Markdown account of a run for a CI job page (GitHub's $GITHUB_STEP_SUMMARY, a GitLab or
// Buildkite annotation, a PR comment), rendered from the same documents `-o json` prints: the plan, the rollout's
// `done`, the blockers and the gate that stopped it, the error and its next step. Whatever the output mode, the command
// records them (SummaryRecord); the CLI writes the Markdown once the command has ended. Compact by design: GitHub
// shows at most 1 MiB per step, and a job page is read by a person in a hurry. Pure.
import type { PlanSource } from '../plan/promotion.js';
import type { RecordedPolicy } from '../ami/release-policy.js';
import { amiSourceText, otherClassesText, releasePolicyLines, releasePolicySourceText } from './plan.js';
import { keptReleaseLines } from './kept.js';
import { datedWindowTime } from './windows.js';
import type { RunEvent } from '../apis/run-record.js';
import { addRunEvent, runEventOf } from './run-events.js';
import { ganttSection } from './mermaid-gantt.js';

type Doc = Record<string, unknown>;

/** What a run records for its summary: the latest of each, and the blockers by code and where. */
export interface SummaryRecord {
  command: string;
  plan?: Doc;
  /** `wait`: what it followed. */
  wait?: Doc;
  done?: Doc;
  blocked: Map<string, Doc>;
  /** The gate evaluation that halted the rollout, or the last one that failed. */
  gate?: Doc;
  status?: Doc;
  /** The last NDJSON `window` event (--window): where the windows stood when the run started or ended. */
  window?: Doc;
  /** `upgrade --templates`: the release policy its `resolved` event records (it has no plan document to carry it). */
  releasePolicy?: Doc;
  /** `exitCode`: the code the error stands for (docs/reference/exit-codes.md), which --window-exit-code may not exit with. */
  error?: { exitCode: number; message: string; hint?: string };
  /**
   * The run's milestones, bounded (report/run-events.ts): stages, waves, soaks, gate verdicts, windows, the halt and
   * the end, for the step summary's Mermaid chart and the run's record in the cluster.
   */
  timeline: RunEvent[];
  /** Told of each milestone as it is recorded: the run's record in the cluster (commands/run-history.ts). */
  listener?: (e: RunEvent) => void;
}

export function newSummaryRecord(command: string): SummaryRecord {
  return { command, blocked: new Map(), timeline: [] };
}

/** Records one event or document as `-o json` would print it (its `type` says which). */
export function recordSummary(r: SummaryRecord, event: object): void {
  const e = event as Doc;
  const milestone = runEventOf(e);
  if (milestone !== undefined) {
    addRunEvent(r.timeline, milestone);
    r.listener?.(milestone);
  }
  switch (e.type) {
    case 'plan':
      r.plan = (e.plan as Doc | undefined) ?? e;
      break;
    case 'wait':
      r.wait = e;
      break;
    case 'done':
      r.done = e;
      break;
    case 'blocked':
      r.blocked.set(`${str(e.code)} ${str(e.nodePool ?? e.nodeClass ?? '')}`, e);
      break;
    case 'gate':
      if (e.result !== 'passed') r.gate = e;
      break;
    case 'status':
      r.status = e;
      break;
    case 'window':
      r.window = e;
      break;
    case 'resolved':
      if (e.releasePolicy != null) r.releasePolicy = e.releasePolicy as Doc;
      break;
  }
}

/** Each list is cut to this many rows, with a line saying how many more. */
const MAX_ROWS = 30;
const MAX_EVIDENCE = 5;
/** Far under GitHub's 1 MiB per step: a summary longer than this is cut. */
export const MAX_SUMMARY_BYTES = 64 * 1024;

const ICON: Record<string, string> = {
  succeeded: '✅',
  stalled: '⛔',
  timeout: '⏳',
  halted: '🛑',
  paused: '⏸️',
  interrupted: '⏹️',
  failed: '❌',
  invalid: '❌',
  refused: '🚫',
};

/** A value of a document as text: JSON for anything that is not a scalar (a document is read, never trusted). */
const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
    ? `${v}`
    : v == null
      ? ''
      : JSON.stringify(v);
const cell = (v: unknown): string =>
  str(v ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
const code = (v: unknown): string => `\`${str(v ?? '').replace(/`/g, "'")}\``;

function table(head: string[], rows: string[][]): string[] {
  const shown = rows.slice(0, MAX_ROWS);
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...shown.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ...(rows.length > shown.length ? [``, `… and ${rows.length - shown.length} more`] : []),
  ];
}

const terms = (side: unknown): string => {
  const s = side as { amiSelectorTerms?: Array<Record<string, string>>; amiFamily?: string } | undefined;
  return (s?.amiSelectorTerms ?? [])
    .map((t) =>
      Object.entries(t)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    )
    .join(' ');
};

/** Where the AMIs came from, as the terminal's plan says it: the release, or the file or cluster they were promoted from. */
function sourceText(plan: Doc): string {
  const releases = ((plan.nodeClasses as Doc[] | undefined) ?? []).flatMap((c) =>
    ((c.targets as Doc[] | undefined) ?? []).map((t) => str(t.release)),
  );
  const source = plan.source as PlanSource | null | undefined;
  return amiSourceText(source ?? undefined, str(plan.release), releases);
}

/** The source cluster's classes not promoted, as the terminal says it (a plan from before it recorded them: none). */
function othersLine(plan: Doc): string[] {
  const source = plan.source as PlanSource | null | undefined;
  if (source?.kind !== 'cluster' || !Array.isArray(source.otherClasses)) return [];
  const text = otherClassesText(source, str(plan.kubernetesVersion));
  return text !== undefined ? ['', text] : [];
}

function planSection(plan: Doc): string[] {
  const classes = (plan.nodeClasses as Doc[] | undefined) ?? [];
  const pools = (plan.nodePools as Doc[] | undefined) ?? [];
  const checks = ((plan.checks as Doc[] | undefined) ?? []).filter((c) => c.level !== 'info');
  const out = ['#### Plan', ''];
  if (plan.kubernetesVersion !== undefined)
    out.push(
      `Kubernetes ${str(plan.kubernetesVersion)} (control plane ${str(plan.controlPlaneVersion)})${plan.release ? `, ${sourceText(plan)}` : ''}${plan.pin ? `, pinned by ${str(plan.pin)}` : ''}`,
      ...othersLine(plan),
      '',
    );
  // --release latest~N / --min-age: the release each family got, and against what, so the job page says why.
  const source = (plan.source as PlanSource | null | undefined) ?? undefined;
  // A staged re-run that kept the release its rollout started with, and what the policy would take now.
  const policy = [...releasePolicyLines(source), ...keptReleaseLines(source, str(plan.kubernetesVersion))];
  if (policy.length > 0) out.push(...policy.map((l) => `- ${l}`), '');
  out.push(
    ...table(
      ['EC2NodeClass', 'before', 'after', 'changes'],
      classes.map((c) => [code(c.name), terms(c.before), terms(c.after), c.changed ? 'yes' : 'no']),
    ),
  );
  const deletes = (plan.deletes as Doc[] | undefined) ?? [];
  if (deletes.length > 0)
    out.push('', `Deletes what karp-drift upgrade --templates created: ${deletes.map((d) => code(`${str(d.kind).toLowerCase()}/${str(d.name)}`)).join(', ')}`);
  if (pools.length > 0)
    out.push(
      '',
      ...table(
        ['NodePool', 'nodes', 'to drift', 'on target'],
        pools.map((p) => [code(p.name), str(p.nodes ?? ''), str(p.toDrift ?? ''), str(p.onTarget ?? '')]),
      ),
    );
  if (checks.length > 0) {
    out.push('', '**Checks**', '');
    for (const c of checks.slice(0, MAX_ROWS))
      out.push(
        `- ${c.level === 'error' ? '❌' : '⚠️'} **${str(c.code)}** ${cell(c.message)}${c.next ? ` — next: ${cell(c.next)}` : ''}`,
      );
  }
  return out;
}

/**
 * --window: the flags as the plan recorded them, its ETA in windows, and how the windows ended the run: started
 * outside one (nothing applied) or closed mid-rollout, and when the next one opens. Times with their dates: the page
 * is read later than it was written.
 */
function windowsSection(r: SummaryRecord, exitCode: number): string[] {
  const planned = (r.plan?.staged as Doc | undefined)?.windows as Doc | undefined;
  if (planned === undefined && r.window === undefined) return [];
  const out = ['#### Upgrade windows', ''];
  for (const w of (planned?.windows as unknown[] | undefined) ?? []) out.push(`- ${code(`--window '${str(w)}'`)}`);
  for (const e of (planned?.exclusions as Doc[] | undefined) ?? []) out.push(`- ${code('--exclude')} ${str(e.from)} – ${str(e.to)}`);
  const eta = planned?.eta as Doc | undefined;
  if (eta != null) out.push(`- ETA at the plan's estimate: ${etaText(eta)}`);
  const w = r.window;
  const pausedByWindow = r.done?.cause === 'window' || exitCode === 7;
  if (pausedByWindow) {
    const how = w?.event === 'waiting' ? 'started outside the windows, nothing applied' : 'the window closed mid-rollout, left held';
    out.push(`- ⏸️ **paused by the window** (${how}); ${opensText(w?.opensAt)}`);
  } else if (w?.event === 'opened') {
    out.push(`- started inside a window${typeof w.closesAt === 'string' ? ` open until ${datedWindowTime(new Date(w.closesAt))}` : ''}`);
  }
  return out;
}

const etaText = (eta: Doc): string =>
  typeof eta.doneBy === 'string'
    ? `${eta.windows === 1 ? '1 window' : `${str(eta.windows)} windows`}, done by ${datedWindowTime(new Date(eta.doneBy))}`
    : eta.reason === 'windows-end'
      ? 'none, the windows close for good before the rollout could finish'
      : 'unknown, as the estimate';

const opensText = (opensAt: unknown): string =>
  typeof opensAt === 'string' ? `next window opens ${datedWindowTime(new Date(opensAt))}` : 'no window opens within two years';

/** `upgrade --templates` under --release latest~N/--min-age: what was asked and what each family got. */
function releasePolicySection(r: SummaryRecord): string[] {
  const policy = r.releasePolicy as RecordedPolicy | undefined;
  const source = r.plan?.source as PlanSource | null | undefined;
  if (policy === undefined || (source?.kind === 'ssm' && source.policy !== undefined)) return [];
  const lines = releasePolicyLines({ kind: 'ssm', region: '', policy });
  return ['#### AMIs', '', releasePolicySourceText(policy), '', ...lines.map((l) => `- ${l}`)];
}

function rolloutSection(done: Doc, error: SummaryRecord['error']): string[] {
  const pools = (done.nodePools as Doc[] | undefined) ?? [];
  // The error line below says it when the rollout's own message is the error's.
  const message = done.message !== undefined && done.message !== error?.message ? `: ${cell(done.message)}` : '';
  const head = `${ICON[str(done.result)] ?? ''} **${str(done.result)}**${done.durationSeconds !== undefined ? ` after ${str(done.durationSeconds)} s` : ''}${message}`;
  if (pools.length === 0) return ['#### Rollout', '', head];
  return [
    '#### Rollout',
    '',
    head,
    '',
    ...table(
      ['NodePool', 'nodes', 'replaced', 'on target', 'remaining', ''],
      pools.map((p) => [
        code(p.name),
        str(p.total ?? ''),
        str(p.replaced ?? ''),
        str(p.onTarget ?? ''),
        str(p.remaining ?? ''),
        p.done ? '✅' : '',
      ]),
    ),
  ];
}

function findingLines(title: string, items: Doc[]): string[] {
  const out = [`#### ${title}`, ''];
  for (const b of items.slice(0, MAX_ROWS)) {
    const evidence = ((b.evidence as string[] | undefined) ?? []).slice(0, MAX_EVIDENCE);
    out.push(`- **${str(b.code)}** ${cell(b.message)}`);
    for (const e of evidence) out.push(`  - ${cell(e)}`);
    if (b.next) out.push(`  - next: ${cell(b.next)}`);
  }
  if (items.length > MAX_ROWS) out.push(`- … and ${items.length - MAX_ROWS} more`);
  return out;
}

function statusSection(status: Doc): string[] {
  const pools = (status.nodePools as Doc[] | undefined) ?? [];
  return [
    '#### NodePools',
    '',
    ...table(
      ['NodePool', 'EC2NodeClass', 'nodes', 'up to date', 'drifted', 'disrupting'],
      pools.map((p) => [
        code(p.name),
        code(p.nodeClass),
        str(p.nodes ?? ''),
        str(p.upToDate ?? ''),
        str(p.drifted ?? ''),
        str(p.disrupting ?? ''),
      ]),
    ),
  ];
}

/** What an exit code means when no rollout reported its own result (docs/reference/exit-codes.md). */
const RESULT_OF_EXIT: Record<number, string> = {
  0: 'succeeded',
  2: 'invalid',
  3: 'refused',
  4: 'stalled',
  5: 'timeout',
  6: 'halted',
  // Paused by the upgrade window (--window): success so far, the same command goes on in the next window.
  7: 'paused',
  130: 'interrupted',
};

/** What an exit code means in one word: `succeeded`, `refused`, `stalled`, ... (`failed` for 1, 70 and the rest). */
export function resultOfExit(exitCode: number): string {
  return RESULT_OF_EXIT[exitCode] ?? 'failed';
}

/**
 * The run's verdict in one word: the rollout's own `done.result`, else what the error's code means (a run paused by
 * its window is `paused` even when `--window-exit-code 0` made it exit 0), else what the exit code means.
 */
export function runResult(r: SummaryRecord, exitCode: number): string {
  return (r.done?.result as string | undefined) ?? resultOfExit(r.error?.exitCode ?? exitCode);
}

/** The Markdown for a run; `exitCode` is what the CLI exits with. */
export function summaryMarkdown(r: SummaryRecord, exitCode: number): string {
  const result = runResult(r, exitCode);
  const cluster = (r.done?.cluster ?? r.plan?.cluster ?? r.wait?.cluster ?? r.status?.cluster) as Doc | undefined;
  const out = [
    `### karp-drift ${r.command}: ${ICON[result] ?? ''} ${result} (exit ${exitCode})`.replace(/ {2}/g, ' '),
    '',
  ];
  if (cluster) out.push(`Cluster ${code(cluster.name ?? cluster.context)} (${code(cluster.server)})`, '');
  if (r.plan) out.push(...planSection(r.plan), '');
  const policy = releasePolicySection(r);
  if (policy.length > 0) out.push(...policy, '');
  const windows = windowsSection(r, exitCode);
  if (windows.length > 0) out.push(...windows, '');
  if (r.status) out.push(...statusSection(r.status), '');
  if (r.done) out.push(...rolloutSection(r.done, r.error), '');
  const gantt = ganttSection(r.command, r.timeline, r.done);
  if (gantt.length > 0) out.push(...gantt, '');
  if (r.gate) {
    const g = r.gate;
    const command = g.command as { output?: string[] } | undefined;
    out.push(
      ...findingLines(
        `Health gate ${str(g.result)} (${str(g.gate)} at ${str(g.point)}${g.stage !== undefined ? `, stage ${str(g.stage)}` : ''})`,
        (g.findings as Doc[] | undefined) ?? [],
      ),
    );
    if (command?.output && command.output.length > 0)
      out.push(
        '',
        '<details><summary>gate command output</summary>',
        '',
        '```',
        ...command.output,
        '```',
        '</details>',
      );
    out.push('');
  }
  // status has no blocked events: its NodePools carry their blockers.
  const blockers = [
    ...r.blocked.values(),
    ...((r.status?.nodePools as Doc[] | undefined) ?? []).flatMap((p) => (p.blockers as Doc[] | undefined) ?? []),
  ];
  if (blockers.length > 0) out.push(...findingLines('Blockers', blockers), '');
  if (r.error) {
    // Paused by the window (exit 7) is success so far: said as the terminal says it, without `error:`.
    out.push(r.error.exitCode === 7 ? `> ${cell(r.error.message)}` : `> **error:** ${cell(r.error.message)}`);
    if (r.error.hint) out.push(`>`, `> **next:** ${cell(r.error.hint)}`);
    out.push('');
  }
  let text = `${out.join('\n')}\n`;
  if (Buffer.byteLength(text) > MAX_SUMMARY_BYTES) {
    text = `${Buffer.from(text)
      .subarray(0, MAX_SUMMARY_BYTES - 100)
      .toString('utf8')
      .replace(/\uFFFD+$/, '')}\n\n… (cut at ${MAX_SUMMARY_BYTES / 1024} KiB)\n`;
  }
  return text;
}
