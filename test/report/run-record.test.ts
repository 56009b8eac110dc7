// The run's record from what it reported (report/run-record.ts), and its size as the API server stores it
// (cluster/run-records.ts `recordConfigMap`): far under the 1 MiB a ConfigMap may hold, at 5,000 nodes too.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SUMMARY_KEY, TIMELINE_KEY, type RunRecord, type RunTimeline } from '../../src/apis/run-record.js';
import { recordConfigMap } from '../../src/cluster/run-records.js';
import { replacementColumns, runRecord, type RunMeta } from '../../src/report/run-record.js';
import { newSummaryRecord, recordSummary } from '../../src/report/summary.js';
import type { ReplacementSpan } from '../../src/rollout/replacements.js';

const T0 = new Date('2026-11-25T17:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000).toISOString();
const cluster = { context: 'prod', server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com', kubeconfigCluster: 'arn:aws:eks:us-west-2:111122223333:cluster/prod', name: 'prod' };
const meta = (over: Partial<RunMeta> = {}): RunMeta => ({
  runId: '3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c',
  command: 'upgrade',
  commandLine: 'upgrade --to 1.30 --canary canary --yes',
  user: { name: 'arn:aws:sts::111122223333:assumed-role/Admin/alice', source: 'SelfSubjectReview', groups: ['system:authenticated'] },
  host: 'alice@laptop',
  lockHolder: 'alice@laptop (run 3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c)',
  cluster,
  startedAt: T0,
  updatedAt: new Date(T0.getTime() + 60_000),
  ...over,
});
const plan = {
  kubernetesVersion: '1.30',
  nodeClasses: [
    {
      name: 'default',
      before: { amiSelectorTerms: [{ id: 'ami-old1' }] },
      after: { amiSelectorTerms: [{ id: 'ami-new1' }, { id: 'ami-new2' }] },
      targets: [{ id: 'ami-new1', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20260719', release: 'v20260719', arch: 'amd64' }],
    },
  ],
  nodePools: [{ name: 'canary', nodeClass: 'default' }, { name: 'general', nodeClass: 'default' }],
};
const span = (name: string, nodePool: string, start: number, end?: number, failed = false): ReplacementSpan => ({
  name,
  nodePool,
  start: T0.getTime() + start * 1000,
  ...(end !== undefined ? { end: T0.getTime() + end * 1000 } : {}),
  failed,
});

describe('runRecord', () => {
  it('while it runs: result running, AMIs from the plan, replacements as columns of seconds from the start', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan });
    recordSummary(r, { type: 'stage', time: at(0), stage: 1, stages: 2, name: 'canary', nodePools: ['canary'], size: 3, waves: [1, 3] });
    recordSummary(r, { type: 'wave', time: at(0), stage: 1, stages: 2, name: 'canary', wave: 1, waves: 2, target: 1, size: 3, started: 0 });
    const record = runRecord(meta(), r, [span('canary-b', 'canary', 30), span('canary-a', 'canary', 2, 95), span('canary-c', 'canary', 40, 80, true)]);
    expect(record.summary).toMatchObject({
      result: 'running',
      exitCode: null,
      endedAt: null,
      target: '1.30',
      // No `done` yet: the replacements seen up.
      nodesReplaced: 1,
      amis: [{ nodeClass: 'default', before: ['id=ami-old1'], after: ['id=ami-new1', 'id=ami-new2'], targets: [{ id: 'ami-new1', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20260719', release: 'v20260719' }] }],
    });
    expect(record.timeline.replacements).toEqual({ canary: { names: ['canary-a', 'canary-b', 'canary-c'], start: [2, 30, 40], end: [95, null, 80], failed: [2] } });
    expect(record.timeline.nodePools).toEqual([{ name: 'canary', nodeClass: 'default' }, { name: 'general', nodeClass: 'default' }]);
    expect(record.timeline.events.map((e) => e.type)).toEqual(['stage', 'wave']);
  });

  it('at the end: the result as the summary words it, the exit code, the counts of `done`', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan });
    recordSummary(r, { type: 'done', time: at(300), result: 'halted', cause: 'gate', paused: ['canary', 'general'], message: 'halted by a health gate', nodePools: [{ name: 'canary', nodeClass: 'default', total: 3, replaced: 1, onTarget: 1, remaining: 2 }] });
    r.error = { exitCode: 6, message: 'halted by a health gate: POD-FAILING web-1' };
    const record = runRecord(meta({ ended: { at: new Date(T0.getTime() + 301_000), exitCode: 6 } }), r, []);
    expect(record.summary).toMatchObject({ result: 'halted', exitCode: 6, endedAt: at(301), message: 'halted by a health gate: POD-FAILING web-1', nodesReplaced: 1 });
    expect(record.timeline.nodePools).toEqual([{ name: 'canary', nodeClass: 'default', total: 3, replaced: 1, onTarget: 1, remaining: 2 }]);
  });

  it('`wait`: the AMIs it waited for; `pause`: the NodePools it held', () => {
    const w = newSummaryRecord('wait');
    recordSummary(w, { type: 'wait', cluster, targetMinor: '1.30', nodeClasses: [{ name: 'default', amis: ['ami-new1'] }] });
    expect(runRecord(meta({ command: 'wait' }), w, []).summary).toMatchObject({ target: '1.30', amis: [{ nodeClass: 'default', before: [], after: ['id=ami-new1'] }] });
    const p = newSummaryRecord('pause');
    recordSummary(p, { type: 'holds', time: at(1), action: 'paused', nodePools: [{ nodePool: 'general', mechanism: 'budget' }] });
    expect(runRecord(meta({ command: 'pause' }), p, []).timeline).toMatchObject({ nodePools: [{ name: 'general' }], events: [{ type: 'holds', action: 'paused' }] });
  });
});

/** A seeded generator, so the sizes measured are the same each run. */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** A rollout of `nodes` nodes over 5 hours in 10 NodePools, as a real one would leave it: the worst a record holds. */
function rolloutOf(nodes: number): RunRecord {
  const rnd = random(nodes);
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const suffix = () => Array.from({ length: 5 }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const pools = Array.from({ length: 10 }, (_, i) => `pool-${i}`);
  const spans = Array.from({ length: nodes }, (_, i) => {
    const pool = pools[i % pools.length]!;
    const start = Math.floor(rnd() * 5 * 3600);
    return span(`${pool}-${suffix()}`, pool, start, i % 97 === 0 ? undefined : start + 60 + Math.floor(rnd() * 240), i % 211 === 0);
  });
  const r = newSummaryRecord('upgrade');
  recordSummary(r, { type: 'plan', plan: { ...plan, nodePools: pools.map((name) => ({ name, nodeClass: 'default' })) } });
  for (const stage of [1, 2]) {
    recordSummary(r, { type: 'stage', time: at(stage * 100), stage, name: 'rollout', nodePools: pools, size: nodes, waves: [1, 10, 100] });
    for (const wave of [1, 2, 3, 4]) {
      recordSummary(r, { type: 'wave', time: at(stage * 1000 + wave * 100), stage, name: 'rollout', wave, waves: 4, target: nodes, size: nodes, started: 0 });
      recordSummary(r, { type: 'soak', time: at(stage * 1000 + wave * 100 + 50), stage, name: 'rollout', wave, until: at(stage * 1000 + wave * 100 + 90), stageDone: wave === 4 });
    }
  }
  // A --gate-interval of a minute for five hours, and a halt with every finding the gate event carries.
  for (let i = 0; i < 300; i++) recordSummary(r, { type: 'gate', time: at(i * 60), gate: 'command', point: 'interval', result: 'passed', failures: 0, failureLimit: 1 });
  const finding = (i: number) => ({ code: 'POD-FAILING', subject: `pod/apps/web-${i}`, nodePool: 'pool-1', message: `web-${i} CrashLoopBackOff: back-off 5m0s restarting failed container`, evidence: Array.from({ length: 8 }, (_, k) => `line ${k} ${'x'.repeat(200)}`) });
  recordSummary(r, { type: 'gate', time: at(18000), gate: 'health', point: 'wave-end', result: 'failed', failures: 1, failureLimit: 1, findings: Array.from({ length: 20 }, (_, i) => finding(i)) });
  recordSummary(r, { type: 'done', time: at(18001), result: 'halted', cause: 'gate', paused: pools, message: 'halted', nodePools: pools.map((name) => ({ name, nodeClass: 'default', total: nodes / 10, replaced: nodes / 10, onTarget: nodes / 10, remaining: 0 })) });
  return runRecord(meta({ ended: { at: new Date(T0.getTime() + 18_002_000), exitCode: 6 } }), r, spans);
}

describe('the record as the API server stores it: far under the 1 MiB a ConfigMap may hold', () => {
  // Measured (bytes of the ConfigMap's JSON as sent): the record grows with the nodes only by their replacement
  // columns, which gzip takes to a few bytes each (docs/history.md quotes these).
  it.each<[number, number]>([
    [33, 8 * 1024],
    [1000, 40 * 1024],
    [5000, 160 * 1024],
  ])('%i nodes: under %i bytes, the timeline read back as written', (nodes, bound) => {
    const record = rolloutOf(nodes);
    const cm = recordConfigMap('kube-system', { name: 'karp-drift-run-00' }, record);
    const bytes = Buffer.byteLength(JSON.stringify(cm));
    expect(bytes).toBeLessThan(bound);
    expect(Object.values(record.timeline.replacements).reduce((n, c) => n + c.names.length, 0)).toBe(nodes);
    const back = JSON.parse(gunzipSync(Buffer.from(cm.binaryData[TIMELINE_KEY], 'base64')).toString('utf8')) as RunTimeline;
    expect(back).toEqual(record.timeline);
    expect(JSON.parse(cm.data[SUMMARY_KEY])).toEqual(record.summary);
  });

  it('gzip earns its place: the 5,000-node timeline as plain JSON would be several times larger', () => {
    const record = rolloutOf(5000);
    const plain = Buffer.byteLength(JSON.stringify(record.timeline));
    const stored = Buffer.byteLength(recordConfigMap('kube-system', { name: 'karp-drift-run-00' }, record).binaryData[TIMELINE_KEY]);
    expect(plain / stored).toBeGreaterThan(1.8);
  });

  it('replacementColumns: per NodePool, in the order they started, whole seconds', () => {
    expect(replacementColumns([span('g-2', 'general', 10.4, 70.6), span('g-1', 'general', 3)], T0)).toEqual({
      general: { names: ['g-1', 'g-2'], start: [3, 10], end: [null, 71], failed: [] },
    });
  });
});
