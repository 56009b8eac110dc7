// The words for where a GitOps-owned class or NodePool comes from (apis/gitops-sources.ts reads it): the owner, its
// repository, path and revision, and the `karp-drift pin` command that changes the file there. A `file://` repository
// is a checkout on this machine, so its command names the directory itself; any other is run in a checkout of it.
import type { GitOpsOwnerRef, GitOpsSource, GitOpsSourceRead, GitSource } from '../apis/gitops-sources.js';

/** `Argo CD Application argocd/karpenter`, `Flux Kustomization flux-system/apps`. */
export function ownerName(ref: Pick<GitOpsOwnerRef, 'tool' | 'kind' | 'name' | 'namespace'>): string {
  return `${ref.tool} ${ref.kind} ${ref.namespace !== undefined ? `${ref.namespace}/` : ''}${ref.name}`;
}

/** One line: the owner, then what it syncs from and at which revision, or why that was not read. */
export function sourceLine(read: GitOpsSourceRead): string {
  if ('unread' in read) return `${ownerName(read.ref)} (its source was not read: ${read.unread})`;
  const { source } = read;
  const from = source.sources.map(sourceText).join('; ');
  const synced = [source.revision !== undefined ? `synced at ${shortRevision(source.revision)}` : undefined, source.status].filter((s) => s !== undefined).join(', ');
  return `${ownerName(source.owner)}${from !== '' ? `: ${from}` : ''}${synced !== '' ? ` (${synced})` : ''}${source.note !== undefined ? `; ${source.note}` : ''}`;
}

function sourceText(s: GitSource): string {
  if (s.chart !== undefined) return `chart ${s.chart} from ${s.repoURL}${s.ref !== undefined ? ` at ${s.ref}` : ''}`;
  return `repository ${s.repoURL}, path ${s.path ?? '.'}${s.ref !== undefined ? `, revision ${s.ref}` : ''}`;
}

/** A commit SHA as git shows it (7 characters), inside Flux's `main@sha1:<sha>` too. */
export function shortRevision(revision: string): string {
  return revision.replace(/\b([0-9a-f]{7})[0-9a-f]{33}\b/g, '$1');
}

/**
 * The `karp-drift pin` that changes the terms in the owner's files (`flags`: `--to 1.31` and the plan's release
 * flags), one per repository: the directory itself for a `file://` one, else a path to run in a checkout of it.
 * Helm value files need the place the chart reads the terms from, which only the chart knows. None for a chart
 * from a chart repository (its values come from elsewhere) or when nothing was read.
 */
export function pinCommands(read: GitOpsSourceRead | undefined, flags: string): string[] {
  if (read === undefined || 'unread' in read) return [];
  const byRepo = new Map<string, { paths: string[]; values: boolean; ref?: string }>();
  for (const s of read.source.sources) {
    if (s.chart !== undefined) continue;
    const entry = byRepo.get(s.repoURL) ?? { paths: [], values: false, ...(s.ref !== undefined ? { ref: s.ref } : {}) };
    const dir = s.path ?? '.';
    if (s.valueFiles !== undefined) {
      entry.values = true;
      entry.paths.push(...s.valueFiles.map((f) => joinPath(dir, f)));
    } else entry.paths.push(dir);
    byRepo.set(s.repoURL, entry);
  }
  return [...byRepo].map(([repo, { paths, values, ref }]) => {
    const local = repo.startsWith('file://') ? decodeURIComponent(new URL(repo).pathname) : undefined;
    const where = paths.map((p) => (local !== undefined ? joinPath(local, p) : p)).join(' ');
    const valuesPath = values ? ' --values-path <where the chart reads amiSelectorTerms>' : '';
    const command = `karp-drift pin ${flags}${valuesPath} ${where}`;
    return local !== undefined ? command : `${command}   (in a checkout of ${repo}${ref !== undefined ? ` at ${ref}` : ''})`;
  });
}

/** `a` then `b`, with `.` and `./` and a trailing `/` folded away. */
function joinPath(a: string, b: string): string {
  const parts = `${a}/${b}`.split('/').filter((p, i) => p !== '.' && (p !== '' || i === 0));
  const joined = parts.join('/');
  return joined === '' ? '.' : joined;
}

export type { GitOpsSource };
