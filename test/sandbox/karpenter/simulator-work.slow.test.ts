// The simulator's work per step is bounded whatever the fleet's size, and Karpenter's pace is one drift command per
// disruption pass (DOMAIN.md §2.5): proved with the counters the simulator keeps, on a fleet big enough that an
// unbounded step (drifting every NodeClaim at once) would break the bound. No wall-clock assertion.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/sandbox/karpenter/clock.js";
import { parseScenario } from "../../../src/sandbox/scenarios/schema.js";
import { startSandbox } from "../../../src/sandbox/sandbox.js";
import {
  NODECLAIMS,
  claimsOf,
  controlPlaneAmis,
  imageOf,
  pinToControlPlane,
} from "./harness.js";

const NODES = 60;
const BUDGET = 20; // writes per step: well under the fleet, so an unbounded drift step would break it
const fleet = parseScenario(
  `
name: fleet
controlPlaneVersion: "1.30"
seed: 3
# Quick launches: Karpenter takes one candidate at a time while a replacement initializes, so the rollout of 60 nodes
# is as long as 60 replacements' start-up; what this test counts does not depend on how long one takes.
timing: { launchSeconds: 5, registerSeconds: [5, 10], initializeSeconds: 5 }
nodeClasses:
  - { name: default, family: al2023, kubernetesVersion: "1.29" }
nodePools:
  - { name: general, nodeClass: default, nodes: ${NODES}, arch: [amd64, arm64] }
workloads:
  - { name: web, namespace: shop, nodePool: general, replicas: ${NODES * 5}, pdb: { maxUnavailable: "10%" } }
`,
  "fleet.yaml",
);

it("bounds each step by the work budget and starts one drift command per pass, through a complete rollout", async () => {
  const clock = new ManualClock(new Date("2026-11-25T10:00:00Z"));
  const sandbox = await startSandbox({ scenario: fleet, manualClock: clock });
  try {
    const { simulator } = sandbox;
    simulator.ctx.budget.limit = BUDGET;
    const targets = new Set(await pinToControlPlane(sandbox, "default"));
    const started = new Set<string>();
    let mostStartedInOnePass = 0;
    let passes = 0;
    const onTarget = () =>
      claimsOf(sandbox, "general").filter((c) => targets.has(imageOf(c) ?? ""))
        .length;
    while (
      (onTarget() < NODES || claimsOf(sandbox, "general").length > NODES) &&
      passes < 5000
    ) {
      clock.advance(1000);
      simulator.pass();
      passes++;
      const before = started.size;
      // From the simulator's record: a delete without a replacement is over within its pass.
      for (const command of simulator.disruptions.entries())
        started.add(command.nodeClaim);
      mostStartedInOnePass = Math.max(
        mostStartedInOnePass,
        started.size - before,
      );
    }

    expect(onTarget()).toBe(NODES);
    expect(sandbox.kube.store.list(NODECLAIMS)).toHaveLength(NODES);
    expect(started.size).toBe(NODES);
    expect(mostStartedInOnePass).toBe(1);
    // Drifting 60 NodeClaims is 60 writes: the budget spread them over passes. One object's writes may overshoot
    // the budget (a drained node: its 5 evictions, recreated pods, their events and the node's own updates), never
    // the fleet's.
    expect(simulator.work.maxWritesPerStep).toBeGreaterThan(0);
    expect(simulator.work.maxWritesPerStep).toBeLessThanOrEqual(BUDGET + 20);
    expect(simulator.work.passes).toBeGreaterThanOrEqual(passes);
    expect(
      controlPlaneAmis(sandbox, "default").every((id) => targets.has(id)),
    ).toBe(true);
  } finally {
    await sandbox.stop();
  }
});
