// The run's record (apis/run-record.ts) from what the run reported: the plan, the `wait` document, the `done` event
// and the error its summary record holds (report/summary.ts), its milestones, and the replacements its follow saw
// (rollout/replacements.ts). Built again at each write, so the record is always the run as far as it has gone. Pure.
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type {
  ReplacementColumns,
  RunAmis,
  RunNodePool,
  RunRecord,
  RunSummary,
  RunUser,
} from '../apis/run-record.js';
import type { ReplacementSpan } from '../rollout/replacements.js';
import { amiSelectorTermText } from '../text/words.js';
import { runResult, type SummaryRecord } from './summary.js';
import { inOrder } from '../text/order.js';

type Doc = Record<string, unknown>;

export interface RunMeta {
  runId: string;
  command: string;
  commandLine: string;
  user: RunUser;
  host: string;
  lockHolder?: string;
  cluster: ClusterIdentity;
  startedAt: Date;
  updatedAt: Date;
  /** Once the command has ended: when, and the code the process exits with. */
  ended?: { at: Date; exitCode: number };
}

const MAX_MESSAGE = 1000;
const cut = (s: string): string => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s);
const docs = (v: unknown): Doc[] => (Array.isArray(v) ? (v as Doc[]) : []);
const terms = (side: unknown): string[] =>
  docs((side as Doc | undefined)?.amiSelectorTerms).map((t) => amiSelectorTermText(t as Parameters<typeof amiSelectorTermText>[0]));

/** Each class's selection before and after: from the plan (upgrade, rollback), else what `wait` followed. */
function amisOf(r: SummaryRecord): RunAmis[] {
  if (r.plan !== undefined)
    return docs(r.plan.nodeClasses).map((c) => {
      const targets = docs(c.targets).map((t) => ({
        id: String(t.id),
        ...(typeof t.name === 'string' ? { name: t.name } : {}),
        ...(typeof t.release === 'string' ? { release: t.release } : {}),
      }));
      return { nodeClass: String(c.name), before: terms(c.before), after: terms(c.after), ...(targets.length > 0 ? { targets } : {}) };
    });
  return docs(r.wait?.nodeClasses).map((c) => ({
    nodeClass: String(c.name),
    before: [],
    after: (Array.isArray(c.amis) ? (c.amis as unknown[]) : []).map((id) => `id=${String(id)}`),
  }));
}

function nodePoolsOf(r: SummaryRecord): RunNodePool[] {
  const counted = docs(r.done?.nodePools).map((p) => ({
    name: String(p.name),
    ...(typeof p.nodeClass === 'string' ? { nodeClass: p.nodeClass } : {}),
    ...(['total', 'replaced', 'onTarget', 'remaining'] as const).reduce<Partial<RunNodePool>>(
      (o, k) => (typeof p[k] === 'number' ? { ...o, [k]: p[k] } : o),
      {},
    ),
  }));
  if (counted.length > 0) return counted;
  const planned = docs(r.plan?.nodePools).map((p) => ({ name: String(p.name), ...(typeof p.nodeClass === 'string' ? { nodeClass: p.nodeClass } : {}) }));
  if (planned.length > 0) return planned;
  const held = r.timeline.flatMap((e) => (e.type === 'holds' ? e.nodePools.map((p) => p.nodePool) : []));
  return [...new Set(held)].map((name) => ({ name }));
}

/** Whole seconds from the record's start: the API's timestamps have no finer ones. */
const since = (startedAt: Date, t: number): number => Math.round((t - startedAt.getTime()) / 1000);

/** The replacements as columns per NodePool, in the order they started. */
export function replacementColumns(spans: Iterable<ReplacementSpan>, startedAt: Date): Record<string, ReplacementColumns> {
  const byPool = new Map<string, ReplacementSpan[]>();
  for (const s of spans) {
    const list = byPool.get(s.nodePool);
    if (list) list.push(s);
    else byPool.set(s.nodePool, [s]);
  }
  const out: Record<string, ReplacementColumns> = {};
  for (const [pool, list] of [...byPool].sort(([a], [b]) => inOrder(a, b))) {
    list.sort((a, b) => a.start - b.start || inOrder(a.name, b.name));
    out[pool] = {
      names: list.map((s) => s.name),
      start: list.map((s) => since(startedAt, s.start)),
      end: list.map((s) => (s.end !== undefined ? since(startedAt, s.end) : null)),
      failed: list.flatMap((s, i) => (s.failed ? [i] : [])),
    };
  }
  return out;
}

/** Nodes replaced: as the rollout's `done` counted them, else (a run killed mid-way) the replacements seen up. */
function summaryOf(meta: RunMeta, r: SummaryRecord, columns: Record<string, ReplacementColumns>): RunSummary {
  const up = Object.values(columns).reduce((n, c) => {
    const failed = new Set(c.failed);
    return n + c.end.filter((e, i) => e != null && !failed.has(i)).length;
  }, 0);
  const replaced = r.done ? docs(r.done.nodePools).reduce((n, p) => n + (typeof p.replaced === 'number' ? p.replaced : 0), 0) : up;
  const message = meta.ended ? (r.error?.message ?? (typeof r.done?.message === 'string' ? r.done.message : undefined)) : undefined;
  const target = r.plan?.kubernetesVersion ?? r.wait?.targetMinor;
  return {
    apiVersion: 'karp-drift.io/v1',
    kind: 'RunRecord',
    runId: meta.runId,
    command: meta.command,
    commandLine: meta.commandLine,
    user: meta.user,
    host: meta.host,
    ...(meta.lockHolder !== undefined ? { lockHolder: meta.lockHolder } : {}),
    cluster: meta.cluster,
    startedAt: meta.startedAt.toISOString(),
    updatedAt: meta.updatedAt.toISOString(),
    endedAt: meta.ended ? meta.ended.at.toISOString() : null,
    result: meta.ended ? runResult(r, meta.ended.exitCode) : 'running',
    exitCode: meta.ended ? meta.ended.exitCode : null,
    ...(message !== undefined ? { message: cut(message) } : {}),
    ...(typeof target === 'string' ? { target } : {}),
    nodesReplaced: replaced,
    amis: amisOf(r),
  };
}

export function runRecord(meta: RunMeta, r: SummaryRecord, replacements: Iterable<ReplacementSpan>): RunRecord {
  const columns = replacementColumns(replacements, meta.startedAt);
  return {
    summary: summaryOf(meta, r, columns),
    timeline: { nodePools: nodePoolsOf(r), events: [...r.timeline], replacements: columns },
  };
}
