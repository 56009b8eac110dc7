// The step summary's picture of a run (--summary-file): a Mermaid gantt chart of its stages, waves, soaks, gate
// failures, window and end, which GitHub draws from a ```mermaid block in Markdown. A gantt, not Mermaid's
// `timeline` diagram: it puts time to scale, so a 15-minute soak looks longer than a 2-minute wave. Times are written
// in UTC with `dateFormat YYYY-MM-DD HH:mm:ss`, which Mermaid reads in the viewer's zone and draws in the same one, so
// the axis shows the UTC times the rest of karp-drift prints. Bounded far under Mermaid's 50,000-character
// `maxTextSize`, past which it draws nothing. Pure.
import type { RunEvent } from '../apis/run-record.js';

type Doc = Record<string, unknown>;

/** Past this the middle tasks are left out (said in a Mermaid comment): a chart of hundreds of bars helps nobody. */
export const MAX_TASKS = 80;

interface Task {
  name: string;
  tags: string[];
  start: string;
  end: string;
}

/** `2026-11-25T17:43:36.123Z` → `2026-11-25 17:43:36`, the chart's dateFormat. */
const at = (iso: string): string => iso.slice(0, 19).replace('T', ' ');
/** Mermaid ends a task's name at `:`, and `#`/`;` confuse its lexer: none in a name. */
const label = (s: string): string => s.replace(/[:;#%]/g, ' ').replace(/\s+/g, ' ').trim();

/** When the run's last milestone happened: the end of a bar still open when the run stopped. */
function lastTime(events: readonly RunEvent[]): string | undefined {
  return events.reduce<string | undefined>((m, e) => (m === undefined || e.time > m ? e.time : m), undefined);
}

/**
 * The bars of each stage: its waves, from opening to their soak (or the next wave, or the end), and the soaks. The
 * wave the run ended in is done when the run succeeded, red when it stopped on a failure, and open otherwise.
 */
function stageTasks(events: readonly RunEvent[], end: string, result: string | undefined): Map<string, Task[]> {
  const last = result === 'succeeded' ? ['done'] : ['halted', 'stalled', 'failed'].includes(result ?? '') ? ['crit'] : ['active'];
  const sections = new Map<string, Task[]>();
  const waves = events.filter((e) => e.type === 'wave');
  waves.forEach((w, i) => {
    const section = `Stage ${w.stage} ${w.name}`;
    const tasks = sections.get(section) ?? [];
    sections.set(section, tasks);
    const soak = events.find((e) => e.type === 'soak' && e.stage === w.stage && e.wave === w.wave && e.time >= w.time);
    const next = waves[i + 1]?.time;
    const waveEnd = soak?.time ?? next ?? end;
    const ended = soak === undefined && next === undefined;
    tasks.push({
      name: label(`wave ${w.wave}/${w.waves}, up to ${w.target} of ${w.size}`),
      tags: ended ? last : ['done'],
      start: at(w.time),
      end: at(waveEnd),
    });
    if (soak?.type === 'soak' && soak.until > soak.time) {
      const until = soak.until < end || next !== undefined ? soak.until : end;
      tasks.push({ name: 'soak', tags: [], start: at(soak.time), end: at(until < soak.time ? soak.time : until) });
    }
  });
  return sections;
}

function markers(events: readonly RunEvent[]): Task[] {
  const out: Task[] = [];
  for (const e of events) {
    if (e.type === 'gate' && e.result !== 'passed')
      out.push({ name: label(`gate ${e.result}${e.findings?.[0] ? ` ${e.findings[0].code}` : ''}`), tags: ['crit', 'milestone'], start: at(e.time), end: '0s' });
    else if (e.type === 'window' && e.event !== 'opened')
      out.push({ name: label(`window ${e.event}`), tags: ['milestone'], start: at(e.time), end: '0s' });
    else if (e.type === 'blocked' && e.stage === 'stall')
      out.push({ name: label(`stalled ${e.code}`), tags: ['crit', 'milestone'], start: at(e.time), end: '0s' });
    else if (e.type === 'done')
      out.push({ name: label(e.result), tags: e.result === 'succeeded' ? ['milestone'] : ['crit', 'milestone'], start: at(e.time), end: '0s' });
  }
  return out;
}

/** A run without stages (wait, an unstaged follow): one bar from its start to its end. */
function unstaged(done: Doc | undefined): Map<string, Task[]> {
  const time = typeof done?.time === 'string' ? done.time : undefined;
  const seconds = typeof done?.durationSeconds === 'number' ? done.durationSeconds : undefined;
  if (time === undefined || seconds === undefined) return new Map();
  const start = new Date(Date.parse(time) - seconds * 1000).toISOString();
  return new Map([['Rollout', [{ name: 'drift replacement', tags: ['done'], start: at(start), end: at(time) }]]]);
}

/** The ```mermaid block, or nothing for a run with nothing to draw (plan, pause, a refused upgrade). */
export function ganttBlock(command: string, events: readonly RunEvent[], done?: Doc): string[] {
  const end = lastTime(events) ?? (typeof done?.time === 'string' ? done.time : undefined);
  if (end === undefined) return [];
  const staged = events.some((e) => e.type === 'wave');
  const ending = events.findLast((e) => e.type === 'done');
  const result = ending?.type === 'done' ? ending.result : undefined;
  const sections = staged ? stageTasks(events, end, result) : unstaged(done);
  if (sections.size === 0) return [];
  const marks = markers(events);
  if (marks.length > 0) sections.set('Checks and end', marks);
  const all = [...sections].flatMap(([s, tasks]) => tasks.map((t) => ({ s, t })));
  const left = Math.max(0, all.length - MAX_TASKS);
  // The first and the last tasks say most: how it began, and how it ended.
  const kept = left === 0 ? all : [...all.slice(0, MAX_TASKS / 2), ...all.slice(all.length - MAX_TASKS / 2)];
  const span = Date.parse(end) - Math.min(...events.map((e) => Date.parse(e.time)).filter(Number.isFinite), Date.parse(end));
  const lines = [
    '```mermaid',
    'gantt',
    `  title karp-drift ${label(command)} (UTC)`,
    '  dateFormat YYYY-MM-DD HH:mm:ss',
    `  axisFormat ${span < 10 * 60_000 ? '%H:%M:%S' : span < 36 * 3600_000 ? '%H:%M' : '%d %H:%M'}`,
  ];
  let section: string | undefined;
  kept.forEach(({ s, t }, i) => {
    if (left > 0 && i === MAX_TASKS / 2) lines.push(`  %% ${left} tasks left out`);
    if (s !== section) lines.push(`  section ${label(s)}`);
    section = s;
    lines.push(`  ${t.name} :${[...t.tags, t.start, t.end].join(', ')}`);
  });
  lines.push('```');
  return lines;
}

/** The summary's section: a heading and the chart. */
export function ganttSection(command: string, events: readonly RunEvent[], done?: Doc): string[] {
  const block = ganttBlock(command, events, done);
  return block.length > 0 ? ['#### Timeline', '', ...block] : [];
}
