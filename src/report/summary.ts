// `--summary-file`: a short Markdown account of a run for a CI job page (GitHub's $GITHUB_STEP_SUMMARY, a GitLab or
// Buildkite annotation, a PR comment), rendered from the same documents `-o json` prints: the plan, the rollout's
// `done`, the blockers and the gate that stopped it, the error and its next step. Whatever the output mode, the command
// records them (SummaryRecord); the CLI writes the Markdown once the command has ended. Compact by design: GitHub
// shows at most 1 MiB per step, and a job page is read by a person in a hurry. Pure.
import type { PlanSource } from '../plan/promotion.js';
import { amiSourceText, otherClassesText, releasePolicyLines } from './plan.js';

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
  /** `exitCode`: the code the error stands for (README "Exit codes"), which --window-exit-code may not exit with. */
  error?: { exitCode: number; message: string; hint?: string };
}

export function newSummaryRecord(command: string): SummaryRecord {
  return { command, blocked: new Map() };
}

/** Records one event or document as `-o json` would print it (its `type` says which). */
export function recordSummary(r: SummaryRecord, event: object): void {
  const e = event as Doc;
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
  const policy = releasePolicyLines((plan.source as PlanSource | null | undefined) ?? undefined);
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

/** What an exit code means when no rollout reported its own result (README "Exit codes"). */
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
  if (r.status) out.push(...statusSection(r.status), '');
  if (r.done) out.push(...rolloutSection(r.done, r.error), '');
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
    out.push(`> **error:** ${cell(r.error.message)}`);
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
