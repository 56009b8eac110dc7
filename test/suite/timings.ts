// Where the suite's time goes, pure: the table printed after a run, the order files start in, and the record of how
// long each file took (test/suite/timings.json, written by `npm run test:timings`). The reporter and the sequencer
// beside this file are their thin edges.
//
// Why an order of our own: vitest starts the longest files first only when its cache (under node_modules/) knows their
// durations; a clean clone (CI, a new contributor) has none, and vitest then starts the largest files first, so a
// short file of many lines goes before a long soak of a few. With several files at a time, a long file started last
// is the run's tail.

export interface FileTiming {
  /** Relative to the project root, e.g. test/e2e/staged.test.ts. */
  file: string;
  project: string;
  seconds: number;
  tests: number;
}

/** Seconds per file, as recorded by the last `npm run test:timings`. */
export type Recorded = Readonly<Record<string, number>>;

/** Files never recorded first (their time is unknown, and could be long), then the longest recorded first. */
export function longestFirst<T>(items: readonly T[], fileOf: (item: T) => string, recorded: Recorded): T[] {
  const weight = (item: T) => recorded[fileOf(item)] ?? Infinity;
  return [...items].sort((a, b) => weight(b) - weight(a) || (fileOf(a) < fileOf(b) ? -1 : fileOf(a) > fileOf(b) ? 1 : 0));
}

/** The record with this run's files updated (to 0.1 s), the rest kept; keys sorted so the file diffs line by line. */
export function updateRecorded(recorded: Recorded, files: readonly FileTiming[]): Record<string, number> {
  const next: Record<string, number> = { ...recorded };
  for (const f of files) next[f.file] = Math.round(f.seconds * 10) / 10;
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function signed(seconds: number): string {
  const tenths = Math.round(seconds * 10);
  return `${tenths === 0 ? '±' : tenths > 0 ? '+' : '−'}${Math.abs(tenths / 10).toFixed(1)}`;
}

/**
 * A headline, then the `top` slowest files: seconds, share of the time inside files, how far from its recorded time
 * (a slowdown shows the day it lands; `new`: none recorded), project, file and its tests. Numbers first, so that at 80
 * columns only a long path wraps.
 */
export function timingLines(files: readonly FileTiming[], wallSeconds: number, recorded: Recorded, top = Infinity): string[] {
  if (files.length === 0) return [];
  const sorted = [...files].sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : 1));
  const inside = sorted.reduce((sum, f) => sum + f.seconds, 0);
  const tests = sorted.reduce((sum, f) => sum + f.tests, 0);
  const shown = sorted.slice(0, top);
  const width = Math.max(...shown.map((f) => f.project.length));
  const perFile = (f: FileTiming) => {
    const was = recorded[f.file];
    const delta = was === undefined ? 'new' : `${signed(f.seconds - was)} s`;
    const share = inside > 0 ? (100 * f.seconds) / inside : 0;
    return `${f.seconds.toFixed(1).padStart(7)} s ${share.toFixed(1).padStart(5)} % ${delta.padStart(8)}  ${f.project.padEnd(width)}  ${f.file} (${count(f.tests, 'test')})`;
  };
  const atOnce = wallSeconds > 0 ? inside / wallSeconds : 0;
  return [
    `Where the time went: ${count(tests, 'test')} in ${count(sorted.length, 'file')}, ${inside.toFixed(0)} s inside files in ${wallSeconds.toFixed(0)} s`,
    `of wall time (${atOnce.toFixed(1)} at a time). ${
      shown.length < sorted.length ? `The ${shown.length} slowest files` : 'Every file, slowest first'
    }, ± their recorded time:`,
    ...shown.map(perFile),
  ];
}
