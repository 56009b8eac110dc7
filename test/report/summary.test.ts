// The Markdown of --summary-file, from recorded documents (the shapes -o json prints).
import { describe, expect, it } from 'vitest';
import { MAX_SUMMARY_BYTES, newSummaryRecord, recordSummary, summaryMarkdown } from '../../src/report/summary.js';

const cluster = { context: 'prod', server: 'https://ABC.gr7.us-west-2.eks.amazonaws.com', name: 'prod' };
const plan = {
  cluster,
  kubernetesVersion: '1.30',
  controlPlaneVersion: '1.30',
  release: 'v20260717',
  pin: 'id',
  nodeClasses: [
    {
      name: 'default',
      before: { amiSelectorTerms: [{ id: 'ami-old' }] },
      after: { amiSelectorTerms: [{ id: 'ami-new1' }, { id: 'ami-new2' }] },
      changed: true,
    },
  ],
  nodePools: [{ name: 'general', nodeClass: 'default', nodes: 14, toDrift: 14, onTarget: 0 }],
  checks: [
    { code: 'FIELD-OWNER-KUBECTL', level: 'info', message: 'by hand' },
    { code: 'AMI-DEPRECATED-SOON', level: 'warning', message: 'deprecated in 20 days', next: 'plan a newer release' },
  ],
};
const done = (result: string, extra: Record<string, unknown> = {}) => ({
  type: 'done',
  result,
  cluster,
  durationSeconds: 312,
  message: 'Rollout complete: 1 NodePool, 14 nodes on the target AMIs with kubelet 1.30',
  nodePools: [{ name: 'general', total: 14, replaced: 14, onTarget: 14, remaining: 0, done: true }],
  ...extra,
});

describe('summaryMarkdown', () => {
  it('an upgrade that succeeded: the plan and the outcome per NodePool, info checks left out', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan });
    recordSummary(r, { type: 'progress', message: 'ignored' });
    recordSummary(r, done('succeeded'));
    expect(summaryMarkdown(r, 0)).toBe(
      [
        '### karp-drift upgrade: ✅ succeeded (exit 0)',
        '',
        'Cluster `prod` (`https://ABC.gr7.us-west-2.eks.amazonaws.com`)',
        '',
        '#### Plan',
        '',
        'Kubernetes 1.30 (control plane 1.30), release v20260717, pinned by id',
        '',
        '| EC2NodeClass | before | after | changes |',
        '|---|---|---|---|',
        '| `default` | id=ami-old | id=ami-new1 id=ami-new2 | yes |',
        '',
        '| NodePool | nodes | to drift | on target |',
        '|---|---|---|---|',
        '| `general` | 14 | 14 | 0 |',
        '',
        '**Checks**',
        '',
        '- ⚠️ **AMI-DEPRECATED-SOON** deprecated in 20 days — next: plan a newer release',
        '',
        '#### Rollout',
        '',
        '✅ **succeeded** after 312 s: Rollout complete: 1 NodePool, 14 nodes on the target AMIs with kubelet 1.30',
        '',
        '| NodePool | nodes | replaced | on target | remaining |  |',
        '|---|---|---|---|---|---|',
        '| `general` | 14 | 14 | 14 | 0 | ✅ |',
        '',
        '',
      ].join('\n'),
    );
  });

  it('AMIs promoted from an --amis-file: the plan names the file and its releases, as the terminal does', () => {
    const r = newSummaryRecord('upgrade');
    const source = { kind: 'file', path: '/ci/amis.json', shape: 'amis', region: 'us-west-2', fileRegion: 'us-west-2', kubernetesVersion: '1.33', lookup: 'id' };
    const targets = [{ release: '1.33.3' }, { release: 'v20260717' }, { release: 'v20260717' }];
    recordSummary(r, { type: 'plan', plan: { ...plan, release: 'latest', source, nodeClasses: [{ ...plan.nodeClasses[0], targets }] } });
    expect(summaryMarkdown(r, 0)).toContain(
      'Kubernetes 1.30 (control plane 1.30), AMIs promoted from /ci/amis.json (release 1.33.3, v20260717), verified by ID in us-west-2, pinned by id\n',
    );
  });

  it("promoted from a source cluster: its classes not promoted are said under the first line; an older plan's are not", () => {
    const r = newSummaryRecord('upgrade');
    const other = { name: 'bottlerocket', family: 'bottlerocket', settled: true, amis: [{ family: 'bottlerocket', arch: 'amd64', variant: 'standard', kubernetesVersion: '1.29' }] };
    const source = { kind: 'cluster', context: 'staging', server: 'https://staging', region: 'us-west-2', sourceRegion: null, kubernetesVersion: '1.30', lookup: 'name', otherClasses: [other] };
    recordSummary(r, { type: 'plan', plan: { ...plan, release: 'latest', source } });
    expect(summaryMarkdown(r, 0)).toContain(
      ', pinned by id\n\nNot promoted from context staging, so not required to be on 1.30 there: ec2nodeclass/bottlerocket (bottlerocket amd64 standard on Kubernetes 1.29)\n',
    );
    const older = newSummaryRecord('upgrade');
    const { otherClasses: _, ...before } = source;
    recordSummary(older, { type: 'plan', plan: { ...plan, release: 'latest', source: before } });
    expect(summaryMarkdown(older, 0)).not.toContain('Not promoted');
  });

  it('a rollback that deletes what upgrade --templates created says so under its plan', () => {
    const r = newSummaryRecord('rollback');
    recordSummary(r, { type: 'plan', plan: { cluster, controlPlaneVersion: '1.30', nodeClasses: [], nodePools: [], deletes: [{ kind: 'NodePool', name: 'default', nodes: 0 }], checks: [] } });
    expect(summaryMarkdown(r, 0)).toContain('Deletes what karp-drift upgrade --templates created: `nodepool/default`\n');
  });

  it('a halt: the failed gate with its evidence and the command output, the error and its next step', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'gate', result: 'passed', gate: 'health', point: 'wave-end', findings: [] });
    const gate = {
      type: 'gate',
      gate: 'command',
      point: 'wave-end',
      stage: 1,
      result: 'failed',
      findings: [
        {
          code: 'GATE-CMD-FAILED',
          message: 'the gate command exited 3 after 2s; its last lines of output:',
          evidence: ['p99 | 2.31s', 'a', 'b', 'c', 'd', 'e', 'f'],
        },
      ],
      command: { exitCode: 3, output: ['p99 | 2.31s'] },
    };
    recordSummary(r, gate);
    recordSummary(r, done('halted', { message: 'halted', nodePools: [] }));
    r.error = { exitCode: 6, message: 'halted by a health gate: GATE-CMD-FAILED', hint: 'roll back | or resume' };
    const md = summaryMarkdown(r, 6);
    expect(md).toContain('### karp-drift upgrade: 🛑 halted (exit 6)');
    expect(md).toContain('#### Health gate failed (command at wave-end, stage 1)');
    // A table cell's pipe is escaped; evidence is cut to 5 lines.
    expect(md).toContain('  - p99 \\| 2.31s\n  - a\n  - b\n  - c\n  - d\n');
    expect(md).not.toContain('  - e\n');
    expect(md).toContain('```\np99 | 2.31s\n```');
    expect(md).toContain(
      '> **error:** halted by a health gate: GATE-CMD-FAILED\n>\n> **next:** roll back \\| or resume',
    );
  });

  it('blockers are kept once per code and NodePool, the latest evidence', () => {
    const r = newSummaryRecord('wait');
    const blocked = (n: number) => ({
      type: 'blocked',
      code: 'STALL-PDB',
      nodePool: 'general',
      message: `PDB blocks ${n}`,
      evidence: [],
      next: 'relax it',
    });
    recordSummary(r, blocked(1));
    recordSummary(r, blocked(2));
    const md = summaryMarkdown(r, 4);
    expect(md).toContain('### karp-drift wait: ⛔ stalled (exit 4)');
    expect(md.match(/STALL-PDB/g)).toHaveLength(1);
    expect(md).toContain('- **STALL-PDB** PDB blocks 2\n  - next: relax it');
  });

  it('stays far under GitHub’s 1 MiB, however much there is', () => {
    const r = newSummaryRecord('status');
    const nodePools = Array.from({ length: 5000 }, (_, i) => ({
      name: `pool-${i}`,
      nodeClass: 'default',
      nodes: 1,
      blockers: [{ code: 'STALL-PDB', message: 'x'.repeat(3000), evidence: ['y'.repeat(3000)] }],
    }));
    recordSummary(r, { type: 'status', cluster, nodePools });
    const md = summaryMarkdown(r, 0);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(MAX_SUMMARY_BYTES);
    expect(md).toContain('… and 4970 more');
  });
});

describe('summaryMarkdown: upgrade windows (--window)', () => {
  const windows = {
    windows: ['0 2 * * mon-thu/3h'],
    exclusions: [{ from: '2026-12-24T00:00:00Z', to: '2026-12-27T00:00:00Z' }],
    open: false,
    eta: { windows: 3, doneBy: '2026-12-02T04:20:00Z' },
  };
  const windowed = { ...plan, staged: { stages: [], windows } };
  const flags = [
    '#### Upgrade windows',
    '',
    "- `--window '0 2 * * mon-thu/3h'`",
    '- `--exclude` 2026-12-24T00:00:00Z – 2026-12-27T00:00:00Z',
    "- ETA at the plan's estimate: 3 windows, done by Wed 2026-12-02 04:20 UTC",
  ];
  const message = 'paused by the window, next window opens Mon 02:00 UTC (in 27h12m): nothing was applied';
  const paused = (r: ReturnType<typeof newSummaryRecord>, event: 'waiting' | 'closed', opensAt: string | null) => {
    recordSummary(r, { type: 'plan', plan: windowed });
    recordSummary(r, { type: 'window', event, open: false, opensAt });
    recordSummary(r, done('paused', { cause: 'window', paused: ['general'], message }));
    r.error = { exitCode: 7, message, hint: 'run the same command again inside a window' };
    return summaryMarkdown(r, 7);
  };
  const section = (md: string) => md.slice(md.indexOf('#### Upgrade windows'), md.indexOf('\n\n#### Rollout'));

  it.each<[string, 'waiting' | 'closed', string | null, string]>([
    ['started outside the windows', 'waiting', '2026-11-30T02:00:00Z', '- ⏸️ **paused by the window** (started outside the windows, nothing applied); next window opens Mon 2026-11-30 02:00 UTC'],
    ['the window closed mid-rollout', 'closed', '2026-12-01T02:00:00Z', '- ⏸️ **paused by the window** (the window closed mid-rollout, left held); next window opens Tue 2026-12-01 02:00 UTC'],
    ['no window within two years', 'closed', null, '- ⏸️ **paused by the window** (the window closed mid-rollout, left held); no window opens within two years'],
  ])('paused, %s: the flags, the ETA, and when the next window opens', (_name, event, opensAt, last) => {
    expect(section(paused(newSummaryRecord('upgrade'), event, opensAt))).toBe([...flags, last].join('\n'));
  });

  it('exit 7 is success so far: the message and next step without error:, the result paused', () => {
    const md = paused(newSummaryRecord('upgrade'), 'waiting', '2026-11-30T02:00:00Z');
    expect(md).toMatch(/^### karp-drift upgrade: ⏸️ paused \(exit 7\)\n/);
    expect(md).toContain(`\n> ${message}\n>\n> **next:** run the same command again inside a window\n`);
    expect(md).not.toContain('error:');
  });

  it('started inside a window and finished: the flags and until when it was open', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan: windowed });
    recordSummary(r, { type: 'window', event: 'opened', open: true, closesAt: '2026-11-30T05:00:00Z' });
    recordSummary(r, done('succeeded'));
    expect(section(summaryMarkdown(r, 0))).toBe([...flags, '- started inside a window open until Mon 2026-11-30 05:00 UTC'].join('\n'));
  });

  it('no ETA: the estimate is unknown, or the windows close for good first', () => {
    for (const [eta, text] of [
      [{ windows: null, doneBy: null, reason: 'estimate' }, 'unknown, as the estimate'],
      [{ windows: null, doneBy: null, reason: 'windows-end' }, 'none, the windows close for good before the rollout could finish'],
    ] as const) {
      const r = newSummaryRecord('plan');
      recordSummary(r, { type: 'plan', plan: { ...plan, staged: { windows: { ...windows, eta } } } });
      expect(summaryMarkdown(r, 0)).toContain(`\n- ETA at the plan's estimate: ${text}\n`);
    }
  });

  it('without --window: no windows section', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan: { ...plan, staged: { stages: [] } } });
    recordSummary(r, done('succeeded'));
    expect(summaryMarkdown(r, 0)).not.toContain('Upgrade windows');
  });
});

describe('summaryMarkdown: a staged re-run that kept the release its rollout started with', () => {
  it('says which family kept which release, and what the policy would take now', () => {
    const r = newSummaryRecord('upgrade');
    const kept = [{ family: 'al2023', release: 'v20261101', nodeClasses: ['default'], newer: 'v20261108' }];
    recordSummary(r, { type: 'plan', plan: { ...plan, source: { kind: 'ssm', region: 'us-west-2', kept } } });
    expect(summaryMarkdown(r, 0)).toContain(
      '\n- the staged rollout to 1.30 under way keeps its AMIs: al2023 v20261101 (ec2nodeclass/default); --release latest now chooses v20261108, which the next upgrade after this rollout takes (to move this rollout to it now, name it: --release v20261108)\n',
    );
  });
});

describe('summaryMarkdown: the release policy of upgrade --templates', () => {
  const policy = {
    release: 'latest~1',
    minAge: '7d',
    families: [
      { family: 'al2023', kubernetesVersion: '1.30', release: 'v20261009', published: '2026-10-09T08:00:00Z', newest: { release: 'v20261023', published: '2026-10-23T08:00:00Z' }, listed: 12 },
    ],
  };

  it('from its resolved event (it has no plan document): what was asked and what each family got', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'resolved', region: 'us-west-2', amis: [], releasePolicy: policy });
    recordSummary(r, done('succeeded'));
    const md = summaryMarkdown(r, 0);
    expect(md.slice(md.indexOf('#### AMIs'), md.indexOf('\n\n#### Rollout'))).toBe(
      ['#### AMIs', '', 'release latest~1 --min-age 7d', '', '- al2023 v20261009 (published 2026-10-09T08:00:00Z; newest v20261023)'].join('\n'),
    );
  });

  it('a resolved event without a policy, or a plan that records it already: said once, in the plan', () => {
    const none = newSummaryRecord('upgrade');
    recordSummary(none, { type: 'resolved', region: 'us-west-2', amis: [] });
    expect(summaryMarkdown(none, 0)).not.toContain('#### AMIs');
    const planned = newSummaryRecord('upgrade');
    recordSummary(planned, { type: 'resolved', releasePolicy: policy });
    recordSummary(planned, { type: 'plan', plan: { ...plan, source: { kind: 'ssm', region: 'us-west-2', policy } } });
    const md = summaryMarkdown(planned, 0);
    expect(md).not.toContain('#### AMIs');
    expect(md.match(/- al2023 v20261009/g)).toHaveLength(1);
  });
});
