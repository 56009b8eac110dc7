// How a replacement and the pods on it fare, judged once for both rooms that ask: the health gates
// (gates/health.ts), which halt a staged rollout on it, and the stall diagnosis (bad-ami.ts), which names a failing
// AMI as the reason a rollout stands still. gates/ may import rollout/ and not the other way round, so the judgement
// lives here, beneath both (STYLE.md "A type that two rooms share lives below both"). Pure: `now` is an argument.
//
// A replacement comes up when it is Launched, Registered and Initialized within its deadline, counted from its
// creation as Karpenter's liveness counts (karpenter/lifecycle.ts), and its Node stays Ready after. A pod is healthy
// when the kubelet runs its containers (no waiting reason in FAILING_REASONS), it has not restarted past the limit,
// and it is Ready within its deadline.
import { COMMAND_TIMEOUT_MS, LAUNCH_TTL_MS, REGISTRATION_TTL_MS } from '../karpenter/lifecycle.js';
import type { ConditionView, NodeClaimView, NodeView, PodView } from '../karpenter/views.js';
import { humanDuration } from '../text/words.js';

export interface HealthLimits {
  /** A replacement NodeClaim must be Launched, Registered and Initialized this long after its creation. */
  initDeadlineMs: number;
  /** A pod on a replaced node must be Ready this long after it was created. */
  podReadyDeadlineMs: number;
  /** More container restarts than this on a replaced node is a failure. */
  maxRestarts: number;
}

/**
 * The gates' defaults (`--init-deadline`, `--pod-ready-deadline`, `--max-restarts`), which the diagnosis judges by
 * too. The init deadline is the drift queue's timeout: Karpenter gives the command up then, so a replacement that
 * slow has failed by Karpenter's own measure.
 */
export const DEFAULT_HEALTH_LIMITS: HealthLimits = {
  initDeadlineMs: COMMAND_TIMEOUT_MS,
  podReadyDeadlineMs: 5 * 60_000,
  maxRestarts: 3,
};

/** Waiting reasons the kubelet gives a container it cannot run. */
export const FAILING_REASONS: ReadonlySet<string> = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'CreateContainerError',
  'RunContainerError',
]);

/** The workload a pod belongs to: its controller (a ReplicaSet keeps its name as pods are re-created), or itself. */
export const workloadOf = (p: PodView): string => `${p.namespace}/${p.owner ?? `Pod/${p.name}`}`;

/** A pod worth judging: running or starting, not on its way out, not a static pod. */
export const livePod = (p: PodView): boolean =>
  !p.deleting && p.mirror !== true && p.phase !== 'Succeeded' && p.phase !== 'Failed';

/**
 * Failing as seen at one look, with no deadline: held back by the kubelet, or running and not Ready. What excuses a
 * workload on a node not on a target AMI (its trouble is not the new AMI's).
 */
export const failingNow = (p: PodView): boolean =>
  (p.waiting !== undefined && FAILING_REASONS.has(p.waiting.reason)) || (p.notReady === true && p.phase === 'Running');

export const conditionText = (type: string, c: ConditionView | undefined): string =>
  c === undefined
    ? `${type} not set`
    : `${type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`;

/** The Node's Ready condition in the kubelet's (or the node controller's) words. */
export function notReadyText(node: NodeView): string {
  const nr = node.notReady;
  return nr
    ? `Ready=${nr.status}${nr.reason ? ` ${nr.reason}` : ''}${nr.message ? `: ${nr.message}` : ''}${nr.since ? ` (since ${nr.since})` : ''}`
    : 'Ready is not True';
}

/** A pod's trouble in the kubelet's words: the container it keeps from running, its last exit, its restarts. */
export function podEvidence(p: PodView): string[] {
  const restarts = p.restarts ?? 0;
  return [
    ...(p.waiting
      ? [`container ${p.waiting.container}: ${p.waiting.reason}${p.waiting.message ? `: ${p.waiting.message}` : ''}`]
      : []),
    ...(p.waiting?.lastExit ? [`last termination: ${p.waiting.lastExit}`] : []),
    ...(restarts > 0 ? [`${restarts} restart${restarts === 1 ? '' : 's'}`] : []),
  ];
}

const LIFECYCLE = ['Launched', 'Registered', 'Initialized'] as const;
export type LifecycleCondition = (typeof LIFECYCLE)[number];

/** The lifecycle conditions a NodeClaim has not reached, in order. */
export const notYet = (c: NodeClaimView): LifecycleCondition[] =>
  LIFECYCLE.filter((t) => c.conditions[t]?.status !== 'True');

const age = (since: string | undefined, now: Date): number => (since ? now.getTime() - Date.parse(since) : 0);

export type ReplacementHealth =
  | { verdict: 'healthy' }
  /** Still coming up within the deadline. */
  | { verdict: 'pending'; waited: number; notYet: LifecycleCondition[] }
  | { verdict: 'failed'; code: 'REPLACEMENT-NOT-INITIALIZED'; waited: number; notYet: LifecycleCondition[] }
  /** Initialized, then its Node went NotReady. */
  | { verdict: 'failed'; code: 'NODE-NOT-READY'; node: NodeView };

/** A live replacement NodeClaim (not being deleted) and its Node, if it has one. */
export function replacementHealth(
  c: NodeClaimView,
  node: NodeView | undefined,
  limits: Pick<HealthLimits, 'initDeadlineMs'>,
  now: Date,
): ReplacementHealth {
  if (c.conditions.Initialized?.status !== 'True') {
    const waited = age(c.createdAt, now);
    const missing = notYet(c);
    return waited < limits.initDeadlineMs
      ? { verdict: 'pending', waited, notYet: missing }
      : { verdict: 'failed', code: 'REPLACEMENT-NOT-INITIALIZED', waited, notYet: missing };
  }
  if (node === undefined || node.ready) return { verdict: 'healthy' };
  return { verdict: 'failed', code: 'NODE-NOT-READY', node };
}

export type PodHealth =
  | { verdict: 'healthy' }
  | { verdict: 'pending'; waited: number }
  | { verdict: 'failed'; code: 'POD-FAILING'; reason: string }
  | { verdict: 'failed'; code: 'POD-RESTARTING'; restarts: number }
  | { verdict: 'failed'; code: 'POD-NOT-READY'; waited: number };

/** A live pod on a replacement's node. */
export function podHealth(p: PodView, limits: Omit<HealthLimits, 'initDeadlineMs'>, now: Date): PodHealth {
  if (p.waiting && FAILING_REASONS.has(p.waiting.reason))
    return { verdict: 'failed', code: 'POD-FAILING', reason: p.waiting.reason };
  const restarts = p.restarts ?? 0;
  if (restarts > limits.maxRestarts) return { verdict: 'failed', code: 'POD-RESTARTING', restarts };
  if (p.ready === true) return { verdict: 'healthy' };
  const waited = age(p.createdAt, now);
  return waited < limits.podReadyDeadlineMs
    ? { verdict: 'pending', waited }
    : { verdict: 'failed', code: 'POD-NOT-READY', waited };
}

/**
 * Why Karpenter deleted a replacement before it was Initialized, read from its last view: liveness deletes a NodeClaim
 * whose launch keeps failing, or that does not register, a fixed time after its creation (karpenter/lifecycle.ts).
 * A launch refused for capacity (karpenter/capacity.ts) is no such failure and never asks.
 */
export function deletedBecause(c: NodeClaimView): string {
  if (c.conditions.Launched?.status !== 'True')
    return `it never launched; Karpenter deletes a NodeClaim whose launch keeps failing ${humanDuration(LAUNCH_TTL_MS)} after its creation, and at once one its EC2NodeClass cannot launch (not Ready)`;
  if (c.conditions.Registered?.status !== 'True')
    return `its node never registered; Karpenter's liveness check deletes a NodeClaim not registered ${humanDuration(REGISTRATION_TTL_MS)} after its creation`;
  return 'its node registered but never became Initialized';
}

/** How long a NodeClaim lived: from its creation to its deletionTimestamp (or `now`); undefined without a creation. */
export function lifetime(c: NodeClaimView, now: Date): number | undefined {
  const created = Date.parse(c.createdAt ?? '');
  if (Number.isNaN(created)) return undefined;
  const deleted = Date.parse(c.deletionTimestamp ?? '');
  return (Number.isNaN(deleted) ? now.getTime() : deleted) - created;
}
