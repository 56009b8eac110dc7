import { describe, expect, it } from 'vitest';
import {
  budgetOwners,
  keptOwners,
  releasedManagedFields,
  withPath,
  without,
  type BudgetOwner,
} from '../../src/apis/budget-owners.js';
import type { ManagedFieldsEntry } from '../../src/karpenter/views.js';

const T0 = '2026-11-20T09:00:00Z';
const T1 = '2026-11-25T12:00:00Z';
const V1 = 'karpenter.sh/v1';

const budgets = { 'f:disruption': { 'f:budgets': {}, 'f:consolidateAfter': {} } };
const template = { 'f:template': { 'f:spec': { 'f:nodeClassRef': { 'f:name': {} } } } };
const entry = (
  manager: string,
  operation: 'Apply' | 'Update',
  fieldsV1: Record<string, unknown>,
  extra: Partial<ManagedFieldsEntry> = {},
): ManagedFieldsEntry => ({ manager, operation, apiVersion: V1, time: T0, fieldsType: 'FieldsV1', fieldsV1, ...extra });

// kubectl apply --server-side of the whole NodePool, and the same entry after karp-drift's hold took the budgets.
const kubectl = entry('kubectl', 'Apply', { 'f:spec': { ...budgets, ...template } });
const kubectlWithout = entry('kubectl', 'Apply', {
  'f:spec': { 'f:disruption': { 'f:consolidateAfter': {} }, ...template },
});
const kubectlOwner: BudgetOwner = { manager: 'kubectl', operation: 'Apply', apiVersion: V1, time: T0 };
// karp-drift's hold entry once the release wrote the budgets back and removed the record annotation.
const heldAfterRelease = entry('karp-drift', 'Update', { 'f:spec': { 'f:disruption': { 'f:budgets': {} } } }, { time: T1 });
// The same while the hold is on: the record annotation, and the annotations map it created for it.
const heldDuring = entry(
  'karp-drift',
  'Update',
  {
    'f:metadata': { 'f:annotations': { '.': {}, 'f:karp-drift.io/drift-hold': {} } },
    'f:spec': { 'f:disruption': { 'f:budgets': {} } },
  },
  { time: T1 },
);
const karpenterStatus = entry('karpenter', 'Update', { 'f:status': { 'f:resources': {} } }, { subresource: 'status' });

describe('budgetOwners: who owns spec.disruption.budgets, karp-drift\'s hold aside', () => {
  it.each<[string, ManagedFieldsEntry[], BudgetOwner[]]>([
    ['an applier', [kubectl, karpenterStatus], [kubectlOwner]],
    ['karp-drift\'s hold is not an owner to give back to', [kubectlWithout, heldDuring], []],
    [
      'karp-drift\'s own apply of a NodePool template is',
      [entry('karp-drift', 'Apply', { 'f:spec': budgets })],
      [{ manager: 'karp-drift', operation: 'Apply', apiVersion: V1, time: T0 }],
    ],
    ['nobody (an absent field, or an object nobody tracks)', [], []],
  ])('%s', (_name, entries, expected) => {
    expect(budgetOwners(entries)).toEqual(expected);
  });
});

describe('keptOwners: the owners a record keeps across re-holds', () => {
  const argo: BudgetOwner = { manager: 'argocd-controller', operation: 'Apply', apiVersion: V1, time: T1 };
  it.each<[string, ManagedFieldsEntry[], BudgetOwner[] | undefined, BudgetOwner[] | undefined]>([
    ['karp-drift alone owns them: the recorded owners stay', [kubectlWithout, heldDuring], [kubectlOwner], [kubectlOwner]],
    [
      'somebody took them while held: they are the owners now',
      [kubectlWithout, entry('argocd-controller', 'Apply', { 'f:spec': budgets }, { time: T1 })],
      [kubectlOwner],
      [argo],
    ],
    ['a record from before owners were kept stays without', [kubectlWithout, heldDuring], undefined, undefined],
  ])('%s', (_name, entries, recorded, expected) => {
    expect(keptOwners(entries, recorded)).toEqual(expected);
  });
});

describe('releasedManagedFields: the entries as if karp-drift had never held the pool', () => {
  it.each<[string, ManagedFieldsEntry[], BudgetOwner[], ManagedFieldsEntry[] | undefined]>([
    [
      'the applier owns the budgets again, exactly as before, and karp-drift has no entry',
      [kubectlWithout, heldAfterRelease, karpenterStatus],
      [kubectlOwner],
      [kubectl, karpenterStatus],
    ],
    [
      'an owner the hold left with nothing is written anew, with its recorded time',
      [heldAfterRelease],
      [{ manager: 'kubectl', operation: 'Apply', apiVersion: V1, time: T0 }],
      [entry('kubectl', 'Apply', { 'f:spec': { 'f:disruption': { 'f:budgets': {} } } })],
    ],
    [
      'an update is found by its apiVersion too: a v1beta1 entry of the same manager is another one',
      [entry('kubectl-edit', 'Update', { 'f:metadata': { 'f:labels': {} } }, { apiVersion: 'karpenter.sh/v1beta1' }), heldAfterRelease],
      [{ manager: 'kubectl-edit', operation: 'Update', apiVersion: V1, time: T0 }],
      [
        entry('kubectl-edit', 'Update', { 'f:metadata': { 'f:labels': {} } }, { apiVersion: 'karpenter.sh/v1beta1' }),
        entry('kubectl-edit', 'Update', { 'f:spec': { 'f:disruption': { 'f:budgets': {} } } }),
      ],
    ],
    [
      'budgets nobody owned before: karp-drift lets go of them and nobody owns them (the list karp-drift sends is then empty)',
      [heldAfterRelease],
      [],
      [],
    ],
    [
      'an absent field stays absent: the release removed it and karp-drift owns nothing left',
      [kubectlWithout],
      [],
      undefined,
    ],
    [
      'somebody wrote the budgets after the release: theirs; karp-drift only drops what its record left',
      [
        kubectlWithout,
        entry('argocd-controller', 'Apply', { 'f:spec': budgets }, { time: T1 }),
        entry('karp-drift', 'Update', { 'f:metadata': { 'f:annotations': {} } }),
      ],
      [kubectlOwner],
      [kubectlWithout, entry('argocd-controller', 'Apply', { 'f:spec': budgets }, { time: T1 })],
    ],
    [
      'karp-drift keeps what its templates applied, and gets back what that apply owned',
      [entry('karp-drift', 'Apply', { 'f:spec': { 'f:disruption': { 'f:consolidateAfter': {} } } }), heldDuring],
      [{ manager: 'karp-drift', operation: 'Apply', apiVersion: 'karpenter.sh/v1beta1', time: T0 }],
      [entry('karp-drift', 'Apply', { 'f:spec': budgets })],
    ],
    [
      'the annotations map karp-drift created stays its own no longer once other annotations are on it',
      [
        kubectl,
        entry('karp-drift', 'Update', { 'f:metadata': { 'f:annotations': { '.': {}, 'f:team': {} } } }),
      ],
      [kubectlOwner],
      [kubectl, entry('karp-drift', 'Update', { 'f:metadata': { 'f:annotations': { 'f:team': {} } } })],
    ],
    ['nothing of karp-drift\'s: nothing to send', [kubectl, karpenterStatus], [kubectlOwner], undefined],
  ])('%s', (_name, entries, owners, expected) => {
    expect(releasedManagedFields(entries, owners)).toEqual(expected);
  });
});

describe('FieldsV1 paths', () => {
  it('adds a member under a leaf, which stays a member (`.`), and removes it again to a leaf', () => {
    const leaf = { 'f:spec': { 'f:disruption': {} } };
    const added = withPath(leaf, ['f:spec', 'f:disruption', 'f:budgets']);
    expect(added).toEqual({ 'f:spec': { 'f:disruption': { '.': {}, 'f:budgets': {} } } });
    expect(without(added, ['f:spec', 'f:disruption', 'f:budgets'], 'subtree')).toEqual(leaf);
  });

  it('removes a membership, keeps the children, and changes nothing that is not there', () => {
    const fields = { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } } };
    expect(without(fields, ['f:metadata', 'f:annotations'], 'member')).toEqual({
      'f:metadata': { 'f:annotations': { 'f:a': {} } },
    });
    expect(without(fields, ['f:spec', 'f:disruption'], 'subtree')).toBe(fields);
    expect(without(fields, ['f:metadata', 'f:annotations', 'f:a', 'f:deeper'], 'subtree')).toBe(fields);
  });
});
