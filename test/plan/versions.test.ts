// Node-by-node evidence on a large cluster: ten lines, then how many more, and the count for the JSON.
import { describe, expect, it } from "vitest";
import { check } from "../../src/plan/checks.js";
import { withEvidence } from "../../src/plan/versions.js";

const nodes = (n: number) =>
  Array.from({ length: n }, (_, i) => `node/n${i + 1}: kubelet v1.31.0`);

describe("withEvidence", () => {
  it.each<[number, number, string | undefined, number | undefined]>([
    [3, 3, "node/n3: kubelet v1.31.0", undefined],
    [10, 10, "node/n10: kubelet v1.31.0", undefined],
    [11, 11, "… and 1 more node", 1],
    [5000, 11, "… and 4990 more nodes", 4990],
  ])("%d nodes → %d lines, the last %j", (n, lines, last, omitted) => {
    const c = withEvidence(check("DOWNGRADE", "error", "m"), nodes(n), "node");
    expect(c.evidence).toHaveLength(lines);
    expect(c.evidence.at(-1)).toBe(last);
    expect(c.evidenceOmitted).toBe(omitted);
  });
});
