#!/usr/bin/env node
// `npm test`: the build, then the whole suite, with the type check and the lint running beside them (each takes one
// core for 20–40 s; the suite's slow files mostly wait, so they fit in beside it: about 35 s off the whole on 2
// cores). Each check's output is printed whole when the suite ends, so it never interleaves with vitest's; a check
// that fails stops the suite at once. Exits non-zero when the build, either check or the suite fails, and says which.
// Extra arguments go to vitest (`npm test -- test/e2e/upgrade.test.ts`).
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

function report(c) {
  process.stdout.write(`== ${c.name}: ${c.code === 0 ? 'ok' : `failed (exit ${c.code})`} in ${c.seconds.toFixed(1)} s\n`);
  if (c.output.trim() !== '') process.stdout.write(c.output.endsWith('\n') ? c.output : `${c.output}\n`);
}

const checks = [
  quietly('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']),
  quietly('lint', 'npx', ['eslint', '.']),
];
const build = await quietly('build', process.execPath, ['scripts/build.mjs']);
report(build);
if (build.code !== 0) {
  (await Promise.all(checks)).forEach(report);
  process.stdout.write('npm test: the build failed; the suite was not run\n');
  process.exit(1);
}

const vitest = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
const suite = new Promise((resolve) => vitest.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
let stopped = false;
for (const check of checks)
  void check.then((c) => {
    if (c.code === 0 || vitest.exitCode != null) return;
    stopped = true;
    vitest.kill('SIGTERM');
  });
const suiteCode = await suite;
const results = await Promise.all(checks);
process.stdout.write('\n');
results.forEach(report);
const failed = [...results.filter((c) => c.code !== 0).map((c) => c.name), ...(suiteCode !== 0 && !stopped ? ['the suite'] : [])];
if (failed.length > 0) {
  process.stdout.write(`npm test: ${failed.join(', ')} failed${stopped ? ' (the suite was stopped)' : ''}\n`);
  process.exit(1);
}
