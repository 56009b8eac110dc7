#!/usr/bin/env node
// `npm run test:long`: the scale proof and the wall-clock proofs side by side, as two vitest runs (vitest.long.config.ts
// has a project for each). One run with both projects shares one worker pool, and the scale proof waited for a clock
// file to end: the clock files mostly sleep, so side by side the phase takes as long as its longest file, not the sum.
// Exits non-zero when either run fails; each prints its own summary.
import { spawn } from 'node:child_process';

const vitest = (project) =>
  new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '--config', 'vitest.long.config.ts', '--project', project], { stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const codes = await Promise.all([vitest('long'), vitest('clock')]);
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
