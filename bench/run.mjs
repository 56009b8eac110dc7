// Benchmarks (not tests): `npm run bench` prints each figure with its goal, the ratio and whether it passes;
// `npm run bench -- --readme` also writes the table into CONTRIBUTING.md's "Performance" section, between its markers.
// The machine is shared and small, so every comparison is a ratio measured within one run, alternating the commands
// compared and taking medians. Node 24 is measured too when it is installed where CI puts it (.node24/, see .ci/run)
// or named by NODE24=/path/to/node.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { largeScenarioStart, sandboxScale } from './sandbox-scale.mjs';
import { startup } from './startup.mjs';
import { planOnLarge, rolloutCost } from './upgrade.mjs';
import { largeRolloutRows } from './large-rollout.mjs';
import { sandboxShutdown } from './sandbox-shutdown.mjs';
import { defaultRolloutCost } from './default-rollout.mjs';
import { ciPhases } from './ci-phases.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const LARGE_RUNS = Number(process.env.BENCH_LARGE_RUNS ?? 7);
const README = fileURLToPath(new URL('../CONTRIBUTING.md', import.meta.url));

const node24 = process.env.NODE24 ?? fileURLToPath(new URL('../.node24/node_modules/node/bin/node', import.meta.url));
const nodes = [{ path: process.execPath, label: `Node ${process.versions.node}` }];
if (existsSync(node24) && node24 !== process.execPath) nodes.push({ path: node24, label: `Node ${versionOf(node24)}` });

function versionOf(node) {
  return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
}

// `--only startup,plan` measures those groups alone (startup, plan: `plan` and `status` on `large`, sandbox, rollouts,
// large-rollout: the whole `large` fleet followed, most of an hour; ci: `.ci/run` on a clean clone, its phases); with --readme, their rows
// replace the same rows of CONTRIBUTING.md's table and the rest stay as last measured.
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg < 0 ? undefined : new Set(process.argv[onlyArg + 1]?.split(','));
const wanted = (group) => only === undefined || only.has(group);

const load = loadavg()[0];
const rows = [];
if (wanted('startup')) for (const n of nodes) rows.push(...(await startup(n.path, n.label, RUNS)));
if (wanted('plan')) for (const n of nodes) rows.push(...(await planOnLarge(n.path, n.label, LARGE_RUNS)));
// The sandbox's own figures (absolute: they compare with nothing else in the run).
const own = [
  ...(wanted('sandbox')
    ? [...(await sandboxScale()), ...(await largeScenarioStart()), ...(await sandboxShutdown())]
    : []),
  ...(wanted('rollouts') ? [...(await rolloutCost()), ...(await defaultRolloutCost())] : []),
  // Most of an hour on 2 cores: a group of its own, so `--only rollouts` stays a few minutes.
  ...(wanted('large-rollout') ? await largeRolloutRows() : []),
  // CI's phases, from `.ci/run` on a clean clone (about 12 minutes; last, so nothing else of the bench runs beside it).
  ...(wanted('ci') ? await ciPhases() : []),
];
for (const r of own) {
  rows.push({
    figure: r.name,
    result: `${r.value.toFixed(r.unit === 'x' || r.unit === 'min' ? 1 + Number(r.unit === 'x') : 0)} ${r.unit}${r.note ? ` (${r.note})` : ''}`,
    value: r.value,
    goal: r.target,
    unit: r.unit,
    below: r.unit !== 'x' && r.atMost !== true,
  });
}

const table = render(rows);
console.log(`\n${table}`);
if (process.argv.includes('--readme')) writeReadme(table);

/** A figure passes when its ratio (or value) is at most its goal; `below` goals are strict (< goal). */
function verdict(r) {
  const x = r.ratio ?? r.value;
  if (r.goal === undefined) return x === undefined || Number.isNaN(x) ? 'not measured' : 'measured';
  if (x === undefined) return 'not measured';
  return (r.below ? x < r.goal : x <= r.goal) ? 'pass' : 'over';
}

function render(rs) {
  const lines = ['| figure | result | goal | ratio | |', '|---|---|---|---|---|'];
  for (const r of rs) {
    const goal =
      r.goal === undefined
        ? '—'
        : r.ratio !== undefined || r.unit === undefined
          ? `≤ ${r.goal}×`
          : `${r.below ? '<' : '≤'} ${r.goal} ${r.unit}`;
    const ratio =
      r.ratio !== undefined
        ? `${r.ratio.toFixed(2)}×`
        : r.value !== undefined && r.unit !== 'x' && r.goal !== undefined
          ? `${(r.value / r.goal).toFixed(2)} of goal`
          : '';
    lines.push(`| ${r.figure} | ${r.result} | ${goal} | ${ratio} | ${verdict(r)} |`);
  }
  return lines.join('\n');
}

function writeReadme(t) {
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const text = readFileSync(README, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`CONTRIBUTING.md has no ${start} ... ${end} section`);
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${nodes.map((n) => n.label).join(' and ')}, ${new Date().toISOString().slice(0, 10)}`;
  const said = `Measured by \`npm run bench -- --readme${only ? ` --only ${[...only].join(',')}` : ''}\` on ${machine}; medians of ${RUNS} alternating runs (${LARGE_RUNS} on \`large\`); load average ${load.toFixed(1)} at the start (a loaded machine stretches every absolute time; the ratios are what the goals are about).`;
  let body;
  if (only === undefined) body = `${start}\n${said}\n\n${t}\n${end}`;
  else {
    // The old section's rows, each replaced by the new row of the same figure; new figures at the end.
    const old = text.slice(i + start.length, j);
    const figureOf = (line) => line.split(' | ')[0];
    const fresh = new Map(
      t
        .split('\n')
        .slice(2)
        .map((l) => [figureOf(l), l]),
    );
    const lines = old
      .split('\n')
      // A provenance line goes when every group it speaks for is measured again: the others' stay true.
      .filter((l) => !(/^The (.*) rows again: /.exec(l)?.[1]?.split(', ').every((g) => only.has(g)) ?? false))
      .map((l) => (l.startsWith('| ') && fresh.has(figureOf(l)) ? fresh.get(figureOf(l)) : l));
    const kept = new Set(lines.map(figureOf));
    const added = [...fresh].filter(([f]) => !kept.has(f)).map(([, l]) => l);
    const tableEnd = lines.findLastIndex((l) => l.startsWith('| '));
    lines.splice(tableEnd + 1, 0, ...added);
    lines.splice(tableEnd + 1 + added.length, 0, '', `The ${[...only].join(', ')} rows again: ${said}`);
    body = `${start}${lines.join('\n').replace(/\n+$/, '')}\n${end}`;
  }
  writeFileSync(README, text.slice(0, i) + body + text.slice(j + end.length));
}
