import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/suite/sequencer.js';

// Two speeds (STYLE.md), run one after the other, each as wide as suits it on a 2-core machine:
// - `unit` is pure and computes: a file per core (vitest's default, cores − 1, would leave one idle).
// - `slow` starts servers and sandboxes or spawns the built CLI, and mostly waits (on a simulated clock, a child
//   process, a lease): eight files at once, each with its own sandbox on its own free port and its own temp dirs
//   (measured: four left a core idle half the run; six 320–341 s, eight 291–298 s for the whole suite).
// A slow test lives under test/e2e/ or is named *.slow.test.ts. Files start longest first (test/suite/sequencer.ts),
// from the times `npm run test:timings` records, so a clean clone has no long tail. The scale proofs under test/long/
// and the wall-clock proofs (`*.clock.test.ts`: minutes of real waiting on Karpenter's budget schedules and Leases)
// run only with `npm run test:long` (vitest.long.config.ts); the slow project proves the same code paths on a cut.
const SLOW_OR_LONG = ['test/e2e/**', 'test/long/**', 'test/**/*.slow.test.ts', 'test/**/*.clock.test.ts'];
/** Unit files that vi.mock modules. */
const MOCKING = ['test/cli/flag-messages.test.ts', 'test/cli/program.test.ts'];

export default defineConfig({
  test: {
    // As src/main.ts does for the CLI: the AWS SDK's notice that its 2027 releases need Node 22 would print once per
    // test file that builds a client under Node 20 (README "Requirements" says why karp-drift keeps Node 20).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    reporters: ['default', ['./test/suite/timings-reporter.ts', { top: 10, record: false }]],
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...SLOW_OR_LONG, ...MOCKING],
          sequence: { groupOrder: 0 },
          maxWorkers: 2,
          // Pure code: the files of a worker share one module graph instead of each importing it afresh (the unit
          // project in 15 s instead of 46 s, a third of the CPU). The files that mock modules run apart (below).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // vi.mock replaces modules in the graph a file imports: these files get a graph of their own.
          name: 'unit-mocks',
          include: MOCKING,
          sequence: { groupOrder: 0 },
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/e2e/**/*.test.ts', 'test/**/*.slow.test.ts'],
          exclude: ['test/long/**', 'test/**/*.clock.test.ts'],
          sequence: { groupOrder: 1 },
          // Eight at a time on 2 cores: these files mostly wait (on sandboxes' simulated Karpenter, on the CLI's real-
          // time deadlines), so more of them side by side end sooner, each a little slower.
          maxWorkers: 8,
          // A worker's files share one module graph, as the unit project's do: each file starts its own sandboxes
          // and servers and stops them, and the few that stub the environment or the clock put it back. A whole
          // run's CPU went from about 540 s to 410 s.
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
