// Benchmark (not a test): `upgrade --to 1.30 --yes` followed end to end on the `large` sandbox (5,000 NodeClaims and
// Nodes, 50,000 pods, budgets of 10 %), once with `-o json` and once in plain text (stderr not a TTY). Reports the
// rollout's wall time, the CLI's own CPU seconds and peak RSS (a preload prints process.resourceUsage() on exit), and
// how long after the last old NodeClaim left (the simulator's record: the latest `finished`) the CLI said done.
// Also the sandbox's worst event-loop delay during the run: the CLI can only be as prompt as the API it reads.
// Run alone: `npm run build && node bench/large-rollout.mjs [json|text] [speed]`.
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/sandbox.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const PRELOAD =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("resource-usage="+JSON.stringify({maxRSS:u.maxRSS,cpu:u.userCPUTime+u.systemCPUTime})+"\\n")})';

/** One rollout on a fresh `large` sandbox; `mode` is 'json' or 'text'. Extra CLI arguments go after the defaults. */
export async function largeRollout(mode = 'json', { speed, extraArgs = [], cpuProf } = {}) {
  const sandbox = await startSandbox({ scenario: 'large', ...(speed !== undefined ? { speed } : {}) });
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  try {
    const args = ['upgrade', '--to', '1.30', '--yes', ...(mode === 'json' ? ['-o', 'json'] : []), ...extraArgs];
    const r = await spawnCli(sandbox, args, cpuProf);
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
      stderrTail: r.stderr.slice(-2000),
    };
  } finally {
    loop.disable();
    await sandbox.stop();
  }
}

function spawnCli(sandbox, args, cpuProf) {
  return new Promise((resolve, reject) => {
    const node = ['--import', PRELOAD, ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [])];
    const child = spawn(process.execPath, [...node, MAIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let doneAt = NaN;
    let tail = '';
    // Wall clock, as the simulator's record is: the moment the line that says done arrives.
    child.stdout.on('data', (c) => {
      stdout += c;
      // The chunk and the end of the one before (a line cut between two): the whole of stdout would be re-read.
      const recent = tail + c.toString();
      tail = recent.slice(-20);
      if (Number.isNaN(doneAt) && (recent.includes('{"type":"done"') || recent.includes('Rollout complete')))
        doneAt = Date.now();
    });
    child.stderr.on('data', (c) => {
      stderr += c;
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
  return `large rollout (${r.mode}): exit ${r.code} in ${r.wallS.toFixed(0)} s, ${r.commands} drift commands; CLI ${r.cpuS.toFixed(1)} s CPU, peak RSS ${r.rssMb.toFixed(0)} MB; done ${r.doneAfterMs.toFixed(0)} ms after the last old NodeClaim left; sandbox event loop max ${r.sandboxLoopMaxMs.toFixed(0)} ms (p99 ${r.sandboxLoopP99Ms.toFixed(0)} ms)`;
}

/** The rows bench/run.mjs prints: the figures of both modes. */
export async function largeRolloutRows() {
  const rows = [];
  // Each mode is a whole rollout of 5,000 drift commands (about ten minutes on 2 cores): BENCH_LARGE_ROLLOUT=json runs one.
  for (const mode of (process.env.BENCH_LARGE_ROLLOUT ?? 'json,text').split(',')) {
    const r = await largeRollout(mode);
    console.log(`  ${describe(r)}`);
    if (r.code !== 0) console.log(r.stderrTail);
    const label = mode === 'json' ? '`-o json`' : 'plain text';
    rows.push(
      // The pace is the simulator's (one drift command per pass); the goal says the rollout completes in minutes.
      { name: `\`upgrade\` on \`large\` (${label}): wall time`, value: r.wallS, unit: 's', target: 1200 },
      // The follow's own CPU, bounded: at most a tenth of one core over the rollout.
      {
        name: `\`upgrade\` on \`large\` (${label}): CLI CPU (goal: 10 % of the wall time)`,
        value: r.cpuS,
        unit: 's',
        target: Math.round(r.wallS / 10),
      },
      { name: `\`upgrade\` on \`large\` (${label}): CLI peak RSS`, value: r.rssMb, unit: 'MB', target: 400 },
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
