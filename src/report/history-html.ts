// The picture of a run (`history <run> --html`, `upgrade --report`): one self-contained HTML file, no script and no
// network, that opens anywhere and can be attached to a ticket. On top the run (who, what, the AMIs, the result);
// then a timeline per NodePool (timeline-lanes.ts says what it holds), then the gate verdicts with their evidence and
// the milestones. The SVG is written here as text; d3-scale gives the time axis its scale and its ticks (seconds to
// days, in UTC), the one part worth a library. No script in the page, so nothing in it can fail to load. Pure.
import { scaleUtc } from 'd3-scale';
import type { RunEvent, RunRecord } from '../apis/run-record.js';
import { shortRunId } from '../apis/run-record.js';
import { timelineOf, type Band, type Lane, type Marker } from './timeline-lanes.js';

const WIDTH = 1240;
const LEFT = 180;
const RIGHT = 20;
const AXIS = 28;
const LANE_HEAD = 20;
const LANE_GAP = 14;

export const esc = (s: string | number | null | undefined): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const iso = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
const px = (n: number): string => (Math.round(n * 10) / 10).toString();

const BAND_FILL: Record<Band['kind'], string> = { stage: '#f3f6fa', wave: '#e4ecf7', soak: 'url(#soak)', closed: 'url(#closed)' };
const MARK_COLOR: Record<Marker['kind'], string> = {
  'gate-passed': '#2e7d32',
  'gate-failed': '#c62828',
  halt: '#c62828',
  stall: '#ef6c00',
  window: '#6d4c41',
  hold: '#5e35b1',
  release: '#00838f',
  end: '#37474f',
};

function laneSvg(lane: Lane, top: number, x: (t: number) => number, height: number): string {
  const out: string[] = [`<g class="lane" data-nodepool="${esc(lane.nodePool)}">`];
  const right = WIDTH - RIGHT;
  const bars = lane.bars.length * lane.rowPx;
  for (const b of lane.bands) {
    const x0 = Math.max(LEFT, x(b.from));
    const w = Math.max(1, Math.min(right, x(b.to)) - x0);
    out.push(`<rect class="band ${b.kind}" x="${px(x0)}" y="${top}" width="${px(w)}" height="${height}" fill="${BAND_FILL[b.kind]}"><title>${esc(`${b.label}: ${iso(b.from)} – ${iso(b.to)}`)}</title></rect>`);
  }
  // The labels over every band: a short wave's label runs on over the soak after it.
  for (const b of lane.bands.filter((band) => band.kind === 'wave'))
    out.push(`<text class="band-label" x="${px(Math.max(LEFT, x(b.from)) + 3)}" y="${top + 12}">${esc(b.label)}</text>`);
  const label = `${lane.replacements} replacement${lane.replacements === 1 ? '' : 's'}${lane.failed > 0 ? `, ${lane.failed} failed` : ''}`;
  out.push(`<text class="pool" x="8" y="${top + 14}">nodepool/${esc(lane.nodePool)}</text>`, `<text class="pool-count" x="8" y="${top + 30}">${esc(label)}</text>`);
  lane.bars.forEach((b, i) => {
    const y = top + LANE_HEAD + i * lane.rowPx;
    const x0 = x(b.from);
    const w = Math.max(1, x(b.to) - x0);
    const kind = b.failed > 0 && b.failed === b.count ? 'failed' : b.open === b.count ? 'open' : 'done';
    const tip = `${b.label}: ${iso(b.from)} – ${b.open === b.count ? 'not up yet' : iso(b.to)}${b.count > 1 ? ` (${b.failed} failed, ${b.open} not up)` : ''}`;
    out.push(
      `<rect class="replacement ${kind}" data-nodepool="${esc(lane.nodePool)}" data-count="${b.count}" x="${px(x0)}" y="${px(y)}" width="${px(w)}" height="${px(Math.max(1, lane.rowPx * 0.75))}"><title>${esc(tip)}</title></rect>`,
    );
  });
  for (const m of lane.markers) {
    const cx = x(m.at);
    const cy = top + LANE_HEAD + bars + 7;
    out.push(`<path class="marker ${m.kind}" d="M${px(cx)} ${px(cy - 5)} l5 5 l-5 5 l-5 -5 z" fill="${MARK_COLOR[m.kind]}"><title>${esc(`${iso(m.at)} ${m.label}`)}</title></path>`);
  }
  out.push('</g>');
  return out.join('\n');
}

/**
 * A tick's label on a 24-hour UTC clock, as kubectl, the API's timestamps and an SRE's logs read: `:50` a second
 * within the minute, `22:27` a minute, `Dec 07` a day. d3's own tick format reads `10:27` for 22:27 (a 12-hour clock
 * without AM or PM: seen on a run's page in Chromium), so the label is written here from the tick d3 chose.
 */
export function tickLabel(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  if (d.getUTCMilliseconds() !== 0) return `.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
  if (d.getUTCSeconds() !== 0) return `:${two(d.getUTCSeconds())}`;
  if (d.getUTCHours() !== 0 || d.getUTCMinutes() !== 0) return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  return `${d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${two(d.getUTCDate())}`;
}

/** The SVG: the axis, a lane per NodePool, and the markers across all of them (a halt, the end). */
export function timelineSvg(record: RunRecord): string {
  const t = timelineOf(record);
  const x = scaleUtc().domain([new Date(t.from), new Date(t.to)]).range([LEFT, WIDTH - RIGHT]);
  const at = (ms: number) => x(new Date(ms));
  const heights = t.lanes.map((l) => LANE_HEAD + l.bars.length * l.rowPx + 18);
  const total = AXIS + heights.reduce((a, h) => a + h + LANE_GAP, 0) + 8;
  const ticks = x.ticks(8);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${WIDTH} ${total}" width="${WIDTH}" height="${total}" role="img" aria-label="rollout timeline">`,
    '<defs><pattern id="soak" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff8e1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#ffcc80" stroke-width="2"/></pattern>',
    '<pattern id="closed" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="8" height="8" fill="rgba(120,120,120,0.10)"/><line x1="0" y1="0" x2="0" y2="8" stroke="rgba(90,90,90,0.35)" stroke-width="2"/></pattern></defs>',
    ...ticks.map((d) => `<g class="tick"><line x1="${px(x(d))}" x2="${px(x(d))}" y1="${AXIS - 6}" y2="${total}" stroke="#e0e0e0"/><text x="${px(x(d))}" y="${AXIS - 10}" text-anchor="middle">${esc(tickLabel(d))}</text></g>`),
    `<text class="axis-unit" x="8" y="${AXIS - 10}">UTC</text>`,
  ];
  let top = AXIS;
  t.lanes.forEach((lane, i) => {
    out.push(laneSvg(lane, top, at, heights[i]!));
    top += heights[i]! + LANE_GAP;
  });
  for (const m of t.global)
    out.push(`<line class="marker ${m.kind}" x1="${px(at(m.at))}" x2="${px(at(m.at))}" y1="${AXIS - 4}" y2="${total}" stroke="${MARK_COLOR[m.kind]}" stroke-width="2" stroke-dasharray="${m.kind === 'end' ? '4 3' : 'none'}"><title>${esc(`${iso(m.at)} ${m.label}`)}</title></line>`);
  out.push('</svg>');
  return out.join('\n');
}

function amisTable(record: RunRecord): string {
  const rows = record.summary.amis.map(
    (a) =>
      `<tr><td>ec2nodeclass/${esc(a.nodeClass)}</td><td>${a.before.map(esc).join('<br>') || '—'}</td><td>${a.after.map(esc).join('<br>') || '—'}</td><td>${(a.targets ?? []).map((t) => esc(t.name ?? t.id)).join('<br>')}</td></tr>`,
  );
  return rows.length === 0 ? '' : `<table><thead><tr><th>EC2NodeClass</th><th>before</th><th>after</th><th>AMIs</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function eventText(e: RunEvent): string {
  switch (e.type) {
    case 'stage':
      return `stage ${e.stage} (${e.name}) begins: ${e.size} old nodes of ${e.nodePools.map((p) => `nodepool/${p}`).join(', ')}`;
    case 'wave':
      return `stage ${e.stage} wave ${e.wave}/${e.waves} opens: up to ${e.target} of ${e.size}${e.picks ? ` (${e.picks.join('; ')})` : ''}`;
    case 'soak':
      return `stage ${e.stage} wave ${e.wave} done; soaking until ${e.until}`;
    case 'gate':
      return `${e.gate} gate ${e.result} at ${e.point}${e.stage !== undefined ? ` (stage ${e.stage}${e.wave !== undefined ? `, wave ${e.wave}` : ''})` : ''}`;
    case 'window':
      return `window ${e.event}${e.opensAt ? `; next opens ${e.opensAt}` : ''}${e.closesAt ? `; closes ${e.closesAt}` : ''}`;
    case 'blocked':
      return `${e.stage === 'stall' ? 'stalled' : 'blocked'}: ${e.code}${e.where ? ` (${e.where})` : ''} ${e.message}`;
    case 'release':
      return `nodepool/${e.nodePool}: hold released (${e.mechanism})`;
    case 'holds':
      return `${e.action}: ${e.nodePools.map((p) => `nodepool/${p.nodePool}${p.mechanism ? ` (${p.mechanism})` : ''}`).join(', ')}`;
    case 'done':
      return `${e.result}${e.cause ? ` (${e.cause})` : ''}${e.message ? `: ${e.message}` : ''}`;
  }
}

function verdicts(record: RunRecord): string {
  const failed = record.timeline.events.filter((e) => (e.type === 'gate' && e.result !== 'passed') || (e.type === 'blocked' && e.stage === 'stall'));
  if (failed.length === 0) return '';
  const items = failed.map((e) => {
    const findings = e.type === 'gate' ? (e.findings ?? []) : e.type === 'blocked' ? [{ code: e.code, message: e.message, evidence: e.evidence }] : [];
    return `<li><b>${esc(e.time)}</b> ${esc(eventText(e))}<ul>${findings
      .map((f) => `<li><code>${esc(f.code)}</code> ${esc(f.message)}${(f.evidence ?? []).length > 0 ? `<ul>${(f.evidence ?? []).map((v) => `<li>${esc(v)}</li>`).join('')}</ul>` : ''}</li>`)
      .join('')}</ul></li>`;
  });
  return `<h2>Gate verdicts and stalls</h2><ul class="verdicts">${items.join('')}</ul>`;
}

const STYLE = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:20px;color:#212121}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}.meta{color:#555;margin:2px 0}
.result{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;background:#37474f}.result.succeeded{background:#2e7d32}
.result.halted,.result.failed,.result.stalled{background:#c62828}.result.paused,.result.timeout{background:#ef6c00}.result.running{background:#1565c0}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px}
code,td{font-family:ui-monospace,Menlo,Consolas,monospace}.timeline text{font-size:11px;fill:#424242}.timeline .pool{font-weight:600;font-size:12px}
.replacement.done{fill:#1e88e5}.replacement.failed{fill:#e53935}.replacement.open{fill:#fb8c00}.band-label{fill:#5c6bc0!important}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle}
ol.events{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}`;

/** The page. `now`: when it was drawn, said at the bottom. */
export function historyHtml(record: RunRecord, now: Date): string {
  const s = record.summary;
  const title = `karp-drift ${s.command} ${shortRunId(s.runId)}: ${s.result}`;
  const legend = [
    ['#1e88e5', 'replacement (creation → Initialized)'],
    ['#e53935', 'failed replacement'],
    ['#fb8c00', 'not up yet'],
    ['#e4ecf7', 'wave'],
    ['#ffe0b2', 'soak'],
    ['#bdbdbd', 'window closed'],
    ['#2e7d32', 'gate passed'],
    ['#c62828', 'gate failed / halt'],
    ['#00838f', 'hold released'],
    ['#5e35b1', 'paused / resumed'],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head><body>
<h1>karp-drift ${esc(s.command)} <span class="result ${esc(s.result)}">${esc(s.result)}${s.exitCode != null ? ` (exit ${s.exitCode})` : ''}</span></h1>
<p class="meta"><code>karp-drift ${esc(s.commandLine)}</code></p>
<p class="meta">run ${esc(s.runId)} by <b>${esc(s.user.name)}</b> (${esc(s.user.source)}; ${esc(s.host)}) on cluster <b>${esc(s.cluster.name)}</b> (${esc(s.cluster.server)})</p>
<p class="meta">${esc(s.startedAt)} – ${esc(s.endedAt ?? `${s.updatedAt} (last written)`)}${s.target ? ` · Kubernetes ${esc(s.target)}` : ''} · ${s.nodesReplaced} node${s.nodesReplaced === 1 ? '' : 's'} replaced</p>
${s.message ? `<p class="meta">${esc(s.message)}</p>` : ''}
${amisTable(record)}
<h2>Timeline</h2>
<p class="legend">${legend.map(([c, l]) => `<span><i style="background:${c}"></i>${esc(l)}</span>`).join('')}</p>
${timelineSvg(record)}
${verdicts(record)}
<h2>Milestones</h2>
<ol class="events">${record.timeline.events.map((e) => `<li>${esc(e.time)} ${esc(eventText(e))}</li>`).join('')}</ol>
<p class="meta">Drawn by karp-drift at ${esc(now.toISOString())} from the run's record (configmap karp-drift-run-… in the lock's namespace).</p>
</body></html>
`;
}
