import { describe, expect, it } from 'vitest';
import { InputError, invocation, type ActionInputs } from '../../action/src/inputs.js';

const base: ActionInputs = {
  command: 'plan',
  to: '',
  context: '',
  kubeconfig: '',
  expectCluster: '',
  args: '',
  summary: true,
};
const files = { result: '/tmp/r.json', summary: '/tmp/summary.md' };

describe('the action inputs as a karp-drift command line', () => {
  it.each([
    [
      'plan with the cluster inputs',
      { to: '1.31', context: 'prod', kubeconfig: '/k', expectCluster: 'prod-eks' },
      ['plan', '--to', '1.31', '--kubeconfig', '/k', '--context', 'prod', '--expect-cluster', 'prod-eks'],
    ],
    ['upgrade applies without a prompt', { command: 'upgrade', to: '1.31' }, ['upgrade', '--to', '1.31', '--yes']],
    [
      'upgrade keeps a --yes the user gave',
      { command: 'upgrade', to: '1.31', args: '--yes' },
      ['upgrade', '--to', '1.31', '--yes'],
    ],
    ['rollback applies without a prompt', { command: 'rollback' }, ['rollback', '--yes']],
    ['wait with its own flags', { command: 'wait', args: '--timeout 5h' }, ['wait', '--timeout', '5h']],
    [
      'args split as a shell would, over several lines',
      { command: 'upgrade', to: '1.31', args: '--canary canary\n--waves "1,25%,100%"  --soak=15m' },
      ['upgrade', '--to', '1.31', '--yes', '--canary', 'canary', '--waves', '1,25%,100%', '--soak=15m'],
    ],
    [
      'surrounding space is not part of a value',
      { command: ' status ', context: ' prod ' },
      ['status', '--context', 'prod'],
    ],
  ])('%s', (_, inputs, shown) => {
    const call = invocation({ ...base, ...inputs }, files);
    expect(call.shown).toEqual(shown);
    expect(call.argv).toEqual([...shown, '--result-file', '/tmp/r.json', '--summary-file', '/tmp/summary.md']);
  });

  it('writes no summary when summary is false or the job has no summary file', () => {
    expect(invocation({ ...base, to: '1.31', summary: false }, files).argv).not.toContain('--summary-file');
    expect(invocation({ ...base, to: '1.31' }, { result: '/r' }).argv).toEqual([
      'plan',
      '--to',
      '1.31',
      '--result-file',
      '/r',
    ]);
  });

  it.each([
    ['an upgrade in stages', { command: 'upgrade', to: '1.31', args: '--canary canary' }, true],
    ['waves alone', { command: 'upgrade', to: '1.31', args: '--waves=1,100%' }, true],
    ['a plain upgrade', { command: 'upgrade', to: '1.31' }, false],
    ['a staged plan applies nothing', { command: 'plan', to: '1.31', args: '--canary canary' }, false],
  ])('staged: %s', (_, inputs, staged) => {
    expect(invocation({ ...base, ...inputs }, files).staged).toBe(staged);
  });

  it('keeps the flags that reach the same cluster for the clean-up, and only those', () => {
    const call = invocation(
      {
        ...base,
        command: 'upgrade',
        to: '1.31',
        context: 'prod',
        args: '--canary c --region eu-west-1 --profile=ops --lock-namespace karp --soak 5m',
      },
      files,
    );
    expect(call.connection).toEqual([
      '--context',
      'prod',
      '--region',
      'eu-west-1',
      '--profile=ops',
      '--lock-namespace',
      'karp',
    ]);
  });

  it.each([
    [
      'an unknown command',
      { command: 'apply' },
      'input command: "apply" is not one of plan, upgrade, status, wait, rollback',
    ],
    ['upgrade without to', { command: 'upgrade' }, 'input to is required for command upgrade'],
    ['plan without to', { command: 'plan', to: '  ' }, 'input to is required for command plan'],
    ['to on wait', { command: 'wait', to: '1.31' }, 'input to does not apply to command wait'],
    ['--to in args', { to: '1.31', args: '--to 1.32' }, 'input args: --to is set by the input to'],
    ['--context= in args', { to: '1.31', args: '--context=x' }, 'input args: --context is set by the input context'],
    [
      'to: 1.30 unquoted, which YAML read as 1.3',
      { command: 'upgrade', to: '1.3' },
      "input to: 1.3 is no Kubernetes minor EKS ever ran; did you mean 1.30? YAML reads an unquoted 1.30 as the number 1.3: quote the version (to: '1.30')",
    ],
    ['to: 1.20 unquoted, on plan', { to: '1.2' }, 'did you mean 1.20?'],
    [
      '--result-file in args',
      { to: '1.31', args: '--result-file x' },
      'input args: --result-file is set by the input json',
    ],
  ])('refuses %s', (_, inputs, message) => {
    expect(() => invocation({ ...base, ...inputs }, files)).toThrow(InputError);
    expect(() => invocation({ ...base, ...inputs }, files)).toThrow(message);
  });
});
