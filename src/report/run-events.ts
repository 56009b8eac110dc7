// The milestones of a run, kept from the NDJSON events it reports (the same documents `-o json` prints and
// --summary-file records), compact and bounded: for the run's record in the cluster (apis/run-record.ts), its picture
// (history-html.ts) and the step summary's Mermaid chart (mermaid-gantt.ts). A `progress` or `hold` event is not a
// milestone (thousands in a long run); a passed gate is, but only the newest MAX_PASSES are kept. Pure.
import type { GateFinding, RunEvent } from '../apis/run-record.js';

type Doc = Record<string, unknown>;

/** Past these the oldest are dropped: a record stays far under the 1 MiB object limit whatever a run reports. */
export const MAX_EVENTS = 400;
export const MAX_PASSES = 100;
const MAX_EARLY_BLOCKERS = 30;
const MAX_FINDINGS = 10;
const MAX_EVIDENCE = 5;
const MAX_TEXT = 300;

const text = (v: unknown): string => {
  const s = typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v);
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
};
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const strings = (v: unknown, max: number): string[] => (Array.isArray(v) ? v.slice(0, max).map(text) : []);
const opt = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> =>
  v === undefined ? {} : ({ [key]: v } as Record<K, V>);

function findings(v: unknown): GateFinding[] {
  if (!Array.isArray(v)) return [];
  return (v as Doc[]).slice(0, MAX_FINDINGS).map((f) => ({
    code: text(f.code),
    ...opt('subject', typeof f.subject === 'string' ? f.subject : undefined),
    ...opt('nodePool', typeof f.nodePool === 'string' ? f.nodePool : undefined),
    message: text(f.message),
    ...opt('evidence', Array.isArray(f.evidence) ? strings(f.evidence, MAX_EVIDENCE) : undefined),
  }));
}

/** The milestone an NDJSON event is, or undefined for one that is not (progress, hold, plan, …). */
export function runEventOf(e: Doc): RunEvent | undefined {
  const time = typeof e.time === 'string' ? e.time : '';
  switch (e.type) {
    case 'stage':
      return { type: 'stage', time, stage: num(e.stage), name: text(e.name), nodePools: strings(e.nodePools, 500), size: num(e.size), waves: Array.isArray(e.waves) ? e.waves.map(num) : [] };
    case 'wave':
      return {
        type: 'wave',
        time,
        stage: num(e.stage),
        name: text(e.name),
        wave: num(e.wave),
        waves: num(e.waves),
        target: num(e.target),
        size: num(e.size),
        ...opt('picks', Array.isArray(e.picks) ? (e.picks as Doc[]).map((p) => `${text(p.amiLabel ?? p.ami)} on nodepool/${text(p.nodePool)}`) : undefined),
      };
    case 'soak':
      return { type: 'soak', time, stage: num(e.stage), name: text(e.name), wave: num(e.wave), until: text(e.until), stageDone: e.stageDone === true };
    case 'gate':
      return {
        type: 'gate',
        time,
        gate: text(e.gate),
        point: text(e.point),
        result: text(e.result),
        ...opt('stage', typeof e.stage === 'number' ? e.stage : undefined),
        ...opt('wave', typeof e.wave === 'number' ? e.wave : undefined),
        ...opt('failures', typeof e.failures === 'number' ? e.failures : undefined),
        ...opt('failureLimit', typeof e.failureLimit === 'number' ? e.failureLimit : undefined),
        // A pass says only that it passed; the evidence is what a failure leaves for the person who comes next.
        ...(e.result !== 'passed' ? { findings: findings(e.findings) } : {}),
      };
    case 'window':
      return { type: 'window', time, event: text(e.event), ...opt('opensAt', e.opensAt as string | null | undefined), ...opt('closesAt', e.closesAt as string | null | undefined) };
    case 'blocked': {
      const where = e.nodePool ?? e.nodeClass;
      return {
        type: 'blocked',
        time,
        stage: text(e.stage),
        code: text(e.code),
        ...opt('where', where !== undefined ? `${e.nodePool !== undefined ? 'nodepool' : 'ec2nodeclass'}/${text(where)}` : undefined),
        message: text(e.message),
        evidence: strings(e.evidence, MAX_EVIDENCE),
      };
    }
    case 'release':
      // The first wave's do-not-disrupt coming off is part of the wave, not the end of the hold.
      return e.wave === true ? undefined : { type: 'release', time, nodePool: text(e.nodePool), mechanism: text(e.mechanism) };
    case 'holds':
      return {
        type: 'holds',
        time,
        action: text(e.action),
        nodePools: Array.isArray(e.nodePools) ? (e.nodePools as Doc[]).slice(0, 500).map((p) => ({ nodePool: text(p.nodePool), ...opt('mechanism', typeof p.mechanism === 'string' ? p.mechanism : undefined) })) : [],
      };
    case 'done':
      return {
        type: 'done',
        time,
        result: text(e.result),
        ...opt('cause', typeof e.cause === 'string' ? e.cause : undefined),
        ...opt('paused', Array.isArray(e.paused) ? strings(e.paused, 500) : undefined),
        ...opt('message', typeof e.message === 'string' ? text(e.message) : undefined),
      };
    default:
      return undefined;
  }
}

/** Milestones write the record soon (MILESTONE_GAP_MS); the rest wait for the next periodic write. */
export function isMilestone(e: RunEvent): boolean {
  if (e.type === 'gate') return e.result !== 'passed' || e.point === 'wave-end' || e.point === 'soak-end';
  if (e.type === 'blocked') return e.stage === 'stall';
  return e.type !== 'release';
}

/**
 * Appends `e` to `events` in place, within the bounds: an early blocker already there is replaced (its evidence
 * changed), and past them the oldest passed gate or early blocker goes first, then the oldest of any.
 */
export function addRunEvent(events: RunEvent[], e: RunEvent): void {
  if (e.type === 'blocked' && e.stage === 'early') {
    const same = events.findIndex((x) => x.type === 'blocked' && x.stage === 'early' && x.code === e.code && x.where === e.where);
    if (same >= 0) events.splice(same, 1);
    dropOldest(events, (x) => x.type === 'blocked' && x.stage === 'early', MAX_EARLY_BLOCKERS - 1);
  }
  if (e.type === 'gate' && e.result === 'passed') dropOldest(events, (x) => x.type === 'gate' && x.result === 'passed', MAX_PASSES - 1);
  events.push(e);
  if (events.length > MAX_EVENTS) {
    const expendable = events.findIndex((x) => (x.type === 'gate' && x.result === 'passed') || (x.type === 'blocked' && x.stage === 'early'));
    events.splice(expendable >= 0 ? expendable : 0, 1);
  }
}

function dropOldest(events: RunEvent[], which: (e: RunEvent) => boolean, keep: number): void {
  let count = events.filter(which).length;
  for (let i = 0; i < events.length && count > keep; ) {
    if (which(events[i]!)) {
      events.splice(i, 1);
      count--;
    } else i++;
  }
}
