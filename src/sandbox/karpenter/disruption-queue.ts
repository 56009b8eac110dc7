// The disruption queue (kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go StartCommand, Reconcile,
// waitOrTerminate): a command taints its candidate and sets DisruptionReason, creates the replacements its scheduling
// run asked for (none: a delete), nominates the nodes that run relied on, and is then looked at once at once and every
// second after (queueBaseDelay): each replacement gets DisruptionLaunching and, until Initialized,
// DisruptionWaitingReadiness; once every one is Initialized the candidate NodeClaim is deleted with
// DisruptionTerminating on its Node and NodeClaim. A replacement gone from the API (ICE, a liveness timeout; one
// still held by a finalizer is found, so waited on) or not Initialized 10 minutes after the command started fails it:
// the taint and DisruptionReason go, the replacements stay, no event is published, and the next pass may pick the
// node again (no back-off).
import type { KubeObject } from '../kube-api/types.js';
import type { Candidate } from './disruption-candidates.js';
import type { Simulation } from './cluster-state.js';
import { NODECLAIMS, NODEPOOLS, setConditions, status, writeObject, writeStatus, type Command, type SimContext } from './context.js';
import { DISRUPTED_TAINT, DISRUPTING_TAINT_V1BETA1, isTrue, withoutCondition, type Condition } from './objects.js';
import { nominate, triggerProvisioner } from './batcher.js';
import { createNodeClaim, instanceTypeFor } from './replacement.js';

/** Karpenter's queue gives up on a replacement that has not initialized after this long (queue.go minRetryDuration). */
const COMMAND_TIMEOUT_MS = 10 * 60_000;
/** queue.go queueBaseDelay: a command waiting on its replacements is looked at again a second later. */
const QUEUE_DELAY_MS = 1000;

export function taintOf(ctx: SimContext): { key: string; value?: string; effect: string } {
  return ctx.karpenterApi === 'v1' ? DISRUPTED_TAINT : DISRUPTING_TAINT_V1BETA1;
}

type Taint = { key: string; value?: string; effect: string };

function taintsOf(node: KubeObject): Taint[] {
  return (node.spec as { taints?: Taint[] } | undefined)?.taints ?? [];
}

/** Taints the node for disruption (RequireNoScheduleTaint); the provisioner's node controller notices. */
export function taint(ctx: SimContext, node: KubeObject): void {
  const t = taintOf(ctx);
  if (taintsOf(node).some((x) => x.key === t.key)) return;
  writeObject(ctx, 'nodes', { ...node, spec: { ...(node.spec as object), taints: [...taintsOf(node), { ...t }] } });
  triggerProvisioner(ctx);
}

export function untaint(ctx: SimContext, node: KubeObject): void {
  const t = taintOf(ctx);
  writeObject(ctx, 'nodes', { ...node, spec: { ...(node.spec as object), taints: taintsOf(node).filter((x) => x.key !== t.key) } });
}

export function hasDisruptionTaint(ctx: SimContext, node: KubeObject): boolean {
  return taintsOf(node).some((t) => t.key === taintOf(ctx).key);
}

export function clearDisruptionReason(ctx: SimContext, claim: KubeObject): void {
  writeStatus(ctx, NODECLAIMS, claim, {
    ...status<Record<string, unknown>>(claim),
    conditions: withoutCondition(status<{ conditions?: Condition[] }>(claim).conditions, 'DisruptionReason'),
  });
}

/** StartCommand: mark the candidate, create its replacements, nominate, enqueue; the queue looks at it at once. */
export function startCommand(ctx: SimContext, c: Candidate, sim: Simulation, budgetAllowed: number): void {
  const name = c.claim.metadata.name ?? '';
  taint(ctx, c.node);
  setConditions(ctx, NODECLAIMS, c.claim, [
    // queue.go markDisrupted: SetTrueWithReason(DisruptionReason, reason, reason).
    { type: 'DisruptionReason', status: 'True', reason: 'Drifted', message: 'Drifted' },
  ]);
  const replacements: string[] = [];
  for (const made of sim.results.newNodeClaims) {
    const pool = ctx.store.get(NODEPOOLS, made.template.nodePool);
    if (!pool) continue;
    const pods = made.pods.flatMap((p) => sim.pods.get(p.key) ?? []);
    const claim = createNodeClaim(ctx, pool, instanceTypeFor(ctx, pool, pods));
    replacements.push(claim.metadata.name ?? '');
  }
  // Results.Record: the existing nodes this decision relies on are nominated (statenode.go Nominate).
  for (const placed of sim.results.existing) if (placed.pods.length > 0) nominate(ctx, placed.node.nodeClaim);
  const now = ctx.clock.now().getTime();
  const command: Command = {
    candidate: name,
    nodeName: c.node.metadata.name ?? '',
    nodePool: c.nodePool,
    replacements,
    initialized: new Set(),
    startedAt: now,
    checkAt: now,
  };
  ctx.memory.commands.set(name, command);
  ctx.disruptions.started({
    time: ctx.clock.wall().toISOString(),
    nodePool: c.nodePool,
    nodeClaim: name,
    node: command.nodeName,
    replacements,
    budgetAllowed,
  });
  const decision = replacements.length > 0 ? 'replace' : 'delete';
  const to = replacements.length > 0 ? `${replacements.length} replacement(s): ${replacements.join(', ')}` : 'no replacement';
  ctx.log(`disrupting node(s): command="Drifted: ${decision}: nodepools=[${c.nodePool}]: [${command.nodeName}] -> [${to}]"`);
  processCommand(ctx, command);
}

/** The queue's reconciles due now, each command at most once a second. */
export function reconcileDisruptionQueue(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const command of [...ctx.memory.commands.values()]) if (command.checkAt <= now) processCommand(ctx, command);
}

// queue.go waitOrTerminate.
function processCommand(ctx: SimContext, command: Command): void {
  const now = ctx.clock.now().getTime();
  const waiting: string[] = [];
  for (const name of command.replacements) {
    if (command.initialized.has(name)) continue;
    const replacement = ctx.store.get(NODECLAIMS, name);
    if (!replacement) return failCommand(ctx, command, `replacement was deleted, nodeclaims.karpenter.sh "${name}" not found`);
    const uid = replacement.metadata.uid ?? '';
    ctx.events.publish({ object: replacement, type: 'Normal', reason: 'DisruptionLaunching', message: 'Launching NodeClaim: Drifted', dedupe: [uid, 'Drifted'] });
    if (!isTrue(replacement, 'Initialized')) {
      ctx.events.publish({ object: replacement, type: 'Normal', reason: 'DisruptionWaitingReadiness', message: 'Waiting on readiness to continue disruption' });
      waiting.push(name);
      continue;
    }
    command.initialized.add(name);
  }
  if (waiting.length > 0) {
    if (now - command.startedAt > COMMAND_TIMEOUT_MS) {
      const error = `waiting for replacement initialization, ${waiting.map((n) => `nodeclaim not initialized (NodeClaim=${n})`).join('; ')}`;
      return failCommand(ctx, command, `command reached timeout, ${error}`);
    }
    command.checkAt = now + QUEUE_DELAY_MS;
    return;
  }
  terminate(ctx, command);
}

function terminate(ctx: SimContext, command: Command): void {
  ctx.memory.commands.delete(command.candidate);
  const claim = ctx.store.get(NODECLAIMS, command.candidate);
  if (!claim) return;
  const node = ctx.store.get('nodes', command.nodeName);
  if (node)
    ctx.events.publish({ object: node, type: 'Normal', reason: 'DisruptionTerminating', message: 'Disrupting Node: Drifted', dedupe: [node.metadata.uid ?? '', 'Drifted'] });
  ctx.events.publish({ object: claim, type: 'Normal', reason: 'DisruptionTerminating', message: 'Disrupting NodeClaim: Drifted', dedupe: [claim.metadata.uid ?? '', 'Drifted'] });
  ctx.store.delete(NODECLAIMS, command.candidate);
  ctx.log(`command succeeded: deleting nodeclaim ${command.candidate}`);
}

function failCommand(ctx: SimContext, command: Command, error: string): void {
  ctx.memory.commands.delete(command.candidate);
  ctx.disruptions.failed(command.candidate, ctx.clock.wall());
  // queue.go bails on the command and that is all: no back-off for the candidate, which the next disruption pass
  // (every pollingPeriod) may pick again. The replacements are left alone: they may still join, and liveness deletes
  // one that never registers.
  const node = ctx.store.get('nodes', command.nodeName);
  if (node && !node.metadata.deletionTimestamp) untaint(ctx, node);
  const claim = ctx.store.get(NODECLAIMS, command.candidate);
  if (claim && !claim.metadata.deletionTimestamp) clearDisruptionReason(ctx, claim);
  ctx.log(`failed terminating nodes while executing a disruption command: ${error}`);
}
