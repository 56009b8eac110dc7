// The GitHub Action against the sandbox. The main and post steps run from source under GitHub's own local runner for
// actions (@github/local-action: inputs from a .env file, @actions/core stubbed, outputs printed), and the committed
// bundle runs as the runner itself runs it (node action/dist/main.js with INPUT_* variables, GITHUB_OUTPUT and
// GITHUB_STATE files, then post.js with the saved state as STATE_* variables) for a cancelled job.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { HOLD_ANNOTATION } from '../../src/stages/budget-hold.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const LOCAL_ACTION = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js');

interface Ran {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
}

function run(file: string, args: string[], env: Record<string, string>, timeoutMs = 150_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stdout += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const outputs = Object.fromEntries(
        [...stdout.matchAll(/^::set-output name=([\w-]+)::(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
      );
      resolve({ code, stdout, outputs });
    });
  });
}

/** The action from source under local-action, with these inputs (and the job's step summary file). */
async function localAction(sandbox: Sandbox, inputs: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-action-'));
  const summary = join(dir, 'step-summary.md');
  await writeFile(summary, '');
  const dotenv = join(dir, '.env');
  const lines = Object.entries(inputs).map(([k, v]) => `INPUT_${k.toUpperCase()}=${JSON.stringify(v)}`);
  await writeFile(dotenv, [...lines, `GITHUB_STEP_SUMMARY=${summary}`, `RUNNER_TEMP=${dir}`].join('\n'));
  const ran = await run(
    LOCAL_ACTION,
    ['run', ROOT, 'action/src/main.ts', dotenv, '--post', 'action/src/post.ts'],
    sandbox.env,
  );
  return { ...ran, summary: await readFile(summary, 'utf8') };
}

const budgetsOf = (sandbox: Sandbox, pool: string) => {
  const p = sandbox.kube.store.list('nodepools.karpenter.sh').find((n) => n.metadata.name === pool)!;
  return {
    last: (p.spec as { disruption: { budgets: Array<{ nodes: string }> } }).disruption.budgets.at(-1),
    hold: p.metadata.annotations?.[HOLD_ANNOTATION],
  };
};

describe('the GitHub Action (action.yml)', () => {
  it('plan: the CLI output in a group, untouched and fenced from workflow commands; outputs, result document, step summary', async () => {
    const sandbox = await scenario('default');
    const ran = await localAction(sandbox, { command: 'plan', to: '1.30' });
    expect(ran.code, ran.stdout).toBe(0);
    const group = ran.stdout.indexOf('::group::karp-drift plan --to 1.30\n');
    const fence = /^::stop-commands::([\w-]+)$/m.exec(ran.stdout);
    expect(group).toBeGreaterThan(-1);
    expect(fence).not.toBeNull();
    const inside = ran.stdout.slice(fence!.index, ran.stdout.indexOf(`::${fence![1]}::`));
    expect(inside).toContain('Plan: 2 EC2NodeClasses to change, 12 nodes to replace.');
    expect(ran.stdout.indexOf('::endgroup::')).toBeGreaterThan(ran.stdout.indexOf(`::${fence![1]}::`));
    expect(ran.outputs).toMatchObject({ result: 'succeeded', 'exit-code': '0', 'nodes-replaced': '' });
    const doc = JSON.parse(await readFile(ran.outputs.json!, 'utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({
      kind: 'Result',
      command: 'plan',
      exitCode: 0,
      result: 'succeeded',
      nodesReplaced: null,
    });
    expect((doc.plan as { nodeClasses: unknown[] }).nodeClasses).toHaveLength(2);
    expect(ran.summary).toContain('### karp-drift plan: ✅ succeeded (exit 0)');
    expect(ran.stdout).toContain('karp-drift plan: nothing to clean up (not a staged upgrade)');
    expect(httpWrites(sandbox)).toBe(0);
  }, 180_000);

  it('upgrade without to: the step fails on the input, karp-drift never runs, nothing is changed', async () => {
    const sandbox = await scenario('default');
    const before = sandbox.kube.requests.length;
    const ran = await localAction(sandbox, { command: 'upgrade' });
    expect(ran.stdout).toMatch(
      /::error::input to is required for command upgrade: the Kubernetes minor to move the nodes to, e\.g\. to: '1\.31'/,
    );
    expect(ran.outputs).toMatchObject({ result: 'invalid', 'exit-code': '2' });
    expect(ran.stdout).not.toContain('::group::');
    expect(sandbox.kube.requests.length).toBe(before);
  }, 180_000);

  it('upgrade: the rollout followed to the end, nodes-replaced, the rollout in the step summary', async () => {
    const sandbox = await scenario('default');
    const ran = await localAction(sandbox, { command: 'upgrade', to: '1.30', args: '--timeout 5m' });
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toContain('::group::karp-drift upgrade --to 1.30 --yes --timeout 5m\n');
    expect(ran.outputs).toMatchObject({ result: 'succeeded', 'exit-code': '0', 'nodes-replaced': '12' });
    expect(ran.stdout).toContain('karp-drift upgrade: succeeded (exit 0), 12 nodes replaced');
    expect(ran.summary).toContain('#### Rollout');
    const images = new Set(
      sandbox.kube.store.list('nodeclaims.karpenter.sh').map((c) => (c.status as { imageID?: string }).imageID),
    );
    const pinned = sandbox.kube.store
      .list('ec2nodeclasses.karpenter.k8s.aws')
      .flatMap((c) => (c.spec as { amiSelectorTerms: Array<{ id: string }> }).amiSelectorTerms.map((t) => t.id));
    for (const image of images) expect(pinned).toContain(image);

    // The fleet workflow's promotion: the json output, as another cluster's --amis-file, pins exactly these AMIs.
    const production = await scenario('default');
    const promoted = await karpDrift(production, [
      'plan',
      '--to',
      '1.30',
      '--amis-file',
      ran.outputs.json!,
      '-o',
      'json',
    ]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const plan = JSON.parse(promoted.stdout) as {
      source: { kind: string };
      nodeClasses: Array<{ targets: Array<{ id: string }> }>;
    };
    expect(plan.source.kind).toBe('file');
    expect(new Set(plan.nodeClasses.flatMap((c) => c.targets.map((t) => t.id)))).toEqual(new Set(pinned));
  }, 240_000);

  it('a stalled upgrade: the step fails with the verdict and its next step, blockers as error annotations', async () => {
    const sandbox = await scenario('pdb-blocked');
    const ran = await localAction(sandbox, {
      command: 'upgrade',
      to: '1.30',
      args: '--stall-timeout 20s --timeout 3m',
    });
    expect(ran.outputs).toMatchObject({ result: 'stalled', 'exit-code': '4' });
    expect(ran.stdout).toMatch(/^::error::karp-drift upgrade: stalled \(exit 4\)/m);
    expect(ran.stdout).toMatch(/^::error title=STALL-PDB nodepool\/\S+::/m);
    const errors = ran.stdout.match(/^::error/gm) ?? [];
    expect(errors.length).toBeLessThanOrEqual(10);
  }, 240_000);
});

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
    const sandbox = await scenario('staged', 60);
    const job = await startStaged(sandbox);
    // SIGKILL to the action and to the CLI it started (in its own process group): nothing could clean up.
    const cli = (await readFile(`/proc/${job.main.pid}/task/${job.main.pid}/children`, 'utf8')).trim().split(/\s+/);
    for (const pid of cli) process.kill(Number(pid), 'SIGKILL');
    job.main.kill('SIGKILL');
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
