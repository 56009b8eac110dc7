// Which Application or Kustomization tracks an object, and what is read of it: tables over the metadata Argo CD and
// Flux leave (argo-cd util/argo/resource_tracking.go, kustomize-controller's labels) and over the objects' shapes.
import { describe, expect, it } from 'vitest';
import { applicationSource, gitopsOwnerOf, kustomizationSource, kustomizationSourceRef, ownerKey } from '../../src/apis/gitops-sources.js';

const meta = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}) => ({ labels, annotations });

describe('gitopsOwnerOf', () => {
  it.each([
    [
      'Argo CD 3.x: the tracking-id annotation',
      meta({}, { 'argocd.argoproj.io/tracking-id': 'karpenter:karpenter.k8s.aws/EC2NodeClass:karpenter/default' }),
      false,
      { tool: 'Argo CD', kind: 'Application', name: 'karpenter', trackedBy: 'annotation argocd.argoproj.io/tracking-id' },
    ],
    [
      'an Application outside Argo CD\'s namespace: <namespace>_<name>',
      meta({}, { 'argocd.argoproj.io/tracking-id': 'team-a_nodes:karpenter.sh/NodePool:karpenter/general' }),
      false,
      { tool: 'Argo CD', kind: 'Application', name: 'nodes', namespace: 'team-a', trackedBy: 'annotation argocd.argoproj.io/tracking-id' },
    ],
    [
      'Argo CD 2.x: the instance label, when argocd-controller applies the object',
      meta({ 'app.kubernetes.io/instance': 'karpenter' }),
      true,
      { tool: 'Argo CD', kind: 'Application', name: 'karpenter', trackedBy: 'label app.kubernetes.io/instance' },
    ],
    ['the instance label alone (Helm sets it too): nobody', meta({ 'app.kubernetes.io/instance': 'karpenter' }), false, undefined],
    [
      'Flux kustomize-controller',
      meta({ 'kustomize.toolkit.fluxcd.io/name': 'infra', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' }),
      false,
      { tool: 'Flux', kind: 'Kustomization', name: 'infra', namespace: 'flux-system', trackedBy: 'labels kustomize.toolkit.fluxcd.io/name and kustomize.toolkit.fluxcd.io/namespace' },
    ],
    [
      'Flux helm-controller',
      meta({ 'helm.toolkit.fluxcd.io/name': 'karpenter-config', 'helm.toolkit.fluxcd.io/namespace': 'karpenter' }),
      false,
      { tool: 'Flux', kind: 'HelmRelease', name: 'karpenter-config', namespace: 'karpenter', trackedBy: 'labels helm.toolkit.fluxcd.io/name and helm.toolkit.fluxcd.io/namespace' },
    ],
    ['a Flux name label without its namespace: nothing to read', meta({ 'kustomize.toolkit.fluxcd.io/name': 'infra' }), false, undefined],
    ['nothing', meta(), true, undefined],
  ])('%s', (_name, m, argoCdManages, expected) => {
    expect(gitopsOwnerOf(m, argoCdManages)).toEqual(expected);
  });

  it('keys an owner without a namespace apart from one with', () => {
    expect(ownerKey({ kind: 'Application', name: 'a' })).toBe('Application/*/a');
    expect(ownerKey({ kind: 'Application', name: 'a', namespace: 'argocd' })).toBe('Application/argocd/a');
  });
});

const APP_REF = { tool: 'Argo CD' as const, kind: 'Application' as const, name: 'karpenter', trackedBy: 'annotation argocd.argoproj.io/tracking-id' };

describe('applicationSource', () => {
  it('reads spec.source and the synced revision', () => {
    const app = {
      metadata: { name: 'karpenter', namespace: 'argocd' },
      spec: { source: { repoURL: 'https://github.com/acme/fleet.git', path: 'clusters/prod', targetRevision: 'main' } },
      status: { sync: { status: 'Synced', revision: 'abc' } },
    };
    expect(applicationSource(APP_REF, app)).toEqual({
      ref: APP_REF,
      source: {
        owner: { ...APP_REF, namespace: 'argocd' },
        sources: [{ repoURL: 'https://github.com/acme/fleet.git', path: 'clusters/prod', ref: 'main' }],
        revision: 'abc',
        status: 'Synced',
      },
    });
  });

  it('reads spec.sources (multi-source: a chart and the values from Git), and the revisions', () => {
    const app = {
      metadata: { name: 'karpenter', namespace: 'argocd' },
      spec: {
        sources: [
          { repoURL: 'https://charts.example', chart: 'nodes', targetRevision: '1.2.0', helm: { valueFiles: ['$values/prod/values.yaml'] } },
          { repoURL: 'https://github.com/acme/values.git', targetRevision: 'main', ref: 'values' },
        ],
      },
      status: { sync: { status: 'OutOfSync', revisions: ['1.2.0', 'def'] } },
    };
    const read = applicationSource(APP_REF, app);
    expect('source' in read && read.source).toMatchObject({
      sources: [
        { repoURL: 'https://charts.example', chart: 'nodes', ref: '1.2.0', valueFiles: ['$values/prod/values.yaml'] },
        { repoURL: 'https://github.com/acme/values.git', ref: 'main' },
      ],
      revision: '1.2.0, def',
      status: 'OutOfSync',
    });
  });

  it('says why an object that is not an Application cannot be read', () => {
    expect(applicationSource(APP_REF, { metadata: { name: 'karpenter' } })).toEqual({ ref: APP_REF, unread: 'Application /karpenter has no spec.source a repository can be read from' });
  });
});

describe('kustomizationSource', () => {
  const KS_REF = { tool: 'Flux' as const, kind: 'Kustomization' as const, name: 'infra', namespace: 'flux-system', trackedBy: 'labels' };
  const ks = {
    metadata: { name: 'infra', namespace: 'flux-system' },
    spec: { path: './clusters/prod/', sourceRef: { kind: 'GitRepository', name: 'fleet-infra' } },
    status: { lastAppliedRevision: 'main@sha1:abc', conditions: [{ type: 'Ready', status: 'True' }] },
  };

  it("names the sourceRef in the Kustomization's namespace", () => {
    expect(kustomizationSourceRef(ks)).toEqual({ kind: 'GitRepository', name: 'fleet-infra', namespace: 'flux-system' });
  });

  it.each([
    [{ branch: 'main' }, 'main'],
    [{ tag: 'v1.2.0' }, 'v1.2.0'],
    [{ semver: '>=1.0.0' }, 'semver >=1.0.0'],
    [{ branch: 'main', commit: 'abc123' }, 'abc123'],
  ])("reads the GitRepository's url and ref %j, and the path without ./", (ref, text) => {
    const repo = { spec: { url: 'ssh://git@github.com/acme/fleet-infra', ref } };
    expect(kustomizationSource(KS_REF, ks, { object: repo })).toEqual({
      ref: KS_REF,
      source: { owner: KS_REF, sources: [{ repoURL: 'ssh://git@github.com/acme/fleet-infra', path: 'clusters/prod', ref: text }], revision: 'main@sha1:abc', status: 'Ready' },
    });
  });

  it('says why the repository was not read, and keeps what the Kustomization says', () => {
    expect(kustomizationSource(KS_REF, ks, { unread: 'forbidden' })).toEqual({
      ref: KS_REF,
      source: { owner: KS_REF, sources: [], revision: 'main@sha1:abc', status: 'Ready', note: 'the repository is GitRepository flux-system/fleet-infra, not read: forbidden' },
    });
  });
});
