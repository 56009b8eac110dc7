// The record every run that changes or follows a rollout leaves in the cluster (issue 37): which run, who, with what
// command, on which AMIs, how each wave and gate went and why it stopped, kept after the Events (an hour) and the CI
// log are gone, as `helm history` keeps a release's. One ConfigMap per run in the lock's namespace, in one of
// RUN_RECORD_SLOTS fixed names used in turn, the oldest record giving its name to the newest. Fixed names, not one
// name per run, because RBAC's resourceNames can then grant exactly them (deploy/rbac.yaml): reading the history
// needs `get` on these names and nothing else, where a name per run would need `list` on every ConfigMap of
// kube-system (aws-auth among them). Pure: the names, the shape, and whether a run that has not ended still lives.
import type { ClusterIdentity } from './cluster-identity.js';
import { LEASE_SECONDS, type LeaseView } from './lock.js';

/** How many records are kept: the newest, each run writing over the oldest. */
export const RUN_RECORD_SLOTS = 20;
export const RUN_RECORD_PREFIX = 'karp-drift-run-';
/** karp-drift-run-00 … karp-drift-run-19: the names deploy/rbac.yaml grants. */
export const RUN_RECORD_NAMES: readonly string[] = Array.from(
  { length: RUN_RECORD_SLOTS },
  (_, i) => `${RUN_RECORD_PREFIX}${String(i).padStart(2, '0')}`,
);
export const RUN_RECORD_LABELS = { 'app.kubernetes.io/name': 'karp-drift', 'karp-drift.io/record': 'run' } as const;
/** The run's id, as a label too, so `kubectl get cm -l karp-drift.io/run-id=…` finds it. */
export const RUN_ID_LABEL = 'karp-drift.io/run-id';
/** data: the summary `history` lists, readable with kubectl. */
export const SUMMARY_KEY = 'run.json';
/** binaryData: the timeline, gzip (it grows with the nodes: a replacement's start and end each). */
export const TIMELINE_KEY = 'timeline.json.gz';

/**
 * Writes are bounded (docs/history.md): at the start, at each milestone (stage, wave, soak, gate
 * verdict, window, halt, the end) but at most once per MILESTONE_GAP_MS, at most once per RECORD_EVERY_MS in between
 * while anything changed (replacements moving), and once at the end. A record not written for STALE_AFTER_MS by a run
 * not holding the lock is one that did not finish.
 */
export const MILESTONE_GAP_MS = 5_000;
export const RECORD_EVERY_MS = 60_000;
export const STALE_AFTER_MS = 3 * RECORD_EVERY_MS;

/** Who ran it: from a SelfSubjectReview (what the API server authenticated), else the kubeconfig's user entry. */
export interface RunUser {
  name: string;
  source: 'SelfSubjectReview' | 'kubeconfig';
  groups?: string[];
}

/** One EC2NodeClass's AMI selection before and after the run, as terms (`id=ami-…`, `alias=al2023@v…`). */
export interface RunAmis {
  nodeClass: string;
  before: string[];
  after: string[];
  /** The AMIs the after-terms resolve to, where the plan resolved them (upgrade): id and name. */
  targets?: Array<{ id: string; name?: string; release?: string }>;
}

/** What `history` lists, in `data["run.json"]`. */
export interface RunSummary {
  apiVersion: 'karp-drift.io/v1';
  kind: 'RunRecord';
  runId: string;
  /** The verb: upgrade, rollback, pause, resume, wait. */
  command: string;
  /** As typed, after `karp-drift`, quoted for a shell. */
  commandLine: string;
  user: RunUser;
  /** user@host of the machine, as the cluster lock names a run. */
  host: string;
  /** The lock's holderIdentity while the run held it: the Lease tells whether it still lives. */
  lockHolder?: string;
  cluster: ClusterIdentity;
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
  /** `running` until the end writes the run's result (succeeded, halted, paused, …). */
  result: string;
  exitCode: number | null;
  message?: string;
  /** The Kubernetes minor the run took the nodes to. */
  target?: string;
  nodesReplaced: number;
  amis: RunAmis[];
}

/** Per NodePool, what the run counted at its last look (the `done` event's counts). */
export interface RunNodePool {
  name: string;
  nodeClass?: string;
  total?: number;
  replaced?: number;
  onTarget?: number;
  remaining?: number;
}

/**
 * Each NodeClaim the run saw created in a NodePool in scope (its replacements), as columns: names, and seconds from
 * the record's startedAt to its creation and to its end (Initialized, or deleted before it: `failed` holds those
 * indexes; null: not ended). Columns of whole seconds (the API's timestamps have no finer ones) compress well.
 */
export interface ReplacementColumns {
  names: string[];
  start: number[];
  end: Array<number | null>;
  failed: number[];
}

interface At {
  /** ISO 8601 UTC, as the NDJSON event said it. */
  time: string;
}

export interface GateFinding {
  code: string;
  subject?: string;
  nodePool?: string;
  message: string;
  evidence?: string[];
}

/** The milestones of a run, from the NDJSON events it reported (report/run-events.ts keeps them compact). */
export type RunEvent =
  | (At & { type: 'stage'; stage: number; name: string; nodePools: string[]; size: number; waves: number[] })
  | (At & { type: 'wave'; stage: number; name: string; wave: number; waves: number; target: number; size: number; picks?: string[] })
  | (At & { type: 'soak'; stage: number; name: string; wave: number; until: string; stageDone: boolean })
  | (At & {
      type: 'gate';
      gate: string;
      point: string;
      result: string;
      stage?: number;
      wave?: number;
      failures?: number;
      failureLimit?: number;
      findings?: GateFinding[];
    })
  | (At & { type: 'window'; event: string; opensAt?: string | null; closesAt?: string | null })
  | (At & { type: 'blocked'; stage: string; code: string; where?: string; message: string; evidence?: string[] })
  | (At & { type: 'release'; nodePool: string; mechanism: string })
  | (At & { type: 'holds'; action: string; nodePools: Array<{ nodePool: string; mechanism?: string }> })
  | (At & { type: 'done'; result: string; cause?: string; paused?: string[]; message?: string });

/** The rest of the record, in `binaryData["timeline.json.gz"]`. */
export interface RunTimeline {
  nodePools: RunNodePool[];
  events: RunEvent[];
  replacements: Record<string, ReplacementColumns>;
}

export interface RunRecord {
  summary: RunSummary;
  timeline: RunTimeline;
}

/** Whether a record still `running` belongs to a live run: display only, by this machine's clock. */
export type RunLiveness = 'ended' | 'running' | 'did-not-finish';

/**
 * A run that holds the cluster lock lives while its Lease is renewed (every 10 s, 30 s long: a Lease another run
 * holds, or none, says it is gone); a run without the lock (`wait`, or an upgrade following after its apply, whose
 * record stops naming the Lease when it gives it up) while it writes its record (every minute while it follows).
 * `kill -9` stops both, and its record says `running` for ever: this says it did not finish.
 */
export function runLiveness(s: RunSummary, lease: LeaseView | undefined, now: Date): RunLiveness {
  if (s.result !== 'running') return 'ended';
  if (s.lockHolder !== undefined) {
    if (lease?.holderIdentity !== s.lockHolder) return 'did-not-finish';
    const renewed = Date.parse(lease.renewTime ?? lease.acquireTime ?? '');
    const lasts = (lease.leaseDurationSeconds ?? LEASE_SECONDS) * 1000;
    return Number.isFinite(renewed) && now.getTime() < renewed + lasts ? 'running' : 'did-not-finish';
  }
  const updated = Date.parse(s.updatedAt);
  return Number.isFinite(updated) && now.getTime() - updated < STALE_AFTER_MS ? 'running' : 'did-not-finish';
}

/**
 * Which slot a new run writes: a free one, else the one whose record started first. A slot whose record belongs to
 * a live run is never taken while another will do (twenty live runs at once would be one cluster in trouble).
 */
export function slotToUse(
  slots: ReadonlyArray<{ name: string; summary?: RunSummary; live?: boolean }>,
): string | undefined {
  const free = slots.find((s) => s.summary === undefined);
  if (free) return free.name;
  const byAge = [...slots].sort((a, b) => (a.summary!.startedAt < b.summary!.startedAt ? -1 : 1));
  return (byAge.find((s) => s.live !== true) ?? byAge[0])?.name;
}

/** A run id as `history` shows it: its first 8 characters, as `git log --oneline` shortens a commit. */
export const shortRunId = (runId: string): string => runId.slice(0, 8);
