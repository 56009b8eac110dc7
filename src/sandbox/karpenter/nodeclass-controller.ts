// The EC2NodeClass status controller (karpenter-provider-aws pkg/controllers/nodeclass): on every new generation it
// resolves amiSelectorTerms (amis.ts) and writes status.amis with AMIsReady and Ready, observedGeneration included.
// What a failure leaves behind depends on its kind (ami.go): AMINotFound clears status.amis, UnsupportedAlias keeps
// them, and an alias whose SSM parameters all miss is a reconcile error that leaves AMIsReady and status.amis as they
// were while the other conditions move on to the new generation, so Ready goes Unknown. Subnets, security groups
// and the instance profile always resolve in the sandbox.
import { familyFromAmiFamilyField } from '../../ami/families.js';
import type { KubeObject } from '../kube-api/types.js';
import { resolveAmiSelectorTerms } from './amis.js';
import { EC2NODECLASSES, spec, status, writeStatus, type SimContext } from './context.js';
import { conditionOf, withCondition, type Condition } from './objects.js';

type Terms = Parameters<typeof resolveAmiSelectorTerms>[0]['terms'];

// v1beta1 (Karpenter 0.32–0.37) made amiSelectorTerms optional: without them Karpenter used the amiFamily's
// recommended SSM parameter for the control plane's version, which is what an `@latest` alias does in v1.
function termsOf(ctx: SimContext, s: { amiSelectorTerms?: Terms; amiFamily?: string }): Terms {
  if (s.amiSelectorTerms?.length || ctx.karpenterApi === 'v1') return s.amiSelectorTerms ?? [];
  const family = familyFromAmiFamilyField(s.amiFamily ?? 'AL2');
  return family ? [{ alias: `${family}@latest` }] : [];
}

const ALWAYS_READY = ['SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded'];
const DEPENDENTS = ['AMIsReady', ...ALWAYS_READY];
/** controller-runtime's per-item backoff for a failing reconcile tops out here (the nodeclass controller's limiter). */
const ERROR_RETRY_MS = 60_000;

export function reconcileNodeClasses(ctx: SimContext): void {
  const now = ctx.clock.now().getTime();
  for (const nodeClass of ctx.store.list(EC2NODECLASSES)) {
    if (nodeClass.metadata.deletionTimestamp) continue;
    const name = nodeClass.metadata.name ?? '';
    const generation = nodeClass.metadata.generation ?? 1;
    const failing = ctx.memory.nodeClassRetryAt.get(name);
    // A generation whose reconcile failed is retried with backoff, not on every pass; one that went through waits
    // for the next change.
    if (failing?.generation === generation) {
      if (now < failing.at) continue;
    } else if (
      ctx.memory.nodeClassReconciled.get(name) === generation ||
      (ctx.nodeClassConditions === 'all' && conditionOf(nodeClass, 'AMIsReady')?.observedGeneration === generation)
    )
      continue;
    reconcileNodeClass(ctx, nodeClass, generation);
  }
}

function reconcileNodeClass(ctx: SimContext, nodeClass: KubeObject, generation: number): void {
  const now = ctx.clock.wall();
  const name = nodeClass.metadata.name ?? '';
  const s = spec<{ amiSelectorTerms?: Terms; amiFamily?: string }>(nodeClass);
  const resolution = resolveAmiSelectorTerms({
    terms: termsOf(ctx, s),
    amiFamily: s.amiFamily,
    catalog: ctx.catalog,
    controlPlaneVersion: ctx.controlPlaneVersion,
    now,
    hiddenImageIds: ctx.faults.hiddenImageIds,
  });
  const { amis: previousAmis, ...rest } = status<{ amis?: unknown[] }>(nodeClass);
  let conditions = status<{ conditions?: Condition[] }>(nodeClass).conditions;
  for (const type of ALWAYS_READY) conditions = withCondition(conditions, { type, status: 'True', reason: type, message: '', observedGeneration: generation }, now);
  let amis = previousAmis;
  if ('error' in resolution) {
    // The reconcile error path: AMIsReady keeps its old generation, so Ready goes Unknown (ReconcilingDependents).
    // A class seen for the first time gets the Unknown that operatorpkg gives every condition it has not set yet.
    if (!conditions?.some((c) => c.type === 'AMIsReady')) {
      conditions = withCondition(conditions, { type: 'AMIsReady', status: 'Unknown', reason: 'AwaitingReconciliation', message: 'object is awaiting reconciliation', observedGeneration: generation }, now);
    }
    ctx.memory.nodeClassRetryAt.set(name, { generation, at: ctx.clock.now().getTime() + ERROR_RETRY_MS });
    ctx.log(`reconciler error: ec2nodeclass ${name}: getting amis, ${resolution.error}`);
  } else if (!('reason' in resolution)) {
    ctx.memory.nodeClassRetryAt.delete(name);
    amis = resolution.amis.map((a) => ({ id: a.id, name: a.name, requirements: a.requirements, ...(a.deprecated ? { deprecated: true } : {}) }));
    conditions = withCondition(conditions, { type: 'AMIsReady', status: 'True', reason: 'AMIsReady', message: '', observedGeneration: generation }, now);
    ctx.log(`discovered amis for ec2nodeclass ${name}: ${resolution.amis.map((a) => a.id).join(', ')}`);
  } else {
    ctx.memory.nodeClassRetryAt.delete(name);
    // AMINotFound sets status.amis to nil, so drift cannot be computed and no NodeClaim becomes Drifted: a bad AMI
    // stalls a rollout rather than breaking nodes. UnsupportedAlias keeps the AMIs it had.
    if (resolution.reason === 'AMINotFound') amis = undefined;
    conditions = withCondition(conditions, { type: 'AMIsReady', status: 'False', reason: resolution.reason, message: resolution.message, observedGeneration: generation }, now);
    ctx.log(`ec2nodeclass ${name}: AMIsReady=False ${resolution.reason}: ${resolution.message}`);
  }
  conditions = withCondition(conditions, { ...readyCondition(conditions ?? [], generation), observedGeneration: generation }, now);
  if (!('error' in resolution)) ctx.memory.nodeClassReconciled.set(name, generation);
  const unconditioned: Record<string, unknown> = { ...rest };
  delete unconditioned.conditions; // releaseConditions decides whether there are any
  writeStatus(ctx, EC2NODECLASSES, nodeClass, {
    ...unconditioned,
    ...(amis !== undefined ? { amis } : {}),
    ...releaseConditions(ctx, nodeClass, conditions ?? [], amis, generation, now),
  });
}

/**
 * The conditions as the release writes them (scenarios/versions.ts `nodeClassConditions`): all of them (v1); Ready
 * alone, False while status.amis is empty (v0.37 `readiness.go`); or none at all (v0.32–v0.36).
 */
function releaseConditions(
  ctx: SimContext,
  nodeClass: KubeObject,
  conditions: Condition[],
  amis: unknown[] | undefined,
  generation: number,
  now: Date,
): { conditions?: Condition[] } {
  if (ctx.nodeClassConditions === 'all') return { conditions };
  if (ctx.nodeClassConditions === 'none') return {};
  const resolved = (amis ?? []).length > 0;
  const before = status<{ conditions?: Condition[] }>(nodeClass).conditions;
  return {
    conditions: withCondition(
      before?.filter((c) => c.type === 'Ready'),
      resolved
        ? { type: 'Ready', status: 'True', reason: 'Ready', message: '', observedGeneration: generation }
        : { type: 'Ready', status: 'False', reason: 'NodeClassNotReady', message: 'Failed to resolve AMIs', observedGeneration: generation },
      now,
    ),
  };
}

/**
 * Is the class ready to launch from? Its Ready condition where the release has one; v0.32–v0.36 have no conditions,
 * and a launch needs only `status.amis` ("no amis exist given constraints" otherwise).
 */
export function nodeClassReady(ctx: SimContext, nodeClass: KubeObject): Pick<Condition, 'status' | 'message'> | undefined {
  if (ctx.nodeClassConditions !== 'none') return conditionOf(nodeClass, 'Ready');
  return (status<{ amis?: unknown[] }>(nodeClass).amis ?? []).length > 0
    ? { status: 'True', message: '' }
    : { status: 'False', message: 'no amis exist given constraints' };
}

/**
 * The root condition as operatorpkg's ConditionSet computes it: True when every dependent is True at this
 * generation; False (UnhealthyDependents) when one is False at this generation; otherwise Unknown
 * (ReconcilingDependents). The message lists the unhealthy dependents, most recently changed first.
 */
export function readyCondition(conditions: Condition[], generation: number): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  const unhealthy = conditions
    .filter((c) => DEPENDENTS.includes(c.type) && (c.status !== 'True' || c.observedGeneration !== generation))
    .sort((a, b) => b.lastTransitionTime.localeCompare(a.lastTransitionTime));
  if (unhealthy.length === 0) return { type: 'Ready', status: 'True', reason: 'Ready', message: '' };
  const failed = unhealthy.some((c) => c.status === 'False' && c.observedGeneration === generation);
  return {
    type: 'Ready',
    status: failed ? 'False' : 'Unknown',
    reason: failed ? 'UnhealthyDependents' : 'ReconcilingDependents',
    message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', '),
  };
}
