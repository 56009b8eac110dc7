import { describe, expect, it } from 'vitest';
import { resultDocument } from '../../src/report/result-file.js';
import { newSummaryRecord, recordSummary, summaryMarkdown } from '../../src/report/summary.js';

const cluster = { context: 'prod', server: 'https://x.eks.amazonaws.com', name: 'prod' };

describe('resultDocument', () => {
  it('a rollout: its result, the replaced NodeClaims summed over the NodePools, its blockers', () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'plan', plan: { cluster, nodeClasses: [] } });
    recordSummary(r, { type: 'blocked', stage: 'early', code: 'STALL-PDB', nodePool: 'a', message: 'm' });
    recordSummary(r, { type: 'blocked', stage: 'early', code: 'STALL-PDB', nodePool: 'a', message: 'm again' });
    recordSummary(r, {
      type: 'done',
      result: 'succeeded',
      cluster,
      nodePools: [
        { name: 'a', replaced: 3 },
        { name: 'b', replaced: 9 },
      ],
    });
    expect(resultDocument(r, 0)).toMatchObject({
      apiVersion: 'karp-drift.io/v1',
      kind: 'Result',
      command: 'upgrade',
      exitCode: 0,
      result: 'succeeded',
      nodesReplaced: 12,
      cluster,
      blocked: [{ code: 'STALL-PDB', nodePool: 'a', message: 'm again' }],
    });
  });

  it.each([
    [0, 'succeeded'],
    [2, 'invalid'],
    [3, 'refused'],
    [1, 'failed'],
    [70, 'failed'],
  ])('no rollout, exit %i: result %s, nodesReplaced null', (code, result) => {
    const r = newSummaryRecord('plan');
    if (code !== 0) r.error = { exitCode: code, message: 'no', hint: 'do this' };
    const doc = resultDocument(r, code);
    expect(doc).toMatchObject({ result, nodesReplaced: null, blocked: [] });
    expect('error' in doc).toBe(code !== 0);
  });

  it('paused by the window with --window-exit-code 0: exit 0, and still paused (the error keeps its own code, 7)', () => {
    const r = newSummaryRecord('upgrade');
    r.error = { exitCode: 7, message: 'paused by the window, next window opens Mon 02:00 UTC (in 3h12m): nothing was applied' };
    expect(resultDocument(r, 0)).toMatchObject({ exitCode: 0, result: 'paused', nodesReplaced: null, error: { exitCode: 7 } });
    expect(summaryMarkdown(r, 0).split('\n')[0]).toBe('### karp-drift upgrade: ⏸️ paused (exit 0)');
  });

  it("a rollout's own result wins over the exit code's meaning (a staged rollout interrupted ends paused, exit 130)", () => {
    const r = newSummaryRecord('upgrade');
    recordSummary(r, { type: 'done', result: 'paused', nodePools: [{ name: 'a', replaced: 1 }] });
    expect(resultDocument(r, 130)).toMatchObject({ result: 'paused', exitCode: 130, nodesReplaced: 1 });
  });
});
