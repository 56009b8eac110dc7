// `upgrade` followed on the whole `large` sandbox (5,000 NodeClaims and Nodes, 50,000 pods, budgets of 10 %): the CLI
// watches the whole fleet and lists its pods, exits 0 with every node of the upgraded class on target, reports done
// within a second of the last old NodeClaim leaving, and keeps its peak RSS bounded.
//
// A scale proof, run by `npm run test:long` (and by CI after the default suite): about two minutes of both cores.
// The default suite proves the same code path on a cut of the same shape (test/e2e/large-rollout.slow.test.ts).
// `--nodeclass bottlerocket` replaces the `system` NodePool's 1,000 nodes while the CLI follows all 5,000; the whole
// fleet's rollout is 5,000 drift commands, about ten minutes (bench/large-rollout.mjs measures it).
import { describe, expect, it } from 'vitest';
import { scenario } from '../e2e/cli-sandbox.js';
import { expectDoneOnTime, upgrade } from '../e2e/large-rollout.js';

describe('upgrade on the large fleet', () => {
  it(
    '-o json on `large`: follows 5,000 NodeClaims, exits 0, done soon after the last old NodeClaim, RSS bounded',
    { timeout: 240_000 },
    async () => {
      const sandbox = await scenario('large', 60);
      const run = await upgrade(sandbox, ['--nodeclass', 'bottlerocket', '-o', 'json'], 220_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const done = run.stdout.split('\n').find((l) => l.startsWith('{"type":"done"'));
      expect(JSON.parse(done!)).toMatchObject({ result: 'succeeded' });
      expectDoneOnTime(sandbox, run, 'bottlerocket', 1000, 'large -o json');
    },
  );
});
