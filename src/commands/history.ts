// `karp-drift history [run] [--html <file>]`: the runs this cluster remembers (apis/run-record.ts), newest first, or
// one in full, or its picture. Read-only: `get` on the record slots and on the lock's Lease, which the read-only role
// grants (deploy/rbac.yaml); the Lease says whether a record still `running` belongs to a live run.
import { writeFile } from 'node:fs/promises';
import type { CommandContext } from './context.js';
import { runLiveness, RUN_RECORD_PREFIX, shortRunId, type RunRecord } from '../apis/run-record.js';
import { readLease } from '../cluster/lock.js';
import { readRecordSlots, type RecordSlot } from '../cluster/run-records.js';
import { UsageError } from '../errors.js';
import { historyHtml } from '../report/history-html.js';
import { historyListJson, historyListText, historyRunJson, historyRunText, type ListedRun } from '../report/history.js';
import type { HistoryOptions } from './options.js';
import { connect } from './connect.js';

export async function history(options: HistoryOptions, ctx: CommandContext): Promise<void> {
  const { cluster, log } = await connect(ctx);
  const json = ctx.globals.output === 'json';
  try {
    const namespace = options.lockNamespace;
    const [slots, lease] = await Promise.all([
      readRecordSlots(cluster, namespace, { timelines: options.run !== undefined, signal: ctx.signal }),
      // Whether a record still `running` has a live run; without the Lease, its last write says it.
      readLease(cluster, namespace, ctx.signal).catch(() => undefined),
    ]);
    const now = new Date();
    const runs = slots
      .filter((s): s is RecordSlot & Required<Pick<RecordSlot, 'summary'>> => s.summary !== undefined)
      .map((s) => ({ slot: s, listed: { summary: s.summary, liveness: runLiveness(s.summary, lease, now) } satisfies ListedRun }))
      .sort((a, b) => (a.listed.summary.startedAt < b.listed.summary.startedAt ? 1 : -1));
    if (options.run === undefined) {
      if (json) ctx.io.out(historyListJson(runs.map((r) => r.listed)));
      else if (runs.length === 0) log.info(`No karp-drift runs recorded in ${namespace} (configmaps ${RUN_RECORD_PREFIX}00 to ${RUN_RECORD_PREFIX}19).`);
      else ctx.io.out(historyListText(runs.map((r) => r.listed)));
      return;
    }
    const run = pickRun(runs, options.run, namespace);
    const record: RunRecord = { summary: run.listed.summary, timeline: run.slot.timeline ?? { nodePools: [], events: [], replacements: {} } };
    if (options.html !== undefined) {
      await writeFile(options.html, historyHtml(record, now));
      log.info(`Wrote the timeline of run ${shortRunId(record.summary.runId)} to ${options.html}.`);
      return;
    }
    ctx.io.out(json ? historyRunJson(record, run.listed.liveness) : historyRunText(record, run.listed.liveness));
  } finally {
    cluster.close();
  }
}

/** The run a prefix names (`3f2a9c1e`, as the list shows it, or the whole id); none or several is a usage error. */
function pickRun<T extends { listed: ListedRun }>(runs: readonly T[], prefix: string, namespace: string): T {
  const found = runs.filter((r) => r.listed.summary.runId.startsWith(prefix));
  if (found.length === 1) return found[0]!;
  if (found.length === 0)
    throw new UsageError(`no run ${JSON.stringify(prefix)} among the ${runs.length} recorded in ${namespace}`, {
      hint: `karp-drift history lists them${namespace !== 'kube-system' ? ` (with --lock-namespace ${namespace})` : ''}; only the newest 20 are kept`,
    });
  throw new UsageError(`${JSON.stringify(prefix)} names ${found.length} runs: ${found.map((r) => r.listed.summary.runId).join(', ')}`, {
    hint: 'give more of the run id',
  });
}
