// What the picture of a run draws, per NodePool (history-html.ts draws it): its stage and waves as bands, its soaks,
// the closed window time, each replacement as a bar from its start to its end, and the gate checks, halts and holds as
// markers. Where a NodePool has more replacements than its lane has pixel rows, consecutive ones (in the order they
// started) share a bar spanning the first start to the last end, which says how many it stands for: 5,000
// replacements stay readable, and every one is still counted. Pure.
import type { RunEvent, RunRecord } from '../apis/run-record.js';
import { inOrder } from '../text/order.js';

/** A lane is at most this tall; a replacement's row at least MIN_ROW_PX (a thinner bar cannot be seen). */
export const LANE_MAX_PX = 240;
export const MIN_ROW_PX = 2;
const MAX_ROW_PX = 10;

export interface Span {
  from: number;
  to: number;
}

export interface Band extends Span {
  kind: 'stage' | 'wave' | 'soak' | 'closed';
  label: string;
}

export interface Bar extends Span {
  /** How many replacements it stands for (1 unless aggregated), and whether they ended, failed or not. */
  count: number;
  failed: number;
  open: number;
  label: string;
}

export interface Marker {
  at: number;
  kind: 'gate-passed' | 'gate-failed' | 'halt' | 'stall' | 'window' | 'hold' | 'release' | 'end';
  label: string;
}

export interface Lane {
  nodePool: string;
  replacements: number;
  failed: number;
  bands: Band[];
  bars: Bar[];
  rowPx: number;
  markers: Marker[];
}

export interface Timeline {
  from: number;
  to: number;
  lanes: Lane[];
  /** Markers across every lane: a halt, a stall, the end. */
  global: Marker[];
}

const ms = (iso: string | null | undefined): number => Date.parse(iso ?? '');

/** The stage each NodePool is in, and when each stage began and ended. */
function stagesOf(events: readonly RunEvent[], end: number): Map<string, { stage: number; band: Band }> {
  const stages = events.filter((e) => e.type === 'stage');
  const out = new Map<string, { stage: number; band: Band }>();
  stages.forEach((s, i) => {
    const band: Band = { kind: 'stage', from: ms(s.time), to: stages[i + 1] ? ms(stages[i + 1]!.time) : end, label: `stage ${s.stage} ${s.name}` };
    for (const p of s.nodePools) out.set(p, { stage: s.stage, band });
  });
  return out;
}

/** Each wave from its opening to its soak (its replacements done, the gates passed), the next wave, or the end. */
function waveBands(events: readonly RunEvent[], stage: number | undefined, end: number): Band[] {
  const waves = events.filter((e) => e.type === 'wave');
  const out: Band[] = [];
  waves.forEach((w, i) => {
    if (stage !== undefined && w.stage !== stage) return;
    const soak = events.find((e) => e.type === 'soak' && e.stage === w.stage && e.wave === w.wave && e.time >= w.time);
    const next = waves[i + 1];
    out.push({ kind: 'wave', from: ms(w.time), to: soak ? ms(soak.time) : next ? ms(next.time) : end, label: `wave ${w.wave}/${w.waves}` });
    if (soak?.type === 'soak' && soak.until > soak.time)
      out.push({ kind: 'soak', from: ms(soak.time), to: Math.min(ms(soak.until), next ? Infinity : end), label: 'soak' });
  });
  return out;
}

/** Closed window time: from a run started outside the windows, or from the window's close, to the end. */
function closedBands(events: readonly RunEvent[], start: number, end: number): Band[] {
  return events.flatMap((e): Band[] =>
    e.type === 'window' && e.event === 'waiting'
      ? [{ kind: 'closed', from: start, to: end, label: 'outside the upgrade windows' }]
      : e.type === 'window' && e.event === 'closed'
        ? [{ kind: 'closed', from: ms(e.time), to: end, label: 'the upgrade window closed' }]
        : [],
  );
}

function markersOf(events: readonly RunEvent[], pool: string, stage: number | undefined): Marker[] {
  const out: Marker[] = [];
  for (const e of events) {
    const at = ms(e.time);
    if (e.type === 'gate' && (stage === undefined || e.stage === undefined || e.stage === stage)) {
      const what = `${e.gate} gate ${e.result} at ${e.point}${e.wave !== undefined ? ` (wave ${e.wave})` : ''}`;
      out.push({ at, kind: e.result === 'passed' ? 'gate-passed' : 'gate-failed', label: e.findings?.[0] ? `${what}: ${e.findings[0].code} ${e.findings[0].message}` : what });
    } else if (e.type === 'release' && e.nodePool === pool) out.push({ at, kind: 'release', label: `hold released (${e.mechanism})` });
    else if (e.type === 'holds' && e.nodePools.some((p) => p.nodePool === pool)) out.push({ at, kind: 'hold', label: `karp-drift ${e.action}` });
    else if (e.type === 'blocked' && e.stage === 'stall' && e.where === `nodepool/${pool}`) out.push({ at, kind: 'stall', label: `${e.code}: ${e.message}` });
  }
  return out;
}

function globalMarkers(events: readonly RunEvent[]): Marker[] {
  return events.flatMap((e): Marker[] => {
    const at = ms(e.time);
    if (e.type === 'done') return [{ at, kind: e.result === 'halted' ? 'halt' : 'end', label: `${e.result}${e.cause ? ` (${e.cause})` : ''}${e.message ? `: ${e.message}` : ''}` }];
    if (e.type === 'window' && e.event !== 'opened') return [{ at, kind: 'window', label: `window ${e.event}` }];
    if (e.type === 'blocked' && e.stage === 'stall' && !e.where?.startsWith('nodepool/')) return [{ at, kind: 'stall', label: `${e.code}: ${e.message}` }];
    return [];
  });
}

/** The bars of one NodePool: one per replacement, or per group of consecutive ones where rows would be too thin. */
function barsOf(record: RunRecord, pool: string, end: number): { bars: Bar[]; rowPx: number } {
  const c = record.timeline.replacements[pool];
  if (!c || c.names.length === 0) return { bars: [], rowPx: MAX_ROW_PX };
  const start = ms(record.summary.startedAt);
  const n = c.names.length;
  const per = Math.max(1, Math.ceil((n * MIN_ROW_PX) / LANE_MAX_PX));
  const failed = new Set(c.failed);
  const bars: Bar[] = [];
  for (let i = 0; i < n; i += per) {
    const idx = Array.from({ length: Math.min(per, n - i) }, (_, k) => i + k);
    const from = Math.min(...idx.map((j) => start + c.start[j]! * 1000));
    const ends = idx.map((j) => c.end[j]);
    const to = Math.max(from, ...ends.map((e) => (e == null ? end : start + e * 1000)));
    const nFailed = idx.filter((j) => failed.has(j)).length;
    const nOpen = ends.filter((e) => e == null).length;
    const label = per === 1 ? c.names[i]! : `${idx.length} replacements, ${c.names[i]} … ${c.names[idx.at(-1)!]}`;
    bars.push({ from, to, count: idx.length, failed: nFailed, open: nOpen, label });
  }
  return { bars, rowPx: Math.min(MAX_ROW_PX, Math.max(MIN_ROW_PX, LANE_MAX_PX / bars.length)) };
}

export function timelineOf(record: RunRecord): Timeline {
  const { summary, timeline } = record;
  const events = timeline.events;
  const start = ms(summary.startedAt);
  const end = Math.max(start + 1000, ms(summary.endedAt ?? summary.updatedAt), ...events.map((e) => ms(e.time)).filter(Number.isFinite));
  const stages = stagesOf(events, end);
  const pools = [...new Set([...timeline.nodePools.map((p) => p.name), ...Object.keys(timeline.replacements), ...stages.keys()])].sort(
    (a, b) => (stages.get(a)?.stage ?? 0) - (stages.get(b)?.stage ?? 0) || inOrder(a, b),
  );
  const closed = closedBands(events, start, end);
  const lanes = pools.map((pool): Lane => {
    const s = stages.get(pool);
    const { bars, rowPx } = barsOf(record, pool, end);
    const c = timeline.replacements[pool];
    return {
      nodePool: pool,
      replacements: c?.names.length ?? 0,
      failed: c?.failed.length ?? 0,
      bands: [...(s ? [s.band] : []), ...waveBands(events, s?.stage, end), ...closed],
      bars,
      rowPx,
      markers: markersOf(events, pool, s?.stage),
    };
  });
  const from = Math.min(start, ...lanes.flatMap((l) => l.bars.map((b) => b.from)));
  const to = Math.max(end, ...lanes.flatMap((l) => l.bars.map((b) => b.to)));
  return { from, to, lanes, global: globalMarkers(events) };
}
