// The reasons of the events Karpenter records on NodeClaims, Nodes and NodePools while it disrupts them
// (kubernetes-sigs/karpenter v1.14.1 `pkg/events/reason.go`), as the follow lists and the diagnosis quotes them.

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
