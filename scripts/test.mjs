#!/usr/bin/env node
// `npm test`: the type check, the lint and the build side by side (each runs on one core), then the whole suite.
// Each check's output is printed whole when it ends, so the lines of two do not interleave in a CI log. Exits non-zero
// when any step fails; the suite runs only when every check passed, as `tsc && eslint && build && vitest` did, and
// says which failed. Extra arguments go to vitest (`npm test -- test/e2e/upgrade.test.ts`).
// Why not the checks beside the suite: the suite keeps both cores busy now (its files share their workers' module
// graphs), so measured on a clean clone the checks beside it took 90 s instead of 40 and stretched the suite by as
// much: no faster, and the e2e tests' simulated clocks ran on a starved machine.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

/** Runs `command` with its output kept; resolves to its exit code and that output. */
function quietly(name, command, args) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (err) => resolve({ name, code: 1, output: `${err.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(out).toString(), seconds: (Date.now() - started) / 1000 }),
    );
  });
}

const checks = await Promise.all([
  quietly('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']),
  quietly('lint', 'npx', ['eslint', '.']),
  quietly('build', process.execPath, ['scripts/build.mjs']),
]);
for (const c of checks) {
  process.stdout.write(`== ${c.name}: ${c.code === 0 ? 'ok' : `failed (exit ${c.code})`} in ${c.seconds.toFixed(1)} s\n`);
  if (c.output.trim() !== '') process.stdout.write(c.output.endsWith('\n') ? c.output : `${c.output}\n`);
}
const failed = checks.filter((c) => c.code !== 0).map((c) => c.name);
if (failed.length > 0) {
  process.stdout.write(`npm test: ${failed.join(', ')} failed; the suite was not run\n`);
  process.exit(1);
}

const vitest = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
vitest.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
