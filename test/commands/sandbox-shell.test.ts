// The text `karp-drift sandbox` hands a shell: export lines that survive eval and source, context names that two
// sandboxes never share, the background process's command line, and the failure it left in its log.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { defaultContextName, detachedArgs, exportLines, reportedFailure } from '../../src/commands/sandbox-shell.js';
import { isOwnEnvFile } from '../../src/commands/sandbox-env-file.js';

describe('exportLines', () => {
  it('single-quotes values so a shell reads them back exactly', () => {
    const env = { KUBECONFIG: "/tmp/it's here/kubeconfig", AWS_REGION: 'us-west-2', ODD: '$HOME `x` "y" \\ z' };
    const text = exportLines(env);
    expect(text).toBe(
      "export KUBECONFIG='/tmp/it'\\''s here/kubeconfig'\nexport AWS_REGION='us-west-2'\nexport ODD='$HOME `x` \"y\" \\ z'\n",
    );
    const echoed = execFileSync('bash', ['-c', `${text}printf '%s\\n' "$KUBECONFIG" "$AWS_REGION" "$ODD"`], { encoding: 'utf8' });
    expect(echoed).toBe(`${env.KUBECONFIG}\n${env.AWS_REGION}\n${env.ODD}\n`);
  });
});

describe('defaultContextName', () => {
  it.each([
    ['default', 41233, 'karp-drift-sandbox-default-41233'],
    ['default', 41234, 'karp-drift-sandbox-default-41234'],
    ['staged', 6443, 'karp-drift-sandbox-staged-6443'],
  ])('%s on port %i: %s', (scenario, port, name) => {
    expect(defaultContextName(scenario, port)).toBe(name);
  });
});

describe('detachedArgs', () => {
  it.each<[Parameters<typeof detachedArgs>[0], boolean, string[]]>([
    [{ scenario: 'default' }, false, ['sandbox', '--scenario', 'default', '--detached-log', '/l']],
    [
      { scenario: './my scenario.yaml', speed: 120, port: 6443, kubeconfig: '/k', context: 'staging', envOut: '/e', detach: true },
      true,
      ['sandbox', '--scenario', './my scenario.yaml', '--speed', '120', '--port', '6443', '--kubeconfig', '/k', '--context', 'staging', '--env-out', '/e', '--verbose', '--detached-log', '/l'],
    ],
    [{ scenario: 'default', envOut: 'sandbox.env' }, false, ['sandbox', '--scenario', 'default', '--env-out', resolve('sandbox.env'), '--detached-log', '/l']],
  ])('%j (verbose %s): the options spelt out (--env-out absolute, for its removal at stop), never --detach', (options, verbose, args) => {
    expect(detachedArgs(options, { verbose }, '/l')).toEqual(args);
  });
});

describe('reportedFailure', () => {
  it.each([
    ['error: no built-in scenario named "x"\n  next: or pass the path of a scenario file\n', { message: 'no built-in scenario named "x"', hint: 'or pass the path of a scenario file' }],
    ['karpenter: launched nodeclaim\nerror: --port 6443: in use\n', { message: '--port 6443: in use' }],
    ['internal error (a bug in karp-drift; please report it with this output):\nTypeError: boom\n', undefined],
    ['', undefined],
  ])('%j', (log, failure) => {
    expect(reportedFailure(log)).toEqual(failure);
  });
});

describe('isOwnEnvFile (removed at stop only while it is this sandbox\'s)', () => {
  const file = (pid: number) => `export KUBECONFIG='/tmp/k'\nexport KARP_DRIFT_SANDBOX_PID='${pid}'\n`;
  it.each<[string, string, boolean]>([
    ['written by this sandbox', file(4242), true],
    ['written since by another sandbox', file(5151), false],
    ['a PID that only starts like this one', file(42421), false],
    ['a file of the user\'s', "export KUBECONFIG='/tmp/k'\n", false],
  ])('%s', (_name, text, own) => {
    expect(isOwnEnvFile(text, 4242)).toBe(own);
  });
});
