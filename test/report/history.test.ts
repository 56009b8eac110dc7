// `karp-drift history`'s text (report/history.ts): the list, newest first, and one run in full.
import { describe, expect, it } from 'vitest';
import type { RunRecord, RunSummary } from '../../src/apis/run-record.js';
import { historyListJson, historyListText, historyRunText, resultText } from '../../src/report/history.js';

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  apiVersion: 'karp-drift.io/v1',
  kind: 'RunRecord',
  runId: '3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c',
  command: 'upgrade',
  commandLine: 'upgrade --to 1.30 --canary canary --yes',
  user: { name: 'alice', source: 'SelfSubjectReview' },
  host: 'alice@laptop',
  cluster: { context: 'prod', server: 'https://prod.example', kubeconfigCluster: 'prod', name: 'prod' },
  startedAt: '2026-11-25T17:00:00.000Z',
  updatedAt: '2026-11-25T17:12:00.000Z',
  endedAt: '2026-11-25T17:12:00.000Z',
  result: 'halted',
  exitCode: 6,
  message: 'halted by a health gate: POD-FAILING web-1',
  target: '1.30',
  nodesReplaced: 1,
  amis: [{ nodeClass: 'default', before: ['id=ami-old1'], after: ['id=ami-new1', 'id=ami-new2'], targets: [{ id: 'ami-new1' }, { id: 'ami-new2' }, { id: 'ami-new3' }] }],
  ...over,
});

describe('historyListText', () => {
  it('a row per run: when, who, command, result, nodes replaced, AMIs', () => {
    const killed = summary({ runId: '9d8c7b6a-0000-4000-8000-000000000000', result: 'running', exitCode: null, endedAt: null, startedAt: '2026-11-26T09:00:00.000Z', updatedAt: '2026-11-26T09:04:10.000Z', user: { name: 'ci-bot', source: 'kubeconfig' }, amis: [] });
    expect(historyListText([{ summary: killed, liveness: 'did-not-finish' }, { summary: summary(), liveness: 'ended' }])).toMatchInlineSnapshot(`
      "RUN        STARTED                USER     COMMAND                                   RESULT                                               REPLACED   AMIS
      9d8c7b6a   2026-11-26T09:00:00Z   ci-bot   upgrade --to 1.30 --canary canary --yes   did not finish (last written 2026-11-26T09:04:10Z)   1          -
      3f2a9c1e   2026-11-25T17:00:00Z   alice    upgrade --to 1.30 --canary canary --yes   halted (exit 6)                                      1          ami-new1,ami-new2 +1
      "
    `);
    expect(historyListText([])).toBe('');
  });

  it('-o json: every summary field, and whether it lives', () => {
    expect(JSON.parse(historyListJson([{ summary: summary(), liveness: 'ended' }]))).toEqual({ runs: [{ ...summary(), liveness: 'ended' }] });
  });

  it.each<[Partial<RunSummary>, 'ended' | 'running' | 'did-not-finish', string]>([
    [{}, 'ended', 'halted (exit 6)'],
    [{ result: 'running', exitCode: null }, 'running', 'running'],
    [{ result: 'running', exitCode: null }, 'did-not-finish', 'did not finish (last written 2026-11-25T17:12:00Z)'],
  ])('resultText(%j, %s) = %s', (over, liveness, expected) => {
    expect(resultText(summary(over), liveness)).toBe(expected);
  });
});

describe('historyRunText', () => {
  it('one run: who and what, its AMIs, each NodePool\'s replacements, the milestones with the gate\'s evidence', () => {
    const record: RunRecord = {
      summary: summary(),
      timeline: {
        nodePools: [{ name: 'canary' }, { name: 'general' }],
        events: [
          { type: 'wave', time: '2026-11-25T17:00:00.000Z', stage: 1, name: 'canary', wave: 1, waves: 2, target: 1, size: 3 },
          {
            type: 'gate',
            time: '2026-11-25T17:11:00.000Z',
            gate: 'health',
            point: 'wave-end',
            result: 'failed',
            stage: 1,
            wave: 1,
            failures: 1,
            failureLimit: 1,
            findings: [{ code: 'POD-FAILING', message: 'web-1 CrashLoopBackOff', evidence: ['exit code 139'] }],
          },
          { type: 'done', time: '2026-11-25T17:12:00.000Z', result: 'halted', cause: 'gate', paused: ['canary', 'general'] },
        ],
        replacements: { canary: { names: ['canary-x1', 'canary-x2'], start: [30, 40], end: [120, 600], failed: [1] } },
      },
    };
    expect(historyRunText(record, 'ended')).toMatchInlineSnapshot(`
      "Run:       3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c
      Command:   karp-drift upgrade --to 1.30 --canary canary --yes
      User:      alice (as the API server authenticated it; alice@laptop)
      Cluster:   prod (https://prod.example, context prod)
      Started:   2026-11-25T17:00:00Z, ended 2026-11-25T17:12:00Z (12m)
      Result:    halted (exit 6): halted by a health gate: POD-FAILING web-1
      Replaced:  1 node to Kubernetes 1.30
      AMIs:
        ec2nodeclass/default: id=ami-old1 -> id=ami-new1 id=ami-new2 (ami-new1, ami-new2, ami-new3)
      Replacements:
        nodepool/canary: 2 replacements, the first started 2026-11-25T17:00:30Z, the last done 2026-11-25T17:10:00Z; failed: canary-x2
        nodepool/general: no replacement
      Timeline:
        2026-11-25T17:00:00Z stage 1 wave 1/2 opens: up to 1 of 3 replaced
        2026-11-25T17:11:00Z health gate failed at wave-end (stage 1, wave 1): failure 1 of 1
          POD-FAILING web-1 CrashLoopBackOff
            - exit code 139
        2026-11-25T17:12:00Z halted (gate), held: nodepool/canary, nodepool/general
      "
    `);
  });
});
