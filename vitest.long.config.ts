import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/suite/sequencer.js';

// `npm run test:long` (scripts/test-long.mjs runs the two projects side by side, as two vitest runs):
// - `long`: the scale proofs (test/long/), one at a time, each using both cores. The default suite (vitest.config.ts)
//   proves the same code paths on a cut of the same shape.
// - `clock`: the wall-clock proofs (`*.clock.test.ts`): a run killed or cut off, then minutes of real waiting for
//   Karpenter's budget schedules (read to the minute, as Karpenter reads them) and for Leases to expire. They sleep far
//   more than they compute, so they run beside the scale proof, once (on Node 20 in CI), not in both suite passes.
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    sequence: { sequencer: LongestFirstSequencer },
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'long', include: ['test/long/**/*.test.ts'], maxWorkers: 1, testTimeout: 300_000, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'clock', include: ['test/**/*.clock.test.ts'], maxWorkers: 4, testTimeout: 300_000, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
