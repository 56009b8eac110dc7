// What became of each replacement and each drift command of the rollout, remembered from turn to turn (the snapshot
// forgets a NodeClaim once it is deleted). Karpenter never says "this replacement failed"; it deletes it or gives
// the command up (DOMAIN.md §1.4, §2.5 step 6):
// - a replacement NodeClaim deleted before it was Initialized failed: liveness deletes one not registered 15 minutes
//   after its creation (5 for a launch that keeps failing), a launch with insufficient capacity is deleted at once;
// - an old NodeClaim that loses DisruptionReason (and its node the karpenter.sh/disrupted taint) without being
//   deleted is a failed command: its replacement was deleted, or not Initialized within the queue's timeout. The old
//   node is picked again at once, so the wave's count of started replacements goes back and a wave never ends while
//   its replacements fail: these failures count toward --failure-limit as soon as they are seen, not at a checkpoint.
// One failed attempt usually shows both (the command fails because its replacement was deleted): a failure of one
// kind pairs with an earlier or later one of the other kind in the same NodePool and counts once.
// A launch EC2 refused for capacity (karpenter/capacity.ts: the InsufficientCapacityError event, or Launched=Unknown
// with a capacity reason) says nothing about the AMI, routine as it is with spot: that replacement is a `refusal`, a
// note and never a failure, and so is the drift command Karpenter gives up because of it. A replacement that launched
// and then failed still fails, and so does a launch refused for any other reason (the image's among them). Refusals
// that never end stop the wave, and the stall diagnosis names them (STALL-LAUNCH).
// The ledger also remembers which replacements Karpenter launched for a drift command, as opposed to the provisioner's
// scale-ups: only those test an AMI for a stage (coverage.ts).
// Pure: `observeAttempts` folds one look into the ledger in place, as rollout/snapshot.ts folds a change.
import { capacityRefusal, type CapacityRefusal } from '../karpenter/capacity.js';
import { driftLaunched } from '../karpenter/events.js';
import type { EventView, NodeClaimView, NodeView } from '../karpenter/views.js';
import { quotes } from '../rollout/evidence.js';
import { conditionText, deletedBecause, lifetime, notYet } from '../rollout/replacement-health.js';
import { DISRUPTION_TAINTS } from '../rollout/track.js';
import { humanDuration } from '../text/words.js';
import { onTarget, type GateBaseline, type GateScope } from './baseline.js';
import type { GateFinding } from './health.js';

/** The mark a drift command leaves on an old NodeClaim: when DisruptionReason turned True (unset: only the taint). */
interface CommandMark {
  nodePool: string;
  since?: string;
}

export interface AttemptLedger {
  /** Replacements that were Initialized or failed: judged once. */
  settled: Set<string>;
  /** Old NodeClaims picked by a drift command, by name. */
  commands: Map<string, CommandMark>;
  /** Per NodePool, failures of each kind not yet paired with one of the other kind. */
  unpaired: Map<string, { replacements: number; commands: number }>;
  /** Replacements seen deleted before Initialized whose Warning event has not arrived yet: when each was first seen. */
  awaitingEvent: Map<string, number>;
  /** Replacements refused for capacity whose drift command has not been seen given up yet: it will be, and is excused. */
  refused: Set<string>;
  /** Drift commands seen given up while a replacement they waited on, maybe refused for capacity, still waits for its event. */
  deferred: GivenUp[];
  /** The scope's replacements seen launched for a drift command (`isDriftReplacement`), by name. */
  drift: Set<string>;
}

/**
 * A drift command seen given up: its finding, and the replacements it most likely waited on (by name), among which a
 * refusal not yet spent on another command excuses it.
 */
interface GivenUp {
  nodePool: string;
  finding: GateFinding;
  waitedOn: NodeClaimView[];
}

/**
 * How long a replacement seen deleted before Initialized waits for Karpenter's Warning event about it before it is
 * counted without one. The event travels its own watch, and Karpenter's recorder sends it asynchronously, so the
 * deletion can arrive first (it did on a loaded machine, and the finding then could not say why). A liveness deletion
 * has no event at all: it is counted this much later.
 */
export const EVENT_GRACE_MS = 3_000;

export interface FailedAttempt {
  /** `refusal`: a replacement whose launch EC2 refused for capacity, a note (CAPACITY-REFUSED) and never a failure. */
  kind: 'replacement' | 'command' | 'refusal';
  finding: GateFinding;
  /** False when it is the other half of a failure already counted (a command and its replacement), or a refusal. */
  counts: boolean;
}

/** What the watches show now: live NodeClaims, those deleted since, Nodes, and Karpenter's events. */
export interface AttemptLook {
  claims: readonly NodeClaimView[];
  departed: ReadonlyMap<string, NodeClaimView>;
  nodes: ReadonlyMap<string, NodeView>;
  events: Iterable<EventView>;
}

export function newAttemptLedger(): AttemptLedger {
  return {
    settled: new Set(),
    commands: new Map(),
    unpaired: new Map(),
    awaitingEvent: new Map(),
    refused: new Set(),
    deferred: [],
    drift: new Set(),
  };
}

/** Replacements and commands not judged yet, waiting for Karpenter's event: no evaluation passes meanwhile. */
export const awaitingJudgement = (ledger: AttemptLedger): number => ledger.awaitingEvent.size + ledger.deferred.length;

/** A NodeClaim the gates judge as a replacement: on a target AMI, or new and not launched yet (gatedClaims). */
export function isReplacement(c: NodeClaimView, scope: GateScope, baseline: GateBaseline): boolean {
  return onTarget(c, scope) || (c.imageId === undefined && !baseline.nodeClaims.has(c.name));
}

const initialized = (c: NodeClaimView) => c.conditions.Initialized?.status === 'True';

export function observeAttempts(
  ledger: AttemptLedger,
  look: AttemptLook,
  scope: GateScope,
  baseline: GateBaseline,
  now: Date,
): FailedAttempt[] {
  const pools = new Set(scope.nodePools);
  let listed: EventView[] | undefined;
  // Read only to judge or quote a replacement gone, or to tell a new replacement's origin.
  const events = () => (listed ??= [...look.events]);
  const failed: FailedAttempt[] = [];
  const live = new Set<string>();
  const replacementGone = (c: NodeClaimView) => {
    const seen = ledger.awaitingEvent.get(c.name) ?? now.getTime();
    const refusal = capacityRefusal(c, events());
    const warned =
      refusal !== undefined ||
      events().some((e) => e.type === 'Warning' && e.involvedKind === 'NodeClaim' && e.involvedName === c.name);
    if (!warned && now.getTime() - seen < EVENT_GRACE_MS) {
      ledger.awaitingEvent.set(c.name, seen);
      return;
    }
    ledger.awaitingEvent.delete(c.name);
    ledger.settled.add(c.name);
    if (refusal !== undefined) {
      ledger.refused.add(c.name);
      failed.push({ kind: 'refusal', finding: refusalFinding(c, refusal, now), counts: false });
    } else failed.push(pair(ledger, 'replacement', c.nodePool!, replacementFinding(c, events(), now)));
  };
  const inScope = (c: NodeClaimView) => c.nodePool !== undefined && pools.has(c.nodePool);
  const old = (c: NodeClaimView) => c.imageId !== undefined && !onTarget(c, scope);
  // Replacements first: a command given up in the same look is judged knowing what became of the one it waited on.
  for (const c of look.claims) {
    if (!inScope(c)) continue;
    live.add(c.name);
    if (old(c) || ledger.settled.has(c.name) || !isReplacement(c, scope, baseline)) continue;
    if (initialized(c)) ledger.settled.add(c.name);
    else if (c.deleting) replacementGone(c);
  }
  for (const [name, c] of look.departed) {
    if (live.has(name) || ledger.settled.has(name)) continue;
    if (!inScope(c) || !isReplacement(c, scope, baseline)) continue;
    if (initialized(c)) ledger.settled.add(name);
    else replacementGone(c);
  }
  const deferred = ledger.deferred;
  ledger.deferred = [];
  for (const d of deferred) judgeCommand(ledger, d, failed);
  for (const c of look.claims) {
    if (!inScope(c) || !old(c)) continue;
    const f = commandOutcome(ledger, c, look, events, now);
    if (f) judgeCommand(ledger, f, failed);
  }
  // An old NodeClaim gone while picked: its command deleted it (or something else did); either way not a failure.
  for (const name of ledger.commands.keys()) if (!live.has(name)) ledger.commands.delete(name);
  // Those of the baseline count anyway (`isDriftReplacement`): a re-run over a large fleet need not look at them.
  const fresh = (c: NodeClaimView) => inScope(c) && !old(c) && !baseline.nodeClaims.has(c.name) && isReplacement(c, scope, baseline);
  noteDriftReplacements(ledger, look.claims, fresh, events);
  return failed;
}

/**
 * Whether Karpenter launched this NodeClaim for a drift command, as far as this run can tell: seen so
 * (`noteDriftReplacements`), or there before this run's baseline, an earlier run's replacement whose evidence may be
 * gone (Events live an hour, the follow keeps the last few hundred), so that a run that goes on where a paused one
 * stopped does not take its replacements for scale-ups. A NodeClaim on a target AMI from before the baseline may still
 * be a scale-up of that earlier run's time: the one thing this cannot tell.
 */
export const isDriftReplacement = (ledger: AttemptLedger, baseline: GateBaseline, name: string): boolean =>
  ledger.drift.has(name) || baseline.nodeClaims.has(name);

/**
 * The replacements Karpenter launched for a drift command: its `DisruptionLaunching` event on the NodeClaim
 * (karpenter/events.ts `driftLaunched`), or, for one whose event this run has not seen, its creation with a drift
 * command of its NodePool (within LINK_BEFORE_MS..LINK_AFTER_MS of DisruptionReason, as `replacementsWaitedOn` links
 * them: Karpenter marks the old node, then creates its replacement). A NodeClaim the provisioner launched for pending
 * pods (a scale-up) has neither. Remembered once seen: the event ages out of the follow's window, the mark goes with the
 * old NodeClaim.
 */
function noteDriftReplacements(
  ledger: AttemptLedger,
  claims: readonly NodeClaimView[],
  candidate: (c: NodeClaimView) => boolean,
  events: () => EventView[],
): void {
  let launched: Set<string> | undefined;
  for (const c of claims) {
    if (ledger.drift.has(c.name) || !candidate(c)) continue;
    launched ??= driftLaunched(events());
    if (launched.has(c.name) || createdWithCommand(ledger, c)) ledger.drift.add(c.name);
  }
}

function createdWithCommand(ledger: AttemptLedger, c: NodeClaimView): boolean {
  const created = ms(c.createdAt);
  if (Number.isNaN(created)) return false;
  for (const mark of ledger.commands.values()) {
    const since = ms(mark.since);
    if (mark.nodePool === c.nodePool && created >= since - LINK_BEFORE_MS && created <= since + LINK_AFTER_MS) return true;
  }
  return false;
}

/**
 * A drift command given up: excused when a replacement it waited on was refused for capacity (each refusal excuses
 * one command), deferred while one that may have been still waits for Karpenter's event, else a failure paired with
 * its replacement's.
 */
function judgeCommand(ledger: AttemptLedger, d: GivenUp, failed: FailedAttempt[]): void {
  if (d.waitedOn.some((r) => ledger.awaitingEvent.has(r.name) && mayBeRefused(r))) {
    ledger.deferred.push(d);
    return;
  }
  const refused = d.waitedOn.find((r) => ledger.refused.has(r.name));
  if (refused !== undefined) {
    ledger.refused.delete(refused.name);
    return;
  }
  failed.push(pair(ledger, 'command', d.nodePool, d.finding));
}

/**
 * Deleted before any launch attempt said why it failed (Launched unset, or still as first written): Karpenter deletes
 * a NodeClaim so at once for insufficient capacity (its event on the way) or a class not Ready. One that launched, or
 * whose launch failed with a reason of its own (the image's `LaunchFailed`, liveness deleting it later), was no
 * capacity refusal, and the command waiting on it is judged without waiting.
 */
const mayBeRefused = (c: NodeClaimView): boolean => {
  const launched = c.conditions.Launched;
  return launched === undefined || (launched.status === 'Unknown' && FIRST_REASONS.includes(launched.reason));
};
/** Launched as operatorpkg's ConditionSet first writes it, before any launch attempt (as rollout/stalls.ts reads it). */
const FIRST_REASONS = ['', 'AwaitingReconciliation'];

/**
 * One old NodeClaim: picked by a drift command (DisruptionReason=True/Drifted, or before Karpenter v1.2 only the
 * Node's disruption taint), let go without being deleted (a failure), or picked again since (a failure too: a turn
 * of the follow can miss the moment between, but not the new lastTransitionTime).
 */
function commandOutcome(
  ledger: AttemptLedger,
  c: NodeClaimView,
  look: AttemptLook,
  events: () => EventView[],
  now: Date,
): GivenUp | undefined {
  const node = c.nodeName !== undefined ? look.nodes.get(c.nodeName) : undefined;
  const before = ledger.commands.get(c.name);
  if (c.deleting || node?.deleting === true) {
    ledger.commands.delete(c.name);
    return undefined;
  }
  const reason = c.conditions.DisruptionReason;
  const tainted = node?.taints.some((t) => DISRUPTION_TAINTS.includes(t.key)) ?? false;
  // A command of another method (consolidation) is not the rollout's. The taint alone (Karpenter taints before it
  // sets the condition, and removes it first) keeps the time the condition showed.
  const mark: CommandMark | undefined =
    reason?.status === 'True'
      ? reason.reason === 'Drifted'
        ? { nodePool: c.nodePool!, ...(reason.lastTransitionTime ? { since: reason.lastTransitionTime } : {}) }
        : undefined
      : reason === undefined && tainted
        ? { nodePool: c.nodePool!, ...(before?.since !== undefined ? { since: before.since } : {}) }
        : undefined;
  if (mark) ledger.commands.set(c.name, mark);
  else ledger.commands.delete(c.name);
  if (before === undefined) return undefined;
  const again =
    mark !== undefined && before.since !== undefined && mark.since !== undefined && before.since !== mark.since;
  if (mark !== undefined && !again) return undefined;
  const waitedOn = replacementsWaitedOn(c, before, look);
  return {
    nodePool: c.nodePool!,
    finding: commandFinding(c, node, before, again ? mark : undefined, waitedOn.slice(0, 3), look, events(), now),
    waitedOn,
  };
}

function pair(
  ledger: AttemptLedger,
  kind: 'replacement' | 'command',
  nodePool: string,
  finding: GateFinding,
): FailedAttempt {
  const u = ledger.unpaired.get(nodePool) ?? { replacements: 0, commands: 0 };
  ledger.unpaired.set(nodePool, u);
  const other = kind === 'replacement' ? 'commands' : 'replacements';
  if (u[other] > 0) {
    u[other] -= 1;
    return { kind, finding, counts: false };
  }
  u[kind === 'replacement' ? 'replacements' : 'commands'] += 1;
  return { kind, finding, counts: true };
}

const ms = (t: string | undefined) => (t !== undefined ? Date.parse(t) : NaN);
const eventsOn = (events: EventView[], kind: string, names: ReadonlySet<string>) =>
  events.filter((e) => e.involvedKind === kind && e.involvedName !== undefined && names.has(e.involvedName));

/** A replacement deleted before it was Initialized, in Karpenter's words: its conditions when last seen, its events. */
export function replacementFinding(c: NodeClaimView, events: EventView[], now: Date): GateFinding {
  const lived = lifetime(c, now);
  return {
    gate: 'replacements',
    code: 'REPLACEMENT-DELETED',
    subject: `nodeclaim/${c.name}`,
    nodePool: c.nodePool!,
    ...(c.nodeName ? { node: c.nodeName } : {}),
    ...(c.imageId ? { ami: c.imageId } : {}),
    message: `replacement nodeclaim/${c.name} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''}) was deleted before it was Initialized${lived !== undefined ? `, ${humanDuration(lived)} after it was created` : ''}: ${deletedBecause(c)}`,
    evidence: [
      ...notYet(c).map((t) => `last seen: ${conditionText(t, c.conditions[t])}`),
      ...(c.createdAt ? [`created ${c.createdAt}${c.deletionTimestamp ? `, deleted ${c.deletionTimestamp}` : ''}`] : []),
      ...quotes(eventsOn(events, 'NodeClaim', new Set([c.name])), now),
    ],
  };
}

/**
 * A replacement whose launch EC2 refused for capacity, as a note: Karpenter's word for it (the Warning event, or the
 * Launched condition as last seen) and its short life. Not a failure: the AMI was never launched on it.
 */
export function refusalFinding(c: NodeClaimView, refusal: CapacityRefusal, now: Date): GateFinding {
  const lived = lifetime(c, now);
  const said = 'event' in refusal ? refusal.event.reason : refusal.launched.reason;
  return {
    gate: 'replacements',
    code: 'CAPACITY-REFUSED',
    subject: `nodeclaim/${c.name}`,
    nodePool: c.nodePool!,
    message: `replacement nodeclaim/${c.name} (NodePool ${c.nodePool}) was deleted${lived !== undefined ? ` ${humanDuration(lived)} after it was created` : ''} without launching: EC2 refused it for capacity (${said}), no fault of the AMI, so it is not counted; Karpenter gives up a drift command that waited on it and picks its old node again`,
    evidence: [
      'event' in refusal ? quotes([refusal.event], now)[0]! : `last seen: ${conditionText('Launched', refusal.launched)}`,
      ...(c.createdAt ? [`created ${c.createdAt}${c.deletionTimestamp ? `, deleted ${c.deletionTimestamp}` : ''}`] : []),
    ],
  };
}

/** Karpenter creates the replacement right after it marks the old node: within these bounds of DisruptionReason. */
const LINK_BEFORE_MS = 2_000;
const LINK_AFTER_MS = 30_000;

/**
 * The replacements a drift command most likely waited on: created when it started; else the NodePool's not Initialized.
 * Creation times have whole seconds, and commands run side by side in a NodePool, so this may name a neighbour's too.
 */
function replacementsWaitedOn(c: NodeClaimView, before: CommandMark, look: AttemptLook): NodeClaimView[] {
  const candidates = [
    ...look.claims.filter((x) => x.nodePool === c.nodePool && !initialized(x) && x.name !== c.name),
    ...[...look.departed.values()].filter((x) => x.nodePool === c.nodePool && !initialized(x)),
  ].filter((x) => x.imageId === undefined || x.imageId !== c.imageId);
  const since = ms(before.since);
  const linked = Number.isNaN(since)
    ? []
    : candidates.filter((x) => ms(x.createdAt) >= since - LINK_BEFORE_MS && ms(x.createdAt) <= since + LINK_AFTER_MS);
  return linked.length > 0 ? linked : candidates;
}

/** A drift command given up: the old NodeClaim with the mark it lost, and the replacements it waited on, with their events. */
function commandFinding(
  c: NodeClaimView,
  node: NodeView | undefined,
  before: CommandMark,
  again: CommandMark | undefined,
  replacements: NodeClaimView[],
  look: AttemptLook,
  events: EventView[],
  now: Date,
): GateFinding {
  const ami = replacements.find((r) => r.imageId !== undefined)?.imageId;
  const lines = replacements.map((r) => {
    const gone = look.departed.has(r.name) || r.deleting;
    const state = notYet(r)
      .map((t) => conditionText(t, r.conditions[t]))
      .join('; ');
    return `replacement nodeclaim/${r.name}${r.imageId ? ` (AMI ${r.imageId})` : ''}${gone ? ' deleted' : ''}${state ? `: ${state}` : ''}`;
  });
  const names = new Set(replacements.map((r) => r.name));
  return {
    gate: 'replacements',
    code: 'COMMAND-FAILED',
    subject: `nodeclaim/${c.name}`,
    nodePool: c.nodePool!,
    ...(c.nodeName ? { node: c.nodeName } : {}),
    ...(ami ? { ami } : {}),
    message: `Karpenter gave up its drift command on nodeclaim/${c.name} (node ${c.nodeName ?? 'unknown'}, NodePool ${c.nodePool}): its replacement was deleted or not Initialized in time, so the old node was let go${again ? ' and picked again' : ''} without being replaced`,
    evidence: [
      `DisruptionReason=True Drifted${before.since ? ` since ${before.since}` : ' (the karpenter.sh/disrupted taint)'}: ${again ? `set again since ${again.since ?? 'now'}` : `removed${node && !node.taints.some((t) => DISRUPTION_TAINTS.includes(t.key)) ? ', and the taint with it' : ''}`}, the NodeClaim not deleted`,
      ...lines,
      ...quotes(eventsOn(events, 'NodeClaim', names), now),
      ...quotes(
        [
          ...eventsOn(events, 'NodeClaim', new Set([c.name])),
          ...(c.nodeName ? eventsOn(events, 'Node', new Set([c.nodeName])) : []),
        ],
        now,
      ),
    ],
  };
}
