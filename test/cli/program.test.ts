// argv -> parsed options, with the command modules mocked (changesets packages/cli/src/cli.test.ts), and exit codes.
import { readdirSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, runCli, type CommandContext, type RunEnvironment } from '../../src/cli/program.js';
import { amis } from '../../src/commands/amis.js';
import { render } from '../../src/commands/render.js';
import { RuntimeFailure, WindowPausedError } from '../../src/errors.js';
import { COMMANDS, isHelpOnly } from '../../src/cli/help-only.js';
import type { AmisOptions, RenderOptions } from '../../src/commands/options.js';

vi.mock('../../src/commands/amis.js', () => ({ amis: vi.fn() }));
vi.mock('../../src/commands/render.js', () => ({ render: vi.fn() }));

const amisMock = vi.mocked(amis);
const renderMock = vi.mocked(render);

function run(argv: string[], overrides: Partial<RunEnvironment> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const env: RunEnvironment = {
    io: { out: (s) => void out.push(s), err: (s) => void err.push(s), interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
    ...overrides,
  };
  return runCli(argv, env).then((code) => ({ code, stdout: out.join(''), stderr: err.join('') }));
}

beforeEach(() => {
  amisMock.mockReset();
  renderMock.mockReset();
});

const amisDefaults: AmisOptions = {
  kubernetes: { version: '1.31' },
  families: ['al2023'],
  arches: ['amd64', 'arm64'],
  variants: ['standard'],
  expand: { families: false, arches: true, variants: false },
  release: 'latest',
};

const globalsDefaults: CommandContext['globals'] = {
  output: 'human',
  color: false,
  verbose: false,
  quiet: false,
  requestTimeoutMs: 30_000,
};

describe('karp-drift amis', () => {
  it.each<[string[], AmisOptions, Partial<CommandContext['globals']>]>([
    [['amis', '--to', '1.31'], amisDefaults, {}],
    [['amis', '--to', 'v1.31'], amisDefaults, {}],
    [
      ['amis', '--to', '1.31.4', '--release', '20241109'],
      {
        ...amisDefaults,
        kubernetes: { version: '1.31', note: '--to 1.31.4: EKS-optimized AMIs are published per minor; using 1.31' },
        release: 'v20241109',
      },
      {},
    ],
    [
      [
        'amis',
        '--to',
        '1.30',
        '--family',
        'al2,bottlerocket',
        '--arch',
        'arm64',
        '--variant',
        'all',
        '--release',
        'v1.20.4',
      ],
      {
        ...amisDefaults,
        kubernetes: { version: '1.30' },
        families: ['al2', 'bottlerocket'],
        arches: ['arm64'],
        variants: ['standard', 'nvidia', 'neuron'],
        expand: { families: false, arches: false, variants: true },
        release: '1.20.4',
      },
      {},
    ],
    [
      ['--region', 'eu-west-1', '--profile', 'prod', '-o', 'json', 'amis', '--to', '1.31', '--family', 'all'],
      {
        ...amisDefaults,
        families: ['al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'],
        expand: { families: true, arches: true, variants: false },
      },
      { region: 'eu-west-1', profile: 'prod', output: 'json' },
    ],
    // Global options also work after the command, as kubectl's do.
    [
      ['amis', '--to', '1.31', '--region', 'us-east-2', '-q', '--no-color'],
      amisDefaults,
      { region: 'us-east-2', quiet: true },
    ],
    [
      ['amis', '--to', '1.31', '--kubeconfig', '/tmp/kc', '--context', 'prod', '-v'],
      amisDefaults,
      { kubeconfig: '/tmp/kc', context: 'prod', verbose: true },
    ],
  ])('%j', async (argv, options, globals) => {
    const result = await run(argv);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(amisMock).toHaveBeenCalledTimes(1);
    const [parsed, ctx] = amisMock.mock.calls[0]!;
    expect(parsed).toEqual(options);
    expect(ctx.globals).toEqual({ ...globalsDefaults, ...globals });
  });
});

describe('karp-drift render', () => {
  const required = ['render', '--to', '1.31', '--cluster-name', 'prod', '--role', 'KarpenterNodeRole-prod'];
  const renderDefaults: RenderOptions = {
    kubernetes: { version: '1.31' },
    clusterName: 'prod',
    role: 'KarpenterNodeRole-prod',
    family: 'al2023',
    pin: 'id',
    release: 'latest',
    templates: undefined,
    name: 'default',
  };

  it.each<[string[], RenderOptions]>([
    [required, renderDefaults],
    [
      [
        ...required,
        '--family',
        'bottlerocket',
        '--pin',
        'alias',
        '--release',
        '1.26.1',
        '--templates',
        './tpl',
        '--name',
        'gpu',
      ],
      { ...renderDefaults, family: 'bottlerocket', pin: 'alias', release: '1.26.1', templates: './tpl', name: 'gpu' },
    ],
  ])('%j', async (argv, options) => {
    expect(await run(argv)).toMatchObject({ code: 0 });
    expect(renderMock.mock.calls[0]![0]).toEqual(options);
  });
});

describe('exit codes', () => {
  it.each<[string, string[], number, { stdout?: string; stderr?: string }]>([
    ['--help', ['--help'], 0, { stdout: 'Usage: karp-drift [options] [command]' }],
    ['amis --help', ['amis', '--help'], 0, { stdout: 'Usage: karp-drift amis [options]' }],
    ['--version', ['--version'], 0, { stdout: '0.1.0' }],
    ['an unknown flag', ['amis', '--to', '1.31', '--bogus'], 2, { stderr: "error: unknown option '--bogus'" }],
    ['an unknown command', ['upgrde'], 2, { stderr: "error: unknown command 'upgrde'" }],
    ['a missing --to', ['amis'], 2, { stderr: "error: required option '--to <minor>' not specified" }],
    [
      'a bad --to',
      ['amis', '--to', '1.3O'],
      2,
      { stderr: 'error: --to "1.3O" is not a Kubernetes version; accepted forms: 1.31, v1.31, or 1.31.4' },
    ],
    ['--to latest', ['amis', '--to', 'latest'], 2, { stderr: 'error: --to "latest" is not a Kubernetes version' }],
    [
      'a bad -o',
      ['-o', 'yaml', 'amis', '--to', '1.31'],
      2,
      { stderr: "error: option '-o, --output <format>' argument 'yaml' is invalid" },
    ],
    [
      '-v with -q',
      ['amis', '--to', '1.31', '-v', '-q'],
      2,
      { stderr: 'error: -v/--verbose and -q/--quiet cannot be used together' },
    ],
    [
      'an x86_64 --arch',
      ['amis', '--to', '1.31', '--arch', 'x86_64'],
      2,
      { stderr: '(architectures use Kubernetes names: amd64, arm64)' },
    ],
  ])('%s -> %d', async (_name, argv, code, output) => {
    const result = await run(argv);
    expect(result.code).toBe(code);
    if (output.stdout) expect(result.stdout).toContain(output.stdout);
    if (output.stderr) expect(result.stderr).toContain(output.stderr);
    expect(amisMock).not.toHaveBeenCalled();
  });

  it('maps a KarpDriftError from the command to its exit code and prints what to do next', async () => {
    amisMock.mockRejectedValue(
      new RuntimeFailure('access denied: SSM GetParameters in us-west-2 (AccessDeniedException)', {
        hint: 'allow ssm:GetParameters',
      }),
    );
    expect(await run(['amis', '--to', '1.31'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: access denied: SSM GetParameters in us-west-2 (AccessDeniedException)\n  next: allow ssm:GetParameters\n',
    });
  });

  it.each<[string, number | undefined, number]>([
    ['by default', undefined, 7],
    ['with the status --window-exit-code asked for', 0, 0],
  ])('a run paused by its window exits 7 %s, said without error:', async (_name, exitStatus, code) => {
    amisMock.mockRejectedValue(
      new WindowPausedError('paused by the window, next window opens Mon 02:00 UTC (in 3h12m)', {
        hint: 'run the same command again inside a window',
        ...(exitStatus !== undefined ? { exitStatus } : {}),
      }),
    );
    expect(await run(['amis', '--to', '1.31'])).toEqual({
      code,
      stdout: '',
      stderr: 'paused by the window, next window opens Mon 02:00 UTC (in 3h12m)\n  next: run the same command again inside a window\n',
    });
  });

  it('reports any other error as an internal error (70) with its stack', async () => {
    amisMock.mockRejectedValue(new TypeError('boom'));
    const result = await run(['amis', '--to', '1.31']);
    expect(result.code).toBe(70);
    expect(result.stderr).toMatch(
      /^internal error \(a bug in karp-drift; please report it with this output\):\nTypeError: boom\n {4}at /,
    );
  });

  it('names itself as a kubectl plugin when invoked as kubectl-karp_drift', async () => {
    const result = await run(['--help'], { invokedAs: 'kubectl-karp_drift' });
    expect(result.stdout).toContain('Usage: kubectl karp-drift [options] [command]');
    expect(result.stdout).toContain('\n  kubectl karp-drift plan --to 1.30\n');
    const upgradeHelp = await run(['upgrade', '--help'], { invokedAs: 'kubectl-karp_drift' });
    expect(upgradeHelp.stdout).toContain('Usage: kubectl karp-drift upgrade [options]');
  });
});

describe('--help', () => {
  const commands = ['amis', 'render', 'plan', 'upgrade', 'rollback', 'pause', 'resume', 'wait', 'status', 'history', 'demo', 'sandbox'];
  it.each([[[] as string[]], ...commands.map((c) => [[c]])])(
    '%j --help ends with examples of itself',
    async (command) => {
      const { code, stdout } = await run([...command, '--help']);
      expect(code).toBe(0);
      const examples = stdout.slice(stdout.indexOf('\nExamples:\n'));
      expect(examples).toMatch(/^\nExamples:\n {2}# \S/);
      // Every example runs the command the help is about, and the help ends with them.
      const runs = examples.split('\n').filter((l) => l.startsWith('  karp-drift'));
      expect(runs.length).toBeGreaterThan(0);
      for (const line of runs) expect(line.startsWith(`  karp-drift ${command[0] ?? ''}`.trimEnd())).toBe(true);
      expect(stdout.endsWith(`${examples.split('\n').filter(Boolean).at(-1)}\n`)).toBe(true);
    },
  );

  it('sandbox --help lists every built-in scenario on one line and describes its own --kubeconfig and --context', async () => {
    const { stdout } = await run(['sandbox', '--help']);
    const list = stdout.slice(stdout.indexOf('\nBuilt-in scenarios (--scenario):\n'), stdout.indexOf('\nExamples:\n'));
    const names = readdirSync(new URL('../../scenarios/', import.meta.url)).filter((f) => f.endsWith('.yaml'));
    // One line each at the help's 80 columns, nothing wrapped onto a second.
    expect(list.trim().split('\n').slice(1)).toHaveLength(names.length);
    for (const line of list.trim().split('\n').slice(1)) expect(line.length).toBeLessThanOrEqual(80);
    expect(list).toMatch(/\n {2}pdb-blocked +a PDB \(minAvailable 1\) pins one node forever\n/);
    expect(list).toMatch(/\n {2}default +12 nodes on 1\.29 AMIs, a rollout that completes\n/);
    expect(stdout).toMatch(/--kubeconfig <path> +where to write the sandbox's kubeconfig/);
    expect(stdout).toMatch(/--context <name> +the kubeconfig context it writes/);
    // The global --kubeconfig and --context (what to read) are not offered here as well, nor the options it refuses.
    const options = stdout.slice(0, stdout.indexOf('\nBuilt-in scenarios'));
    expect(options.match(/--kubeconfig/g)).toHaveLength(1);
    expect(options.match(/--context/g)).toHaveLength(1);
    for (const refused of ['--region', '--profile', '--request-timeout', '--expect-cluster']) expect(stdout).not.toContain(refused);
  });

  it('plan takes --force-conflicts, as its FIELD-OWNER-GITOPS advice says', async () => {
    const { stdout } = await run(['plan', '--help']);
    expect(stdout).toMatch(/--force-conflicts +plan as upgrade --force-conflicts would/);
  });
});

// runCli defines only the commands its argv names (start-up time); what the user sees must be what the whole
// definition shows.
describe('a program built for one command line', () => {
  const names = buildProgram(run0()).commands.map((c) => c.name());
  function run0(): RunEnvironment {
    return {
      io: { out: () => {}, err: () => {}, interactive: false },
      env: {},
      stdoutIsTTY: false,
      signal: new AbortController().signal,
    };
  }
  function help(argv: readonly string[] | undefined, path: string[]): string {
    let cmd = buildProgram(run0(), {}, argv);
    for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
    return cmd.helpInformation();
  }

  it('lists every command with its [options] in the top-level help, as the whole program does', () => {
    expect(names.length).toBeGreaterThan(8);
    expect(help(['--help'], [])).toBe(help(undefined, []));
    expect(help(['--help'], [])).toMatch(/upgrade \[options\]/);
  });

  it.each(['upgrade', 'plan', 'rollback', 'status', 'wait', 'pause', 'resume', 'history', 'pin', 'amis', 'render', 'demo', 'sandbox'])(
    '%s --help is the whole definition of %s',
    (name) => {
      expect(names).toContain(name);
      expect(help([name, '--help'], [name])).toBe(help(undefined, [name]));
      expect(help([name, '--help'], [name])).toMatch(/--\w/);
    },
  );
});

// bin.ts answers these from dist/help.cjs without the ES module loader; everything else goes to the CLI.
describe('a command line that only asks for help', () => {
  const run0 = (): RunEnvironment => ({
    io: { out: () => {}, err: () => {}, interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  });

  it('knows every command cli/program.ts defines', () => {
    expect([...COMMANDS].sort()).toEqual(
      buildProgram(run0())
        .commands.map((c) => c.name())
        .filter((n) => n !== 'help')
        .sort(),
    );
  });

  it.each<[string[], boolean]>([
    [['--help'], true],
    [['-h'], true],
    [['--version'], true],
    [['help'], true],
    [['help', 'upgrade'], true],
    [['upgrade', '--help'], true],
    [['sandbox', '-h'], true],
    [[], false], // commander's own answer (help on stderr, exit 1) comes from the CLI
    [['upgrade'], false],
    [['--help', 'upgrade'], false],
    [['upgrad', '--help'], false], // a typo: the CLI suggests the command
    [['help', 'upgrad'], false],
    [['upgrade', '--gate-cmd', '--help'], false], // --help as an option's value
    [['status', '--help', '-o', 'json'], false],
    [['-v', '--help'], false],
  ])('%j: %s', (argv, expected) => {
    expect(isHelpOnly(argv)).toBe(expected);
  });
});
