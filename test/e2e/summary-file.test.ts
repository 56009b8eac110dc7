// --summary-file as a CI job meets it: the Markdown appended after each run (GitHub's $GITHUB_STEP_SUMMARY), whatever
// the output mode, stdout untouched, and a bad path refused before anything is sent.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

const folder = () => mkdtempSync(join(tmpdir(), 'karp-drift-summary-'));

describe('--summary-file', () => {
  it('an upgrade: the plan and the rollout per NodePool, appended run after run; -o json stdout is unchanged', async () => {
    const sandbox = await scenario('default');
    const file = join(folder(), 'step-summary.md');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--summary-file', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .every((l) => typeof JSON.parse(l) === 'object'),
    ).toBe(true);
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(/^### karp-drift upgrade: ✅ succeeded \(exit 0\)\n/);
    expect(md).toContain('#### Plan');
    expect(md).toMatch(/\| `default` \| id=ami-\S+ .*\| yes \|/);
    expect(md).toContain('#### Rollout');
    expect(md).toMatch(/\| `general` \| \d+ \| \d+ \| \d+ \| 0 \| ✅ \|/);

    const status = await karpDrift(sandbox, ['status', '--summary-file', file]);
    expect(status.code).toBe(0);
    const both = readFileSync(file, 'utf8');
    expect(both.startsWith(md)).toBe(true);
    expect(both.slice(md.length)).toMatch(/^### karp-drift status: ✅ succeeded \(exit 0\)\n[\s\S]*#### NodePools/);
  });

  it('a staged rollout halted at the canary: the failed gate with its evidence, and the next step (plain text mode)', async () => {
    const sandbox = await scenario('bad-ami', 60);
    const file = join(folder(), 'summary.md');
    const run = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--canary',
      'canary',
      '--yes',
      '--summary-file',
      file,
    ]);
    expect(run.code, run.stderr).toBe(6);
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(/^### karp-drift upgrade: 🛑 halted \(exit 6\)/);
    expect(md).toContain('#### Health gate failed (health at continuous)');
    expect(md).toMatch(/- \*\*POD-FAILING\*\* pod \S+ on replaced node/);
    expect(md).toContain('> **next:** look at the evidence above; roll the new AMIs back with karp-drift rollback');
  });

  it('a folder that does not exist: exit 2 before anything is sent', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--yes',
      '--summary-file',
      '/nonexistent-dir/s.md',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'error: --summary-file /nonexistent-dir/s.md: the folder /nonexistent-dir does not exist',
    );
    expect(sandbox.kube.requests).toEqual([]);
  });

  it('--result-file: the outcome as JSON whatever the output mode; a folder that does not exist is exit 2', async () => {
    const sandbox = await scenario('default');
    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-result-')), 'result.json');
    const run = await karpDrift(sandbox, ['status', '--result-file', file]);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({
      kind: 'Result',
      command: 'status',
      exitCode: 0,
      result: 'succeeded',
      nodesReplaced: null,
    });
    expect((doc.status as { nodePools: unknown[] }).nodePools.length).toBeGreaterThan(0);
    expect(run.stdout).toContain('NODEPOOL');

    const refused = await karpDrift(sandbox, ['plan', '--to', '1.29', '--release', 'v1', '--result-file', file]);
    expect(refused.code).toBe(2);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ command: 'plan', exitCode: 2, result: 'invalid' });

    const requests = sandbox.kube.requests.length;
    const missing = await karpDrift(sandbox, ['status', '--result-file', '/nonexistent-dir/r.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'error: --result-file /nonexistent-dir/r.json: the folder /nonexistent-dir does not exist',
    );
    expect(sandbox.kube.requests.length).toBe(requests);
  });
});
