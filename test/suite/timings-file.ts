// The record of how long each test file took: test/suite/timings.json, read by the sequencer and the reporter, written
// by `npm run test:timings`.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Recorded } from './timings.js';

const TIMINGS_FILE = new URL('./timings.json', import.meta.url);

export function readRecorded(): Recorded {
  try {
    const doc = JSON.parse(readFileSync(TIMINGS_FILE, 'utf8')) as { seconds?: Record<string, number> };
    return doc.seconds ?? {};
  } catch {
    return {}; // no record yet: every file is unknown, and unknown files start first
  }
}

export function writeRecorded(seconds: Recorded): void {
  const doc = {
    about: 'Seconds each test file took, written by `npm run test:timings`; vitest starts the longest first (test/suite/sequencer.ts).',
    seconds,
  };
  writeFileSync(TIMINGS_FILE, `${JSON.stringify(doc, null, 2)}\n`);
}
