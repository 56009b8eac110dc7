// A vitest reporter that says where the suite's time goes (timings.ts). `npm test` and CI print the ten slowest files
// after every run; `npm run test:timings` lists every file and records their times in timings.json for the sequencer.
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { timingLines, updateRecorded, type FileTiming } from './timings.js';
import { readRecorded, writeRecorded } from './timings-file.js';

export interface TimingsOptions {
  /** How many files to list (default: every file). */
  top?: number;
  /** Write this run's times to timings.json (default: true, as `npm run test:timings` runs it; the config says false). */
  record?: boolean;
}

// The one default export here: vitest loads a reporter given by path from its module's default export.
export default class TimingsReporter implements Reporter {
  private readonly top: number;
  private readonly record: boolean;
  private started = performance.now();
  private vitest: Vitest | undefined;

  constructor(options: TimingsOptions = {}) {
    this.top = options.top ?? Infinity;
    this.record = options.record ?? true;
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map((m): FileTiming => {
      const d = m.diagnostic();
      return {
        file: m.relativeModuleId,
        project: m.project.name,
        // What the default reporter prints beside the file, plus its environment, set-up and import.
        seconds: (d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration) / 1000,
        tests: [...m.children.allTests()].length,
      };
    });
    const recorded = readRecorded();
    const lines = timingLines(files, (performance.now() - this.started) / 1000, recorded, this.top);
    if (this.record && files.length > 0) {
      writeRecorded(updateRecorded(recorded, files));
      lines.push(`Recorded in test/suite/timings.json: commit it, so a clean clone starts the longest files first.`);
    }
    if (lines.length > 0) this.vitest?.logger.log(['', ...lines, ''].join('\n'));
  }
}
