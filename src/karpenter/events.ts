// The reasons of the events Karpenter records on NodeClaims, Nodes and NodePools while it disrupts them
// (kubernetes-sigs/karpenter v1.14.1 `pkg/events/reason.go`), as the follow lists and the diagnosis quotes them, and
// which NodeClaims Karpenter says it launched for drift.
import type { EventView } from './views.js';

/**
 * Event reasons the diagnosis reads (DOMAIN.md §2.8, KC `pkg/events/reason.go`). Per-pod events (`Evicted`,
 * `Disrupted`) are left out: one per pod, they would push the NodePool's and Node's out of the bounded window.
 */
export const KARPENTER_EVENT_REASONS = [
  'DisruptionBlocked',
  'DisruptionLaunching',
  'DisruptionWaitingReadiness',
  'DisruptionTerminating',
  'FailedDraining',
  'AwaitingVolumeDetachment',
  'TerminationGracePeriodExpiring',
  'InsufficientCapacityError',
  'NodeClassNotReady',
  'UnregisteredTaintMissing',
] as const;

/**
 * The NodeClaims Karpenter launched as drift replacements: its disruption queue publishes `DisruptionLaunching`
 * "Launching NodeClaim: <reason>" on each replacement while it waits for it (kubernetes-sigs/karpenter v1.14.1
 * `pkg/controllers/disruption/events/events.go` `Launching`, from `queue.go` `waitOrTerminate`; `queue_test.go`
 * checks it), the reason title-cased: `Drifted` since v1.x dropped the `/replace` suffix (`Drifted/Replace` in v1.0,
 * `Drift/Replace` in v0.37). A NodeClaim the provisioner launched for pending pods (a scale-up) never gets it, nor does
 * a consolidation's (`Underutilized`, `Consolidation/Replace`).
 */
export function driftLaunched(events: Iterable<EventView>): Set<string> {
  const out = new Set<string>();
  for (const e of events) {
    if (e.reason !== 'DisruptionLaunching' || e.involvedKind !== 'NodeClaim' || e.involvedName === undefined) continue;
    if (/^Launching NodeClaim: Drift/.test(e.message)) out.add(e.involvedName);
  }
  return out;
}
