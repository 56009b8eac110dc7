// Benchmark (not a test): `upgrade --to 1.30 --yes` followed end to end on the `large` fleet (5,000 NodeClaims and
// Nodes, 50,000 pods, budgets of 10 %) with each NodePool split in ten (`largeInPools`), with `-o json` (and in plain
// text, stderr not a TTY, when BENCH_LARGE_ROLLOUT=json,text). Reports the rollout's wall time, the CLI's own CPU seconds and peak RSS (a preload
// prints process.resourceUsage() on exit), and how long after the last old NodeClaim left (the simulator's record: the
// latest `finished`) the CLI said done. Also the sandbox's worst event-loop delay during the run (the CLI can only be
// as prompt as the API it reads) and its resident memory, sampled every 2 s from start to end (the sandbox runs in
// this process).
// Why thirty NodePools: Karpenter replaces a NodePool's full nodes about one at a time (a candidate waits while its
// pods would land on a replacement still initializing: DOMAIN.md §2.6), so `large`'s NodePools of 2,000 would take some
// three simulated days, while thirty side by side are paced by the one drift command a disruption pass starts.
// Run alone: `npm run build && node bench/large-rollout.mjs [json|text] [speed]`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { dump, load } from 'js-yaml';
import { startSandbox } from '../dist/sandbox/sandbox.js';
import { parseScenario } from '../dist/sandbox/scenarios/schema.js';

/** Simulated seconds per real second: each pass then covers a few simulated seconds of a 5,000-node fleet. */
const SPEED = 60;
/** Resident memory is sampled this often (ms). */
const RSS_EVERY_MS = 2000;

/**
 * `large` with each NodePool split into `split` NodePools of the same template (`general-amd64-0` …) and each workload
 * into as many, one per part of its NodePool: the same 5,000 nodes, 50,000 pods, classes, PDBs and budgets.
 */
export function largeInPools(split = 10) {
  const large = load(readFileSync(new URL('../scenarios/large.yaml', import.meta.url), 'utf8'));
  const parts = (name) => Array.from({ length: split }, (_, i) => `${name}-${i}`);
  large.nodePools = large.nodePools.flatMap((p) => parts(p.name).map((name) => ({ ...p, name, nodes: p.nodes / split })));
  large.workloads = large.workloads.flatMap((w) =>
    parts(w.nodePool).map((nodePool, i) => ({ ...w, name: `${w.name}-${i}`, nodePool, replicas: w.replicas / split })),
  );
  return parseScenario(dump(large), 'large in pools');
}

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const PRELOAD =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("resource-usage="+JSON.stringify({maxRSS:u.maxRSS,cpu:u.userCPUTime+u.systemCPUTime})+"\\n")})';

/** One rollout on a fresh `large` sandbox; `mode` is 'json' or 'text'. Extra CLI arguments go after the defaults. */
export async function largeRollout(mode = 'json', { speed = SPEED, extraArgs = [], cpuProf } = {}) {
  // V8's heap policy as `karp-drift sandbox` sets it for its process (commands/sandbox.ts).
  setFlagsFromString('--optimize-for-size');
  const sandbox = await startSandbox({ scenario: largeInPools(), speed });
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  const rss = [process.memoryUsage.rss()];
  // And the heap in use at each sample: its lowest in a window is about what the sandbox keeps (just after a GC).
  const heap = [process.memoryUsage().heapUsed];
  const sampler = setInterval(() => {
    rss.push(process.memoryUsage.rss());
    heap.push(process.memoryUsage().heapUsed);
    // A rollout takes most of an hour on 2 cores: BENCH_PROGRESS=1 prints where it is every minute.
    if (process.env.BENCH_PROGRESS && rss.length % 30 === 0)
      console.error(`  ${new Date().toISOString()} sandbox RSS ${(rss.at(-1) / 2 ** 20).toFixed(0)} MB, heap ${(heap.at(-1) / 2 ** 20).toFixed(0)} MB, ${sandbox.simulator.disruptions.entries().length} drift commands`);
  }, RSS_EVERY_MS);
  try {
    const args = ['upgrade', '--to', '1.30', '--yes', ...(mode === 'json' ? ['-o', 'json'] : []), ...extraArgs];
    const r = await spawnCli(sandbox, args, cpuProf);
    rss.push(process.memoryUsage.rss());
    const finished = sandbox.simulator.disruptions
      .entries()
      .map((e) => e.finished)
      .filter((t) => t !== undefined)
      .map((t) => Date.parse(t));
    const lastOldGone = finished.length > 0 ? Math.max(...finished) : NaN;
    const claims = sandbox.kube.store.list('nodeclaims.karpenter.sh');
    return {
      mode,
      code: r.code,
      wallS: r.ms / 1000,
      cpuS: r.usage ? r.usage.cpu / 1e6 : NaN,
      rssMb: r.usage ? r.usage.maxRSS / 1024 : NaN,
      doneAfterMs: r.doneAt - lastOldGone,
      commands: finished.length,
      nodeClaims: claims.length,
      sandboxLoopMaxMs: loop.max / 1e6,
      sandboxLoopP99Ms: loop.percentile(99) / 1e6,
      sandboxRssMb: { start: rss[0] / 2 ** 20, peak: Math.max(...rss) / 2 ** 20, end: rss.at(-1) / 2 ** 20, samples: rss.length },
      sandboxKeptMb: keptMb(heap),
      stderrTail: r.stderr.slice(-2000),
    };
  } finally {
    clearInterval(sampler);
    loop.disable();
    await sandbox.stop();
  }
}

/** The heap's lows per minute of samples (each about what survives a GC), at the start, highest and at the end. */
function keptMb(heap) {
  const perMinute = Math.max(1, Math.round(60_000 / RSS_EVERY_MS));
  const lows = [];
  for (let i = 0; i < heap.length; i += perMinute) lows.push(Math.min(...heap.slice(i, i + perMinute)) / 2 ** 20);
  return { start: lows[0], peak: Math.max(...lows), end: lows.at(-1) };
}

function spawnCli(sandbox, args, cpuProf) {
  return new Promise((resolve, reject) => {
    const node = ['--import', PRELOAD, ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [])];
    const child = spawn(process.execPath, [...node, MAIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Only the ends are kept: this process is the sandbox whose memory is measured, and a run's whole output is
    // megabytes.
    let stdout = '';
    let stderr = '';
    let doneAt = NaN;
    let tail = '';
    // Wall clock, as the simulator's record is: the moment the line that says done arrives.
    child.stdout.on('data', (c) => {
      stdout = (stdout + c).slice(-65536);
      // The chunk and the end of the one before (a line cut between two): the whole of stdout would be re-read.
      const recent = tail + c.toString();
      tail = recent.slice(-20);
      if (Number.isNaN(doneAt) && (recent.includes('{"type":"done"') || recent.includes('Rollout complete')))
        doneAt = Date.now();
    });
    child.stderr.on('data', (c) => {
      stderr = (stderr + c).slice(-65536);
    });
    const start = Date.now();
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /resource-usage=(\{.*\})/.exec(stderr);
      resolve({ code, ms: Date.now() - start, usage: m ? JSON.parse(m[1]) : undefined, stdout, stderr, doneAt });
    });
  });
}

function describe(r) {
  const m = r.sandboxRssMb;
  const k = r.sandboxKeptMb;
  return `large rollout (${r.mode}): exit ${r.code} in ${r.wallS.toFixed(0)} s, ${r.commands} drift commands; CLI ${r.cpuS.toFixed(1)} s CPU, peak RSS ${r.rssMb.toFixed(0)} MB; done ${r.doneAfterMs.toFixed(0)} ms after the last old NodeClaim left; sandbox event loop max ${r.sandboxLoopMaxMs.toFixed(0)} ms (p99 ${r.sandboxLoopP99Ms.toFixed(0)} ms); sandbox RSS ${m.start.toFixed(0)} MB at the start, ${m.peak.toFixed(0)} MB at most, ${m.end.toFixed(0)} MB at the end (${m.samples} samples), heap kept ${k.start.toFixed(0)} → ${k.peak.toFixed(0)} at most → ${k.end.toFixed(0)} MB (its lows per minute)`;
}

/** The rows bench/run.mjs prints: the figures of both modes. */
export async function largeRolloutRows() {
  const rows = [];
  // Each mode is a whole rollout of 5,000 drift commands, most of an hour on 2 cores: `-o json` unless
  // BENCH_LARGE_ROLLOUT says otherwise (`json,text` runs both).
  for (const mode of (process.env.BENCH_LARGE_ROLLOUT ?? 'json').split(',')) {
    const r = await largeRollout(mode);
    console.log(`  ${describe(r)}`);
    if (r.code !== 0) console.log(r.stderrTail);
    const label = mode === 'json' ? '`-o json`' : 'plain text';
    rows.push(
      // The pace is the simulator's, Karpenter's: one drift command per disruption pass, 5,000 passes of a 5,000-node
      // fleet on 2 cores (each pass reads the whole fleet). The goal says it completes within the hour.
      { name: `\`upgrade\` on \`large\` (${label}): wall time`, value: r.wallS, unit: 's', target: 3600 },
      // The follow's own CPU, bounded: at most a tenth of one core over the rollout.
      {
        name: `\`upgrade\` on \`large\` (${label}): CLI CPU (goal: 10 % of the wall time)`,
        value: r.cpuS,
        unit: 's',
        target: Math.round(r.wallS / 10),
      },
      { name: `\`upgrade\` on \`large\` (${label}): CLI peak RSS`, value: r.rssMb, unit: 'MB', target: 400 },
      // Issue 39: the sandbox following the whole rollout stays under 700 MB, sampled every 2 s from start to end.
      { name: `\`upgrade\` on \`large\` (${label}): sandbox peak RSS`, value: r.sandboxRssMb.peak, unit: 'MB', target: 700 },
      {
        name: `\`upgrade\` on \`large\` (${label}): done after the last old NodeClaim`,
        value: r.doneAfterMs,
        unit: 'ms',
        target: 1000,
      },
    );
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2] ?? 'json';
  const speed = process.argv[3] !== undefined ? Number(process.argv[3]) : undefined;
  const r = await largeRollout(mode, { speed, cpuProf: process.env.CPU_PROF });
  console.log(describe(r));
  if (r.code !== 0) console.log(r.stderrTail);
  process.exit(0);
}
