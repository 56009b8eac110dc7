// NodeRegistrationHealthy on each NodePool, as Karpenter v1.8+ keeps it (the rules:
// src/karpenter/registration-health.ts, DOMAIN.md §1.3). The lifecycle controller records each launch's outcome as registration.go and liveness.go do: a
// NodeClaim that registers is a success, one that liveness deletes for its launch or registration timeout a failure,
// and the condition moves only as the NodePool's last 4 outcomes say (False from 2 failures). This step is
// Karpenter's nodepool.registrationhealth controller (`pkg/controllers/nodepool/registrationhealth/controller.go`):
// whenever the NodePool's or its EC2NodeClass's generation moves on, the condition goes Unknown and the buffer is
// cleared, and `status.nodeClassObservedGeneration` records the class's generation. A pacer's budget write, an AMI
// change: each starts the count again.
import type { KubeObject } from '../kube-api/types.js';
import {
  outcomesFor,
  recordLaunch,
  registrationHealthReset,
} from '../../karpenter/registration-health.js';
import { EC2NODECLASSES, NODECLAIMS, NODEPOOLS, setConditions, status, type SimContext } from './context.js';
import { nodeClassOf } from './nodepool-counts.js';
import { conditionOf, type Condition } from './objects.js';

const TYPE = 'NodeRegistrationHealthy';

/** registrationhealth/controller.go Reconcile, for every NodePool whose EC2NodeClass exists. */
export function reconcileRegistrationHealth(ctx: SimContext): void {
  if (ctx.registrationHealthRule === undefined) return;
  for (const pool of ctx.store.list(NODEPOOLS)) {
    if (pool.metadata.deletionTimestamp) continue;
    const nodeClass = ctx.store.get(EC2NODECLASSES, nodeClassOf(pool) ?? '');
    if (!nodeClass) continue;
    if (ctx.budget.exhausted()) return;
    const uid = pool.metadata.uid ?? '';
    const condition = conditionOf(pool, TYPE);
    if (condition === undefined && registeredBefore(ctx, pool)) {
      // The scenario's nodes registered before the sandbox started, as they did under a running Karpenter: its
      // NodePools start True, their buffers full of those registrations.
      ctx.memory.registrationHealth.set(uid, outcomesFor('True'));
      setConditions(ctx, NODEPOOLS, pool, [{ type: TYPE, status: 'True', reason: TYPE, message: '' }], {
        nodeClassObservedGeneration: nodeClass.metadata.generation ?? 1,
      });
      continue;
    }
    // A buffer that is empty while the condition says True or False (Karpenter restarted) is refilled from it.
    let outcomes = ctx.memory.registrationHealth.get(uid) ?? [];
    if (outcomes.length === 0 && (condition?.status === 'True' || condition?.status === 'False'))
      outcomes = outcomesFor(condition.status);
    const observed = status<{ nodeClassObservedGeneration?: number }>(pool).nodeClassObservedGeneration ?? 0;
    const classGeneration = nodeClass.metadata.generation ?? 1;
    const reset = registrationHealthReset({
      generation: pool.metadata.generation ?? 1,
      conditionObservedGeneration: condition?.observedGeneration,
      nodeClassObservedGeneration: observed,
      nodeClassGeneration: classGeneration,
    });
    if (reset) outcomes = [];
    ctx.memory.registrationHealth.set(uid, outcomes);
    if (!reset && observed === classGeneration) continue;
    const unknown = {
      type: TYPE,
      status: 'Unknown',
      reason: 'AwaitingReconciliation',
      message: 'object is awaiting reconciliation',
    } as const;
    setConditions(ctx, NODEPOOLS, pool, reset ? [unknown] : [], { nodeClassObservedGeneration: classGeneration });
  }
}

/** Does the NodePool own a NodeClaim that registered (one the scenario built, or launched since)? */
function registeredBefore(ctx: SimContext, pool: KubeObject): boolean {
  const uid = pool.metadata.uid ?? '';
  return ctx.store
    .list(NODECLAIMS)
    .some((c) => c.metadata.ownerReferences?.some((r) => r.uid === uid) && conditionOf(c, 'Registered')?.status === 'True');
}

/**
 * One launch of the NodeClaim's NodePool ended: registered (registration.go), or deleted by liveness (liveness.go).
 * True when the buffer with this success is healthy; False, with RegistrationFailed or the failed launch's own reason
 * and message, when the buffer with this failure is unhealthy and the condition is not False yet. A NodeClaim the
 * NodePool does not own (its ownerReference names another uid: a NodePool deleted and created again) counts for none.
 */
export function recordLaunchOutcome(ctx: SimContext, claim: KubeObject, registered: boolean): void {
  if (ctx.registrationHealthRule === undefined) return;
  const pool = ctx.store.get(NODEPOOLS, claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '');
  if (!pool) return;
  const uid = pool.metadata.uid ?? '';
  if (!claim.metadata.ownerReferences?.some((r) => r.kind === 'NodePool' && r.uid === uid)) return;
  const current = conditionOf(pool, TYPE);
  const update = recordLaunch(
    ctx.memory.registrationHealth.get(uid) ?? [],
    registered,
    current?.status,
    ctx.registrationHealthRule,
  );
  ctx.memory.registrationHealth.set(uid, update.outcomes);
  if (update.condition === 'True' && current?.status !== 'True')
    setConditions(ctx, NODEPOOLS, pool, [{ type: TYPE, status: 'True', reason: TYPE, message: '' }]);
  if (update.condition === 'False') setConditions(ctx, NODEPOOLS, pool, [failure(conditionOf(claim, 'Launched'))]);
}

/** liveness.go: RegistrationFailed for a claim that launched and never registered, else its Launched's reason. */
function failure(launched: Condition | undefined): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  return launched === undefined || launched.status === 'True'
    ? { type: TYPE, status: 'False', reason: 'RegistrationFailed', message: 'Failed to register node' }
    : { type: TYPE, status: 'False', reason: launched.reason, message: launched.message };
}
