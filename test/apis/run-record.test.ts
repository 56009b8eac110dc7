// The run record's names and whether a record still `running` belongs to a live run (apis/run-record.ts).
import { describe, expect, it } from 'vitest';
import { RUN_RECORD_NAMES, runLiveness, slotToUse, STALE_AFTER_MS, type RunSummary } from '../../src/apis/run-record.js';
import type { LeaseView } from '../../src/apis/lock.js';

const now = new Date('2026-11-25T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  apiVersion: 'karp-drift.io/v1',
  kind: 'RunRecord',
  runId: '3f2a9c1e-0000-4000-8000-000000000000',
  command: 'upgrade',
  commandLine: 'upgrade --to 1.30 --yes',
  user: { name: 'alice', source: 'SelfSubjectReview' },
  host: 'alice@laptop',
  cluster: { context: 'prod', server: 'https://prod', kubeconfigCluster: 'prod', name: 'prod' },
  startedAt: ago(600_000),
  updatedAt: ago(5_000),
  endedAt: null,
  result: 'running',
  exitCode: null,
  nodesReplaced: 0,
  amis: [],
  ...over,
});
const holder = 'alice@laptop (run 3f2a9c1e-0000-4000-8000-000000000000)';
const lease = (over: Partial<LeaseView> = {}): LeaseView => ({
  resourceVersion: '7',
  holderIdentity: holder,
  leaseDurationSeconds: 30,
  renewTime: ago(8_000),
  annotations: {},
  ...over,
});

describe('runLiveness: a record still running, read by a reader with its own clock', () => {
  it.each<[string, RunSummary, LeaseView | undefined, string]>([
    ['ended: whatever the Lease says', summary({ result: 'halted', exitCode: 6, endedAt: ago(1000) }), undefined, 'ended'],
    ['holds the lock, renewed 8 s ago', summary({ lockHolder: holder }), lease(), 'running'],
    ['holds the lock, not renewed for 31 s (kill -9)', summary({ lockHolder: holder }), lease({ renewTime: ago(31_000) }), 'did-not-finish'],
    ['its Lease is gone (released, or deleted)', summary({ lockHolder: holder }), undefined, 'did-not-finish'],
    ['another run holds the lock now', summary({ lockHolder: holder }), lease({ holderIdentity: 'bob@ci (run 9)' }), 'did-not-finish'],
    ['without the lock (wait), written 5 s ago', summary(), undefined, 'running'],
    ['without the lock, not written for 3 minutes', summary({ updatedAt: ago(STALE_AFTER_MS) }), undefined, 'did-not-finish'],
  ])('%s: %s', (_name, s, l, expected) => {
    expect(runLiveness(s, l, now)).toBe(expected);
  });
});

describe('slotToUse: the newest 20 runs are kept', () => {
  const at = (startedAt: string, live = false) => ({ summary: summary({ startedAt }), live });
  it.each<[string, Array<{ name: string; summary?: RunSummary; live?: boolean }>, string]>([
    ['a free slot first', [{ name: 'a', ...at(ago(9)) }, { name: 'b' }], 'b'],
    ['else the record that started first', [{ name: 'a', ...at(ago(5)) }, { name: 'b', ...at(ago(9)) }, { name: 'c', ...at(ago(7)) }], 'b'],
    ['never a live run while another will do', [{ name: 'a', ...at(ago(9), true) }, { name: 'b', ...at(ago(7)) }], 'b'],
  ])('%s', (_name, slots, expected) => {
    expect(slotToUse(slots)).toBe(expected);
  });

  it('names twenty ConfigMaps karp-drift-run-00 … karp-drift-run-19, the names deploy/rbac.yaml grants', () => {
    expect(RUN_RECORD_NAMES).toHaveLength(20);
    expect([RUN_RECORD_NAMES[0], RUN_RECORD_NAMES[19]]).toEqual(['karp-drift-run-00', 'karp-drift-run-19']);
  });
});
