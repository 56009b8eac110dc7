// Benchmarks (not tests): `npm run bench`. Numbers go into the README's "Performance" section.
// The machine is shared and small, so every result is a ratio measured within one run, alternating the
// two commands being compared and taking medians.
import { spawnSync } from 'node:child_process';
import { URL, fileURLToPath } from 'node:url';
import { largeScenarioStart, sandboxScale } from './sandbox-scale.mjs';
import { planOnLarge, rolloutCost } from './upgrade.mjs';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

function timeOnce(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function startupRatio() {
  const baseline = [];
  const help = [];
  timeOnce(['-e', '0']); // warm the file cache
  timeOnce([main, '--help']);
  for (let i = 0; i < RUNS; i++) {
    baseline.push(timeOnce(['-e', '0']));
    help.push(timeOnce([main, '--help']));
  }
  const b = median(baseline);
  const h = median(help);
  return { name: 'karp-drift --help vs node -e 0', baselineMs: b, commandMs: h, ratio: h / b, target: 1.3 };
}

const results = [startupRatio()];
for (const r of results) {
  const verdict = r.ratio <= r.target ? 'ok' : 'over target';
  console.log(
    `${r.name}: ${r.commandMs.toFixed(1)} ms vs ${r.baselineMs.toFixed(1)} ms (median of ${RUNS}) = ${r.ratio.toFixed(2)}x (target <= ${r.target}x: ${verdict})`,
  );
}
for (const r of [...(await sandboxScale()), ...(await largeScenarioStart()), ...(await planOnLarge()), ...(await rolloutCost())]) {
  console.log(`${r.name}: ${r.value.toFixed(0)} ${r.unit} (target < ${r.target} ${r.unit}: ${r.ok ? 'ok' : 'over target'})`);
}
