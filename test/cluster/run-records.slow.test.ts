// The run records against the sandbox's API server (cluster/run-records.ts): a free slot created, a slot written
// over with the version read (a stale one answers 409), what was written read back, a record too large refused as
// kube-apiserver refuses it, and who the run is from a SelfSubjectReview.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCluster } from '../../src/cluster/client.js';
import { ApiError } from '../../src/cluster/request.js';
import { deniedRecordNeeds, readRecordSlots, whoAmI, writeRecord } from '../../src/cluster/run-records.js';
import type { RunRecord } from '../../src/apis/run-record.js';
import { userKubeconfig } from '../sandbox/kube-api-sandbox.js';
import { sandboxCluster } from './helpers.js';

const record = (runId: string, names: string[] = []): RunRecord => ({
  summary: {
    apiVersion: 'karp-drift.io/v1',
    kind: 'RunRecord',
    runId,
    command: 'pause',
    commandLine: 'pause',
    user: { name: 'alice', source: 'kubeconfig' },
    host: 'alice@laptop',
    cluster: { context: 'c', server: 'https://s', kubeconfigCluster: 'c', name: 'c' },
    startedAt: '2026-11-25T17:00:00.000Z',
    updatedAt: '2026-11-25T17:00:00.000Z',
    endedAt: null,
    result: 'running',
    exitCode: null,
    nodesReplaced: 0,
    amis: [],
  },
  timeline: { nodePools: [], events: [], replacements: names.length ? { general: { names, start: names.map(() => 0), end: names.map(() => null), failed: [] } } : {} },
});

describe('run records on the API server', () => {
  it('creates a record in a free slot, writes it again with the version it read, and reads it back', async () => {
    const { cluster } = await sandboxCluster();
    expect((await readRecordSlots(cluster, 'kube-system')).every((s) => s.summary === undefined && s.resourceVersion === undefined)).toBe(true);
    const version = await writeRecord(cluster, 'kube-system', { name: 'karp-drift-run-00' }, record('run-1'));
    const next = await writeRecord(cluster, 'kube-system', { name: 'karp-drift-run-00', resourceVersion: version }, record('run-1', ['general-a']));
    // Another run that read the slot before this write: refused, never written over.
    const stale = await writeRecord(cluster, 'kube-system', { name: 'karp-drift-run-00', resourceVersion: version }, record('run-2')).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect((stale as ApiError).code).toBe(409);
    const slots = await readRecordSlots(cluster, 'kube-system', { timelines: true });
    expect(slots[0]).toMatchObject({ name: 'karp-drift-run-00', resourceVersion: next, summary: { runId: 'run-1' } });
    expect(slots[0]!.timeline?.replacements.general?.names).toEqual(['general-a']);
    // A create where the slot is taken is refused too: two runs never share one.
    const taken = await writeRecord(cluster, 'kube-system', { name: 'karp-drift-run-00' }, record('run-3')).catch((e: unknown) => e);
    expect((taken as ApiError).code).toBe(409);
  });

  it('a record over 1 MiB is refused (422) as kube-apiserver refuses such a ConfigMap', async () => {
    const { cluster } = await sandboxCluster();
    // Random names do not compress: 150,000 of them are well over the limit even gzip'd.
    const names = Array.from({ length: 150_000 }, () => Math.random().toString(36).slice(2));
    const refused = await writeRecord(cluster, 'kube-system', { name: 'karp-drift-run-00' }, record('big', names)).catch((e: unknown) => e);
    expect((refused as ApiError).code).toBe(422);
    expect((refused as ApiError).message).toContain('must have at most 1048576 bytes');
  });

  it('who the run is: the API server\'s SelfSubjectReview, for the admin and for another user; what a read-only user may not write', async () => {
    const { sandbox, cluster } = await sandboxCluster();
    expect(await whoAmI(cluster)).toEqual({ name: 'karp-drift-sandbox-admin', groups: ['system:masters', 'system:authenticated'] });
    const { kubeconfigPath } = await userKubeconfig(sandbox.kube, { name: 'alice', groups: ['ops'] }, join(sandbox.kubeconfigPath, '..', 'alice'));
    const alice = loadCluster({ kubeconfig: kubeconfigPath });
    try {
      expect(await whoAmI(alice)).toEqual({ name: 'alice', groups: ['ops', 'system:authenticated'] });
      // Bound to nothing: not one of the record's needs is allowed, and asking is no 403.
      expect((await deniedRecordNeeds(alice, 'kube-system')).map((n) => `${n.verb} ${n.name ?? '*'}`)).toEqual(['get karp-drift-run-00', 'create *', 'update karp-drift-run-00']);
      expect(await deniedRecordNeeds(cluster, 'kube-system')).toEqual([]);
    } finally {
      alice.close();
    }
  });
});
