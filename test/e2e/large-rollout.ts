// Runs `upgrade` on a big sandbox fleet and measures it as a user would feel it: exit code, when the output said done,
// and the CLI's own peak RSS and CPU time. Shared by the cut in the default suite (test/e2e/large-rollout.slow.test.ts)
// and the whole `large` fleet under `npm run test:long` (test/long/large-rollout.long.test.ts).
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { MAIN } from './cli-sandbox.js';

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
/** Prints the CLI's own peak RSS (KiB) and CPU time (µs) on exit, as bench/upgrade.mjs does. */
const PRELOAD =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("resource-usage="+JSON.stringify({maxRSS:u.maxRSS,cpu:u.userCPUTime+u.systemCPUTime})+"\\n")})';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall clock (ms) when the output saying done arrived. */
  doneAt: number;
  rssMb: number;
  cpuS: number;
  wallS: number;
}

export function upgrade(sandbox: Sandbox, args: string[], timeoutMs: number): Promise<Run> {
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

/**
 * What a big fleet's rollout must show, whatever the output: every NodeClaim of the class on target, done said soon
 * after the last old NodeClaim left (the simulator's record and the line's arrival are both wall clock, in this
 * process), and the CLI's peak RSS bounded. `label` heads the measurement printed beside the test. "Soon" is a bound
 * for a machine shared with the rest of the suite, not the figure: the default rollout's last checkpoint judges the
 * last wave's pods before done (about 0.5 s on 300 nodes and 3,000 pods alone on 2 cores); `npm run bench` measures it.
 */
export function expectDoneOnTime(sandbox: Sandbox, run: Run, nodeClass: string, nodes: number, label: string): void {
  expectOnTarget(sandbox, nodeClass, nodes);
  const delay = run.doneAt - lastOldGone(sandbox);
  console.log(
    `${label}: ${run.wallS.toFixed(0)} s, CLI ${run.cpuS.toFixed(1)} s CPU, peak RSS ${run.rssMb.toFixed(0)} MB, done ${delay} ms after the last old NodeClaim`,
  );
  expect(delay).toBeGreaterThanOrEqual(0);
  expect(delay).toBeLessThan(3000);
  expect(run.rssMb).toBeLessThan(400);
}
