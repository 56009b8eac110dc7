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
}

/** Runs with the wall clock, `speed` simulated seconds per real second, starting at `start`. */
export function scaledClock(speed: number, start: Date, realNow: () => number = () => performance.now()): SimClock {
  const origin = realNow();
  return {
    now: () => new Date(start.getTime() + (realNow() - origin) * speed),
    wall: () => new Date(),
    realMs: (simulatedMs) => simulatedMs / speed,
  };
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
}
