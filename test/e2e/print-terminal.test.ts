// What the CLI prints once, read in a real terminal (terminal.ts) at 80 columns, as a person reads it: every line the
// terminal would break mid-word (a check's message, the AMI names, the cluster line on stderr, status's holds and
// their next step, the message a run ends with) is wrapped at spaces instead; piped, the lines stay whole for grep and
// logs.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { pty, why, inTerminal } from './terminal.js';

const PLAN = ['plan', '--to', '1.30', '--window', '0 2 * * mon-thu/3h', '--canary', 'canary', '--hold-with', 'budget', '--force-conflicts'];

// Durations ("in 37h27m") are normalised: the two runs may straddle a minute.
const words = (text: string) =>
  text
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => w.replace(/\d+(?:h\d+m|m\d+s|h|m|s)\b/g, '<duration>'));

describe.skipIf(pty === undefined)(`printed in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  it('at 80 columns: no row broken by the terminal, the words of every line kept, in order', async () => {
    const sandbox = await scenario('staged');
    const screen = await inTerminal(PLAN, 80, 50, undefined, { env: sandbox.env });
    expect(screen.exitCode).toBe(0);
    expect(screen.wrapped).toEqual([]);
    const piped = await karpDrift(sandbox, PLAN);
    // Some lines of the plan are wider than 80 columns (a check's message): on the terminal they take several rows.
    const long = `${piped.stderr}${piped.stdout}`.split('\n').filter((l) => l.length > 80);
    expect(long.length).toBeGreaterThan(3);
    expect(words(screen.lines.join('\n'))).toEqual(words(`${piped.stderr}${piped.stdout}`));
  });

  it('status and wait of a rollout paused by its windows, at 80 columns: no row broken by the terminal', async () => {
    const sandbox = await scenario('staged');
    const closed = `0 ${(new Date().getUTCHours() + 12) % 24} * * */1h`; // opens in 11 to 12 hours
    const paused = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--window', closed, '--hold-with', 'budget', '--force-conflicts', '--yes']);
    expect(paused.code, paused.stderr).toBe(7);
    for (const command of [['status'], ['wait']]) {
      const screen = await inTerminal(command, 80, 50, undefined, { env: sandbox.env });
      const piped = await karpDrift(sandbox, command);
      expect(screen.exitCode).toBe(piped.code);
      expect(screen.wrapped, command[0]).toEqual([]);
      expect(`${piped.stderr}${piped.stdout}`.split('\n').some((l) => l.length > 80)).toBe(true);
      expect(words(screen.lines.join('\n'))).toEqual(words(`${piped.stderr}${piped.stdout}`));
    }
  });

  it('a windowed upgrade inside its window at 80×24: the frame says when the window closes; no row broken by the terminal', async () => {
    const sandbox = await scenario('staged', 600);
    const open = `0 ${(new Date().getUTCHours() + 23) % 24} * * */2h`; // from the last hour to the next: open an hour yet
    const args = ['upgrade', '--to', '1.30', '--window', open, '--canary', 'canary', '--no-gates', '--hold-with', 'budget', '--force-conflicts', '--yes'];
    const screen = await inTerminal(args, 80, 24, undefined, { env: sandbox.env });
    expect(screen.exitCode, screen.lines.join('\n')).toBe(0);
    expect(screen.raw).toMatch(/Drift to Kubernetes 1\.30: \S+ elapsed; window closes in \S+ \(\d\d:00 UTC\)/);
    expect(screen.wrapped).toEqual([]);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete in'))).toBe(true);
    // On Node 24 the bundled node-fetch's url.parse() printed a DEP0169 DeprecationWarning (cli/warnings.ts drops it);
    // this suite's Node 24 pass in CI is where this line can fail.
    expect(screen.lines.join('\n')).not.toMatch(/DeprecationWarning/);
  });
});
