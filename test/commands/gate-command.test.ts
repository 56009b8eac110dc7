// --gate-cmd through the shell: exit 0 passes, non-zero fails, a timeout is inconclusive (the process group killed),
// the last lines of output are the evidence, the run's facts are in the environment.
import { describe, expect, it } from 'vitest';
import { OUTPUT_LINES, runGateCommand } from '../../src/commands/gate-command.js';

describe('runGateCommand', () => {
  it('exit 0 passes, with the facts in its environment', async () => {
    const r = await runGateCommand('echo "stage $KARP_DRIFT_STAGE"; echo oops >&2', { KARP_DRIFT_STAGE: '1' }, 10_000);
    expect(r).toMatchObject({ result: 'passed', exitCode: 0, output: ['stage 1', 'oops'] });
  });

  it('a non-zero exit fails, keeping only the last lines', async () => {
    const r = await runGateCommand('for i in $(seq 1 50); do echo line $i; done; exit 3', {}, 10_000);
    expect(r.result).toBe('failed');
    expect(r.exitCode).toBe(3);
    expect(r.output).toHaveLength(OUTPUT_LINES);
    expect(r.output.at(-1)).toBe('line 50');
  });

  it('a command still running at the timeout is killed, children too, and is inconclusive', async () => {
    const r = await runGateCommand('echo started; sleep 30 & wait', {}, 300);
    expect(r.result).toBe('inconclusive');
    expect(r.why).toMatch(/still running after --gate-timeout/);
    expect(r.output).toEqual(['started']);
  });

  it('an interrupt kills it: inconclusive, never passed', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const r = await runGateCommand('sleep 30', {}, 60_000, stop.signal);
    expect(r).toMatchObject({ result: 'inconclusive', why: 'interrupted' });
  });
});
