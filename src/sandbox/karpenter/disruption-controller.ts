// The disruption controller for drift (kubernetes-sigs/karpenter pkg/controllers/disruption/{controller,drift,queue,
// helpers}.go, DOMAIN.md §2.5–2.7): every poll it clears stale disruption taints, computes each NodePool's allowed
// Drifted disruptions, filters candidates (do-not-disrupt, PDBs: DisruptionBlocked), takes empty nodes first and the
// oldest drift next, runs the scheduling simulation for each candidate whose NodePool has budget left (budgets read
// again on every pass), and starts one command at a time: taint, DisruptionReason, replacement NodeClaim, and a
// record in ctx.disruptions. The queue waits for the replacement to initialize before deleting the old NodeClaim; a
// replacement that is gone from the API, or not initialized 10 minutes after the command started, fails the command.
import type { KubeObject } from '../kube-api/types.js';
import { allowedDisruptions, type AllowedDisruptions, type Budget } from '../../karpenter/budgets.js';
import { budgetMapping } from '../../karpenter/budget-mapping.js';
import {
  EC2NODECLASSES,
  NODECLAIMS,
  NODEPOOLS,
  key,
  setConditions,
  spec,
  status,
  writeObject,
  writeStatus,
  type BudgetCounts,
  type Candidate,
  type Command,
  type DriftQueue,
  type SimContext,
} from './context.js';
import { blockingPdb } from './pdbs.js';
import { activePods, doNotDisruptHolds, hasDoNotDisrupt, reschedulablePods } from './pods.js';
import { notAllPodsWouldSchedule } from './scheduling.js';
import { replacementFor } from './replacement.js';
import {
  DISRUPTED_TAINT,
  DISRUPTING_TAINT_V1BETA1,
  conditionOf,
  isTrue,
  withoutCondition,
  type Condition,
} from './objects.js';

/** Karpenter's queue gives up on a replacement that has not initialized after this long (queue.go minRetryDuration). */
const COMMAND_TIMEOUT_MS = 10 * 60_000;

export function reconcileDisruption(ctx: SimContext): void {
  processQueue(ctx);
  const now = ctx.clock.now().getTime();
  const requeued = ctx.memory.disruptionRequeued;
  if (!requeued && now - ctx.memory.lastDisruptionPass < ctx.timing.disruptionPollSeconds * 1000) return;
  ctx.memory.disruptionRequeued = false;
  if (!requeued) ctx.memory.lastDisruptionPass = now;
  disruptionPass(ctx, requeued);
}

function taintOf(ctx: SimContext): { key: string; value?: string; effect: string } {
  return ctx.karpenterApi === 'v1' ? DISRUPTED_TAINT : DISRUPTING_TAINT_V1BETA1;
}

// One drift command per pass, and after a success the loop requeues at once (controller.go, DOMAIN.md §2.5). A poll
// pass evaluates every candidate (publishing DisruptionBlocked for each that is blocked) and keeps the ordered rest
// with each NodePool's node counts (ctx.memory.driftQueue); the requeued passes that follow take the next candidate
// from it, checking again only that one, so a fleet of thousands of drifted nodes costs one candidate's checks per
// command, not a re-evaluation of the whole fleet. The next poll starts from the cluster again.
// The budgets and the counts they are measured against, though, are built again on every pass, requeued or not, as
// Karpenter builds its budget mapping each time it computes commands (helpers.go BuildDisruptionBudgetMapping): a
// budget lowered to "0", or a node gone NotReady, between two commands stops the next one, however many the last poll
// allowed (DOMAIN.md §2.6, pacing with a budget).
function disruptionPass(ctx: SimContext, quick = false): void {
  const kept = quick ? ctx.memory.driftQueue : undefined;
  const queue = kept ? { ...kept, counts: countsNow(ctx) } : evaluateCandidates(ctx);
  ctx.memory.driftQueue = undefined;
  const allowed = new Map<string, number>();
  const allowedFor = (nodePool: string): number => {
    let left = allowed.get(nodePool);
    if (left === undefined) allowed.set(nodePool, (left = allowedNow(ctx, nodePool, queue.counts.get(nodePool))));
    return left;
  };
  while (queue.next < queue.candidates.length) {
    const queued = queue.candidates[queue.next++]!;
    const left = allowedFor(queued.nodePool);
    if (left <= 0) continue;
    const candidate = quick ? stillCandidate(ctx, queued) : queued;
    if (!candidate) continue;
    // drift.go simulates only with budget left, and a terminationGracePeriod does not skip it: the node is passed
    // over, pass after pass, while a pod would not schedule (kubernetes-sigs/karpenter#2984).
    const unschedulable = notAllPodsWouldSchedule(ctx, candidate.node);
    if (unschedulable !== undefined) {
      publishBlocked(ctx, candidate.node, candidate.claim, unschedulable);
      continue;
    }
    startCommand(ctx, candidate, left);
    ctx.memory.driftQueue = queue;
    ctx.memory.disruptionRequeued = true;
    return;
  }
}

function countsNow(ctx: SimContext): DriftQueue['counts'] {
  const nodes = new Map(ctx.store.list('nodes').map((n) => [n.metadata.name ?? '', n]));
  const inFlight = new Set([...ctx.memory.commands.values()].map((c) => c.candidate));
  return budgetCounts(ctx, ctx.store.list(NODECLAIMS), nodes, inFlight);
}

function evaluateCandidates(ctx: SimContext): DriftQueue {
  const claims = ctx.store.list(NODECLAIMS);
  const nodes = new Map(ctx.store.list('nodes').map((n) => [n.metadata.name ?? '', n]));
  const inFlight = new Set([...ctx.memory.commands.values()].map((c) => c.candidate));
  cleanUpStaleTaints(ctx, claims, nodes, inFlight);

  const counts = budgetCounts(ctx, claims, nodes, inFlight);

  // Empty nodes first (a delete, no replacement), then by how long ago they drifted (drift.go).
  const candidates = driftCandidates(ctx, claims, nodes, inFlight).sort(
    (a, b) => Number(b.empty) - Number(a.empty) || a.driftedAt.localeCompare(b.driftedAt),
  );
  return { candidates, counts, next: 0 };
}

/**
 * Each NodePool's budget counts from the store as it is (helpers.go BuildDisruptionBudgetMapping runs on every pass,
 * so a replacement that finished or a node that went NotReady since the last poll counts at once), with the
 * DisruptionBlocked event of a NodePool whose budgets allow nothing (deduplicated per minute, as Karpenter does).
 */
function budgetCounts(
  ctx: SimContext,
  claims: KubeObject[],
  nodes: Map<string, KubeObject>,
  inFlight: Set<string>,
): DriftQueue['counts'] {
  const now = ctx.clock.wall();
  const counts: DriftQueue['counts'] = new Map();
  for (const pool of ctx.store.list(NODEPOOLS)) {
    const name = pool.metadata.name ?? '';
    const members = claims.filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === name);
    const mapped = budgetMapping(
      members.map((c) => {
        const node = nodes.get(nodeNameOf(c));
        return {
          claim: c,
          initialized: node?.metadata.labels?.['karpenter.sh/initialized'] === 'true',
          instanceTerminating: isTrue(c, 'InstanceTerminating'),
          ready: node !== undefined && isTrue(node, 'Ready'),
          marked: inFlight.has(c.metadata.name ?? ''),
          nodeClaimDeleting: c.metadata.deletionTimestamp !== undefined,
          nodeDeleting: node?.metadata.deletionTimestamp !== undefined,
        };
      }),
    );
    const counted = mapped.counted.map((m) => m.claim);
    const disrupting = mapped.disrupting.length;
    counts.set(name, { numNodes: counted.length, disrupting });
    const result = allowance(ctx, pool, { numNodes: counted.length, disrupting }, now);
    if (result.limit === 0 && counted.length > 0) {
      // v1beta1's events.go NodePoolBlocked has no reason to name, and dedupes on the NodePool alone.
      const v1 = ctx.budgets === 'by-reason';
      ctx.events.publish({
        object: pool,
        type: 'Normal',
        reason: 'DisruptionBlocked',
        message: v1
          ? 'No allowed disruptions for disruption reason Drifted due to blocking budget'
          : 'No allowed disruptions due to blocking budget',
        dedupe: v1 ? [pool.metadata.uid ?? '', 'Drifted'] : [pool.metadata.uid ?? ''],
        dedupeTimeoutMs: 60_000,
      });
    }
  }
  return counts;
}

/** The NodePool's allowed Drifted disruptions now: its budgets and its counts as they are. */
function allowedNow(ctx: SimContext, nodePool: string, counts: BudgetCounts | undefined): number {
  const pool = ctx.store.get(NODEPOOLS, nodePool);
  if (!pool || !counts) return 0;
  return allowance(ctx, pool, counts, ctx.clock.wall()).allowed;
}

/**
 * The NodePool's Drifted allowance as the simulated release computes it (scenarios/versions.ts `BudgetSupport`):
 * - v1: the active budgets that name Drifted or no reason (`GetAllowedDisruptionsByReason`);
 * - v0.34–v0.37: every active budget, whatever it lists. v1beta1's `Budget` has no `reasons` (the v1beta1 schema
 *   prunes it, and so does the conversion from v1 in the releases that serve v1), and `GetAllowedDisruptions` takes
 *   no reason: one allowance per NodePool, which consolidation, emptiness and expiration draw on too;
 * - v0.32–v0.33: no budgets at all (a `budgets` written through v1 would not survive the real conversion either):
 *   the controller starts no command while one is in flight anywhere in the cluster, and otherwise any (controller.go
 *   `if !c.queue.IsEmpty()`). Real drift there puts every empty drifted node in one command; here each empty node is
 *   its own command, ended at once, so the next pass takes the next.
 */
function allowance(
  ctx: SimContext,
  pool: KubeObject,
  counts: BudgetCounts,
  now: Date,
): Pick<AllowedDisruptions, 'allowed' | 'limit'> {
  if (ctx.budgets === 'none') return { allowed: ctx.memory.commands.size > 0 ? 0 : Infinity, limit: Infinity };
  const budgets = spec<{ disruption?: { budgets?: Budget[] } }>(pool).disruption?.budgets;
  const read = ctx.budgets === 'any-reason' ? budgets?.map(({ reasons: _reasons, ...rest }) => rest) : budgets;
  return allowedDisruptions(read, counts, 'Drifted', now);
}

/** A queued candidate as it is now, if it still is one (the cluster moved since the poll that queued it). */
function stillCandidate(ctx: SimContext, queued: Candidate): Candidate | undefined {
  const name = queued.claim.metadata.name ?? '';
  const claim = ctx.store.get(NODECLAIMS, name);
  if (
    !claim ||
    claim.metadata.deletionTimestamp ||
    ctx.memory.commands.has(name) ||
    conditionOf(claim, 'Drifted')?.status !== 'True'
  )
    return undefined;
  const node = ctx.store.get('nodes', nodeNameOf(claim));
  if (!node || node.metadata.deletionTimestamp || blocked(ctx, claim, node)) return undefined;
  return { ...queued, claim, node };
}

function nodeNameOf(claim: KubeObject): string {
  return status<{ nodeName?: string }>(claim).nodeName ?? '';
}

function driftCandidates(
  ctx: SimContext,
  claims: KubeObject[],
  nodes: Map<string, KubeObject>,
  inFlight: Set<string>,
): Candidate[] {
  const out: Candidate[] = [];
  for (const claim of claims) {
    const name = claim.metadata.name ?? '';
    const drifted = conditionOf(claim, 'Drifted');
    if (drifted?.status !== 'True' || claim.metadata.deletionTimestamp || inFlight.has(name)) continue;
    const node = nodes.get(nodeNameOf(claim));
    const nodePool = node?.metadata.labels?.['karpenter.sh/nodepool'];
    if (!node || !nodePool || !isTrue(claim, 'Initialized') || node.metadata.deletionTimestamp) continue;
    if (blocked(ctx, claim, node)) continue;
    const empty = reschedulablePods(ctx, node.metadata.name ?? '').length === 0;
    out.push({ claim, node, nodePool, driftedAt: drifted.lastTransitionTime, empty });
  }
  return out;
}

/** Is the node kept from disruption now? Says why in a DisruptionBlocked event on the Node and the NodeClaim. */
function blocked(ctx: SimContext, claim: KubeObject, node: KubeObject): boolean {
  const reason = blockReason(ctx, claim, node);
  if (reason === undefined) return false;
  publishBlocked(ctx, node, claim, reason);
  return true;
}

/** disruption/events.go Blocked: on the Node and the NodeClaim, each deduplicated on its uid (every 2 minutes). */
function publishBlocked(ctx: SimContext, node: KubeObject, claim: KubeObject, message: string): void {
  for (const object of [node, claim])
    ctx.events.publish({ object, type: 'Normal', reason: 'DisruptionBlocked', message });
}

/**
 * Why a drifted node may not be disrupted now, in Karpenter's words (statenode.go ValidateNodeDisruptable and
 * ValidatePodsDisruptable, capitalised by pretty.Sentence in disruption/types.go NewCandidate): do-not-disrupt on any
 * active pod first, then the PDBs of the pods Karpenter would evict.
 */
export function blockReason(ctx: SimContext, claim: KubeObject, node: KubeObject): string | undefined {
  if (hasDoNotDisrupt(node)) return 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';
  const pods = activePods(ctx, node.metadata.name ?? '');
  const held = pods.find((pod) => doNotDisruptHolds(ctx, pod));
  let reason = held ? `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=${key(held)})` : undefined;
  for (const pod of pods) reason ??= blockingPdb(ctx, pod);
  // Drift is an "eventual" method: a NodeClaim with its own terminationGracePeriod ignores pod-level blockers.
  return spec<{ terminationGracePeriod?: string }>(claim).terminationGracePeriod ? undefined : reason;
}

function cleanUpStaleTaints(
  ctx: SimContext,
  claims: KubeObject[],
  nodes: Map<string, KubeObject>,
  inFlight: Set<string>,
): void {
  const taint = taintOf(ctx);
  for (const claim of claims) {
    if (claim.metadata.deletionTimestamp || inFlight.has(claim.metadata.name ?? '')) continue;
    const node = nodes.get(nodeNameOf(claim));
    if (node && !node.metadata.deletionTimestamp && taintsOf(node).some((t) => t.key === taint.key)) untaint(ctx, node);
    if (conditionOf(claim, 'DisruptionReason')) clearDisruptionReason(ctx, claim);
  }
}

function taintsOf(node: KubeObject): Array<{ key: string; value?: string; effect: string }> {
  return spec<{ taints?: Array<{ key: string; value?: string; effect: string }> }>(node).taints ?? [];
}

export function taint(ctx: SimContext, node: KubeObject): void {
  const t = taintOf(ctx);
  if (taintsOf(node).some((x) => x.key === t.key)) return;
  writeObject(ctx, 'nodes', {
    ...node,
    spec: { ...spec<Record<string, unknown>>(node), taints: [...taintsOf(node), { ...t }] },
  });
}

function untaint(ctx: SimContext, node: KubeObject): void {
  const t = taintOf(ctx);
  writeObject(ctx, 'nodes', {
    ...node,
    spec: { ...spec<Record<string, unknown>>(node), taints: taintsOf(node).filter((x) => x.key !== t.key) },
  });
}

function clearDisruptionReason(ctx: SimContext, claim: KubeObject): void {
  writeStatus(ctx, NODECLAIMS, claim, {
    ...status<Record<string, unknown>>(claim),
    conditions: withoutCondition(status<{ conditions?: Condition[] }>(claim).conditions, 'DisruptionReason'),
  });
}

function startCommand(ctx: SimContext, c: Candidate, budgetAllowed: number): void {
  const name = c.claim.metadata.name ?? '';
  taint(ctx, c.node);
  setConditions(ctx, NODECLAIMS, c.claim, [
    // queue.go markDisrupted: SetTrueWithReason(DisruptionReason, reason, reason).
    { type: 'DisruptionReason', status: 'True', reason: 'Drifted', message: 'Drifted' },
  ]);
  const command: Command = {
    candidate: name,
    nodeName: c.node.metadata.name ?? '',
    nodePool: c.nodePool,
    startedAt: ctx.clock.now().getTime(),
  };
  if (!c.empty) {
    const pool = ctx.store.get(NODEPOOLS, c.nodePool);
    const nodeClass = ctx.store.get(
      EC2NODECLASSES,
      spec<{ nodeClassRef?: { name?: string } }>(c.claim).nodeClassRef?.name ?? '',
    );
    if (!pool || !nodeClass) return;
    const replacement = ctx.store.create(NODECLAIMS, replacementFor(ctx, pool, c.claim), { manager: 'karpenter' });
    command.replacement = replacement.metadata.name;
    ctx.events.publish({
      object: replacement,
      type: 'Normal',
      reason: 'DisruptionLaunching',
      message: 'Launching NodeClaim: Drifted',
      dedupe: [replacement.metadata.uid ?? '', 'Drifted'],
    });
  }
  ctx.memory.commands.set(name, command);
  ctx.disruptions.started({
    time: ctx.clock.wall().toISOString(),
    nodePool: c.nodePool,
    nodeClaim: name,
    node: command.nodeName,
    ...(command.replacement !== undefined ? { replacement: command.replacement } : {}),
    budgetAllowed,
  });
  ctx.log(
    `disrupting node(s): command="Drifted: ${c.empty ? 'delete' : 'replace'}: nodepools=[${c.nodePool}]: [${command.nodeName}] -> [${command.replacement ?? 'no replacement'}]"`,
  );
  if (c.empty) finishCommand(ctx, command);
}

// queue.go waitOrTerminate: a replacement that is not found (ICE, a launch or registration timeout: deleted and its
// finalizer gone; one still terminating is found, and waited on) fails the command at once; one not initialized when
// the command is 10 minutes old fails it too ("command reached timeout").
function processQueue(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const command of [...ctx.memory.commands.values()]) {
    const replacement = command.replacement ? ctx.store.get(NODECLAIMS, command.replacement) : undefined;
    if (command.replacement && !replacement) {
      failCommand(ctx, command, `replacement was deleted, nodeclaims.karpenter.sh "${command.replacement}" not found`);
      continue;
    }
    if (replacement && !isTrue(replacement, 'Initialized') && now - command.startedAt > COMMAND_TIMEOUT_MS) {
      const error = `waiting for replacement initialization, nodeclaim not initialized (NodeClaim=${command.replacement})`;
      failCommand(ctx, command, `command reached timeout, ${error}`);
      continue;
    }
    if (replacement && !isTrue(replacement, 'Initialized')) {
      ctx.events.publish({
        object: replacement,
        type: 'Normal',
        reason: 'DisruptionWaitingReadiness',
        message: 'Waiting on readiness to continue disruption',
      });
      continue;
    }
    finishCommand(ctx, command);
  }
}

function finishCommand(ctx: SimContext, command: Command): void {
  ctx.memory.commands.delete(command.candidate);
  const claim = ctx.store.get(NODECLAIMS, command.candidate);
  const node = ctx.store.get('nodes', command.nodeName);
  if (!claim) return;
  if (node)
    ctx.events.publish({
      object: node,
      type: 'Normal',
      reason: 'DisruptionTerminating',
      message: 'Disrupting Node: Drifted',
      dedupe: [node.metadata.uid ?? '', 'Drifted'],
    });
  ctx.events.publish({
    object: claim,
    type: 'Normal',
    reason: 'DisruptionTerminating',
    message: 'Disrupting NodeClaim: Drifted',
    dedupe: [claim.metadata.uid ?? '', 'Drifted'],
  });
  ctx.store.delete(NODECLAIMS, command.candidate);
  ctx.log(`command succeeded: deleting nodeclaim ${command.candidate}`);
}

function failCommand(ctx: SimContext, command: Command, error: string): void {
  ctx.memory.commands.delete(command.candidate);
  ctx.disruptions.failed(command.candidate, ctx.clock.wall());
  // queue.go bails on the command and that is all: no back-off for the candidate, which the next disruption pass
  // (every pollingPeriod) may pick again.
  const node = ctx.store.get('nodes', command.nodeName);
  if (node && !node.metadata.deletionTimestamp) untaint(ctx, node);
  const claim = ctx.store.get(NODECLAIMS, command.candidate);
  if (claim && !claim.metadata.deletionTimestamp) clearDisruptionReason(ctx, claim);
  // The queue leaves a replacement that did not initialize in time alone: it may still join, and the lifecycle's
  // liveness check deletes it if it never registers (queue.go; lifecycle-controller.ts).
  ctx.log(`failed terminating nodes while executing a disruption command: ${error}`);
}
