// Timing helpers for bench/: a command's wall time as a child process (spawned without blocking this process's event
// loop, which may be serving a sandbox), and medians of commands run in alternation, so that a machine shared with
// other work slows each of them alike.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

// A preload that reports the process's own peak RSS (process.resourceUsage().maxRSS, KiB) on stderr at exit.
const MAXRSS = 'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nmaxrss="+process.resourceUsage().maxRSS+"\\n"))';

/** Runs `command args` once; `node: true` adds the peak-RSS preload. Rejects on a non-zero exit. */
export function timed(command, args, { env = process.env, node = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, node ? ['--import', MAXRSS, ...args] : args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const start = performance.now();
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`));
      const rssMb = Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? NaN) / 1024;
      resolve({ ms, rssMb, stdout, stderr });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Runs each of `commands` ({ name, command, args, env, node }) `runs` times in turn (A B C A B C ...) after one
 * warm-up round, and returns per name the median wall time and the largest peak RSS.
 */
export async function alternate(commands, runs) {
  const results = Object.fromEntries(commands.map((c) => [c.name, { ms: [], rssMb: [] }]));
  for (let round = -1; round < runs; round++) {
    for (const c of commands) {
      const r = await timed(c.command, c.args, c);
      if (round < 0) continue; // warm-up: the file cache, the compile cache, kubectl's discovery cache
      results[c.name].ms.push(r.ms);
      results[c.name].rssMb.push(r.rssMb);
    }
  }
  return Object.fromEntries(Object.entries(results).map(([name, r]) => [name, { ms: median(r.ms), rssMb: Math.max(...r.rssMb) }]));
}
