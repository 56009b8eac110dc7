// `plan` read in a real terminal (terminal.ts) at 80 columns, as a person reads it before an upgrade: every line the
// terminal would break mid-word (a check's message, the AMI names, the cluster line on stderr) is wrapped at spaces
// instead; piped, the lines stay whole for grep and logs.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';
import { pty, why, inTerminal } from './terminal.js';

const PLAN = ['plan', '--to', '1.30', '--window', '0 2 * * mon-thu/3h', '--canary', 'canary', '--hold-with', 'budget', '--force-conflicts'];

describe.skipIf(pty === undefined)(`plan in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  it('at 80 columns: no row broken by the terminal, the words of every line kept, in order', async () => {
    const sandbox = await scenario('staged');
    const screen = await inTerminal(PLAN, 80, 50, undefined, { env: sandbox.env });
    expect(screen.exitCode).toBe(0);
    expect(screen.wrapped).toEqual([]);
    const piped = await karpDrift(sandbox, PLAN);
    // Some lines of the plan are wider than 80 columns (a check's message): on the terminal they take several rows.
    const long = `${piped.stderr}${piped.stdout}`.split('\n').filter((l) => l.length > 80);
    expect(long.length).toBeGreaterThan(3);
    const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');
    expect(words(screen.lines.join('\n'))).toEqual(words(`${piped.stderr}${piped.stdout}`));
  });
});
