// A run started outside every upgrade window, as a scheduler meets it: it writes its holds with the windows' budgets,
// applies nothing, exits 7, and its NDJSON ends with `done` like every run's (paused, cause window); the summary file
// names the windows and when the next one opens. It returns at once, so this file is fast. windows-killed.clock.test.ts
// and windows-resume.clock.test.ts run the windows that open on the wall clock.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';

const HOUR = 3_600_000;
/** An hour-long daily window twelve hours from now: closed now, whatever the time of day. */
function farWindow(): { flag: string; opensAt: Date } {
  const opensAt = new Date(Math.floor((Date.now() + 12 * HOUR) / HOUR) * HOUR);
  return { flag: `0 ${opensAt.getUTCHours()} * * */1h`, opensAt };
}
const rfc3339 = (t: Date) => t.toISOString().replace('.000', '');
const amiTerms = (sandbox: Sandbox) =>
  sandbox.kube.store.list('ec2nodeclasses.karpenter.k8s.aws').map((c) => JSON.stringify((c.spec as { amiSelectorTerms: unknown }).amiSelectorTerms));
// batch's budgets are Argo CD's: windows are budgets, so every NodePool is held with one.
const HOLD = ['--hold-with', 'budget', '--force-conflicts'];

describe('upgrade started outside the windows', () => {
  it('plan: the ETA in windows is the estimate from the next window on', async () => {
    const sandbox = await scenario('staged');
    const { flag, opensAt } = farWindow();
    const run = await karpDrift(sandbox, ['plan', '--to', '1.30', '--window', flag, ...HOLD, '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const staged = (JSON.parse(run.stdout) as { staged: { estimateSeconds: number; windows: { eta: unknown } } }).staged;
    // One wave (--window alone is --waves 100%) well within the hour.
    expect(staged.estimateSeconds).toBeGreaterThan(0);
    expect(staged.estimateSeconds).toBeLessThan(3600);
    expect(staged.windows.eta).toEqual({ windows: 1, doneBy: rfc3339(new Date(opensAt.getTime() + staged.estimateSeconds * 1000)) });
  }, 90_000);

  it('exit 7, nothing applied, the NDJSON ends with done (paused, cause window), the summary names the windows', async () => {
    const sandbox = await scenario('staged');
    const { flag, opensAt } = farWindow();
    const terms = amiTerms(sandbox);
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-windows-'));
    const args = ['upgrade', '--to', '1.30', '--window', flag, ...HOLD, '--yes'];

    const json = await karpDrift(sandbox, [...args, '-o', 'json', '--summary-file', join(dir, 'json.md')]);
    expect(json.code, json.stderr).toBe(ExitCode.PausedByWindow);
    expect(amiTerms(sandbox)).toEqual(terms);
    const types = json.events.map((e) => e.type);
    expect(types.filter((t) => t === 'done')).toHaveLength(1);
    expect(types.at(-1)).toBe('done');
    expect(json.events.find((e) => e.type === 'window')).toMatchObject({ event: 'waiting', opensAt: rfc3339(opensAt) });
    const done = json.events.at(-1)!;
    expect(done).toMatchObject({
      result: 'paused',
      cause: 'window',
      paused: ['batch', 'canary', 'general'],
      cluster: { context: expect.any(String) as string, server: expect.stringMatching(/^https:\/\/127\.0\.0\.1:/) as string },
      durationSeconds: expect.any(Number) as number,
    });
    expect(done.message).toMatch(/^paused by the window, next window opens .*: nothing was applied; karp-drift holds Drifted disruption on nodepool\/batch, nodepool\/canary, nodepool\/general with the windows' budgets$/);
    // Where each NodePool stands: nothing replaced yet, every node still to go.
    const pools = done.nodePools as Array<{ name: string; total: number; replaced: number; remaining: number; done: boolean }>;
    expect(pools.map((p) => p.name).sort()).toEqual(['batch', 'canary', 'general']);
    for (const p of pools) expect(p).toMatchObject({ replaced: 0, remaining: p.total, done: false });
    expect(json.stderr).toContain(`${String(done.message)}\n`);
    expect(json.stderr).not.toMatch(/^error:/m);

    // Text output records the same for the summary; a re-run outside the window takes its own holds over.
    const text = await karpDrift(sandbox, [...args, '--summary-file', join(dir, 'text.md')]);
    expect(text.code, text.stderr).toBe(ExitCode.PausedByWindow);
    const day = opensAt.toUTCString().slice(0, 3);
    for (const file of ['json.md', 'text.md']) {
      const md = readFileSync(join(dir, file), 'utf8');
      expect(md).toMatch(/^### karp-drift upgrade: ⏸️ paused \(exit 7\)$/m);
      expect(md).toContain(`\n- \`--window '${flag}'\`\n`);
      expect(md).toContain(`\n- ⏸️ **paused by the window** (started outside the windows, nothing applied); next window opens ${day} ${opensAt.toISOString().slice(0, 10)} ${opensAt.toISOString().slice(11, 16)} UTC\n`);
      expect(md).toMatch(/\n- ETA at the plan's estimate: 1 window, done by /);
      expect(md).not.toContain('error:');
    }
  }, 90_000);
});

describe('upgrade outside the windows with nothing left to drift (a scheduler tick after the rollout ended)', () => {
  it('exit 0, done succeeded, no hold and no windows budget written: the window gates only a rollout with work left', async () => {
    const sandbox = await scenario('staged');
    // The staged scenario's nodes run the 1.29 AMIs their classes pin: to 1.29 there is nothing to change or replace.
    const budgets = () => sandbox.kube.store.list('nodepools.karpenter.sh').map((p) => JSON.stringify((p.spec as { disruption?: unknown }).disruption));
    const before = budgets();
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.29', '--window', farWindow().flag, ...HOLD, '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(run.events.some((e) => e.type === 'window' || e.type === 'hold')).toBe(false);
    expect(budgets()).toEqual(before);
  }, 90_000);
});
