// `upgrade` followed on a big fleet, cut to a size the default suite can afford: the same code paths as the whole
// `large` sandbox (test/long/, `npm run test:long`), on a tenth of it. The CLI watches the whole fleet and lists its
// pods, exits 0 with every node of the upgraded class on target, reports done within a second of the last old
// NodeClaim leaving, and keeps its peak RSS bounded.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { parseScenario, type Scenario } from '../../src/sandbox/scenarios/schema.js';
import { expectDoneOnTime, upgrade } from './large-rollout.js';

/**
 * `large` with a tenth of its nodes and pods: three NodePools, four workloads, the same PDBs and budgets. Played at
 * speed 900: Karpenter replaces a NodePool's full nodes about one at a time, so the 100 of `system` take some three
 * simulated hours.
 */
function largeCut(): Scenario {
  const large = loadScenario('large');
  return {
    ...large,
    name: 'large-tenth',
    nodePools: large.nodePools.map((p) => ({ ...p, nodes: p.nodes / 10 })),
    workloads: large.workloads.map((w) => ({ ...w, ...(w.replicas !== undefined ? { replicas: w.replicas / 10 } : {}) })),
  };
}

describe('upgrade on a large fleet (a cut)', () => {
  it(
    '-o json on a tenth of `large`: follows 500 NodeClaims, exits 0, done soon after the last old NodeClaim, RSS bounded',
    { timeout: 180_000 },
    async () => {
      const sandbox = await startSandbox({ scenario: largeCut(), speed: 900 });
      onTestFinished(() => sandbox.stop());
      const run = await upgrade(sandbox, ['--nodeclass', 'bottlerocket', '-o', 'json'], 160_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const done = run.stdout.split('\n').find((l) => l.startsWith('{"type":"done"'));
      expect(JSON.parse(done!)).toMatchObject({ result: 'succeeded' });
      expectDoneOnTime(sandbox, run, 'bottlerocket', 100, 'large/10 -o json');
    },
  );

  it(
    'plain text (stderr not a TTY) on 300 nodes and 3,000 pods in ten NodePools: exits 0 and says done soon after',
    { timeout: 180_000 },
    async () => {
      // Ten NodePools of 30 full nodes: Karpenter replaces a NodePool's full nodes about one at a time (a candidate
      // waits while its pods would land on the replacement still coming up), so one NodePool of 300 would take some
      // ten simulated hours; ten side by side take one.
      const pools = Array.from({ length: 10 }, (_, i) => `pool-${i}`);
      const sandbox = await startSandbox({
        scenario: parseScenario(
          [
            'name: large-cut',
            'controlPlaneVersion: "1.30"',
            'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
            'nodePools:',
            ...pools.map((p) => `  - { name: ${p}, nodeClass: default, nodes: 30, arch: [amd64, arm64] }`),
            'workloads:',
            ...pools.map((p) => `  - { name: web-${p}, nodePool: ${p}, replicas: 300, pdb: { maxUnavailable: "10%" } }`),
          ].join('\n'),
          'large-cut',
        ),
        speed: 600,
      });
      onTestFinished(() => sandbox.stop());
      const run = await upgrade(sandbox, [], 160_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain('Rollout complete');
      expectDoneOnTime(sandbox, run, 'default', 300, '300 nodes, plain text');
    },
  );
});
