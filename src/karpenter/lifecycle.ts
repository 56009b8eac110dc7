// NodeClaim lifecycle facts: how long Karpenter's liveness controller lets a NodeClaim take to launch and to register
// before it deletes it (kubernetes-sigs/karpenter v1.14.1 `pkg/controllers/nodeclaim/lifecycle/liveness.go`,
// DOMAIN.md §1.4). Both clocks start at the NodeClaim's creationTimestamp: operatorpkg stamps the dependent
// conditions (Launched, Registered) with the object's creation time, and liveness measures from their
// lastTransitionTime.

/** `launchTimeout`: a NodeClaim whose launch keeps failing is deleted this long after its creation. */
export const LAUNCH_TTL_MS = 5 * 60_000;
/** `registrationTimeout`: a NodeClaim not registered this long after its creation is deleted. */
export const REGISTRATION_TTL_MS = 15 * 60_000;

/**
 * The disruption queue's `minRetryDuration` (kubernetes-sigs/karpenter v1.14.1 `pkg/controllers/disruption/queue.go`):
 * a drift command whose replacement is not Initialized this long after the command started fails (more with many
 * commands in flight, 80 ms each, up to an hour). Karpenter then removes the old node's taint and DisruptionReason
 * and may pick it again at its next pass, without back-off (DOMAIN.md §2.5 step 6).
 */
export const COMMAND_TIMEOUT_MS = 10 * 60_000;

/**
 * The reasons of a failed launch (`Launched=Unknown`) that point at the image. The AWS provider turns EC2's error into
 * a reason (aws/karpenter-provider-aws v1.14.1 `pkg/errors/errors.go` `ToReasonMessage`): permissions, quotas, the
 * launch template, user data, the subnet's addresses and EC2's own errors each get one of their own; these are the
 * image's (not authorized for it, malformed, not found) and what is left over, `LaunchFailed` "Instance launch failed",
 * which is how EC2 refusing the image for the instance type ends up (an AMI without ENA support on a Nitro type, a root
 * device the type cannot boot). Insufficient capacity never shows here: core deletes that NodeClaim at once.
 */
export const IMAGE_LAUNCH_REASONS: ReadonlySet<string> = new Set([
  'AMIAuthorizationFailure',
  'InvalidAMIID',
  'AMINotFound',
  'LaunchFailed',
]);
