// `upgrade` followed on the whole `large` fleet (5,000 NodeClaims and Nodes, 50,000 pods, budgets of 10 %), its
// NodePools each split in twenty (test/e2e/large-rollout.ts `largeInPools`): the CLI watches the whole fleet and lists
// its pods, exits 0 with every node of the upgraded class on target, reports done soon after the last old NodeClaim
// leaves, and keeps its peak RSS bounded.
//
// A scale proof, run by `npm run test:long` (and by CI after the default suite, beside the clock tests): about two and a
// half minutes of both cores. The default suite proves the same code path on a cut of the same shape
// (test/e2e/large-rollout.slow.test.ts). Karpenter starts one drift command per disruption pass, and a pass over 5,000
// nodes costs the sandbox about a tenth of a second of CPU, so the thousand nodes of `system` would take four minutes:
// half of its twenty NodePools are on the AL2023 class here, and `--nodeclass bottlerocket` replaces the other half's
// 500 nodes while the CLI follows all 5,000. The whole fleet's rollout, 5,000 drift commands, is
// bench/large-rollout.mjs's.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import type { Scenario } from '../../src/sandbox/scenarios/schema.js';
import { expectDoneOnTime, largeInPools, upgrade } from '../e2e/large-rollout.js';

/** `large` in 60 NodePools, `system-10` … `system-19` moved to the AL2023 class `default`. */
function fleet(): Scenario {
  const large = largeInPools(20);
  const moved = (name: string) => /^system-1\d$/.test(name);
  return { ...large, nodePools: large.nodePools.map((p) => (moved(p.name) ? { ...p, nodeClass: 'default' } : p)) };
}

describe('upgrade on the large fleet', () => {
  it(
    '-o json on `large` in 60 NodePools: follows 5,000 NodeClaims, exits 0, done soon after the last old NodeClaim, RSS bounded',
    { timeout: 300_000 },
    async () => {
      // 120×: a pass every few simulated seconds keeps each replacement's launch, registration and initialization
      // minutes inside liveness's deadlines, and ten NodePools of 50 take about an hour of simulated time.
      const sandbox = await startSandbox({ scenario: fleet(), speed: 120 });
      onTestFinished(() => sandbox.stop());
      const run = await upgrade(sandbox, ['--nodeclass', 'bottlerocket', '-o', 'json'], 280_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const done = run.stdout.split('\n').find((l) => l.startsWith('{"type":"done"'));
      expect(JSON.parse(done!)).toMatchObject({ result: 'succeeded' });
      expectDoneOnTime(sandbox, run, 'bottlerocket', 500, 'large in 60 NodePools -o json');
    },
  );
});
