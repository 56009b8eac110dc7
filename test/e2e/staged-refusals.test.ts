// A staged rollout that stalls, and the staged-rollout flags that are refused before anything changes.
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { budgetsOf } from './staged.js';

describe('staged rollout: stalls and refusals', () => {
  it('a stall (a PDB) exits 4 with the PDB blamed, never its own holds, and stays paused', async () => {
    const sandbox = await scenario('pdb-blocked', 180);
    const run = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--waves',
      '1,100%',
      '--stall-timeout',
      '10s',
      '--yes',
      '-o',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(4);
    const blamed = new Set(run.events.filter((e) => e.type === 'blocked').map((e) => e.code));
    expect(blamed.has('STALL-PDB')).toBe(true);
    expect(blamed.has('STALL-HELD')).toBe(false);
    expect(blamed.has('STALL-BUDGET')).toBe(false);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'stalled', paused: ['general'] });
    expect(run.stderr).toContain(
      'the staged rollout is paused: karp-drift holds Drifted disruption on nodepool/general',
    );
    // Now somebody else's view of it: status says karp-drift holds it, and how to go on.
    const status = await karpDrift(sandbox, ['status']);
    expect(status.stdout + status.stderr).toContain('STALL-HELD');
  }, 90_000);

  it.each<[string, number, RegExp, string[]]>([
    ['--waves garbage', 2, /--waves: wave "ten" is neither a node count/, ['--waves', 'ten']],
    ['--waves not increasing', 2, /--waves: waves are cumulative and must increase/, ['--waves', '10%,5%']],
    ['--waves 0', 2, /--waves: wave "0" replaces no node/, ['--waves', '0']],
    ['--waves over 100 %', 2, /--waves: wave "150%" is over 100%/, ['--waves', '1,150%']],
    ['--soak not a duration', 2, /--soak "soon" is not a duration/, ['--waves', '1,100%', '--soak', 'soon']],
    ['--soak with --no-wait', 2, /--soak paces a staged rollout, and --no-wait has none/, ['--soak', '5m', '--no-wait']],
    ['--no-gates with --templates', 2, /--no-gates gates a staged rollout, and --templates has none/, ['--no-gates', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox']],
    [
      '--canary naming no NodePool',
      2,
      /--canary "nope": no such NodePool in context [\w-]+; its NodePools: batch, canary, general; nothing was changed/,
      ['--canary', 'nope'],
    ],
    [
      '--templates',
      2,
      /--canary\/--waves cannot go with --templates/,
      ['--waves', '1,100%', '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox'],
    ],
    ['--no-wait', 2, /--no-wait cannot go with a staged rollout/, ['--waves', '1,100%', '--no-wait']],
    [
      '--hold-with budget on a GitOps-owned NodePool',
      3,
      /spec.disruption.budgets of nodepool\/batch is owned by Argo CD/,
      ['--waves', '1,100%', '--hold-with', 'budget'],
    ],
  ])('%s: a clear error, exit %i, nothing changed', async (_name, code, message, flags) => {
    const sandbox = await scenario('staged', 60);
    const before = budgetsOf(sandbox);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', ...flags]);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(httpWrites(sandbox)).toBe(0);
    expect(budgetsOf(sandbox)).toEqual(before);
  });
});
