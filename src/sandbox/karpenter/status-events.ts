// operatorpkg's status controller, which Karpenter runs for its NodeClaims, NodePools and EC2NodeClasses and for
// Nodes (awslabs/operatorpkg status/controller.go): every condition whose status changed between two versions it
// observed becomes a Normal event named after the condition, `Status condition transitioned, Type: <type>, Status:
// <old> -> <new>, Reason: <reason>[, Message: <message>]` (a condition that appears or goes has no transition), and
// every finalizer that goes becomes `Finalized <finalizer>` (termination-controller.ts publishes those). The changes are
// taken from the store's change feed, so every writer's transitions count (the kubelet's Ready included), and
// published on the next step, within its work budget.
import type { SimContext } from './context.js';

export function reconcileStatusEvents(ctx: SimContext): void {
  const pending = ctx.conditionTransitions.pending;
  while (pending.length > 0 && !ctx.budget.exhausted()) {
    const t = pending.shift()!;
    const message = `Status condition transitioned, Type: ${t.type}, Status: ${t.from} -> ${t.to.status}, Reason: ${t.to.reason}${t.to.message ? `, Message: ${t.to.message}` : ''}`;
    // client-go's recorder, not Karpenter's deduplicating one: every transition is an event.
    ctx.events.publish({ object: t.object, type: 'Normal', reason: t.type, message, dedupeTimeoutMs: 0 });
  }
}
