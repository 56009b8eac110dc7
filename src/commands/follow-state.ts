// What a follow of a rollout works with, written down so each step of the loop (follow-steps.ts) says what it reads
// and what it changes: the run's inputs, fixed for the whole follow, and the state the loop carries from turn to turn.
import type { WindowCalendar } from '../windows/calendar.js';
import type { CommandContext } from './context.js';
import type { GateKeeper } from './gate-keeper.js';
import type { LiveDisplay } from './live-display.js';
import type { Pacer } from './staged-pacer.js';
import type { Cluster } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';
import type { DiagnosisReads, Inventory } from '../karpenter/views.js';
import type { KarpDriftError } from '../errors.js';
import type { GateReport } from '../report/gates.js';
import type { RolloutResult } from '../report/progress.js';
import { newProgressLog, type ProgressLog, type ReportedBlockers } from '../report/progress.js';
import type { StageState } from '../report/stages.js';
import { emptySnapshot, type Snapshot } from '../rollout/snapshot.js';
import type { Blocker } from '../rollout/stalls.js';
import type { PlannedTerms, TermsChange } from '../rollout/synced-terms.js';
import type { RolloutProgress, RolloutScope } from '../rollout/track.js';

export interface FollowSettings {
  scope: RolloutScope;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** Shown on interrupt and timeout: how to pick the rollout up again. */
  resumeCommand: string;
  /** A staged rollout (--canary/--waves): its pacer holds and opens the NodePools as the rollout goes. */
  pacer?: Pacer;
  /** With a pacer: the health gates, evaluated before each pacer step; a failure halts the rollout (exit 6). */
  gates?: GateKeeper;
  /** With gates: --on-failure rollback, so the caller rolls back and reports the end (no `done` event here). */
  rollbackOnHalt?: boolean;
  /** With gates: what a halt advises, when not an upgrade's (a staged rollback's: the previous AMIs failed). */
  haltHint?: string;
  /** Follow without a `done` event of its own (the rollback of a halted run: the run's `done` comes after it). */
  quietDone?: boolean;
  /**
   * A follow that paces nothing (`wait`, an upgrade without stages): aborted when the rollout is found paused
   * (karp-drift's holds with no run left to release them). The follow ends with `done` `paused` (cause `held`) and
   * throws the abort's reason.
   */
  endWhen?: AbortSignal;
  /** A staged rollout's upgrade windows (`--window`): the follow ends, the rollout held, once they close. */
  window?: WindowCalendar;
  /**
   * A follow that paces nothing (`wait`, an upgrade without stages): asked once every node is on target; what it
   * gives ends the follow instead of success (karp-drift's holds left on the NodePools: commands/held-follow.ts).
   */
  atDone?: () => Promise<HeldAtDone | undefined>;
  /**
   * `upgrade --apply-by git`: the terms each class must keep while the rollout goes on. A class whose terms the GitOps
   * tool moves (a revert in Git, a sync rollback, another commit) ends the follow, the rollout held, as that, not as a
   * stall (follow-end.ts). `owner`: who applies them, for the message.
   */
  expectedTerms?: { terms: Readonly<Record<string, PlannedTerms>>; owner: (nodeClass: string) => string; rollback: string };
}

/** How a follow that found every node on target ends instead of succeeding: its `done` result and fields, and the error. */
export interface HeldAtDone {
  result: RolloutResult;
  extra: Record<string, unknown>;
  error: KarpDriftError;
}

/** What the follow is given: the command's context, the cluster, and how it reports (decided once, at the start). */
export interface FollowRun {
  readonly ctx: CommandContext;
  readonly cluster: Cluster;
  readonly discovery: Discovery;
  readonly settings: FollowSettings;
  readonly json: boolean;
  /** On a terminal, unless --quiet or -o json; without it, progress is plain log lines on stderr. */
  readonly display: LiveDisplay | undefined;
}

/** What the loop knows between turns. Only the steps change it, one turn at a time. */
export interface FollowState {
  /** Kept current by the watches (rollout/snapshot.ts). */
  readonly snapshot: Snapshot;
  /** Aborted by an interrupt, by `endWhen`, by a failed watch, and when the follow ends. */
  readonly stop: AbortController;
  progress: RolloutProgress | undefined;
  /** The last readiness seen per EC2NodeClass, so each is reported once. */
  readonly readiness: Map<string, string>;
  stage: StageState | undefined;
  /** When the staged rollout last opened a wave or ended a soak: the stall clock starts again there. */
  stageMovedAt: number;
  /** The gate report that halted the rollout. */
  halt: GateReport | undefined;
  /** The last full diagnosis (cleared when the rollout moves) and the last look at the watched blockers. */
  diagnosed: Blocker[];
  watched: Blocker[];
  lastDiagnosis: number;
  lastWatchedCheck: number;
  /** The NodePools, PDBs and pods of the last read (the inventory's, until a diagnosis reads them again). */
  context: DiagnosisReads;
  /** Each blocker reported, with its evidence (report/progress.ts). */
  readonly reported: ReportedBlockers;
  /** What the plain-text log printed (report/progress.ts throttles it). */
  readonly log: ProgressLog;
  failure: Error | undefined;
  /** The classes whose terms moved from the planned ones (expectedTerms): the follow ends with them. */
  termsMoved: TermsChange[];
  // Once the display has ended (the follow is over), what the pacer still reports (a pause, a rollback's release)
  // goes to stderr as it is: the display would draw its last frame again under each line.
  displayEnded: boolean;
}

/** One turn of the loop: when it looks, where the rollout stands, and where it stood at the turn before. */
export interface Turn {
  readonly now: Date;
  readonly progress: RolloutProgress;
  readonly previous: RolloutProgress | undefined;
}

export function newFollowState(inventory: Inventory): FollowState {
  return {
    snapshot: emptySnapshot(),
    stop: new AbortController(),
    progress: undefined,
    readiness: new Map(),
    stage: undefined,
    stageMovedAt: 0,
    halt: undefined,
    diagnosed: [],
    watched: [],
    lastDiagnosis: 0,
    lastWatchedCheck: 0,
    context: { pdbs: inventory.pdbs, pods: inventory.pods, nodePools: inventory.nodePools },
    reported: new Map(),
    log: newProgressLog(),
    failure: undefined,
    termsMoved: [],
    displayEnded: false,
  };
}
