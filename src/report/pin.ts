// `karp-drift pin` output: what each class is pinned to and in which file, the checks, and the files' unified diff
// (which `git apply` reads); one JSON document for scripts; the Terraform variables document. The pull request's
// Markdown is pin-markdown.ts. gitops/pin.ts decides; this only draws it.
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { ClassPin, PinResult, PoolWindows } from '../gitops/pin.js';
import { lineDiff, NO_NEWLINE } from '../gitops/line-diff.js';
import type { FileChange } from '../gitops/writes.js';
import type { Budget } from '../karpenter/budgets.js';
import type { PinMode } from '../plan/plan-options.js';
import type { PlanSource } from '../plan/promotion.js';
import { CLUSTER_CHECKS } from '../plan/versions.js';
import { plural } from '../text/words.js';
import { ANSI, amiSourceText, checkLines, releasePolicyLines, termsText, type Paint } from './plan.js';

export interface PinReport {
  result: PinResult;
  /** Absent: `--window` alone, no terms pinned. */
  to?: string;
  pin: PinMode;
  release: string;
  source?: PlanSource;
  /** The cluster the checks that need one ran against; absent: none was read (`why` says so). */
  cluster?: ClusterIdentity & { gitVersion: string };
  noCluster?: string;
  /** --check: nothing written, exit 1 when something would change. */
  check: boolean;
  /** --window/--exclude as given. */
  windowFlags?: string[];
}

/** The files' changes as one unified diff, `a/` and `b/` prefixed as git writes them (`a/tmp/x` for `/tmp/x`). */
export function unifiedDiff(files: readonly FileChange[]): string {
  return files
    .map((f) => {
      const path = f.path.replace(/^\/+/, '');
      const out = [`--- a/${path}`, `+++ b/${path}`];
      const range = (start: number, n: number) => (n === 1 ? `${start}` : `${start},${n}`);
      for (const h of lineDiff(f.before, f.after)) {
        out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
        for (const l of h.lines) {
          if (l.text.endsWith(NO_NEWLINE)) out.push(`${l.op}${l.text.slice(0, -1)}`, '\\ No newline at end of file');
          else out.push(`${l.op}${l.text}`);
        }
      }
      return `${out.join('\n')}\n`;
    })
    .join('');
}

function classLines(c: ClassPin, paint: Paint): string[] {
  const head = `ec2nodeclass/${c.name} (${c.family}) in ${c.unit}`;
  if (!c.changed) return [`  ${head}: no changes, already selects ${termsText(c.after.amiSelectorTerms)}`];
  const lines = [paint('yellow', `~ ${head}`) + (c.files.length > 0 ? ` → ${c.files.join(', ')}` : '')];
  if (c.before.amiFamily !== c.after.amiFamily && c.after.amiFamily !== undefined) lines.push(paint('green', `  + amiFamily: ${c.after.amiFamily}`));
  lines.push(paint('red', `  - amiSelectorTerms: ${termsText(c.before.amiSelectorTerms)}`), paint('green', `  + amiSelectorTerms: ${termsText(c.after.amiSelectorTerms)}`));
  for (const t of c.targets) lines.push(`      ${t.arch} ${t.variant}: ${t.id} ${t.name}`);
  return lines;
}

const budgetText = (b: Budget) => `{${Object.entries(b).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v)}`).join(', ')}}`;

function poolLines(p: PoolWindows, paint: Paint): string[] {
  const head = `nodepool/${p.name} in ${p.unit}`;
  if (!p.changed) return [`  ${head}: no changes, its budgets already hold the windows`];
  return [paint('yellow', `~ ${head}`) + ` → ${p.files.join(', ')}`, ...p.after.map((b) => `    ${budgetText(b)}`)];
}

function clusterLine(r: PinReport): string {
  if (r.cluster !== undefined) return `Checked against cluster ${r.cluster.context} (${r.cluster.server}, Kubernetes ${r.cluster.gitVersion})`;
  return `No cluster read (${r.noCluster ?? 'none asked for'}): ${CLUSTER_CHECKS.join(', ')} were not checked`;
}

/** What changed, for the last line: `2 files changed`, or with --check `2 files would change`. */
export function outcomeLine(r: PinReport): string {
  const n = r.result.files.length;
  if (r.result.blocked) {
    const errors = r.result.checks.filter((c) => c.level === 'error').length;
    return `Blocked by ${plural(errors, 'error')}: no file was changed.`;
  }
  if (n === 0) return 'No changes: the files already pin what the policy picks now.';
  return r.check ? `${plural(n, 'file')} would change (--check): they do not pin what the policy picks now.` : `${plural(n, 'file')} changed.`;
}

export function pinText(r: PinReport, options: { color: boolean }): string {
  const paint: Paint = options.color ? (style, text) => `\x1b[${ANSI[style]}m${text}\x1b[0m` : (_style, text) => text;
  const releases = r.result.classes.flatMap((c) => c.targets.map((t) => t.release));
  const lines: string[] = [];
  if (r.to !== undefined) {
    lines.push(`Kubernetes ${r.to}, ${amiSourceText(r.source, r.release, releases)}, pinned by ${r.pin}`, ...releasePolicyLines(r.source).map((l) => `  ${l}`), clusterLine(r));
  }
  if (r.windowFlags !== undefined) lines.push(`Upgrade windows: ${r.windowFlags.join(' ')}`);
  const units = r.result.units.map((u) => u.label);
  lines.push(`Read ${plural(units.length, 'unit')}: ${units.join(', ') || '(none)'}`);
  for (const c of r.result.classes) lines.push('', ...classLines(c, paint));
  for (const p of r.result.pools) lines.push('', ...poolLines(p, paint));
  lines.push(...checkLines(r.result.checks.map((c) => ({ ...c, message: `${c.unit}: ${c.message}` })), paint));
  const diff = unifiedDiff(r.result.files);
  if (diff !== '') lines.push('', diff.trimEnd());
  lines.push('', outcomeLine(r));
  return `${lines.join('\n')}\n`;
}

/** `-o json`: the changes and their checks; `diff` is the unified diff. */
export function pinJson(r: PinReport): string {
  const doc = {
    kubernetesVersion: r.to ?? null,
    pin: r.pin,
    release: r.release,
    source: r.source ?? null,
    cluster: r.cluster ?? null,
    notChecked: r.cluster === undefined && r.to !== undefined ? [...CLUSTER_CHECKS] : [],
    check: r.check,
    units: r.result.units,
    nodeClasses: r.result.classes.map((c) => ({
      unit: c.unit,
      name: c.name,
      family: c.family,
      changed: c.changed,
      before: c.before,
      after: c.after,
      from: c.from,
      targets: c.targets,
      files: c.files,
    })),
    nodePools: r.result.pools,
    windows: r.windowFlags ?? null,
    files: r.result.files.map((f) => ({ path: f.path, diff: unifiedDiff([f]) })),
    checks: r.result.checks.map((c) => ({ unit: c.unit, code: c.code, level: c.level, message: c.message, evidence: c.evidence, next: c.next ?? null })),
    blocked: r.result.blocked,
    changed: r.result.files.length > 0,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * `--tfvars`: a Terraform variables file (JSON, `*.auto.tfvars.json`) of every class's pin after this run, keyed by
 * class name (`<unit>/<name>` where two units share a name), for a variable such as
 * `map(object({ amiFamily = optional(string), amiSelectorTerms = list(map(string)) }))`.
 */
export function pinTfvars(r: PinReport, variable: string): string {
  const named = new Map<string, number>();
  for (const c of r.result.classes) named.set(c.name, (named.get(c.name) ?? 0) + 1);
  const pins = Object.fromEntries(
    r.result.classes.map((c) => [
      named.get(c.name)! > 1 ? `${c.unit}/${c.name}` : c.name,
      { ...(c.after.amiFamily !== undefined ? { amiFamily: c.after.amiFamily } : {}), amiSelectorTerms: c.after.amiSelectorTerms },
    ]),
  );
  return `${JSON.stringify({ [variable]: pins }, null, 2)}\n`;
}
