// A NodePool's `NodeRegistrationHealthy` condition as Karpenter v1.8+ keeps it (kubernetes-sigs/karpenter v1.14.1,
// DOMAIN.md §1.3): a buffer of the NodePool's last 4 launch outcomes (`pkg/state/nodepoolhealth/tracker.go`), a
// registration adding a success (`pkg/controllers/nodeclaim/lifecycle/registration.go`
// updateNodePoolRegistrationHealth), a NodeClaim that liveness deletes for its launch or registration timeout adding a
// failure (`liveness.go` updateNodePoolRegistrationHealth), and the condition reset to Unknown, its buffer cleared,
// whenever the NodePool's or its NodeClass's generation changes
// (`pkg/controllers/nodepool/registrationhealth/controller.go`). So False needs 2 failures among the last 4 outcomes
// since the last spec write of either object, and any budget edit clears it: it is a weak signal, never the thing to
// wait for.

/**
 * How a release keeps the condition: `buffer` from v1.8.0 (kubernetes-sigs/karpenter#2520, as above); `unknown-only`
 * in v1.4.0–v1.7.x, where a registration always sets True and a liveness deletion sets False only while the condition
 * is Unknown (once True it stays True until a generation change resets it); before v1.4.0, and in every v1beta1
 * release, there is no such condition.
 */
export type RegistrationHealthRule = 'buffer' | 'unknown-only';

/** `BufferSize`: how many of the NodePool's last launches count. */
export const REGISTRATION_HEALTH_BUFFER = 4;
/** `ThresholdFalse`: the share of failures among BufferSize (not among those recorded) that makes it unhealthy. */
const THRESHOLD_FALSE = 0.5;

/** tracker.go `Status`: Unknown with nothing recorded. */
export type RegistrationHealth = 'Unknown' | 'Healthy' | 'Unhealthy';

/** The last launch outcomes of a NodePool, oldest first: true registered, false deleted by liveness. At most 4. */
export type LaunchOutcomes = readonly boolean[];

/** tracker.go `Status`: unhealthy once failures reach half of the buffer's size, so 2 whatever was recorded. */
export function registrationHealth(outcomes: LaunchOutcomes): RegistrationHealth {
  if (outcomes.length === 0) return 'Unknown';
  const failed = outcomes.filter((o) => !o).length;
  return failed / REGISTRATION_HEALTH_BUFFER >= THRESHOLD_FALSE ? 'Unhealthy' : 'Healthy';
}

/** tracker.go `Update` (a ring buffer): the oldest outcome makes room once 4 are recorded. */
export function withOutcome(outcomes: LaunchOutcomes, registered: boolean): boolean[] {
  return [...outcomes, registered].slice(-REGISTRATION_HEALTH_BUFFER);
}

/**
 * tracker.go `SetStatus`, as registrationhealth/controller.go uses it to refill an empty buffer from the condition a
 * restarted Karpenter finds: True one success, False two failures, anything else nothing.
 */
export function outcomesFor(condition: 'True' | 'False' | 'Unknown' | undefined): boolean[] {
  if (condition === 'True') return [true];
  if (condition === 'False') return Array<boolean>(REGISTRATION_HEALTH_BUFFER * THRESHOLD_FALSE).fill(false);
  return [];
}

/** What one launch outcome does to the buffer and to the NodePool's condition (undefined: leave it as it is). */
export interface RegistrationHealthUpdate {
  outcomes: boolean[];
  condition?: 'True' | 'False';
}

/**
 * A NodeClaim of the NodePool registered (registration.go) or was deleted by liveness (liveness.go): the condition
 * goes True when the buffer with this success is healthy, False when the buffer with this failure is unhealthy and
 * the condition is not False already; the outcome is recorded either way. Only for a NodeClaim the NodePool owns (its
 * ownerReference names the NodePool's uid): any other leaves buffer and condition alone. Under `unknown-only`
 * (v1.4–v1.7) there is no buffer: True on every registration, False on a failure while the condition is Unknown.
 */
export function recordLaunch(
  outcomes: LaunchOutcomes,
  registered: boolean,
  current: 'True' | 'False' | 'Unknown' | undefined,
  rule: RegistrationHealthRule = 'buffer',
): RegistrationHealthUpdate {
  if (rule === 'unknown-only') {
    if (registered) return { outcomes: [], condition: 'True' };
    return current === 'True' || current === 'False' ? { outcomes: [] } : { outcomes: [], condition: 'False' };
  }
  const next = withOutcome(outcomes, registered);
  const health = registrationHealth(next);
  if (registered && health === 'Healthy') return { outcomes: next, condition: 'True' };
  if (!registered && health === 'Unhealthy' && current !== 'False') return { outcomes: next, condition: 'False' };
  return { outcomes: next };
}

/** What registrationhealth/controller.go compares: the NodePool's, its condition's, and its NodeClass's generations. */
export interface RegistrationHealthGenerations {
  /** The NodePool's metadata.generation. */
  generation: number;
  /** NodeRegistrationHealthy's observedGeneration; undefined when the NodePool has no such condition. */
  conditionObservedGeneration: number | undefined;
  /** The NodePool's status.nodeClassObservedGeneration (0 when absent, as Go reads it). */
  nodeClassObservedGeneration: number;
  /** The NodeClass's metadata.generation. */
  nodeClassGeneration: number;
}

/**
 * The NodePool or its NodeClass changed since the condition was set (or there is none yet): NodeRegistrationHealthy
 * goes Unknown (`AwaitingReconciliation`) and the buffer is cleared.
 */
export function registrationHealthReset(g: RegistrationHealthGenerations): boolean {
  return (
    g.conditionObservedGeneration === undefined ||
    g.nodeClassObservedGeneration !== g.nodeClassGeneration ||
    g.generation !== g.conditionObservedGeneration
  );
}
