// The GitHub Action cancelled (action.ts): the committed bundle runs as the runner itself runs it (node
// action/dist/main.js with INPUT_* variables, GITHUB_OUTPUT and GITHUB_STATE files, then post.js with the saved state
// as STATE_* variables), and the job is cancelled or killed outright.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { scenario } from './cli-sandbox.js';
import { ROOT, run, budgetsOf } from './action.js';

describe('a cancelled job, as the runner runs the committed bundle', () => {
  async function runnerFiles() {
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-runner-'));
    const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STATE: join(dir, 'state'), RUNNER_TEMP: dir };
    await writeFile(files.GITHUB_OUTPUT, '');
    await writeFile(files.GITHUB_STATE, '');
    return files;
  }
  /** The `name<<delimiter` entries @actions/core writes to GITHUB_OUTPUT and GITHUB_STATE. */
  const entries = (text: string): Record<string, string> =>
    Object.fromEntries([...text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((m) => [m[1]!, m[3]!]));
  const INPUTS = {
    INPUT_COMMAND: 'upgrade',
    INPUT_TO: '1.30',
    INPUT_ARGS: '--canary canary --waves 1,10%,100% --soak 10m',
    INPUT_SUMMARY: 'false',
  };

  async function startStaged(sandbox: Sandbox) {
    const files = await runnerFiles();
    const main = spawn(process.execPath, [join(ROOT, 'action/dist/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env, ...files, ...INPUTS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    main.stdout.on('data', (c: Buffer) => (log += c.toString()));
    main.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const exited = new Promise<number | null>((resolve) => main.on('exit', resolve));
    // Applied, and wave 1 open: Karpenter has marked the old NodeClaims Drifted; the canary may start one replacement.
    const drifted = () =>
      sandbox.kube.store
        .list('nodeclaims.karpenter.sh')
        .some((c) =>
          (c.status as { conditions?: Array<{ type: string; status: string }> }).conditions?.some(
            (x) => x.type === 'Drifted' && x.status === 'True',
          ),
        );
    for (let i = 0; i < 1200 && !(drifted() && budgetsOf(sandbox, 'canary').last?.nodes === '1'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(budgetsOf(sandbox, 'canary').last, log).toEqual({ nodes: '1', reasons: ['Drifted'] });
    return { main, files, exited, log: () => log };
  }

  async function post(sandbox: Sandbox, state: Record<string, string>) {
    const env = { ...sandbox.env, ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])) };
    return run(join(ROOT, 'action/dist/post.js'), [], env);
  }

  it('SIGINT (the runner cancelling): the CLI gets it once, leaves the rollout paused; outputs say so; post finds nothing more to hold', async () => {
    const sandbox = await scenario('staged', 60);
    const job = await startStaged(sandbox);
    job.main.kill('SIGINT');
    expect(await job.exited, job.log()).toBe(1);
    const outputs = entries(await readFile(job.files.GITHUB_OUTPUT, 'utf8'));
    expect(outputs).toMatchObject({ result: 'paused', 'exit-code': '130' });
    expect(budgetsOf(sandbox, 'canary').last).toEqual({ nodes: '0', reasons: ['Drifted'] });
    const state = entries(await readFile(job.files.GITHUB_STATE, 'utf8'));
    const cleanup = await post(sandbox, state);
    expect(cleanup.code, cleanup.stdout).toBe(0);
    expect(cleanup.stdout).toContain('karp-drift: leaving the staged rollout paused (it ended paused)');
    expect(budgetsOf(sandbox, 'canary').last).toEqual({ nodes: '0', reasons: ['Drifted'] });
  }, 180_000);

  it("the step killed outright: post waits for the dead run's lock and holds its NodePools at zero", async () => {
    // 10x, not 60x: the canary's one replacement takes seconds of real time, so the wave is still open (its hold at
    // 1) when the kill lands, even on a loaded machine (at 60x it once finished first and the run itself wrote 0).
    const sandbox = await scenario('staged', 10);
    const job = await startStaged(sandbox);
    // SIGKILL to the action and to the CLI it started (in its own process group): nothing could clean up.
    // The action first: killed after its CLI, it could see the CLI die and record a result in the moment between.
    const cli = (await readFile(`/proc/${job.main.pid}/task/${job.main.pid}/children`, 'utf8')).trim().split(/\s+/);
    job.main.kill('SIGKILL');
    for (const pid of cli) process.kill(Number(pid), 'SIGKILL');
    await job.exited;
    expect(budgetsOf(sandbox, 'canary').last).toEqual({ nodes: '1', reasons: ['Drifted'] });
    const state = entries(await readFile(job.files.GITHUB_STATE, 'utf8'));
    expect(state.result).toBeUndefined();
    const cleanup = await post(sandbox, state);
    expect(cleanup.code, cleanup.stdout).toBe(0);
    expect(cleanup.stdout).toContain('(the job ended while it ran)');
    expect(cleanup.stdout).toContain('The staged rollout is paused');
    expect(budgetsOf(sandbox, 'canary')).toMatchObject({ last: { nodes: '0', reasons: ['Drifted'] } });
    expect(budgetsOf(sandbox, 'canary').hold).toBeDefined();
    expect(existsSync(JSON.parse(state.invocation!).resultFile as string)).toBe(false);
  }, 180_000);
});
