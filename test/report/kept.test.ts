// The words a re-run of a staged rollout says about the releases it kept (report/kept.ts): the log line and the plan's.
import { describe, expect, it } from 'vitest';
import { keptReleaseLines } from '../../src/report/kept.js';
import type { PlanSource } from '../../src/plan/promotion.js';

const kept = (newer: string | null) => ({ family: 'al2023' as const, release: 'v20261101', nodeClasses: ['default', 'gpu'], newer });
const policy = { release: 'latest~1', minAge: '7d', families: [] };

describe('keptReleaseLines', () => {
  it.each<[string, PlanSource | undefined, string[]]>([
    [
      'a newer release: the next rollout takes it, and how to take it now',
      { kind: 'ssm', region: 'us-west-2', policy, kept: [kept('v20261108')] },
      [
        'the staged rollout to 1.30 under way keeps its AMIs: al2023 v20261101 (ec2nodeclass/default, ec2nodeclass/gpu); --release latest~1 --min-age 7d now chooses v20261108, which the next upgrade after this rollout takes (to move this rollout to it now, name it: --release v20261108)',
      ],
    ],
    [
      'the same release',
      { kind: 'ssm', region: 'us-west-2', kept: [kept('v20261101')] },
      ['the staged rollout to 1.30 under way keeps its AMIs: al2023 v20261101 (ec2nodeclass/default, ec2nodeclass/gpu), which --release latest still chooses'],
    ],
    [
      'not told',
      { kind: 'ssm', region: 'us-west-2', policy, kept: [kept(null)] },
      [
        'the staged rollout to 1.30 under way keeps its AMIs: al2023 v20261101 (ec2nodeclass/default, ec2nodeclass/gpu); what --release latest~1 --min-age 7d would choose now could not be told',
      ],
    ],
    ['nothing kept', { kind: 'ssm', region: 'us-west-2' }, []],
    ['no source', undefined, []],
  ])('%s', (_name, source, lines) => {
    expect(keptReleaseLines(source, '1.30')).toEqual(lines);
  });
});
