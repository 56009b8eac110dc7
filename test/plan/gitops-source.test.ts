// The words for where a GitOps-owned class comes from, and the `karp-drift pin` that changes its files.
import { describe, expect, it } from 'vitest';
import type { GitOpsSourceRead, GitSource } from '../../src/apis/gitops-sources.js';
import { pinCommands, shortRevision, sourceLine } from '../../src/plan/gitops-source.js';

const owner = { tool: 'Argo CD' as const, kind: 'Application' as const, name: 'karpenter', namespace: 'argocd', trackedBy: 'label' };
const read = (sources: GitSource[], extra: { revision?: string; status?: string } = {}): GitOpsSourceRead => ({ ref: owner, source: { owner, sources, ...extra } });

describe('pinCommands', () => {
  it.each<[string, GitSource[], string[]]>([
    ['a directory in a remote repository: run in a checkout', [{ repoURL: 'https://github.com/acme/fleet.git', path: 'clusters/prod', ref: 'main' }], ['karp-drift pin --to 1.31 clusters/prod   (in a checkout of https://github.com/acme/fleet.git at main)']],
    ['a file:// repository is a checkout here: the directory itself', [{ repoURL: 'file:///srv/git/fleet', path: './clusters/prod/' }], ['karp-drift pin --to 1.31 /srv/git/fleet/clusters/prod']],
    ['the root of a file:// repository', [{ repoURL: 'file:///srv/git/fleet', path: '.' }], ['karp-drift pin --to 1.31 /srv/git/fleet']],
    ['no path: the repository root', [{ repoURL: 'https://github.com/acme/fleet.git' }], ['karp-drift pin --to 1.31 .   (in a checkout of https://github.com/acme/fleet.git)']],
    [
      'Helm value files: the place in them is the chart\'s to say',
      [{ repoURL: 'https://github.com/acme/fleet.git', path: 'charts/nodes', valueFiles: ['values-prod.yaml'], ref: 'main' }],
      ['karp-drift pin --to 1.31 --values-path <where the chart reads amiSelectorTerms> charts/nodes/values-prod.yaml   (in a checkout of https://github.com/acme/fleet.git at main)'],
    ],
    ['a chart from a chart repository: its values are elsewhere', [{ repoURL: 'https://charts.example', chart: 'nodes' }], []],
    [
      'two paths of one repository: one command',
      [
        { repoURL: 'https://github.com/acme/fleet.git', path: 'a' },
        { repoURL: 'https://github.com/acme/fleet.git', path: 'b' },
      ],
      ['karp-drift pin --to 1.31 a b   (in a checkout of https://github.com/acme/fleet.git)'],
    ],
  ])('%s', (_name, sources, expected) => {
    expect(pinCommands(read(sources), '--to 1.31')).toEqual(expected);
  });

  it('none for an owner that was not read', () => {
    expect(pinCommands({ ref: owner, unread: 'forbidden' }, '--to 1.31')).toEqual([]);
    expect(pinCommands(undefined, '--to 1.31')).toEqual([]);
  });
});

describe('sourceLine', () => {
  it.each<[GitOpsSourceRead, string]>([
    [
      read([{ repoURL: 'https://github.com/acme/fleet.git', path: 'clusters/prod', ref: 'main' }], { revision: '3f2a1c9e0b7d4a5f8c6e1d2b3a4f5e6d7c8b9a01', status: 'Synced' }),
      'Argo CD Application argocd/karpenter: repository https://github.com/acme/fleet.git, path clusters/prod, revision main (synced at 3f2a1c9, Synced)',
    ],
    [{ ref: { ...owner, namespace: undefined } as unknown as typeof owner, unread: 'no Application named karpenter in any namespace' }, 'Argo CD Application karpenter (its source was not read: no Application named karpenter in any namespace)'],
  ])('%#', (r, line) => {
    expect(sourceLine(r)).toBe(line);
  });

  it('shortens a commit in a Flux revision as git does', () => {
    expect(shortRevision('main@sha1:3f2a1c9e0b7d4a5f8c6e1d2b3a4f5e6d7c8b9a01')).toBe('main@sha1:3f2a1c9');
    expect(shortRevision('v1.2.0')).toBe('v1.2.0');
  });
});
