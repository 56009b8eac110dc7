// `karp-drift plan` output: a diff that reads like `terraform plan` / `kubectl diff`, and one JSON document for
// scripts. plan/plan.ts computes the change; this file only draws it (STYLE.md "Diffs are computed and rendered apart").
import type { GitOpsSourceRead } from '../apis/gitops-sources.js';
import { releaseChoiceText, type RecordedPolicy } from '../ami/release-policy.js';
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { AmiSelectorTerm } from '../karpenter/views.js';
import { utcMinute } from '../plan/blockers.js';
import type { Check, CheckLevel } from '../plan/checks.js';
import type { AmiSpec, NodeClassPlan, Plan } from '../plan/plan.js';
import type { NodePoolPlan } from '../plan/pools.js';
import type { PlanSource } from '../plan/promotion.js';
import { keptReleaseLines } from './kept.js';
import { plural } from '../text/words.js';
import { inOrder } from '../text/order.js';

export const ANSI = { red: 31, green: 32, yellow: 33, cyan: 36, bold: 1 } as const;
export type Paint = (style: keyof typeof ANSI, text: string) => string;


export function planSummary(plan: Plan): { nodeClassesToChange: number; nodesToReplace: number } {
  return {
    nodeClassesToChange: plan.nodeClasses.filter((c) => c.changed).length,
    nodesToReplace: plan.nodePools.reduce((n, p) => n + p.toDrift, 0),
  };
}

// Flow YAML, as a person would write the term in a manifest: {alias: al2023@v20241109}, {tags: {team: ml}}.
function scalar(value: string): string {
  return /^[A-Za-z0-9][\w@./-]*$/.test(value) ? value : JSON.stringify(value);
}
function termText(term: AmiSelectorTerm): string {
  const fields = Object.entries(term)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) =>
      typeof v === 'string'
        ? `${k}: ${scalar(v)}`
        : `${k}: {${Object.entries(v as Record<string, string>)
            .map(([tk, tv]) => `${scalar(tk)}: ${scalar(tv)}`)
            .join(', ')}}`,
    );
  return `{${fields.join(', ')}}`;
}
export const termsText = (terms: readonly AmiSelectorTerm[]) => `[${terms.map(termText).join(', ')}]`;

function specDiff(before: AmiSpec, after: AmiSpec, paint: Paint): string[] {
  const lines: string[] = [];
  if (before.amiFamily !== after.amiFamily) {
    if (before.amiFamily !== undefined) lines.push(paint('red', `  - amiFamily: ${before.amiFamily}`));
    if (after.amiFamily !== undefined) lines.push(paint('green', `  + amiFamily: ${after.amiFamily}`));
  }
  lines.push(paint('red', `  - amiSelectorTerms: ${termsText(before.amiSelectorTerms)}`));
  lines.push(paint('green', `  + amiSelectorTerms: ${termsText(after.amiSelectorTerms)}`));
  return lines;
}

function nodeClassLines(c: NodeClassPlan, pools: readonly NodePoolPlan[], paint: Paint): string[] {
  const lines = c.changed
    ? [paint('yellow', `~ ec2nodeclass/${c.name}`) + ` (${c.family})`, ...specDiff(c.before, c.after, paint)]
    : [`  ec2nodeclass/${c.name} (${c.family}): no changes, already selects ${termsText(c.after.amiSelectorTerms)}`];
  for (const t of c.targets) lines.push(`      ${t.arch} ${t.variant}: ${t.id} ${t.name}`);
  for (const p of pools.filter((x) => x.nodeClass === c.name)) lines.push(`  ${poolLine(p)}`);
  return lines;
}

// "Drifted budget allows 2 now (20%) → ~3 waves"; waves are rounds at the current limit, so only an estimate.
function poolLine(p: NodePoolPlan): string {
  const counts = [plural(p.nodes, 'node'), `${p.toDrift} will drift`, `${p.onTarget} on target`];
  if (p.launching > 0) counts.push(`${p.launching} launching`);
  const head = `nodepool/${p.name}: ${counts.join(', ')}`;
  if (p.toDrift === 0) return head;
  if (p.budgetless)
    return `${head}; no disruption budgets on this Karpenter (v0.32–v0.33): one drift replacement at a time in the whole cluster${p.allowedDisruptions === 0 ? ', one under way now' : ''} → ${waves(p.waves)}`;
  if (p.limit === Infinity) return `${head}; Drifted budget: no limit now → ${waves(p.waves)}`;
  const b = p.blockingBudget;
  const source =
    b === undefined ? '' : b.error !== undefined ? 'invalid budget' : b.default ? `default ${b.nodes}` : b.nodes;
  const until = b?.windowEnd !== undefined ? ` until ${utcMinute(b.windowEnd)}` : '';
  const busy = p.allowedDisruptions < p.limit ? `, limit ${p.limit}, ${p.disrupting.length} disrupting` : '';
  return `${head}; Drifted budget allows ${p.allowedDisruptions} now (${source}${until}${busy}) → ${waves(p.waves)}`;
}

const waves = (n: number) => (n === Infinity ? 'blocked' : n === 1 ? '1 wave' : `~${n} waves`);

const HEADINGS: Record<CheckLevel, [string, keyof typeof ANSI]> = {
  error: ['Errors', 'red'],
  warning: ['Warnings', 'yellow'],
  info: ['Info', 'cyan'],
};

export function checkLines(checks: readonly Check[], paint: Paint): string[] {
  const lines: string[] = [];
  for (const level of ['error', 'warning', 'info'] as const) {
    const here = checks.filter((c) => c.level === level);
    if (here.length === 0) continue;
    const [heading, color] = HEADINGS[level];
    lines.push('', paint(color, `${heading} (${here.length}):`));
    for (const c of here) {
      lines.push(`  ${paint('bold', c.code)}: ${c.message}`);
      for (const e of c.evidence) lines.push(`      · ${e}`);
      if (c.next !== undefined) lines.push(`      next: ${c.next}`);
    }
  }
  return lines;
}

function finalLine(plan: Plan): string {
  const { nodeClassesToChange, nodesToReplace } = planSummary(plan);
  const nodes = plural(nodesToReplace, 'node');
  let line =
    nodeClassesToChange > 0
      ? `Plan: ${plural(nodeClassesToChange, 'EC2NodeClass', 'EC2NodeClasses')} to change, ${nodes} to replace.`
      : plan.nodeClasses.length === 0
        ? 'No changes: no EC2NodeClass to plan.'
        : nodesToReplace > 0
          ? `No changes: the EC2NodeClasses already select the target AMIs; ${nodes} still to replace.`
          : 'No changes: the EC2NodeClasses already select the target AMIs, and every node runs them.';
  const errors = plan.checks.filter((c) => c.level === 'error').length;
  if (plan.blocked) line += ` Blocked by ${plural(errors, 'error')}: nothing will be applied.`;
  return line;
}

// "latest release" (SSM), or where promoted AMIs came from and how they were found here: the terminal's plan and the
// summary file's (summary.ts, from the plan document) say it in the same words.
export function amiSourceText(source: PlanSource | undefined, release: string, releases: readonly string[]): string {
  const s = source;
  if (s?.kind === 'ssm' && s.policy !== undefined) return releasePolicySourceText(s.policy);
  if (s === undefined || s.kind === 'ssm') return release === 'latest' ? 'latest release' : `release ${release}`;
  const theirs = s.kind === 'file' ? s.fileRegion : s.sourceRegion;
  const whose = s.kind === 'file' ? "the file's IDs are" : `context ${s.context}'s IDs are`;
  const found =
    s.lookup === 'id'
      ? `verified by ID in ${s.region}`
      : `found by image name in ${s.region}${theirs != null ? ` (${whose} ${theirs}'s)` : ''}`;
  const from = s.kind === 'file' ? s.path : `context ${s.context} at ${s.server}`;
  const list = [...new Set(releases)].join(', ');
  const chosen = s.kind === 'file' && s.policy !== undefined ? `, chosen there by --release ${s.policy}` : '';
  return `AMIs promoted from ${from}${list ? ` (release ${list}${chosen})` : ''}, ${found}`;
}

/** `release latest~1 --min-age 7d`: what was asked; `releasePolicyLines` says what it chose. */
export function releasePolicySourceText(p: RecordedPolicy): string {
  return `release ${p.minAge == null ? p.release : `${p.release} --min-age ${p.minAge}`}`;
}

/** One line per family: `al2023 v20261009 (published 2026-10-09T08:00:00Z; newest v20261023)`, by family. */
export function releasePolicyLines(source: PlanSource | undefined): string[] {
  if (source?.kind !== 'ssm' || source.policy === undefined) return [];
  return [...source.policy.families].sort((a, b) => inOrder(a.family, b.family)).map(releaseChoiceText);
}

/**
 * The source cluster's classes this promotion took nothing from (or not all they run), e.g. staging's Bottlerocket
 * class still on the old minor while only AL2023 is pinned here: said, so that "staging is on 1.30" is not assumed.
 */
export function otherClassesText(source: PlanSource | undefined, to: string): string | undefined {
  if (source?.kind !== 'cluster' || source.otherClasses.length === 0) return undefined;
  const classes = source.otherClasses.map((c) => {
    const what =
      c.family == null
        ? ['no EKS-optimized family']
        : c.amis.length === 0
          ? [`${c.family}, no node on an AMI it pins`]
          : [...new Set(c.amis.map((a) => a.kubernetesVersion))].sort().map((minor) => {
              const keys = c.amis.filter((a) => a.kubernetesVersion === minor).map((a) => `${a.arch} ${a.variant}`);
              return `${c.family} ${[...new Set(keys)].sort().join(' and ')} on Kubernetes ${minor}`;
            });
    return `ec2nodeclass/${c.name} (${what.join('; ')}${c.settled ? '' : ', mid-rollout'})`;
  });
  return `Not promoted from context ${source.context}, so not required to be on ${to} there: ${classes.join(', ')}`;
}

function sourceText(plan: Plan): string {
  return amiSourceText(plan.source, plan.release, plan.nodeClasses.flatMap((c) => c.targets.map((t) => t.release)));
}

/** `staged`: the stages section of a staged rollout (report/stages.ts), printed before the checks. */
export function planText(plan: Plan, options: { color: boolean; staged?: readonly string[] }): string {
  const paint: Paint = options.color ? (style, text) => `\x1b[${ANSI[style]}m${text}\x1b[0m` : (_style, text) => text;
  const lines = [
    `Kubernetes ${plan.kubernetesVersion} (control plane ${plan.controlPlaneVersion}), ${sourceText(plan)}, pinned by ${plan.pin}`,
    ...releasePolicyLines(plan.source).map((l) => `  ${l}`),
    ...keptReleaseLines(plan.source, plan.kubernetesVersion).map((l) => `  ${l}`),
  ];
  const others = otherClassesText(plan.source, plan.kubernetesVersion);
  if (others !== undefined) lines.push(others);
  for (const c of plan.nodeClasses) lines.push('', ...nodeClassLines(c, plan.nodePools, paint));
  if (options.staged !== undefined) lines.push('', ...options.staged);
  lines.push(...checkLines(plan.checks, paint), '', finalLine(plan));
  return `${lines.join('\n')}\n`;
}

/**
 * Where a GitOps-owned class comes from: the owner (`tool`, `kind`, `namespace`, `name`, `trackedBy`), its `sources`
 * (`repoURL`, `path`, `ref`, ...), the `revision` it last synced and its `status`, and the `pin` commands; or `unread`.
 */
export function gitopsSourceJson(read: GitOpsSourceRead, pin: readonly string[]): Record<string, unknown> {
  const { tool, kind, name, namespace, trackedBy } = 'source' in read ? read.source.owner : read.ref;
  const owner = { tool, kind, namespace: namespace ?? null, name, trackedBy };
  if ('unread' in read) return { ...owner, unread: read.unread };
  const { sources, revision, status, note } = read.source;
  return { ...owner, sources, revision: revision ?? null, status: status ?? null, ...(note !== undefined ? { note } : {}), pin };
}

// JSON has no Infinity: "unlimited" and "cannot start" are null.
const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

/** The documented keys first and in order; extra detail after them. */
export function planJson(plan: Plan, cluster: ClusterIdentity, staged?: Record<string, unknown>): string {
  const doc = {
    cluster,
    kubernetesVersion: plan.kubernetesVersion,
    controlPlaneVersion: plan.controlPlaneVersion,
    nodeClasses: plan.nodeClasses.map((c) => ({
      name: c.name,
      family: c.family,
      before: c.before,
      after: c.after,
      changed: c.changed,
      owners: c.owners,
      targets: c.targets,
      current: c.current,
      needs: c.needs.pairs,
      ...(c.source !== undefined ? { gitops: gitopsSourceJson(c.source, c.pin ?? []) } : {}),
    })),
    nodePools: plan.nodePools.map((p) => ({
      name: p.name,
      nodeClass: p.nodeClass,
      nodes: p.nodes,
      toDrift: p.toDrift,
      onTarget: p.onTarget,
      allowedDisruptions: finite(p.allowedDisruptions),
      waves: finite(p.waves),
      limit: finite(p.limit),
      launching: p.launching,
      blockingBudget: p.blockingBudget,
      ...(p.budgetless ? { budgetless: true } : {}),
      disrupting: p.disrupting,
      drifting: p.drifting,
    })),
    checks: plan.checks.map((c) => ({
      code: c.code,
      level: c.level,
      message: c.message,
      evidence: c.evidence,
      ...(c.evidenceOmitted !== undefined ? { evidenceOmitted: c.evidenceOmitted } : {}),
      next: c.next ?? null,
    })),
    blocked: plan.blocked,
    pin: plan.pin,
    release: plan.release,
    fieldManager: plan.fieldManager,
    forceConflicts: plan.forceConflicts,
    source: plan.source ?? null,
    summary: planSummary(plan),
    ...(staged !== undefined ? { staged } : {}),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
