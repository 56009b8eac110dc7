// The action's main step: inputs → the karp-drift command line → the CLI's own output in the log → outputs, the
// verdict, annotations for the top findings, and the step summary (written by the CLI itself: --summary-file).
import * as core from '@actions/core';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-process.js';
import { InputError, invocation, type ActionInputs } from './inputs.js';
import { outcome } from './outcome.js';

export function readInputs(): ActionInputs {
  return {
    command: core.getInput('command', { required: true }),
    to: core.getInput('to'),
    context: core.getInput('context'),
    kubeconfig: core.getInput('kubeconfig'),
    expectCluster: core.getInput('expect-cluster'),
    args: core.getInput('args'),
    summary: core.getInput('summary') !== 'false',
  };
}

export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    const resultFile = join(
      process.env.RUNNER_TEMP || tmpdir(),
      `karp-drift-${inputs.command.trim()}-${process.pid}-${Date.now()}.json`,
    );
    const summaryFile = process.env.GITHUB_STEP_SUMMARY || undefined;
    const call = invocation(inputs, {
      result: resultFile,
      ...(summaryFile !== undefined ? { summary: summaryFile } : {}),
    });
    // Saved before the CLI starts: a job cancelled mid-run still tells the post step what to leave paused.
    core.saveState(
      'invocation',
      JSON.stringify({ command: call.command, connection: call.connection, staged: call.staged, resultFile }),
    );

    core.startGroup(`karp-drift ${call.shown.join(' ')}`);
    let exitCode: number;
    try {
      exitCode = await runCli(call.argv, (line) => process.stdout.write(`${line}\n`));
    } finally {
      core.endGroup();
    }
    const doc = await readFile(resultFile, 'utf8').then(
      (t) => JSON.parse(t) as Record<string, unknown>,
      () => undefined,
    );
    const seen = outcome(call.command, exitCode, doc, resultFile);
    for (const [name, value] of Object.entries(seen.outputs)) core.setOutput(name, value);
    core.saveState('result', seen.outputs.result);
    core.info(seen.verdict);
    // The verdict first: annotations are listed in the order they are written.
    if (seen.failure !== undefined) core.setFailed(seen.failure);
    for (const a of seen.errors) core.error(a.message, { title: a.title });
    for (const a of seen.warnings) core.warning(a.message, { title: a.title });
  } catch (err) {
    core.setOutput('result', err instanceof InputError ? 'invalid' : 'failed');
    core.setOutput('exit-code', err instanceof InputError ? '2' : '1');
    core.setFailed(err instanceof Error ? err.message : String(err));
  }
}
