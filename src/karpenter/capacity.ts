// A launch EC2 refused for capacity, in Karpenter's words. Routine with spot, and no fault of the image: the health
// gates must not count it as a failed replacement (DOMAIN.md §1.4, §2.5 step 6).
//
// Karpenter says so in one of two ways:
// - core (kubernetes-sigs/karpenter v1.14.1 `pkg/controllers/nodeclaim/lifecycle/launch.go` `launchNodeClaim`): when
//   the cloud provider's Create returns an `InsufficientCapacityError`, it publishes a Warning event of that reason on
//   the NodeClaim ("NodeClaim <name> event: insufficient capacity, …", `lifecycle/events.go`) and deletes the NodeClaim
//   at once, `Launched` never set True. The AWS provider returns one when every CreateFleet error is a capacity code
//   (`pkg/providers/instance/instance.go` `combineFleetErrors`, `pkg/errors/errors.go`
//   `unfulfillableCapacityErrorCodes`), when no offering of the requested instance types is available, and when the
//   EC2NodeClass is gone (`pkg/cloudprovider/cloudprovider.go` `Create`: "no capacity possibilities").
// - the AWS provider (aws/karpenter-provider-aws v1.14.1 `pkg/errors/errors.go` `ToReasonMessage`): when the errors are
//   mixed, or the CreateFleet call itself fails, it returns a CreateError whose reason core writes on
//   `Launched=Unknown`, and the NodeClaim stays until liveness deletes it 5 minutes after its creation. Four of those
//   reasons are the capacity codes above under a name of their own: CAPACITY_LAUNCH_REASONS.
//
// Anything else that keeps a NodeClaim from launching is not excused here: `LaunchFailed` (what is left over, which is
// how EC2 refusing the image ends up) and the image's own reasons (lifecycle.ts IMAGE_LAUNCH_REASONS), permissions,
// the launch template, `NodeClassNotReady` (no event; the class's AMIs may be what is not ready).
import type { ConditionView, EventView, NodeClaimView } from './views.js';

/** The event reason core publishes on a NodeClaim it deletes for insufficient capacity (`pkg/events/reason.go`). */
export const INSUFFICIENT_CAPACITY_EVENT = 'InsufficientCapacityError';

/**
 * `Launched=Unknown` reasons that are EC2 capacity or quota, from `ToReasonMessage`'s last block ("ICE Errors come last
 * in this list"), each one of the provider's `unfulfillableCapacityErrorCodes`: `MaxFleetCountExceeded`,
 * `MaxSpotInstanceCountExceeded`, `VcpuLimitExceeded`, `InsufficientFreeAddressesInSubnet`. `AccountPendingVerification`
 * stands in that block too but is no capacity code (the account, not the pool of instances): it is left out.
 */
export const CAPACITY_LAUNCH_REASONS: ReadonlySet<string> = new Set([
  'FleetQuotaExceeded',
  'SpotQuotaExceeded',
  'VCPULimitExceeded',
  'InsufficientFreeAddressesInSubnet',
]);

/** How Karpenter said a NodeClaim's launch was refused for capacity: its Warning event, or its Launched condition. */
export type CapacityRefusal = { event: EventView } | { launched: ConditionView };

/**
 * Whether Karpenter refused this NodeClaim's launch for capacity, and in which words; undefined when it launched (a
 * NodeClaim that launched and then failed failed on its image, or for another reason of its own) or failed to launch
 * for another reason. `events` are Karpenter's events as watched (any object; only this NodeClaim's are read).
 */
export function capacityRefusal(claim: NodeClaimView, events: Iterable<EventView>): CapacityRefusal | undefined {
  const launched = claim.conditions.Launched;
  if (launched?.status === 'True') return undefined;
  for (const e of events) {
    if (
      e.reason === INSUFFICIENT_CAPACITY_EVENT &&
      e.type === 'Warning' &&
      e.involvedKind === 'NodeClaim' &&
      e.involvedName === claim.name
    )
      return { event: e };
  }
  if (launched?.status === 'Unknown' && CAPACITY_LAUNCH_REASONS.has(launched.reason)) return { launched };
  return undefined;
}
