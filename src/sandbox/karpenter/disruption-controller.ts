// The disruption controller for drift (kubernetes-sigs/karpenter pkg/controllers/disruption/{controller,drift,
// helpers}.go, DOMAIN.md §2.5–2.7). A pass runs 10 s after a pass that did nothing (pollingPeriod) and 1 s after one
// that started a command (the next pass waits for cluster state to sync with the NodeClaims it created): it clears
// stale disruption taints, builds each NodePool's allowed Drifted disruptions, validates every node (DisruptionBlocked
// for those it may not touch), and tries the drifted candidates, empty ones first, then by drift age: for each whose
// NodePool has budget left it runs the scheduling simulation, and the first whose pods would all schedule, on nodes
// that are up or on new NodeClaims, becomes the pass's one command, with those NodeClaims as its replacements (none:
// a delete). A candidate whose pods would not schedule, or would only schedule on a node still initializing, gets
// DisruptionBlocked and waits. Its queue (disruption-queue.ts) finishes the command.
import type { KubeObject } from '../kube-api/types.js';
import { allowedDisruptions, type AllowedDisruptions, type Budget } from '../../karpenter/budgets.js';
import { budgetMapping } from '../../karpenter/budget-mapping.js';
import { notAllPodsWouldSchedule, schedulingInput, simulateScheduling, stateNodes, type SchedulingInput } from './cluster-state.js';
import { NODECLAIMS, NODEPOOLS, spec, status, type BudgetCounts, type SimContext } from './context.js';
import { candidates, publishBlocked, publishUnconsolidatable, type Candidate } from './disruption-candidates.js';
import { clearDisruptionReason, hasDisruptionTaint, startCommand, untaint } from './disruption-queue.js';
import { conditionOf, isTrue } from './objects.js';

/** controller.go: the requeue after a command, spent waiting for cluster state to see what the command created. */
const REQUEUE_AFTER_COMMAND_MS = 1000;

export function reconcileDisruption(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  if (now < ctx.memory.nextDisruptionPass) return;
  const started = disruptionPass(ctx);
  ctx.memory.nextDisruptionPass = now + (started ? REQUEUE_AFTER_COMMAND_MS : ctx.timing.disruptionPollSeconds * 1000);
}

/** One pass: at most one command (drift.go ComputeCommands returns the first that works). */
function disruptionPass(ctx: SimContext): boolean {
  const claims = ctx.store.list(NODECLAIMS);
  const nodes = new Map(ctx.store.list('nodes').map((n) => [n.metadata.name ?? '', n]));
  const inFlight = new Set(ctx.memory.commands.keys());
  cleanUpStaleTaints(ctx, claims, nodes, inFlight);
  const counts = budgetCounts(ctx, claims, nodes, inFlight);
  const state = stateNodes(ctx);
  const valid = candidates(ctx, state);
  // Empty nodes first: their pods need no place, and taking them first keeps pods from landing on nodes that go next.
  const drifted = valid
    .filter((c) => c.driftedAt !== undefined)
    .sort((a, b) => Number(b.empty) - Number(a.empty) || (a.driftedAt ?? '').localeCompare(b.driftedAt ?? ''));
  const allowed = new Map<string, number>();
  let input: SchedulingInput | undefined;
  for (const candidate of drifted) {
    // Karpenter tries every candidate in one pass; the sandbox stops once the pass has made its share of writes
    // (two DisruptionBlocked events per refused candidate), so a fleet of thousands refused does not hold the API
    // server for one step: the rest are tried on the next pass.
    if (ctx.budget.exhausted()) break;
    let left = allowed.get(candidate.nodePool);
    if (left === undefined) allowed.set(candidate.nodePool, (left = allowedNow(ctx, candidate.nodePool, counts.get(candidate.nodePool))));
    if (left <= 0) continue;
    const sim = simulateScheduling(ctx, (input ??= schedulingInput(ctx, state)), [candidate.state]);
    if (sim.errors.size > 0) {
      publishBlocked(ctx, candidate.node, candidate.claim, notAllPodsWouldSchedule(sim.errors));
      continue;
    }
    startCommand(ctx, candidate, sim, left);
    return true;
  }
  publishUnconsolidatable(ctx, valid);
  return false;
}

/** The drifted candidates a pass would consider now, in its order: for tests. */
export function driftCandidates(ctx: SimContext): Candidate[] {
  return candidates(ctx, stateNodes(ctx)).filter((c) => c.driftedAt !== undefined);
}

function nodeNameOf(claim: KubeObject): string {
  return status<{ nodeName?: string }>(claim).nodeName ?? '';
}

/**
 * Each NodePool's budget counts from the store as it is (helpers.go BuildDisruptionBudgetMapping), with the
 * DisruptionBlocked event of a NodePool whose budgets allow nothing (deduplicated per minute, as Karpenter does).
 */
function budgetCounts(
  ctx: SimContext,
  claims: KubeObject[],
  nodes: Map<string, KubeObject>,
  inFlight: Set<string>,
): Map<string, BudgetCounts> {
  const now = ctx.clock.wall();
  const counts = new Map<string, BudgetCounts>();
  const byPool = new Map<string, KubeObject[]>();
  for (const c of claims) {
    const pool = c.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
    const members = byPool.get(pool);
    if (members === undefined) byPool.set(pool, [c]);
    else members.push(c);
  }
  for (const pool of ctx.store.list(NODEPOOLS)) {
    const name = pool.metadata.name ?? '';
    const members = byPool.get(name) ?? [];
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
    const result = { numNodes: mapped.counted.length, disrupting: mapped.disrupting.length };
    counts.set(name, result);
    if (allowance(ctx, pool, result, now).limit === 0 && result.numNodes > 0) {
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
 *   `if !c.queue.IsEmpty()`).
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

// controller.go: RequireNoScheduleTaint(false) and ClearNodeClaimsCondition for nodes outside the queue, which a
// restart (or a failed command) can leave marked.
function cleanUpStaleTaints(ctx: SimContext, claims: KubeObject[], nodes: Map<string, KubeObject>, inFlight: Set<string>): void {
  for (const claim of claims) {
    if (claim.metadata.deletionTimestamp || inFlight.has(claim.metadata.name ?? '')) continue;
    const node = nodes.get(nodeNameOf(claim));
    if (node && !node.metadata.deletionTimestamp && hasDisruptionTaint(ctx, node)) untaint(ctx, node);
    if (conditionOf(claim, 'DisruptionReason')) clearDisruptionReason(ctx, claim);
  }
}
