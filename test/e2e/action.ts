// The GitHub Action against the sandbox, shared by action*.test.ts: the main and post steps from source under GitHub's
// own local runner for actions (@github/local-action: inputs from a .env file, @actions/core stubbed, outputs printed),
// and a step run as the runner runs it.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
const LOCAL_ACTION = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js');

interface Ran {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
}

export function run(file: string, args: string[], env: Record<string, string>, timeoutMs = 150_000): Promise<Ran> {
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
export async function localAction(sandbox: Sandbox, inputs: Record<string, string>) {
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

export const budgetsOf = (sandbox: Sandbox, pool: string) => {
  const p = sandbox.kube.store.list('nodepools.karpenter.sh').find((n) => n.metadata.name === pool)!;
  return {
    last: (p.spec as { disruption: { budgets: Array<{ nodes: string }> } }).disruption.budgets.at(-1),
    hold: p.metadata.annotations?.[HOLD_ANNOTATION],
  };
};

