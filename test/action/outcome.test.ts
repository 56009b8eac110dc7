import { describe, expect, it } from 'vitest';
import { MAX_ANNOTATIONS, outcome } from '../../action/src/outcome.js';

const blocker = (code: string, nodePool: string, stage = 'stall') => ({
  type: 'blocked',
  stage,
  code,
  nodePool,
  message: `${code} holds ${nodePool}`,
  evidence: ['pod/a', 'pod/b', 'pod/c', 'pod/d'],
  next: 'kubectl get pdb -A',
});

describe('what the job page shows of a run', () => {
  it('a rollout that succeeded: outputs, the verdict, no failure', () => {
    const seen = outcome(
      'upgrade',
      0,
      { result: 'succeeded', nodesReplaced: 12, blocked: [], done: { result: 'succeeded' } },
      '/tmp/r.json',
    );
    expect(seen.outputs).toEqual({
      result: 'succeeded',
      'exit-code': '0',
      'nodes-replaced': '12',
      json: '/tmp/r.json',
    });
    expect(seen.verdict).toBe('karp-drift upgrade: succeeded (exit 0), 12 nodes replaced');
    expect(seen.failure).toBeUndefined();
    expect(seen.errors).toEqual([]);
  });

  it('a stall: the verdict and next step fail the step, each blocker of the verdict is an error', () => {
    const seen = outcome(
      'upgrade',
      4,
      {
        result: 'stalled',
        nodesReplaced: 1,
        blocked: [blocker('STALL-PDB', 'general')],
        error: { message: 'the rollout stalled', hint: 'karp-drift status' },
      },
      '/r',
    );
    expect(seen.failure).toBe(
      'karp-drift upgrade: stalled (exit 4), 1 node replaced: the rollout stalled\nnext: karp-drift status',
    );
    expect(seen.errors).toEqual([
      {
        title: 'STALL-PDB nodepool/general',
        message: 'STALL-PDB holds general\n  pod/a\n  pod/b\n  pod/c\nnext: kubectl get pdb -A',
      },
    ]);
  });

  it('a blocker seen while a rollout went on to succeed is a warning', () => {
    const seen = outcome(
      'upgrade',
      0,
      { result: 'succeeded', nodesReplaced: 3, blocked: [blocker('STALL-PDB', 'a', 'early')] },
      '/r',
    );
    expect(seen.errors).toEqual([]);
    expect(seen.warnings.map((w) => w.title)).toEqual(['STALL-PDB nodepool/a']);
  });

  it('a failed health gate names the gate, the checkpoint and its first findings', () => {
    const seen = outcome(
      'upgrade',
      6,
      {
        result: 'halted',
        blocked: [],
        gate: {
          result: 'failed',
          gate: 'health',
          point: 'wave-end',
          findings: [{ code: 'POD-FAILING', message: 'api-7f9 CrashLoopBackOff' }],
        },
      },
      '/r',
    );
    expect(seen.errors[0]).toEqual({
      title: 'health gate failed: health at wave-end',
      message: 'POD-FAILING: api-7f9 CrashLoopBackOff',
    });
  });

  it("a plan's error checks are errors and its warnings warnings; info is left to the log", () => {
    const checks = [
      { code: 'AMI-MISSING', level: 'error', message: 'no AMI', evidence: [], nodeClass: 'default' },
      { code: 'PDB-ZERO', level: 'warning', message: 'a PDB allows none', evidence: [] },
      { code: 'FIELD-OWNER-KUBECTL', level: 'info', message: 'by hand', evidence: [] },
    ];
    const seen = outcome('plan', 3, { result: 'refused', blocked: [], plan: { checks } }, '/r');
    expect(seen.errors.map((e) => e.title)).toEqual(['AMI-MISSING ec2nodeclass/default']);
    expect(seen.warnings.map((e) => e.title)).toEqual(['PDB-ZERO']);
    expect(seen.outputs['nodes-replaced']).toBe('');
  });

  it('never more annotations than GitHub shows, counting the failure, the last one saying how many more', () => {
    const blocked = Array.from({ length: 25 }, (_, i) => blocker('STALL-PDB', `pool-${i}`));
    const seen = outcome('upgrade', 4, { result: 'stalled', blocked }, '/r');
    expect(seen.errors).toHaveLength(MAX_ANNOTATIONS - 1);
    expect(seen.errors.at(-1)).toEqual({
      title: '17 more',
      message: '17 more findings: see the step summary and the log',
    });
    const warned = outcome(
      'upgrade',
      0,
      { result: 'succeeded', blocked: blocked.map((b) => ({ ...b, stage: 'early' })) },
      '/r',
    );
    expect(warned.warnings).toHaveLength(MAX_ANNOTATIONS);
  });

  it('the same finding twice is shown once', () => {
    const seen = outcome('upgrade', 4, { result: 'stalled', blocked: [blocker('X', 'a'), blocker('X', 'a')] }, '/r');
    expect(seen.errors).toHaveLength(1);
  });

  it.each([
    [2, 'invalid'],
    [3, 'refused'],
    [1, 'failed'],
    [137, 'failed'],
    [130, 'interrupted'],
  ])('no result file (exit %i): the result comes from the exit code, and no json path is given', (code, result) => {
    const seen = outcome('upgrade', code, undefined, '/r');
    expect(seen.outputs).toEqual({ result, 'exit-code': String(code), 'nodes-replaced': '', json: '' });
    expect(seen.failure).toBe(`karp-drift upgrade: ${result} (exit ${code}): see the log above`);
  });

  it('paused by the upgrade window (exit 7) is success so far: result paused, the step does not fail', () => {
    const doc = { result: 'paused', error: { message: 'paused by the window, next window opens Mon 02:00 UTC (in 3h12m)' } };
    const seen = outcome('upgrade', 7, doc, '/r');
    expect(seen.outputs).toEqual({ result: 'paused', 'exit-code': '7', 'nodes-replaced': '', json: '/r' });
    expect(seen.failure).toBeUndefined();
    expect(seen.verdict).toBe('karp-drift upgrade: paused (exit 7)');
    expect(outcome('upgrade', 7, undefined, '/r').outputs.result).toBe('paused');
  });

  it('paused by the window with --window-exit-code 0 in args: exit 0, and result paused, read from the result document', () => {
    const doc = { result: 'paused', exitCode: 0, error: { exitCode: 7, message: 'paused by the window, next window opens Mon 02:00 UTC (in 3h12m)' } };
    const seen = outcome('upgrade', 0, doc, '/r');
    expect(seen.outputs).toEqual({ result: 'paused', 'exit-code': '0', 'nodes-replaced': '', json: '/r' });
    expect(seen.failure).toBeUndefined();
    expect(seen.verdict).toBe('karp-drift upgrade: paused (exit 0)');
  });

  it("a staged run that ended early says why, from its done event's cause: paused (stalled, exit 4)", () => {
    const doc = { result: 'paused', done: { type: 'done', result: 'paused', cause: 'stalled' }, error: { message: 'the rollout made no progress' } };
    const seen = outcome('upgrade', 4, doc, '/r');
    expect(seen.verdict).toBe('karp-drift upgrade: paused (stalled, exit 4)');
    expect(seen.failure).toBe('karp-drift upgrade: paused (stalled, exit 4): the rollout made no progress');
  });
});
