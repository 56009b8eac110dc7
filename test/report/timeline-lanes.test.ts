// What the picture of a run draws per NodePool (report/timeline-lanes.ts), and the page around it
// (report/history-html.ts): every replacement counted, in bars no thinner than MIN_ROW_PX.
import { describe, expect, it } from 'vitest';
import type { RunEvent, RunRecord } from '../../src/apis/run-record.js';
import { historyHtml, tickLabel } from '../../src/report/history-html.js';
import { LANE_MAX_PX, MIN_ROW_PX, timelineOf } from '../../src/report/timeline-lanes.js';

const T0 = Date.UTC(2026, 10, 25, 17, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function record(events: RunEvent[], replacements: RunRecord['timeline']['replacements']): RunRecord {
  return {
    summary: {
      apiVersion: 'karp-drift.io/v1',
      kind: 'RunRecord',
      runId: '3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c',
      command: 'upgrade',
      commandLine: "upgrade --to 1.30 --canary canary --window '0 2 * * */3h' --yes",
      user: { name: 'alice <script>', source: 'kubeconfig' },
      host: 'alice@laptop',
      cluster: { context: 'prod', server: 'https://prod', kubeconfigCluster: 'prod', name: 'prod' },
      startedAt: at(0),
      updatedAt: at(600),
      endedAt: at(600),
      result: 'paused',
      exitCode: 7,
      nodesReplaced: 3,
      amis: [],
    },
    timeline: { nodePools: [{ name: 'canary' }, { name: 'general' }], events, replacements },
  };
}
const staged: RunEvent[] = [
  { type: 'window', time: at(0), event: 'opened', closesAt: at(500) },
  { type: 'stage', time: at(0), stage: 1, name: 'canary', nodePools: ['canary'], size: 3, waves: [1, 3] },
  { type: 'wave', time: at(0), stage: 1, name: 'canary', wave: 1, waves: 2, target: 1, size: 3 },
  { type: 'gate', time: at(100), gate: 'health', point: 'wave-end', result: 'passed', stage: 1, wave: 1 },
  { type: 'soak', time: at(100), stage: 1, name: 'canary', wave: 1, until: at(200), stageDone: false },
  { type: 'wave', time: at(200), stage: 1, name: 'canary', wave: 2, waves: 2, target: 3, size: 3 },
  { type: 'stage', time: at(300), stage: 2, name: 'rollout', nodePools: ['general'], size: 24, waves: [24] },
  { type: 'wave', time: at(300), stage: 2, name: 'rollout', wave: 1, waves: 1, target: 24, size: 24 },
  { type: 'window', time: at(500), event: 'closed', opensAt: at(86_400) },
  { type: 'done', time: at(600), result: 'paused', cause: 'window', paused: ['general'] },
];

describe('timelineOf', () => {
  it('bands for the stage, its waves and soaks, closed window time; a bar per replacement; markers where they belong', () => {
    const t = timelineOf(record(staged, { canary: { names: ['c-1', 'c-2', 'c-3'], start: [5, 210, 212], end: [90, 290, null], failed: [] } }));
    const canary = t.lanes.find((l) => l.nodePool === 'canary')!;
    expect(canary.bands.map((b) => [b.kind, b.label, (b.from - T0) / 1000, (b.to - T0) / 1000])).toEqual([
      ['stage', 'stage 1 canary', 0, 300],
      ['wave', 'wave 1/2', 0, 100],
      ['soak', 'soak', 100, 200],
      ['wave', 'wave 2/2', 200, 300],
      ['closed', 'the upgrade window closed', 500, 600],
    ]);
    expect(canary.bars.map((b) => [b.label, (b.from - T0) / 1000, (b.to - T0) / 1000, b.count, b.open])).toEqual([
      ['c-1', 5, 90, 1, 0],
      ['c-2', 210, 290, 1, 0],
      // Not up when the record was last written: drawn to its end, and said so.
      ['c-3', 212, 600, 1, 1],
    ]);
    expect(canary.markers.map((m) => m.kind)).toEqual(['gate-passed']);
    const general = t.lanes.find((l) => l.nodePool === 'general')!;
    expect(general.bands.map((b) => b.label)).toEqual(['stage 2 rollout', 'wave 1/1', 'the upgrade window closed']);
    expect(t.global.map((m) => m.kind)).toEqual(['window', 'end']);
  });

  it.each([10, 119, 120, 121, 1000, 5000])('%i replacements in a NodePool: every one counted, no bar thinner than MIN_ROW_PX', (n) => {
    const t = timelineOf(
      record([], {
        general: {
          names: Array.from({ length: n }, (_, i) => `general-${i}`),
          start: Array.from({ length: n }, (_, i) => i),
          end: Array.from({ length: n }, (_, i) => (i % 50 === 0 ? null : i + 100)),
          failed: [3],
        },
      }),
    );
    const lane = t.lanes.find((l) => l.nodePool === 'general')!;
    expect(lane.bars.reduce((s, b) => s + b.count, 0)).toBe(n);
    expect(lane.bars.length * lane.rowPx).toBeLessThanOrEqual(LANE_MAX_PX);
    expect(lane.rowPx).toBeGreaterThanOrEqual(MIN_ROW_PX);
    expect(lane.bars.length).toBe(n * MIN_ROW_PX <= LANE_MAX_PX ? n : Math.ceil(n / Math.ceil((n * MIN_ROW_PX) / LANE_MAX_PX)));
    expect(lane.bars.reduce((s, b) => s + b.failed, 0)).toBe(1);
  });
});

describe('historyHtml', () => {
  it('one page, no script, nothing fetched, what the run said escaped', () => {
    const html = historyHtml(record(staged, { canary: { names: ['c-1'], start: [5], end: [90], failed: [] } }), new Date(T0));
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(http/i);
    expect(html).toContain('alice &lt;script&gt;');
    expect(html).toContain('<span class="result paused">paused (exit 7)</span>');
    expect(html.match(/<rect class="replacement /g)).toHaveLength(1);
    expect(html).toContain('data-nodepool="canary" data-count="1"');
  });
});

describe('tickLabel: the time axis on a 24-hour UTC clock', () => {
  it.each([
    ['2026-12-07T22:26:50Z', ':50'],
    ['2026-12-07T22:27:00Z', '22:27'], // d3's own format read "10:27"
    ['2026-12-07T09:05:00Z', '09:05'],
    ['2026-12-07T00:00:00Z', 'Dec 07'],
    ['2026-12-07T22:26:50.250Z', '.250'],
  ])('%s → %s', (iso, label) => {
    expect(tickLabel(new Date(iso))).toBe(label);
  });

  it("a run's page labels the minute a run crosses with its 24-hour time", () => {
    const start = Date.parse('2026-12-07T22:26:47Z');
    const r = record([], { canary: { names: ['c-1'], start: [5], end: [25], failed: [] } });
    const page = historyHtml({ ...r, summary: { ...r.summary, startedAt: new Date(start).toISOString(), endedAt: new Date(start + 28_000).toISOString() } }, new Date(start + 60_000));
    const labels = [...page.matchAll(/<g class="tick">.*?<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toContain('22:27');
    expect(labels.every((l) => /^(:\d\d|\d\d:\d\d)$/.test(l!))).toBe(true);
  });
});
