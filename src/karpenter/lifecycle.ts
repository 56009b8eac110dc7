// NodeClaim lifecycle facts: how long Karpenter's liveness controller lets a NodeClaim take to launch and to register
// before it deletes it (kubernetes-sigs/karpenter v1.14.1 `pkg/controllers/nodeclaim/lifecycle/liveness.go`,
// DOMAIN.md §1.4). Both clocks start at the NodeClaim's creationTimestamp: operatorpkg stamps the dependent
// conditions (Launched, Registered) with the object's creation time, and liveness measures from their
// lastTransitionTime.

/** `launchTimeout`: a NodeClaim whose launch keeps failing is deleted this long after its creation. */
export const LAUNCH_TTL_MS = 5 * 60_000;
/** `registrationTimeout`: a NodeClaim not registered this long after its creation is deleted. */
export const REGISTRATION_TTL_MS = 15 * 60_000;
