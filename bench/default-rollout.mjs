// What the default rollout costs on a good AMI (issue 33): `upgrade --to 1.30 --yes` (each target AMI tested on one
// node first, gated, then the rest) against `--waves 100%` (Karpenter's pace, gated) and `--waves 100% --no-gates`,
// each on a fresh `default` sandbox (12 nodes, four target AMIs), run in alternation and compared by medians. The
// sandbox runs `SPEED` times faster than real time, so a real second is `SPEED` simulated ones: the added time is
// said in simulated minutes, beside what the plan's model adds (its estimate with and without the first wave).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/sandbox.js';
import { median } from './timing.mjs';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const SPEED = 60;
const VARIANTS = [
  { name: 'default', args: [] },
  { name: 'waves 100%', args: ['--waves', '100%'] },
  { name: 'no gates', args: ['--waves', '100%', '--no-gates'] },
];

function cli(sandbox, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const start = performance.now();
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - start, stdout }) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`))));
  });
}

async function once(variant) {
  const sandbox = await startSandbox({ scenario: 'default', speed: SPEED });
  try {
    const plan = JSON.parse((await cli(sandbox, ['plan', '--to', '1.30', '-o', 'json', ...variant.args])).stdout);
    const run = await cli(sandbox, ['upgrade', '--to', '1.30', '--yes', '-q', ...variant.args]);
    return { ms: run.ms, estimateSeconds: plan.staged?.estimateSeconds ?? NaN };
  } finally {
    await sandbox.stop();
  }
}

export async function defaultRolloutCost(runs = 3) {
  const ms = Object.fromEntries(VARIANTS.map((v) => [v.name, []]));
  const estimate = {};
  for (let i = 0; i < runs; i++) {
    for (const v of VARIANTS) {
      const r = await once(v);
      ms[v.name].push(r.ms);
      estimate[v.name] = r.estimateSeconds;
    }
  }
  const m = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
  const addedSimMin = ((m.default - m['waves 100%']) * SPEED) / 60_000;
  const gatesSimMin = ((m['waves 100%'] - m['no gates']) * SPEED) / 60_000;
  const modelMin = (estimate.default - estimate['waves 100%']) / 60;
  console.log(
    `  default rollout on the default sandbox at ${SPEED}x: ${(m.default / 1000).toFixed(1)} s; --waves 100%: ${(m['waves 100%'] / 1000).toFixed(1)} s; --waves 100% --no-gates: ${(m['no gates'] / 1000).toFixed(1)} s (medians of ${runs}); the first wave adds ${addedSimMin.toFixed(1)} simulated minutes (the plan's model: ${modelMin.toFixed(0)} min), the gates ${gatesSimMin.toFixed(1)}`,
  );
  return [
    {
      name: `default rollout's first wave on a good AMI, \`default\` sandbox at ${SPEED}× (simulated; the plan's model adds ${modelMin.toFixed(0)} min)`,
      value: addedSimMin,
      unit: 'min',
      // One replacement (the plan assumes 5 minutes) and the gates' judgement at its checkpoint.
      target: 6,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await defaultRolloutCost(Number(process.argv[2] ?? 3)));
}
