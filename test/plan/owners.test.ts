import { describe, expect, it } from 'vitest';
import type { FieldOwner } from '../../src/karpenter/views.js';
import { classifyOwners, type OwnerClassification } from '../../src/plan/owners.js';
import { nodeClass } from './factories.js';

const owner = (
  manager: string,
  operation: FieldOwner['operation'] = 'Update',
  ownsAmiSelectorTerms = true,
): FieldOwner => ({
  manager,
  operation,
  ownsAmiSelectorTerms,
  ownsAmiFamily: false,
});
const classify = (
  owners: FieldOwner[],
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
): OwnerClassification => classifyOwners(nodeClass({ owners, labels, annotations }));
const conflict = (manager: string, kind: string, tool: string | undefined, trackedBy?: string) => ({
  manager,
  kind,
  field: 'spec.amiSelectorTerms',
  ...(tool !== undefined ? { tool } : {}),
  ...(trackedBy !== undefined ? { trackedBy } : {}),
});

describe('classifyOwners: by field-manager name', () => {
  it.each<[string, FieldOwner['operation'], string, string | undefined]>([
    ['argocd-controller', 'Apply', 'gitops', 'Argo CD'],
    ['argocd-application-controller', 'Update', 'gitops', 'Argo CD'],
    ['kustomize-controller', 'Apply', 'gitops', 'Flux'],
    ['helm-controller', 'Apply', 'gitops', 'Flux'],
    ['helm', 'Update', 'iac', 'Helm'],
    ['Terraform', 'Apply', 'iac', 'Terraform'],
    ['terraform-provider-kubernetes', 'Update', 'iac', 'Terraform'],
    ['pulumi-kubernetes', 'Apply', 'iac', 'Pulumi'],
    ['pulumi-kubernetes-a1b2c3d4', 'Apply', 'iac', 'Pulumi'],
    ['crossplane-kubernetes-provider', 'Apply', 'iac', 'Crossplane'],
    ['apiextensions.crossplane.io/composed/4f1c', 'Apply', 'iac', 'Crossplane'],
    ['eks-blueprints-operator', 'Apply', 'applier', undefined],
  ])('%s (%s) → %s', (manager, operation, kind, tool) => {
    expect(classify([owner(manager, operation)])).toEqual({ takeOver: [], conflicts: [conflict(manager, kind, tool)] });
  });

  it.each([
    'kubectl',
    'kubectl-client-side-apply',
    'kubectl-edit',
    'kubectl-patch',
    'kubectl-create',
    'before-first-apply',
  ])('%s: a person, taken over', (manager) => {
    expect(classify([owner(manager, manager === 'kubectl' ? 'Apply' : 'Update')])).toEqual({
      takeOver: [manager],
      conflicts: [],
    });
  });

  it('takes over from an unknown client that wrote with an Update', () => {
    expect(classify([owner('Mozilla')])).toEqual({ takeOver: ['Mozilla'], conflicts: [] });
  });

  it('ignores karp-drift itself, owners of other fields, and duplicates', () => {
    expect(
      classify([
        owner('karp-drift', 'Apply'),
        owner('argocd-controller', 'Apply', false),
        owner('kubectl-edit'),
        owner('kubectl-edit'),
      ]),
    ).toEqual({ takeOver: ['kubectl-edit'], conflicts: [] });
  });
});

describe('classifyOwners: by tracking labels and annotations', () => {
  it.each<[string, Record<string, string>, Record<string, string>, string, string, string]>([
    [
      'Argo CD (label and tracking-id annotation)',
      { 'app.kubernetes.io/instance': 'karpenter-nodes' },
      { 'argocd.argoproj.io/tracking-id': 'karpenter-nodes:karpenter.k8s.aws/EC2NodeClass:/default' },
      'gitops',
      'Argo CD',
      'annotation argocd.argoproj.io/tracking-id and label app.kubernetes.io/instance',
    ],
    [
      'Flux Kustomization',
      { 'kustomize.toolkit.fluxcd.io/name': 'nodes', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
      {},
      'gitops',
      'Flux',
      'label kustomize.toolkit.fluxcd.io/name',
    ],
    [
      'Flux HelmRelease',
      { 'helm.toolkit.fluxcd.io/name': 'nodes' },
      {},
      'gitops',
      'Flux',
      'label helm.toolkit.fluxcd.io/name',
    ],
    [
      'Helm',
      { 'app.kubernetes.io/managed-by': 'Helm' },
      { 'meta.helm.sh/release-name': 'nodes' },
      'iac',
      'Helm',
      'label app.kubernetes.io/managed-by: Helm',
    ],
  ])('%s: a hand edit is still a conflict', (_name, labels, annotations, kind, tool, trackedBy) => {
    expect(classify([owner('kubectl-edit')], labels, annotations)).toEqual({
      takeOver: [],
      conflicts: [conflict('kubectl-edit', kind, tool, trackedBy)],
    });
  });

  it('does not take app.kubernetes.io/instance alone for Argo CD (Helm charts set it too)', () => {
    expect(classify([owner('kubectl-client-side-apply')], { 'app.kubernetes.io/instance': 'nodes' })).toEqual({
      takeOver: ['kubectl-client-side-apply'],
      conflicts: [],
    });
  });
});
