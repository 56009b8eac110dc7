// Which NodeClaims Karpenter says it launched for a drift command: the DisruptionLaunching event its disruption queue
// publishes on each replacement (kubernetes-sigs/karpenter, pkg/controllers/disruption/events/events.go `Launching`,
// message "Launching NodeClaim: " + cases.Title(reason)). The reason is the command's: at v1.14.1 (commit 6e7eab7a)
// `Command.Reason()` is the method's DisruptionReason (queue_test.go checks the event with
// `disruptionevents.Launching(replacementNodeClaim, string(cmd.Reason()))`); at v1.0.0–v1.3.0 `orchestration/queue.go`
// `Command.Reason()` was `<reason>/replace`; at v0.35–v0.37 `<method>/replace` with metrics.DriftReason "drift".
import { describe, expect, it } from 'vitest';
import { driftLaunched } from '../../src/karpenter/events.js';
import type { EventView } from '../../src/karpenter/views.js';
import { event } from '../rollout/factories.js';

const launching = (message: string, o: Partial<EventView> = {}): EventView =>
  event({ reason: 'DisruptionLaunching', message, involvedKind: 'NodeClaim', involvedName: 'general-new1', ...o });

describe('driftLaunched: the DisruptionLaunching event of a drift command', () => {
  it.each<[string, EventView, boolean]>([
    ['v1.14.1 queue_test.go: Launching(replacement, "Drifted")', launching('Launching NodeClaim: Drifted'), true],
    ['v1.0.0 orchestration/queue.go: Launching(replacement, "Drifted/replace")', launching('Launching NodeClaim: Drifted/Replace'), true],
    ['v0.37.0 orchestration/queue.go: Launching(replacement, "drift/replace")', launching('Launching NodeClaim: Drift/Replace'), true],
    // Consolidation replaces too, but it is no drift replacement of the rollout.
    ['v1.14.1: an Underutilized command', launching('Launching NodeClaim: Underutilized'), false],
    ['v0.37.0: a consolidation command', launching('Launching NodeClaim: Consolidation/Replace'), false],
    ['another reason on the NodeClaim', launching('Waiting on readiness to continue disruption', { reason: 'DisruptionWaitingReadiness' }), false],
    ['on a Node, not a NodeClaim', launching('Launching NodeClaim: Drifted', { involvedKind: 'Node' }), false],
  ])('%s', (_name, e, drift) => {
    expect(driftLaunched([e]).has('general-new1')).toBe(drift);
  });
});
