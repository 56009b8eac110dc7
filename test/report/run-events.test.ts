// The milestones a run keeps from its NDJSON events (report/run-events.ts), and their bounds.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/apis/run-record.js';
import { addRunEvent, isMilestone, MAX_EVENTS, MAX_PASSES, runEventOf } from '../../src/report/run-events.js';

const time = '2026-11-25T17:43:36.000Z';

describe('runEventOf', () => {
  it.each<[string, Record<string, unknown>, RunEvent | undefined]>([
    ['progress is not a milestone', { type: 'progress', time, message: 'x' }, undefined],
    ['a hold update is not either', { type: 'hold', time, nodePool: 'general', allowance: 3 }, undefined],
    [
      'a wave, its picks in a word each',
      { type: 'wave', time, stage: 1, stages: 2, name: 'canary', wave: 1, waves: 2, target: 1, size: 3, started: 0, picks: [{ ami: 'ami-1', amiLabel: 'al2023 amd64 standard', nodePool: 'canary', node: null }] },
      { type: 'wave', time, stage: 1, name: 'canary', wave: 1, waves: 2, target: 1, size: 3, picks: ['al2023 amd64 standard on nodepool/canary'] },
    ],
    [
      'a failed gate keeps its findings and evidence, cut',
      {
        type: 'gate', time, gate: 'health', point: 'wave-end', stage: 1, stageName: 'canary', wave: 1, result: 'failed', failures: 1, failureLimit: 1,
        findings: [{ gate: 'workloads', code: 'POD-FAILING', subject: 'pod/apps/web-1', nodePool: 'canary', node: 'ip-1', ami: 'ami-1', message: 'web-1 CrashLoopBackOff', evidence: ['a', 'b', 'c', 'd', 'e', 'f', 'x'.repeat(400)] }],
        counts: { 'POD-FAILING': 1 },
      },
      {
        type: 'gate', time, gate: 'health', point: 'wave-end', result: 'failed', stage: 1, wave: 1, failures: 1, failureLimit: 1,
        findings: [{ code: 'POD-FAILING', subject: 'pod/apps/web-1', nodePool: 'canary', message: 'web-1 CrashLoopBackOff', evidence: ['a', 'b', 'c', 'd', 'e'] }],
      },
    ],
    [
      'a passed gate says only that it passed',
      { type: 'gate', time, gate: 'health', point: 'soak-end', stage: 1, wave: 1, result: 'passed', failures: 0, failureLimit: 1, findings: [], replacedNodes: 3 },
      { type: 'gate', time, gate: 'health', point: 'soak-end', result: 'passed', stage: 1, wave: 1, failures: 0, failureLimit: 1 },
    ],
    [
      "a 1/ami wave's do-not-disrupt coming off is part of its wave, not a release",
      { type: 'release', time, nodePool: 'general', mechanism: 'node', nodes: 3, wave: true },
      undefined,
    ],
    [
      'the end, with the NodePools it left held',
      { type: 'done', time, result: 'halted', cause: 'gate', paused: ['canary', 'general'], message: 'halted', nodePools: [], cluster: {} },
      { type: 'done', time, result: 'halted', cause: 'gate', paused: ['canary', 'general'], message: 'halted' },
    ],
    [
      'a stall verdict names where',
      { type: 'blocked', time, stage: 'stall', code: 'STALL-PDB', nodePool: 'general', message: 'PDB web', evidence: ['e1'], next: 'n' },
      { type: 'blocked', time, stage: 'stall', code: 'STALL-PDB', where: 'nodepool/general', message: 'PDB web', evidence: ['e1'] },
    ],
  ])('%s', (_name, doc, expected) => {
    expect(runEventOf(doc)).toEqual(expected);
  });
});

describe('addRunEvent: bounded whatever a run reports', () => {
  const pass = (i: number): RunEvent => ({ type: 'gate', time: new Date(Date.UTC(2026, 10, 25, 0, 0, i)).toISOString(), gate: 'command', point: 'interval', result: 'passed' });
  it(`keeps the newest ${MAX_PASSES} passed gates of a --gate-interval run of hours, and every milestone`, () => {
    const events: RunEvent[] = [];
    addRunEvent(events, { type: 'wave', time, stage: 1, name: 'rollout', wave: 1, waves: 1, target: 40, size: 40 });
    for (let i = 0; i < 5000; i++) addRunEvent(events, pass(i));
    expect(events.length).toBe(MAX_PASSES + 1);
    expect(events[0]!.type).toBe('wave');
    expect(events.at(-1)).toEqual(pass(4999));
  });

  it('replaces an early blocker whose evidence changed, and never grows past MAX_EVENTS', () => {
    const events: RunEvent[] = [];
    const blocked = (message: string): RunEvent => ({ type: 'blocked', time, stage: 'early', code: 'STALL-PDB', where: 'nodepool/general', message });
    addRunEvent(events, blocked('one'));
    addRunEvent(events, blocked('two'));
    expect(events).toEqual([blocked('two')]);
    for (let i = 0; i < 1000; i++) addRunEvent(events, { type: 'soak', time, stage: 1, name: 'r', wave: i, until: time, stageDone: false });
    expect(events.length).toBe(MAX_EVENTS);
  });

  it.each<[RunEvent, boolean]>([
    [pass(1), false],
    [{ type: 'gate', time, gate: 'health', point: 'wave-end', result: 'passed' }, true],
    [{ type: 'gate', time, gate: 'health', point: 'continuous', result: 'failed' }, true],
    [{ type: 'release', time, nodePool: 'general', mechanism: 'budget' }, false],
    [{ type: 'blocked', time, stage: 'early', code: 'STALL-PDB', message: '' }, false],
    [{ type: 'window', time, event: 'closed' }, true],
  ])('isMilestone(%j) is %s', (e, expected) => {
    expect(isMilestone(e)).toBe(expected);
  });
});
