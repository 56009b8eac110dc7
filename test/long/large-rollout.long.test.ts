// `upgrade` followed on a 5,000-node fleet (the `large` sandbox: 5,000 NodeClaims and Nodes, 50,000 pods, budgets of
// 10 %): the CLI watches the whole fleet and lists its pods, exits 0 with every node of the upgraded class on target,
// reports done within a second of the last old NodeClaim leaving, and keeps its peak RSS bounded.
//
// A scale proof, run by `npm run test:long` (and by CI beside the Node 24 pass): a few minutes of both cores. The
// default suite proves the same code path on a cut of the same shape (test/e2e/large-rollout.slow.test.ts).
// `--nodeclass bottlerocket` replaces 200 Bottlerocket nodes while the CLI follows all 5,000. Karpenter starts one
// drift command per pass, about a second apart at best, and keeps one to three of a NodePool's in flight whatever its
// budget (DOMAIN.md §2.6): `large`'s `system` NodePool of 1,000 would take a simulated day, and a simulator pass over
// 5,000 nodes costs real time. So here `system` is ten NodePools of 20 side by side, the 800 nodes and 4,000 ingress
// pods it gives up go to the general NodePools and the `worker` workload: the same 5,000 nodes and 50,000 pods.
import { describe, expect, it, onTestFinished } from "vitest";
import { startSandbox } from "../../src/sandbox/sandbox.js";
import { loadScenario } from "../../src/sandbox/scenarios/load.js";
import type { Scenario } from "../../src/sandbox/scenarios/schema.js";
import { expectDoneOnTime, upgrade } from "../e2e/large-rollout.js";

const SYSTEM_POOLS = 10;
const SYSTEM_NODES = 200;

/** `large` with 200 Bottlerocket nodes in ten NodePools: the same 5,000 nodes and 50,000 pods. */
function largeSplit(): Scenario {
  const large = loadScenario("large");
  const system = large.nodePools.find((p) => p.name === "system")!;
  const ingress = large.workloads.find((w) => w.name === "ingress")!;
  const moved = system.nodes - SYSTEM_NODES;
  const movedPods = (ingress.replicas! * moved) / system.nodes;
  const names = Array.from(
    { length: SYSTEM_POOLS },
    (_, i) => `system-${String(i).padStart(2, "0")}`,
  );
  return {
    ...large,
    name: "large-split",
    nodePools: [
      ...large.nodePools
        .filter((p) => p !== system)
        .map((p) =>
          p.name.startsWith("general-")
            ? { ...p, nodes: p.nodes + moved / 2 }
            : p,
        ),
      ...names.map((name) => ({
        ...system,
        name,
        nodes: SYSTEM_NODES / SYSTEM_POOLS,
      })),
    ],
    workloads: [
      ...large.workloads
        .filter((w) => w !== ingress)
        .map((w) =>
          w.name === "worker" ? { ...w, replicas: w.replicas! + movedPods } : w,
        ),
      ...names.map((name, i) => ({
        ...ingress,
        name: `ingress-${i}`,
        nodePool: name,
        replicas: (ingress.replicas! - movedPods) / SYSTEM_POOLS,
      })),
    ],
  };
}

describe("upgrade on the large fleet", () => {
  it(
    "-o json on 5,000 nodes: follows them all, exits 0, done soon after the last old NodeClaim, RSS bounded",
    { timeout: 300_000 },
    async () => {
      const scenario = largeSplit();
      expect(scenario.nodePools.reduce((n, p) => n + p.nodes, 0)).toBe(5000);
      expect(
        scenario.workloads.reduce((n, w) => n + (w.replicas ?? 0), 0),
      ).toBe(50_000);
      const sandbox = await startSandbox({ scenario, speed: 300 });
      onTestFinished(() => sandbox.stop());
      const run = await upgrade(
        sandbox,
        ["--nodeclass", "bottlerocket", "-o", "json"],
        280_000,
      );
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const done = run.stdout
        .split("\n")
        .find((l) => l.startsWith('{"type":"done"'));
      expect(JSON.parse(done!)).toMatchObject({ result: "succeeded" });
      expectDoneOnTime(
        sandbox,
        run,
        "bottlerocket",
        SYSTEM_NODES,
        "large -o json",
      );
    },
  );
});
