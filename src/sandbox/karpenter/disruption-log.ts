// The simulated Karpenter's own record of the drift commands it started and when each ended, for tests that check a
// pacer from outside: "never more old nodes in flight in a NodePool than the wave allows" is a question about the
// instants commands start and end, which snapshots polled by a client can miss. Karpenter has no such list (its
// orchestration queue forgets a command once it is done); the sandbox keeps one because tests need the history.
// Bounded: the oldest records go once `capacity` is reached; appending and ending are O(1).

export interface DisruptionRecord {
  /** Wall-clock time (ISO) the command started: the node tainted, DisruptionReason set, the replacement created. */
  time: string;
  nodePool: string;
  /** The old NodeClaim. */
  nodeClaim: string;
  /** The old Node. */
  node: string;
  /**
   * The replacement NodeClaims the command created: usually one; none when its scheduling simulation placed the
   * node's pods on other nodes (a delete, which an empty node always is); more when pods of other deleting nodes or
   * pending pods needed room too.
   */
  replacements: string[];
  /**
   * The NodePool's allowed Drifted disruptions when the command started, this command's slot included (so at
   * least 1): the budget minus the nodes already disrupting, as Karpenter computed it for the pass.
   */
  budgetAllowed: number;
  /** Wall-clock time (ISO) the old NodeClaim was gone from the API (its finalizer removed): the command is over. */
  finished?: string;
  /**
   * Wall-clock time (ISO) the command failed (the replacement disappeared or did not initialize in 10 minutes): the
   * node is untainted and stays; if it is picked again, that is a new record.
   */
  failed?: string;
}

export class DisruptionLog {
  private readonly records: DisruptionRecord[] = [];
  /** Index in `records` of the oldest record kept, once the buffer has wrapped. */
  private head = 0;
  /** Old NodeClaim → its open record (started, neither finished nor failed). */
  private readonly open = new Map<string, DisruptionRecord>();

  constructor(readonly capacity = 10_000) {}

  /** A command started. */
  started(record: Omit<DisruptionRecord, 'finished' | 'failed'>): void {
    const entry: DisruptionRecord = { ...record };
    if (this.records.length < this.capacity) {
      this.records.push(entry);
    } else {
      const dropped = this.records[this.head]!;
      if (this.open.get(dropped.nodeClaim) === dropped) this.open.delete(dropped.nodeClaim);
      this.records[this.head] = entry;
      this.head = (this.head + 1) % this.capacity;
    }
    this.open.set(record.nodeClaim, entry);
  }

  /** The old NodeClaim is gone from the API. Ends its open command, if any (a NodeClaim no command disrupted has none). */
  gone(nodeClaim: string, time: Date): void {
    const entry = this.open.get(nodeClaim);
    if (!entry) return;
    entry.finished = time.toISOString();
    this.open.delete(nodeClaim);
  }

  /** The command for this old NodeClaim failed. */
  failed(nodeClaim: string, time: Date): void {
    const entry = this.open.get(nodeClaim);
    if (!entry) return;
    entry.failed = time.toISOString();
    this.open.delete(nodeClaim);
  }

  /** The records kept, oldest first: a copy whose entries are the live records (ends are filled in as they happen). */
  entries(): DisruptionRecord[] {
    return [...this.records.slice(this.head), ...this.records.slice(0, this.head)];
  }

  /** Commands in flight at `at` per NodePool: started at or before it, and not finished or failed by then. */
  inFlight(at: Date | string = new Date(8.64e15)): Map<string, number> {
    const t = typeof at === 'string' ? Date.parse(at) : at.getTime();
    const counts = new Map<string, number>();
    for (const r of this.records) {
      const end = r.finished ?? r.failed;
      if (Date.parse(r.time) > t || (end !== undefined && Date.parse(end) <= t)) continue;
      counts.set(r.nodePool, (counts.get(r.nodePool) ?? 0) + 1);
    }
    return counts;
  }

  /**
   * The most commands ever in flight at once per NodePool over the records kept. An end and a start at the same
   * instant do not overlap: the slot was free when the next command took it.
   */
  maxInFlight(): Map<string, number> {
    const edges: Array<{ t: number; pool: string; delta: 1 | -1 }> = [];
    for (const r of this.records) {
      edges.push({ t: Date.parse(r.time), pool: r.nodePool, delta: 1 });
      const end = r.finished ?? r.failed;
      if (end !== undefined) edges.push({ t: Date.parse(end), pool: r.nodePool, delta: -1 });
    }
    edges.sort((a, b) => a.t - b.t || a.delta - b.delta);
    const now = new Map<string, number>();
    const max = new Map<string, number>();
    for (const e of edges) {
      const n = (now.get(e.pool) ?? 0) + e.delta;
      now.set(e.pool, n);
      if (n > (max.get(e.pool) ?? 0)) max.set(e.pool, n);
    }
    return max;
  }
}
