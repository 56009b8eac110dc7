// `pin --pr-body <file>`: the pull request's description in GitHub Markdown: which classes move from which release
// to which, the AMI names and IDs, the release notes to read, the files, the checks, and what merging starts.
import type { AmiFamily } from '../ami/families.js';
import type { PinReport } from './pin.js';
import { amiSourceText, termsText } from './plan.js';

/** Where a release's notes are: amazon-eks-ami's and Bottlerocket's GitHub releases, the Windows AMI versions page. */
export function releaseNotesUrl(family: AmiFamily, release: string): string {
  if (family === 'al2' || family === 'al2023') return `https://github.com/awslabs/amazon-eks-ami/releases/tag/${release}`;
  if (family === 'bottlerocket') return `https://github.com/bottlerocket-os/bottlerocket/releases/tag/${release.startsWith('v') ? release : `v${release}`}`;
  return 'https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-versions-windows.html';
}

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|');

export function pinMarkdown(r: PinReport): string {
  const changed = r.result.classes.filter((c) => c.changed);
  const pools = r.result.pools.filter((p) => p.changed);
  const title =
    r.to !== undefined && changed.length > 0
      ? `Pin EKS-optimized AMIs for Kubernetes ${r.to}`
      : pools.length > 0
        ? 'Upgrade windows on the NodePools'
        : 'No AMI changes';
  const lines = [`## ${title}`, ''];
  if (r.to !== undefined) {
    const releases = r.result.classes.flatMap((c) => c.targets.map((t) => t.release));
    lines.push(`${code('karp-drift pin')} chose ${amiSourceText(r.source, r.release, releases)}, pinned by ${r.pin}.`, '');
  }
  if (changed.length > 0) {
    lines.push('| EC2NodeClass | where | from | to |', '|---|---|---|---|');
    for (const c of changed) {
      const to = [...new Set(c.targets.map((t) => t.release))].join(', ');
      lines.push(`| ${code(c.name)} (${c.family}) | ${code(c.unit)} | ${cell(c.from.join(', ') || termsText(c.before.amiSelectorTerms))} | ${cell(to)} |`);
    }
    lines.push('');
    for (const c of changed) {
      lines.push(`### ${code(`ec2nodeclass/${c.name}`)} in ${code(c.unit)}`, '');
      for (const t of c.targets) lines.push(`- ${t.arch} ${t.variant}: ${code(t.id)} ${code(t.name)}`);
      lines.push(`- ${code('amiSelectorTerms')}: ${code(termsText(c.before.amiSelectorTerms))} → ${code(termsText(c.after.amiSelectorTerms))}`);
      if (c.files.length > 0) lines.push(`- changed in ${c.files.map(code).join(', ')}`);
      lines.push('');
    }
    const notes = [...new Map(changed.flatMap((c) => c.targets.map((t) => [`${c.family} ${t.release}`, releaseNotesUrl(c.family, t.release)] as const))).entries()];
    lines.push('### Release notes', '', ...notes.map(([what, url]) => `- ${what}: ${url}`), '');
  }
  if (pools.length > 0) {
    lines.push(`### Upgrade windows${r.windowFlags !== undefined ? ` (${code(r.windowFlags.join(' '))})` : ''}`, '');
    lines.push('Karpenter holds drift at 0 outside the windows with these budgets, whatever runs or does not:', '');
    for (const p of pools) lines.push(`- ${code(`nodepool/${p.name}`)} in ${code(p.unit)}: ${p.after.length} budgets, in ${p.files.map(code).join(', ')}`);
    lines.push('');
  }
  const checks = r.result.checks.filter((c) => c.level !== 'info');
  if (checks.length > 0) {
    lines.push('### Checks', '');
    for (const c of checks) lines.push(`- **${c.code}** (${c.level}, ${code(c.unit)}): ${c.message}${c.next !== undefined ? ` — next: ${c.next}` : ''}`);
    lines.push('');
  }
  if (changed.length > 0) {
    lines.push(
      'Once merged and synced, Karpenter marks the nodes on other AMIs `Drifted` (AMIDrift) and replaces them within their NodePools\' disruption budgets; `karp-drift wait` follows the rollout, `karp-drift status` shows it.',
      '',
    );
  }
  if (r.cluster === undefined && r.to !== undefined) lines.push(`No cluster was read: the control-plane version and version-skew checks did not run.`, '');
  lines.push(`<sub>Written by ${code('karp-drift pin')}. Run it again to bring this pull request up to date.</sub>`);
  return `${lines.join('\n')}\n`;
}
