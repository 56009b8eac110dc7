import { describe, expect, it } from "vitest";
import {
  MAX_PASS_STEP_MS,
  passIntervalMs,
  scaledClock,
} from "../../../src/sandbox/karpenter/clock.js";

const START = new Date("2026-12-07T12:00:00Z");
const STEP_S = MAX_PASS_STEP_MS / 1000;

/** Passes at each real time in `passes` (ms since the clock started); the simulated seconds each pass reads. */
function simulatedAt(speed: number, passes: number[]): number[] {
  let real = 0;
  const clock = scaledClock(speed, START, () => real);
  return passes.map((t) => {
    real = t;
    clock.pass();
    return (clock.now().getTime() - START.getTime()) / 1000;
  });
}

describe("scaledClock", () => {
  it.each([
    {
      what: "passes 50 ms apart at speed 60: 3 s each",
      speed: 60,
      passes: [50, 100, 150],
      want: [3, 6, 9],
    },
    {
      what: "a 2-s stall at speed 600 moves one step",
      speed: 600,
      passes: [50, 2050, 2100],
      want: [30, 30 + STEP_S, 60 + STEP_S],
    },
    {
      what: "a 100-ms pass at speed 900 moves one step, not 90 s",
      speed: 900,
      passes: [100, 200],
      want: [STEP_S, 2 * STEP_S],
    },
    {
      what: "a gap whose time is just the step is kept whole",
      speed: 60,
      passes: [MAX_PASS_STEP_MS / 60],
      want: [STEP_S],
    },
    {
      what: "two passes in the same millisecond read the same time",
      speed: 60,
      passes: [100, 100],
      want: [6, 6],
    },
    {
      what: "a real clock read backwards never moves it back",
      speed: 60,
      passes: [100, 90, 150],
      want: [6, 6, 9.6],
    },
  ])("$what", ({ speed, passes, want }) => {
    expect(simulatedAt(speed, passes)).toEqual(want);
  });

  it("stands still between passes: every controller in a pass reads the same instant", () => {
    let real = 0;
    const clock = scaledClock(60, START, () => real);
    clock.pass();
    real = 400;
    expect(clock.now()).toEqual(START);
    clock.pass();
    expect(clock.now().getTime() - START.getTime()).toBe(24_000);
  });

  it("reads the wall clock for object times, whatever the simulated time", () => {
    const clock = scaledClock(600, new Date("2020-01-01T00:00:00Z"));
    expect(Math.abs(clock.wall().getTime() - Date.now())).toBeLessThan(1000);
  });

  it.each([
    { speed: 1, want: 50 },
    { speed: 60, want: 50 },
    { speed: 600, want: 50 },
    { speed: 900, want: MAX_PASS_STEP_MS / 900 },
    { speed: 100_000, want: 5 },
  ])("passes every $want ms at speed $speed", ({ speed, want }) => {
    expect(passIntervalMs(scaledClock(speed, START))).toBeCloseTo(want, 6);
  });
});
