// The run's record in the cluster (issue 37; apis/run-record.ts), kept beside what the run already reports: the
// summary record every NDJSON document goes through (report/summary.ts) tells it each milestone, the follow hands it
// its snapshot (the replacements), and the CLI's end gives it the exit code. It never decides anything about the
// rollout and never fails a run: a record it cannot write is one warning.
//
// Writes are bounded: one when the run begins (it takes the lock, or it starts following), one per milestone but at
// most every MILESTONE_GAP_MS, one every RECORD_EVERY_MS while the cluster changes, and one at the end. A run killed
// with `kill -9` leaves `result: running`, and `history` tells from the lock's Lease and `updatedAt` that it is gone.
import { callDeadline } from '../cluster/api-errors.js';
import { hostname, userInfo } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { LockHolder } from '../apis/lock.js';
import { holderIdentity } from '../apis/lock.js';
import { MILESTONE_GAP_MS, RECORD_EVERY_MS, runLiveness, slotToUse, type RunRecord } from '../apis/run-record.js';
import type { Cluster } from '../cluster/client.js';
import { ApiError } from '../cluster/request.js';
import { deniedRecordNeeds, readRecordSlot, readRecordSlots, whoAmI, writeRecord, type RecordSlot } from '../cluster/run-records.js';
import { isMilestone } from '../report/run-events.js';
import { runRecord, type RunMeta } from '../report/run-record.js';
import type { SummaryRecord } from '../report/summary.js';
import { foldReplacements, type ReplacementSpan } from '../rollout/replacements.js';
import type { Snapshot } from '../rollout/snapshot.js';

export interface RunHistoryOptions {
  summary: SummaryRecord;
  /** --lock-namespace: where the records are, beside the lock. */
  namespace: string;
  command: string;
  commandLine: string;
  log: Logger;
  /** `upgrade --report <file>`: the run's picture, written at the end. */
  reportFile?: string;
}

/**
 * How long the record may hold the run up: its first write (who, a slot, the create) and each write after it. An API
 * server that hangs costs the run this much, not --request-timeout per request: the record is not the run.
 */
const BEGIN_WITHIN_MS = 15_000;
const WRITE_WITHIN_MS = 5_000;

interface Followed {
  snapshot: Snapshot;
  nodePools: ReadonlySet<string>;
  revision: number;
}

export class RunHistory {
  private cluster: Cluster | undefined;
  private meta: RunMeta | undefined;
  private slot: Pick<RecordSlot, 'name' | 'resourceVersion'> | undefined;
  private began: Promise<void> | undefined;
  private disabled = false;
  private warned = false;
  private readonly followed: Followed[] = [];
  private readonly replacements = new Map<string, ReplacementSpan>();
  private chain: Promise<void> = Promise.resolve();
  private lastWriteAt = 0;
  private dirty = false;
  private soon: NodeJS.Timeout | undefined;
  private every: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunHistoryOptions) {
    options.summary.listener = (e) => {
      this.dirty = true;
      if (isMilestone(e)) this.writeSoon();
    };
  }

  /**
   * The run begins: with the cluster lock (`holder`: every writing command), or as it starts following without it
   * (`wait`, an upgrade with nothing to apply), where the record is written only if RBAC allows it (`wait` needs only
   * the read-only role, which cannot write records: it then runs without one). Once per run; later calls add only
   * the lock's holder.
   */
  begin(cluster: Cluster, holder?: LockHolder): Promise<void> {
    if (this.began) {
      if (holder && this.meta && this.meta.lockHolder === undefined) this.meta.lockHolder = holderIdentity(holder);
      return this.began;
    }
    this.began = this.start(cluster, holder, callDeadline(BEGIN_WITHIN_MS, "this run's record")).catch((err: unknown) => {
      this.disabled = true;
      this.fail(err);
    });
    return this.began;
  }

  /**
   * The run gave the lock up and goes on without it (an upgrade that follows after its apply): its record stops
   * naming the Lease, so that `history` judges it alive by its writes from now on.
   */
  released(holder: LockHolder): void {
    if (this.meta?.lockHolder !== holderIdentity(holder)) return;
    delete this.meta.lockHolder;
    this.dirty = true;
    this.writeSoon();
  }

  /** The follow's snapshot, kept current by its watches: the replacements are read from it at each write. */
  follow(snapshot: Snapshot, nodePools: readonly string[]): void {
    this.followed.push({ snapshot, nodePools: new Set(nodePools), revision: -1 });
  }

  /** The command has ended with `exitCode`: the last write, and the picture with --report. */
  async finish(exitCode: number): Promise<void> {
    clearTimeout(this.soon);
    clearInterval(this.every);
    await this.began;
    await this.chain;
    if (this.meta === undefined) {
      if (this.options.reportFile !== undefined)
        this.options.log.warn(`--report ${this.options.reportFile}: not written, the run changed and followed nothing`);
      return;
    }
    const ended = { at: new Date(), exitCode };
    const record = this.record(ended);
    if (!this.disabled && this.cluster) await this.write(record, false, true);
    this.cluster?.close(); // the command closed it before its end: this last write opened a connection again
    if (this.options.reportFile !== undefined) {
      try {
        // Loaded only for --report: the page and its time scale are no part of a run that draws nothing.
        const { historyHtml } = await import('../report/history-html.js');
        await writeFile(this.options.reportFile, historyHtml(record, new Date()));
      } catch (err) {
        this.options.log.warn(`could not write the report to ${this.options.reportFile}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private async start(cluster: Cluster, holder: LockHolder | undefined, signal: AbortSignal): Promise<void> {
    this.cluster = cluster;
    const { namespace, log } = this.options;
    const me = holder ?? { runId: randomUUID(), user: machineUser() };
    const now = new Date();
    // Known before any request: --report draws the run from it even where the cluster keeps no record of it.
    this.meta = {
      runId: me.runId,
      command: this.options.command,
      commandLine: this.options.commandLine,
      user: { name: cluster.kc.getContextObject(cluster.context)?.user ?? 'unknown', source: 'kubeconfig' },
      host: `${me.user}@${hostname()}`,
      ...(holder ? { lockHolder: holderIdentity(holder) } : {}),
      cluster: cluster.identity,
      startedAt: now,
      updatedAt: now,
    };
    if (holder === undefined) {
      const denied = await deniedRecordNeeds(cluster, namespace, signal);
      if (denied.length > 0) {
        this.disabled = true;
        log.debug(`no run record: the identity may not ${denied.map((a) => `${a.verb} ${a.resource}${a.name ? `/${a.name}` : ''}`).join(', ')} in ${namespace} (karp-drift history will not list this run)`);
        return;
      }
    }
    const user = await whoAmI(cluster, signal).catch(() => undefined);
    if (user) this.meta.user = { name: user.name, source: 'SelfSubjectReview', groups: user.groups };
    await this.claimSlot(signal);
    this.every = setInterval(() => {
      if (this.changed()) this.queueWrite();
    }, RECORD_EVERY_MS).unref();
  }

  /** A free slot, else the oldest record's; a run that took the same slot meanwhile (409) sends it to the next. */
  private async claimSlot(signal: AbortSignal): Promise<void> {
    const { namespace } = this.options;
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = new Date();
      const slots = await readRecordSlots(this.cluster!, namespace, { signal });
      const live = slots.map((s) => ({ ...s, live: s.summary !== undefined && runLiveness(s.summary, undefined, now) === 'running' }));
      const name = slotToUse(live);
      const slot = slots.find((s) => s.name === name)!;
      this.slot = { name: slot.name, ...(slot.resourceVersion !== undefined ? { resourceVersion: slot.resourceVersion } : {}) };
      try {
        await this.write(this.record(), true);
        return;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      }
    }
    throw new Error('every free slot was taken by another run meanwhile, three times');
  }

  private record(ended?: { at: Date; exitCode: number }): RunRecord {
    for (const f of this.followed) foldReplacements(this.replacements, f.snapshot, f.nodePools, this.meta!.startedAt.getTime());
    const meta = { ...this.meta!, updatedAt: ended?.at ?? new Date(), ...(ended ? { ended } : {}) };
    return runRecord(meta, this.options.summary, this.replacements.values());
  }

  /** Whether the cluster changed since the last write (a watch event, a milestone). */
  private changed(): boolean {
    let changed = this.dirty;
    for (const f of this.followed) if (f.snapshot.revision !== f.revision) changed = true;
    return changed;
  }

  private writeSoon(): void {
    if (this.meta === undefined || this.disabled || this.soon !== undefined) return;
    const wait = Math.max(0, this.lastWriteAt + MILESTONE_GAP_MS - Date.now());
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.queueWrite();
    }, wait);
    this.soon.unref();
  }

  private queueWrite(): void {
    this.chain = this.chain.then(() => (this.disabled ? undefined : this.write(this.record()).catch((err: unknown) => this.fail(err, false))));
  }

  /**
   * One write of the record into the run's slot; `rethrow` for the first, whose 409 means another slot. A write that
   * fails mid-run (an API server blip the run itself rides out) is said only with -v: the next write carries the same
   * record; the last one (`final`) says so, since nothing comes after it.
   */
  private async write(record: RunRecord, rethrow = false, final = false): Promise<void> {
    this.dirty = false;
    for (const f of this.followed) f.revision = f.snapshot.revision;
    this.lastWriteAt = Date.now();
    try {
      await this.put(record).catch(async (err: unknown) => {
        if (rethrow || !(err instanceof ApiError && err.code === 409) || !(await this.stillOurs())) throw err;
        await this.put(record);
      });
    } catch (err) {
      if (rethrow) throw err;
      // Our slot was written by another run (a 409 after we wrote it: twenty newer runs): stop, never fight for it.
      if (err instanceof ApiError && err.code === 409) this.disabled = true;
      this.fail(err, final || this.disabled);
    }
  }

  private async put(record: RunRecord): Promise<void> {
    const version = await writeRecord(this.cluster!, this.options.namespace, this.slot!, record, callDeadline(WRITE_WITHIN_MS, "this run's record"));
    this.slot = { name: this.slot!.name, resourceVersion: version };
  }

  /**
   * After a 409: whether the slot still holds this run's record. A write given up on (its 5 s passed, or the
   * connection was cut) can still land, leaving the version this run knows behind its own write: seen at the end of a
   * run on `large`, whose last write then failed with "the object has been modified". If the record is ours, its
   * version is taken and the write made again; if another run's, the slot is theirs.
   */
  private async stillOurs(): Promise<boolean> {
    const slot = await readRecordSlot(this.cluster!, this.options.namespace, this.slot!.name, callDeadline(WRITE_WITHIN_MS, "this run's record")).catch(() => undefined);
    if (slot?.summary?.runId !== this.meta!.runId || slot.resourceVersion === undefined) return false;
    this.slot = { name: slot.name, resourceVersion: slot.resourceVersion };
    return true;
  }

  private fail(err: unknown, loud = true): void {
    if (this.warned || !loud) {
      this.options.log.debug(`run record: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.warned = true;
    this.options.log.warn(
      `could not write this run's record in ${this.options.namespace} (karp-drift history): ${err instanceof Error ? err.message : String(err)}; the run itself is not affected`,
    );
  }
}

/** The machine's user, as the lock names a run's (commands/hold-shared.ts): none in a container without a passwd entry. */
function machineUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
