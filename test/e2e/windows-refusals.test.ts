// Upgrade windows refused before anything is written: on Karpenter v1beta1 storage (budgets without `reasons`), on
// NodePools held with their nodes (windows are budgets), and flags Karpenter could not read.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf } from './staged.js';

const WINDOW = ['--window', '0 2 * * mon-thu/3h'];

describe('upgrade windows: refusals', () => {
  it('v1beta1 storage: plan and upgrade refuse (exit 3), naming why, and write nothing', async () => {
    const sandbox = await startSandbox({ scenario: { ...loadScenario('default'), karpenterVersion: '0.36.2' }, speed: 300 });
    onTestFinished(() => sandbox.stop());
    const budgets = budgetsOf(sandbox);
    for (const command of ['plan', 'upgrade']) {
      const run = await karpDrift(sandbox, [command, '--to', '1.30', ...WINDOW, ...(command === 'upgrade' ? ['--yes'] : [])]);
      expect(run.code, run.stderr).toBe(ExitCode.Refused);
      expect(run.stderr).toMatch(/^error: upgrade windows need Karpenter's v1 NodePool: on v1beta1 storage .*; nothing was changed$/m);
      expect(run.stderr).toMatch(/^ {2}next: upgrade Karpenter to v1 first/m);
    }
    expect(httpWrites(sandbox)).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(budgets);
  }, 90_000);

  it.each<[string, string[], number, RegExp]>([
    [
      'a NodePool whose budgets Argo CD owns, held with its nodes by auto',
      WINDOW,
      ExitCode.Refused,
      /^error: upgrade windows are budgets on the NodePool, and nodepool\/batch would be held with its nodes \(its budgets are managed by Argo CD/m,
    ],
    ['no duration', ['--window', '0 2 * * mon-thu'], ExitCode.Usage, /^error: --window "0 2 \* \* mon-thu" has no duration after its last "\/"$/m],
    ['--exclude alone', ['--exclude', '2026-12-24/2026-12-26'], ExitCode.Usage, /^error: --exclude closes part of an upgrade window, and there is none/m],
    ['--no-wait: nobody would pace it', [...WINDOW, '--no-wait'], ExitCode.Usage, /^error: --no-wait cannot go with a staged rollout \(--window\)/m],
  ])('%s: refused, nothing written', async (_name, flags, code, message) => {
    const sandbox = await scenario('staged');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', ...flags, '--yes']);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(httpWrites(sandbox)).toBe(0);
  }, 90_000);
});
