// Simulated time. Karpenter's controllers take minutes (a launch ≈ 60 s, registration 30–90 s); the sandbox runs
// them `speed` times faster, so a 20-minute rollout plays in seconds. Every controller reads time from here, never
// from Date.now(), as Karpenter injects a clock.Clock and its tests step it.

export interface SimClock {
  /** Simulated time: what deadlines (launch, registration, drift detection, polls) are measured in. */
  now(): Date;
  /**
   * The time written into objects and used for budget schedules: the wall clock, so kubectl's AGE, karp-drift's
   * "drifted 3m ago" and a budget window's end are all read against the clock the user has.
   */
  wall(): Date;
  /** Real milliseconds for a simulated span: how long to wait between controller passes. */
  realMs(simulatedMs: number): number;
  /** A controller pass begins: simulated time moves on to it (a scaled clock) or stays where a test stepped it. */
  pass(): void;
}

/**
 * The most simulated time one pass moves the clock, however long the real gap since the last pass. Karpenter's
 * controllers run on their own cores and react within about a second; the sandbox's take turns on one event loop with
 * the API server and, in tests, a CLI and other sandboxes. A replacement needs a pass for each link of its chain
 * (launched, registered, Ready, initialized, its pods placed), so if a slow pass at speed 900 counted whole (100 ms:
 * 90 simulated seconds) the chain would outlast the drift command's 10-minute timeout and Karpenter would seem to
 * give up a command it never gives up. At most 30 s a pass keeps twenty links inside that timeout: a starved
 * sandbox runs slower than its speed instead of failing what a real one would not.
 */
export const MAX_PASS_STEP_MS = 30_000;

/**
 * Runs with the wall clock, `speed` simulated seconds per real second, starting at `start`. Time moves only at a
 * pass (every controller in a pass reads the same instant, as Karpenter's tests read a fake clock), by the real time
 * since the last pass at `speed`, at most `maxStepMs`.
 */
export function scaledClock(
  speed: number,
  start: Date,
  realNow: () => number = () => performance.now(),
  maxStepMs = MAX_PASS_STEP_MS,
): SimClock {
  let real = realNow();
  let simulated = start.getTime();
  return {
    now: () => new Date(simulated),
    wall: () => new Date(),
    realMs: (simulatedMs) => simulatedMs / speed,
    pass: () => {
      const at = realNow();
      simulated += Math.min(Math.max(at - real, 0) * speed, maxStepMs);
      real = at;
    },
  };
}

/**
 * Real milliseconds between the background passes: 50, or less at speeds where 50 would move the clock more than
 * MAX_PASS_STEP_MS (a sandbox at speed 900 passes every 33 ms, so its clock keeps its speed while passes are cheap).
 */
export function passIntervalMs(clock: SimClock): number {
  return Math.min(50, Math.max(5, clock.realMs(MAX_PASS_STEP_MS)));
}

/** Moves only when told: for tests that step the simulator pass by pass. */
export class ManualClock implements SimClock {
  private t: number;
  constructor(start: Date) {
    this.t = start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  wall(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  realMs(simulatedMs: number): number {
    return simulatedMs;
  }
  pass(): void {}
}
