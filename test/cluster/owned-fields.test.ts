// What a field manager's server-side apply owns, read back from the object (client-go's Extract<Kind>).
import { describe, expect, it } from 'vitest';
import { appliedFields, ownedPart } from '../../src/cluster/owned-fields.js';

describe('ownedPart', () => {
  it.each<[string, unknown, unknown, unknown]>([
    ['a scalar leaf', {}, 'KarpenterNodeRole-prod', 'KarpenterNodeRole-prod'],
    ['an atomic list, whole', {}, [{ id: 'ami-1' }], [{ id: 'ami-1' }]],
    ['a granular map, only the keys owned', { 'f:team': {} }, { team: 'ml', owner: 'x' }, { team: 'ml' }],
    ['a map owned but none of its keys', { '.': {} }, { a: '1' }, {}],
    ['a keyed list, whole', { 'k:{"key":"a"}': {} }, [{ key: 'a' }, { key: 'b' }], [{ key: 'a' }, { key: 'b' }]],
    ['nested', { 'f:kubelet': { 'f:maxPods': {} } }, { kubelet: { maxPods: 110, podsPerCore: 2 } }, { kubelet: { maxPods: 110 } }],
    ['a field owned but gone', { 'f:tags': {} }, {}, {}],
  ])('%s', (_, fields, live, expected) => {
    expect(ownedPart(fields, live)).toEqual(expected);
  });
});

describe('appliedFields', () => {
  const object = {
    metadata: {
      labels: { team: 'ml', other: 'x' },
      annotations: { note: 'n', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      managedFields: [
        { manager: 'karp-drift', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} }, 'f:annotations': { 'f:note': {} } }, 'f:spec': { 'f:role': {}, 'f:amiSelectorTerms': {} } } },
        { manager: 'karp-drift', operation: 'Update', fieldsV1: { 'f:spec': { 'f:userData': {} } } },
        { manager: 'karp-drift', operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': {} } },
        { manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: { 'f:spec': { 'f:tags': {} } } },
      ],
    },
    spec: { role: 'r', amiSelectorTerms: [{ id: 'ami-1' }], userData: 'x', tags: { a: 'b' } },
  };

  it("the manager's apply on the main resource, nothing of its updates or of others", () => {
    expect(appliedFields(object, 'karp-drift')).toEqual({
      labels: { team: 'ml' },
      annotations: { note: 'n' },
      spec: { role: 'r', amiSelectorTerms: [{ id: 'ami-1' }] },
    });
  });

  it('nothing for a manager that never applied', () => {
    expect(appliedFields(object, 'argocd-controller')).toEqual({ labels: {}, annotations: {}, spec: {} });
  });
});
