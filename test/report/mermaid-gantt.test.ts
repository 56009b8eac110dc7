// The step summary's Mermaid chart (report/mermaid-gantt.ts), checked by Mermaid itself: the `mermaid` package parses
// it and its gantt database computes each task's start and end, as GitHub's renderer would. Mermaid's sanitizer
// (DOMPurify) needs a DOM, so the test gives it happy-dom's window; no browser is needed.
import { Window } from 'happy-dom';
import type Mermaid from 'mermaid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/apis/run-record.js';
import { ganttBlock, MAX_TASKS } from '../../src/report/mermaid-gantt.js';
import { newSummaryRecord, recordSummary, summaryMarkdown } from '../../src/report/summary.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 17, 43, 0) + s * 1000).toISOString();

/** A canary stage that soaked, then a rollout stage whose first wave a gate halted. */
const halted: RunEvent[] = [
  { type: 'stage', time: at(0), stage: 1, name: 'canary', nodePools: ['canary'], size: 3, waves: [1, 3] },
  { type: 'wave', time: at(0), stage: 1, name: 'canary', wave: 1, waves: 2, target: 1, size: 3 },
  { type: 'gate', time: at(40), gate: 'health', point: 'wave-end', result: 'passed', stage: 1, wave: 1 },
  { type: 'soak', time: at(40), stage: 1, name: 'canary', wave: 1, until: at(340), stageDone: false },
  { type: 'wave', time: at(341), stage: 1, name: 'canary', wave: 2, waves: 2, target: 3, size: 3 },
  { type: 'soak', time: at(400), stage: 1, name: 'canary', wave: 2, until: at(400), stageDone: true },
  { type: 'stage', time: at(401), stage: 2, name: 'rollout', nodePools: ['general'], size: 24, waves: [1, 24] },
  { type: 'wave', time: at(401), stage: 2, name: 'rollout', wave: 1, waves: 2, target: 1, size: 24 },
  { type: 'gate', time: at(460), gate: 'health', point: 'continuous', result: 'failed', stage: 2, findings: [{ code: 'POD-FAILING', message: 'web-1: CrashLoopBackOff' }] },
  { type: 'done', time: at(461), result: 'halted', cause: 'gate', paused: ['canary', 'general'] },
];

let window: Window;
let mermaid: typeof Mermaid;
beforeAll(async () => {
  window = new Window();
  Object.assign(globalThis, { window, document: window.document });
  mermaid = (await import('mermaid')).default;
});
afterAll(async () => {
  await window.happyDOM.close();
});

/** What Mermaid makes of a block: each task's name, start and end (ISO), and whether it is a milestone. */
async function tasksOf(block: string[]): Promise<Array<[string, string, string, boolean]>> {
  const text = block.slice(1, -1).join('\n');
  await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db as unknown as { getTasks(): Array<{ task: string; startTime: Date; endTime: Date; milestone?: boolean }> };
  return db.getTasks().map((t) => [t.task.trim(), t.startTime.toISOString(), t.endTime.toISOString(), t.milestone === true]);
}

describe('ganttBlock', () => {
  it('a halted staged run: its waves and soaks to scale, the failed gate and the halt as milestones', async () => {
    const block = ganttBlock('upgrade', halted);
    expect(block.join('\n')).toMatchInlineSnapshot(`
      "\`\`\`mermaid
      gantt
        title karp-drift upgrade (UTC)
        dateFormat YYYY-MM-DD HH:mm:ss
        axisFormat %H:%M:%S
        section Stage 1 canary
        wave 1/2, up to 1 of 3 :done, 2026-11-25 17:43:00, 2026-11-25 17:43:40
        soak :2026-11-25 17:43:40, 2026-11-25 17:48:40
        wave 2/2, up to 3 of 3 :done, 2026-11-25 17:48:41, 2026-11-25 17:49:40
        section Stage 2 rollout
        wave 1/2, up to 1 of 24 :crit, 2026-11-25 17:49:41, 2026-11-25 17:50:41
        section Checks and end
        gate failed POD-FAILING :crit, milestone, 2026-11-25 17:50:40, 0s
        halted :crit, milestone, 2026-11-25 17:50:41, 0s
      \`\`\`"
    `);
    // The times Mermaid reads are the run's own (this machine runs in UTC, as CI does; GitHub reads and draws them in
    // the viewer's zone alike, so the axis shows UTC).
    expect(await tasksOf(block)).toEqual([
      ['wave 1/2, up to 1 of 3', '2026-11-25T17:43:00.000Z', '2026-11-25T17:43:40.000Z', false],
      ['soak', '2026-11-25T17:43:40.000Z', '2026-11-25T17:48:40.000Z', false],
      ['wave 2/2, up to 3 of 3', '2026-11-25T17:48:41.000Z', '2026-11-25T17:49:40.000Z', false],
      ['wave 1/2, up to 1 of 24', '2026-11-25T17:49:41.000Z', '2026-11-25T17:50:41.000Z', false],
      ['gate failed POD-FAILING', '2026-11-25T17:50:40.000Z', '2026-11-25T17:50:40.000Z', true],
      ['halted', '2026-11-25T17:50:41.000Z', '2026-11-25T17:50:41.000Z', true],
    ]);
  });

  it('a run without stages (wait) is one bar from its start to its end; pause draws nothing', async () => {
    const done = { type: 'done', time: at(300), result: 'succeeded', durationSeconds: 300 };
    const block = ganttBlock('wait', [{ type: 'done', time: at(300), result: 'succeeded' }], done);
    expect(await tasksOf(block)).toEqual([
      ['drift replacement', at(0), at(300), false],
      ['succeeded', at(300), at(300), true],
    ]);
    expect(ganttBlock('pause', [{ type: 'holds', time: at(0), action: 'paused', nodePools: [{ nodePool: 'general' }] }])).toEqual([]);
  });

  it(`hundreds of waves: at most ${MAX_TASKS} tasks, the first and the last, and still a chart Mermaid reads`, async () => {
    const many: RunEvent[] = Array.from({ length: 300 }, (_, i) => ({ type: 'wave', time: at(i * 10), stage: 1, name: 'rollout', wave: i + 1, waves: 300, target: i + 1, size: 300 }));
    const block = ganttBlock('upgrade', many);
    expect(block.join('\n')).toContain(`%% ${300 - MAX_TASKS} tasks left out`);
    const tasks = await tasksOf(block);
    expect(tasks).toHaveLength(MAX_TASKS);
    expect(tasks.at(-1)![0]).toBe('wave 300/300, up to 300 of 300');
    expect(block.join('\n').length).toBeLessThan(50_000); // Mermaid's maxTextSize: past it, nothing is drawn
  });

  it("names never carry what Mermaid's gantt grammar reads as syntax", async () => {
    const odd: RunEvent[] = [
      { type: 'wave', time: at(0), stage: 1, name: 'a:b;c#d', wave: 1, waves: 1, target: 1, size: 1 },
      { type: 'done', time: at(5), result: 'failed: what; #1' },
    ];
    expect((await tasksOf(ganttBlock('upgrade', odd))).map((t) => t[0])).toEqual(['wave 1/1, up to 1 of 1', 'failed what 1']);
  });
});

describe('the summary draws it', () => {
  it('under #### Timeline, after the rollout, from the events the run recorded', () => {
    const r = newSummaryRecord('upgrade');
    for (const e of halted) recordSummary(r, e);
    const md = summaryMarkdown(r, 6);
    expect(md).toContain('#### Timeline\n\n```mermaid\ngantt\n');
  });
});
