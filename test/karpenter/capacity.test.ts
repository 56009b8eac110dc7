// Which failed launches Karpenter says were refused for capacity: the InsufficientCapacityError event core publishes
// before it deletes the NodeClaim (kubernetes-sigs/karpenter v1.14.1 lifecycle/launch.go), or a Launched=Unknown
// reason the AWS provider gives capacity codes (karpenter-provider-aws v1.14.1 pkg/errors/errors.go ToReasonMessage,
// whose reasons and messages the rows quote); every other reason, the image's among them, is not.
import { describe, expect, it } from 'vitest';
import { capacityRefusal } from '../../src/karpenter/capacity.js';
import type { EventView } from '../../src/karpenter/views.js';
import { at, event, iso, nodeClaim } from '../rollout/factories.js';

const launching = (status: 'Unknown' | 'True', reason: string, message: string) =>
  nodeClaim({
    name: 'general-new1',
    phase: 'created',
    conditions: { Launched: { status, reason, message, lastTransitionTime: iso(at(0)) } },
  });
const ice = event({
  type: 'Warning',
  reason: 'InsufficientCapacityError',
  message:
    'NodeClaim general-new1 event: creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m7g.xlarge capacity in the Availability Zone you requested (us-west-2b).',
  involvedKind: 'NodeClaim',
  involvedName: 'general-new1',
});

describe('a launch refused for capacity', () => {
  it.each<[string, 'Unknown' | 'True', string, string, EventView[], 'event' | 'launched' | undefined]>([
    // core: every fleet error a capacity code → InsufficientCapacityError, the NodeClaim deleted at once
    ['the InsufficientCapacityError event', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation', [ice], 'event'],
    ['the event, Launched not set yet', 'Unknown', '', '', [ice], 'event'],
    // provider CreateError reasons for capacity codes (MaxFleetCountExceeded, MaxSpotInstanceCountExceeded, …)
    ['FleetQuotaExceeded', 'Unknown', 'FleetQuotaExceeded', 'A fleet launch was requested but this would exceed your fleet request quota', [], 'launched'],
    ['SpotQuotaExceeded', 'Unknown', 'SpotQuotaExceeded', 'A spot instance launch was requested but this would exceed your spot instance quota', [], 'launched'],
    ['VCPULimitExceeded', 'Unknown', 'VCPULimitExceeded', 'An instance was requested that would exceed your VCPU quota', [], 'launched'],
    ['InsufficientFreeAddressesInSubnet', 'Unknown', 'InsufficientFreeAddressesInSubnet', 'There are not enough free IP addresses to launch an instance in this subnet', [], 'launched'],
    // the image's, and what is left over: not capacity
    ['LaunchFailed (what is left over: EC2 refusing the image)', 'Unknown', 'LaunchFailed', 'Instance launch failed', [], undefined],
    ['AMINotFound', 'Unknown', 'AMINotFound', "AMI used for instance launch either does not exist or you don't have permissions to use it", [], undefined],
    ['InvalidAMIID', 'Unknown', 'InvalidAMIID', 'AMI used for instance launch is invalid', [], undefined],
    ['AMIAuthorizationFailure', 'Unknown', 'AMIAuthorizationFailure', 'User is not authorized for AMI used in instance launch', [], undefined],
    // neither capacity nor the image: still not excused
    ['AccountPendingVerification (no capacity code)', 'Unknown', 'AccountPendingVerification', 'An instance launch was requested but the request for launching resources in this region is still being verified', [], undefined],
    ['Unauthorized', 'Unknown', 'Unauthorized', 'User is not authorized to perform this operation because no identity-based policy allows it', [], undefined],
    ['NodeClassReadinessUnknown', 'Unknown', 'NodeClassReadinessUnknown', 'NodeClass is in Ready=Unknown', [], undefined],
    ['no word from Karpenter (a NodeClassNotReady deletion has no event)', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation', [], undefined],
    // launched: whatever happens next is not a launch refused
    ['launched, with an old InsufficientCapacityError on record', 'True', 'Launched', '', [ice], undefined],
    ['the event Normal, not Warning', 'Unknown', '', '', [{ ...ice, type: 'Normal' }], undefined],
    ['the event on another NodeClaim', 'Unknown', '', '', [{ ...ice, involvedName: 'general-other' }], undefined],
  ])('%s', (_name, status, reason, message, events, said) => {
    const claim = launching(status, reason, message);
    const refusal = capacityRefusal(claim, events);
    expect(refusal === undefined ? undefined : 'event' in refusal ? 'event' : 'launched').toBe(said);
  });
});
