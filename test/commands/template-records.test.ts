// What `upgrade --templates` records on what it applies, for `rollback`: the selection it replaces, the objects it
// creates, and on a re-run that changes no AMI selection, the records of the run that did.
import { describe, expect, it } from 'vitest';
import { templateRecords, withoutRecords } from '../../src/commands/template-records.js';
import type { LiveObject } from '../../src/karpenter/views.js';
import type { RenderedManifests } from '../../src/manifests/render.js';
import type { ManifestDiff } from '../../src/manifests/diff.js';

const rendered = {
  nodeClass: { metadata: { name: 'default' }, spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-new1' }, { id: 'ami-new2' }] } },
  nodePool: { metadata: { name: 'default' }, spec: {} },
} as unknown as RenderedManifests;
const live = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): LiveObject => ({
  resourceVersion: '1',
  labels: {},
  annotations,
  spec,
  managedFields: [],
});
const run = { runId: 'r2', target: '1.30' };

describe('templateRecords', () => {
  it('an EC2NodeClass whose selection changes: the selection it had; a NodePool it creates: the run', () => {
    const records = templateRecords(rendered, { nodeClass: live({ amiSelectorTerms: [{ alias: 'al2023@v20240917' }] }) }, run);
    expect(records).toEqual({
      nodeClass: { 'karp-drift.io/previous-ami-selector-terms': '[{"alias":"al2023@v20240917"}]', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r2' },
      nodePool: { 'karp-drift.io/created-by-run': 'r2', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r2' },
    });
  });

  it('both created', () => {
    const created = { 'karp-drift.io/created-by-run': 'r2', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r2' };
    expect(templateRecords(rendered, {}, run)).toEqual({ nodeClass: created, nodePool: created });
  });

  it('a re-run with the selection already applied keeps the first run\'s records, the NodePool\'s creation too', () => {
    const first = { 'karp-drift.io/previous-ami-selector-terms': '[{"id":"ami-old"}]', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r1' };
    const pool = { 'karp-drift.io/created-by-run': 'r1', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r1', 'kubernetes.io/description': 'x' };
    const current = {
      nodeClass: live({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-new2' }, { id: 'ami-new1' }] }, { ...first, 'kubernetes.io/description': 'y' }),
      nodePool: live({}, pool),
    };
    expect(templateRecords(rendered, current, run)).toEqual({
      nodeClass: first,
      nodePool: { 'karp-drift.io/created-by-run': 'r1', 'karp-drift.io/target': '1.30', 'karp-drift.io/run-id': 'r1' },
    });
  });

  it('a new selection over objects an earlier run created: this run records the selection; the NodePool no creation', () => {
    const current = {
      nodeClass: live({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-old' }] }, { 'karp-drift.io/created-by-run': 'r1' }),
      nodePool: live({}, { 'karp-drift.io/created-by-run': 'r1' }),
    };
    const records = templateRecords(rendered, current, run);
    expect(records.nodeClass).toMatchObject({ 'karp-drift.io/previous-ami-family': 'AL2023', 'karp-drift.io/run-id': 'r2' });
    expect(records.nodeClass['karp-drift.io/created-by-run']).toBeUndefined();
    expect(records.nodePool).toEqual({});
  });
});

describe('withoutRecords', () => {
  it("leaves karp-drift's records out of the diff, and everything else in", () => {
    const change = (key: string) => ({ path: key, segments: ['metadata', 'annotations', key], op: 'remove' as const, class: 'behavioural' as const });
    const diff = {
      nodeClass: { kind: 'EC2NodeClass', name: 'default', created: false, changes: [change('karp-drift.io/run-id'), change('team')] },
      nodePool: { kind: 'NodePool', name: 'default', created: true, changes: [] },
    } as ManifestDiff;
    expect(withoutRecords(diff).nodeClass.changes.map((c) => c.path)).toEqual(['team']);
  });
});
