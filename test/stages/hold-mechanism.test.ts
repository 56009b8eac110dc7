import { describe, expect, it } from 'vitest';
import type { NodePoolView } from '../../src/karpenter/views.js';
import { chooseHold, type HoldWith } from '../../src/stages/hold-mechanism.js';

type Pool = Pick<NodePoolView, 'name' | 'budgetOwners' | 'labels' | 'annotations'>;
const pool = (overrides: Partial<Pool> = {}): Pool => ({
  name: 'general',
  budgetOwners: [],
  labels: {},
  annotations: {},
  ...overrides,
});
const argo = pool({
  budgetOwners: [{ manager: 'argocd-controller', operation: 'Apply' }],
});
const kubectl = pool({
  budgetOwners: [{ manager: 'kubectl-client-side-apply', operation: 'Update' }],
});
const tracked = pool({
  budgetOwners: [{ manager: 'kubectl-edit', operation: 'Update' }],
  annotations: {
    'argocd.argoproj.io/tracking-id': 'app:karpenter.sh/NodePool:/general',
  },
});
const terraform = pool({
  budgetOwners: [{ manager: 'Terraform', operation: 'Apply' }],
});

describe('chooseHold', () => {
  it.each<[string, Pool, HoldWith, boolean, string]>([
    ['auto, nobody else owns the budgets', pool(), 'auto', false, 'budget'],
    ['auto, kubectl owns them (a person: taken over)', kubectl, 'auto', false, 'budget'],
    ['auto, Argo CD owns them', argo, 'auto', false, 'node'],
    ['auto, an Argo CD tracked NodePool edited by hand', tracked, 'auto', false, 'node'],
    ['auto, Terraform owns them', terraform, 'auto', false, 'node'],
    ['node, whoever owns them', pool(), 'node', false, 'node'],
    ['budget, nobody else', pool(), 'budget', false, 'budget'],
    ['budget --force-conflicts on Argo CD', argo, 'budget', true, 'budget'],
  ])('%s → %s', (_name, p, requested, force, mechanism) => {
    const choice = chooseHold(p, requested, force);
    expect('mechanism' in choice ? choice.mechanism : choice.error).toBe(mechanism);
  });

  it('says why, naming the owner', () => {
    expect(chooseHold(argo, 'auto', false)).toEqual({
      nodePool: 'general',
      mechanism: 'node',
      why: 'its budgets are managed by Argo CD (field manager argocd-controller), which would put them back',
    });
    expect(chooseHold(argo, 'budget', true)).toMatchObject({
      warning:
        'spec.disruption.budgets of nodepool/general is owned by Argo CD (field manager argocd-controller): it may put its own budgets back and lift the hold',
    });
  });

  it('refuses --hold-with budget on a GitOps-owned NodePool without --force-conflicts', () => {
    expect(chooseHold(argo, 'budget', false)).toEqual({
      nodePool: 'general',
      error:
        '--hold-with budget: spec.disruption.budgets of nodepool/general is owned by Argo CD (field manager argocd-controller), which would put its own budgets back and lift the hold',
      next: 'use --hold-with node (or auto), which holds the old nodes instead; or pass --force-conflicts to write the budget anyway',
    });
  });

  // DOMAIN.md §2.9: v1beta1 budgets have no `reasons` (v0.34–v0.37) or do not exist (v0.32–v0.33).
  it.each<[HoldWith, boolean, string]>([
    ['auto', false, 'node'],
    ['node', false, 'node'],
    ['budget', false, 'error'],
    // Not even with --force-conflicts: the server would prune the hold, not a GitOps tool undo it.
    ['budget', true, 'error'],
  ])('on Karpenter v1beta1, --hold-with %s (--force-conflicts %s) → %s', (requested, force, expected) => {
    const choice = chooseHold(argo, requested, force, 'v1beta1');
    expect('mechanism' in choice ? choice.mechanism : 'error').toBe(expected);
    if ('error' in choice) {
      expect(choice.error).toMatch(/^--hold-with budget: Karpenter's v1beta1 API \(v0\.32–v0\.37\) has budgets without `reasons`/);
      expect(choice.next).toMatch(/^use --hold-with node/);
    }
  });
});
