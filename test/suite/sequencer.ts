// The order test files start in: vitest's groups and projects as they are, and within a project the longest recorded
// files first (timings.ts says why).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longestFirst } from './timings.js';
import { readRecorded } from './timings-file.js';

export class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = readRecorded();
    const root = this.ctx.config.root;
    const key = (s: TestSpecification) => `${String(s.project.config.sequence.groupOrder).padStart(4, '0')} ${s.project.name}`;
    const byProject = new Map<string, TestSpecification[]>();
    for (const spec of files) {
      const group = byProject.get(key(spec));
      if (group) group.push(spec);
      else byProject.set(key(spec), [spec]);
    }
    const projects = [...byProject.keys()].sort();
    return Promise.resolve(
      projects.flatMap((p) => longestFirst(byProject.get(p)!, (s) => relative(root, s.moduleId), recorded)),
    );
  }
}
