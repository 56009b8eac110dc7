// `upgrade` followed on the `large` sandbox (5,000 NodeClaims and Nodes, 50,000 pods, budgets of 10 %): the CLI
// watches the whole fleet and lists its pods, exits 0 with every node of the upgraded class on target, reports done
// within a second of the last old NodeClaim leaving, and keeps its peak RSS bounded.
//
// The whole fleet's rollout is 5,000 drift commands, one per simulator pass: about ten minutes on a 2-core machine,
// too long for CI (bench/large-rollout.mjs measures it). Here `--nodeclass bottlerocket` replaces the `system`
// NodePool's 1,000 nodes while the CLI follows all 5,000; plain text runs on a 300-node fleet of the same shape.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { parseScenario } from '../../src/sandbox/scenarios/schema.js';
import { MAIN, scenario } from './cli-sandbox.js';
import { onTestFinished } from 'vitest';

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
/** Prints the CLI's own peak RSS (KiB) and CPU time (µs) on exit, as bench/upgrade.mjs does. */
const PRELOAD =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("resource-usage="+JSON.stringify({maxRSS:u.maxRSS,cpu:u.userCPUTime+u.systemCPUTime})+"\\n")})';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall clock (ms) when the output saying done arrived. */
  doneAt: number;
  rssMb: number;
  cpuS: number;
  wallS: number;
}

function upgrade(sandbox: Sandbox, args: string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, MAIN, 'upgrade', '--to', '1.30', '--yes', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let doneAt = NaN;
    let tail = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      // The chunk and the end of the one before (a line cut between two): the whole of stdout would be re-read.
      const recent = tail + c.toString();
      tail = recent.slice(-20);
      if (Number.isNaN(doneAt) && (recent.includes('{"type":"done"') || recent.includes('Rollout complete')))
        doneAt = Date.now();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const started = Date.now();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const usage = /resource-usage=(\{.*\})/.exec(stderr);
      const { maxRSS, cpu } = usage
        ? (JSON.parse(usage[1]!) as { maxRSS: number; cpu: number })
        : { maxRSS: NaN, cpu: NaN };
      resolve({
        code,
        stdout,
        stderr,
        doneAt,
        rssMb: maxRSS / 1024,
        cpuS: cpu / 1e6,
        wallS: (Date.now() - started) / 1000,
      });
    });
  });
}

/** Wall clock (ms) the last old NodeClaim left the API, from the simulator's record of its drift commands. */
function lastOldGone(sandbox: Sandbox): number {
  const finished = sandbox.simulator.disruptions
    .entries()
    .flatMap((e) => (e.finished !== undefined ? [Date.parse(e.finished)] : []));
  return Math.max(...finished);
}

/** Every NodeClaim of the class runs one of the AMI IDs the class is now pinned to, and its node kubelet 1.30. */
function expectOnTarget(sandbox: Sandbox, nodeClass: string, expected: number): void {
  const store = sandbox.kube.store;
  const klass = store.list(EC2NODECLASSES).find((c) => c.metadata.name === nodeClass)!;
  const ids = new Set((klass.spec as { amiSelectorTerms: Array<{ id?: string }> }).amiSelectorTerms.map((t) => t.id));
  const claims = store
    .list(NODECLAIMS)
    .filter((c) => (c.spec as { nodeClassRef: { name: string } }).nodeClassRef.name === nodeClass);
  expect(claims).toHaveLength(expected);
  const off = claims.filter((c) => !ids.has((c.status as { imageID?: string } | undefined)?.imageID));
  expect(off.map((c) => c.metadata.name)).toEqual([]);
  const kubelets = new Map(
    store
      .list('nodes')
      .map((n) => [n.metadata.name, (n.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion]),
  );
  for (const c of claims) expect(kubelets.get((c.status as { nodeName?: string }).nodeName)).toMatch(/^v1\.30\./);
}

describe('upgrade on a large fleet', () => {
  it(
    '-o json on `large`: follows 5,000 NodeClaims, exits 0, done within 1 s of the last old NodeClaim, RSS bounded',
    { timeout: 240_000 },
    async () => {
      const sandbox = await scenario('large', 60);
      const run = await upgrade(sandbox, ['--nodeclass', 'bottlerocket', '-o', 'json'], 220_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const done = run.stdout.split('\n').find((l) => l.startsWith('{"type":"done"'));
      expect(JSON.parse(done!)).toMatchObject({ result: 'succeeded' });
      expectOnTarget(sandbox, 'bottlerocket', 1000);
      // The simulator's record and the line's arrival are both wall clock, in this process.
      const delay = run.doneAt - lastOldGone(sandbox);
      console.log(
        `large -o json: ${run.wallS.toFixed(0)} s, CLI ${run.cpuS.toFixed(1)} s CPU, peak RSS ${run.rssMb.toFixed(0)} MB, done ${delay} ms after the last old NodeClaim`,
      );
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(1000);
      expect(run.rssMb).toBeLessThan(400);
    },
  );

  it(
    'plain text (stderr not a TTY) on 300 nodes and 3,000 pods: exits 0 and says done within 1 s',
    { timeout: 180_000 },
    async () => {
      const sandbox = await startSandbox({
        scenario: parseScenario(
          [
            'name: large-cut',
            'controlPlaneVersion: "1.30"',
            'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
            'nodePools: [{ name: general, nodeClass: default, nodes: 300, arch: [amd64, arm64] }]',
            'workloads: [{ name: web, nodePool: general, replicas: 3000, pdb: { maxUnavailable: "10%" } }]',
          ].join('\n'),
          'large-cut',
        ),
        speed: 60,
      });
      onTestFinished(() => sandbox.stop());
      const run = await upgrade(sandbox, [], 160_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain('Rollout complete');
      expectOnTarget(sandbox, 'default', 300);
      const delay = run.doneAt - lastOldGone(sandbox);
      console.log(
        `300 nodes, plain text: ${run.wallS.toFixed(0)} s, CLI ${run.cpuS.toFixed(1)} s CPU, peak RSS ${run.rssMb.toFixed(0)} MB, done ${delay} ms after the last old NodeClaim`,
      );
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(1000);
      expect(run.rssMb).toBeLessThan(400);
    },
  );
});
