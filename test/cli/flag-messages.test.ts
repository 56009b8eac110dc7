// Every flag of every command, given an empty value (the unset shell variable: `--summary-file "$GITHUB_STEP_SUMMARY"`
// outside a job) and a nonsense one: the refusal is in the CLI's words, naming the flag, and zod's own wording
// ("Too small: expected string to have >=1 characters", "Invalid input") never reaches the user. The command modules
// are mocked, so a value the parsers accept ends in a mock, not on a cluster.
import { describe, expect, it, vi } from 'vitest';
import type { Option } from 'commander';
import { buildProgram, runCli, type RunEnvironment } from '../../src/cli/program.js';

vi.mock('../../src/commands/amis.js', () => ({ amis: vi.fn() }));
vi.mock('../../src/commands/demo.js', () => ({ demo: vi.fn() }));
vi.mock('../../src/commands/pause.js', () => ({ pause: vi.fn() }));
vi.mock('../../src/commands/pin.js', () => ({ pin: vi.fn() }));
vi.mock('../../src/commands/plan.js', () => ({ planCommand: vi.fn() }));
vi.mock('../../src/commands/render.js', () => ({ render: vi.fn() }));
vi.mock('../../src/commands/resume.js', () => ({ resume: vi.fn() }));
vi.mock('../../src/commands/rollback.js', () => ({ rollback: vi.fn() }));
vi.mock('../../src/commands/sandbox.js', () => ({ sandbox: vi.fn() }));
vi.mock('../../src/commands/sandbox-detach.js', () => ({ detachSandbox: vi.fn() }));
vi.mock('../../src/commands/status.js', () => ({ status: vi.fn() }));
vi.mock('../../src/commands/upgrade.js', () => ({ upgrade: vi.fn() }));
vi.mock('../../src/commands/wait.js', () => ({ wait: vi.fn() }));

const ZOD_WORDING = /Too small|Too big|expected (string|number|boolean|array|object)|Invalid (input|option|string|type|value)|received undefined|Unrecognized key/;

function environment(err: string[]): RunEnvironment {
  return {
    io: { out: () => undefined, err: (s) => void err.push(s), interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  };
}

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const code = await runCli(argv, environment(err));
  return { code, stderr: err.join('') };
}

/** What each command needs besides the flag under test, so that flag's value is what gets judged. */
const REQUIRED: Record<string, string[]> = {
  amis: ['--to', '1.31'],
  plan: ['--to', '1.31'],
  upgrade: ['--to', '1.31'],
  pin: ['--to', '1.31', 'karpenter/'],
  render: ['--to', '1.31', '--cluster-name', 'prod', '--role', 'KarpenterNodeRole-prod'],
};

const takesValue = (o: Option) => o.required || o.optional;
const program = buildProgram(environment([]));
const cases = program.commands.flatMap((cmd) =>
  [...cmd.options, ...program.options]
    .filter(takesValue)
    .map((o) => [cmd.name(), o.long ?? o.short ?? ''] as const)
    .filter(([, flag]) => flag !== '--help'),
);

describe('a flag given an empty value', () => {
  it.each(cases)('%s %s ""', async (command, flag) => {
    const { code, stderr } = await run([command, ...(REQUIRED[command] ?? []), flag, '']);
    expect(code, stderr).toBe(2);
    expect(stderr).not.toMatch(ZOD_WORDING);
    expect(stderr).toContain(flag === '--output' ? '-o, --output' : flag);
  });

  it('--summary-file "": says $GITHUB_STEP_SUMMARY is likely unset, and what to do', async () => {
    const { code, stderr } = await run(['plan', '--to', '1.31', '--summary-file', '']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'error: --summary-file is empty (is $GITHUB_STEP_SUMMARY unset? GitHub Actions sets it only inside a job step)\n' +
        '  next: pass the file to append the summary to, or leave --summary-file out\n',
    );
  });
});

describe('a flag given a value it cannot take', () => {
  // In a folder that does not exist, so that a file flag that takes it (--result-file) writes nothing.
  const bad = '/nonexistent-karp-drift/%bad value%';
  it.each(cases)(`%s %s "${bad}"`, async (command, flag) => {
    const { stderr } = await run([command, ...(REQUIRED[command] ?? []), flag, bad]);
    expect(stderr).not.toMatch(ZOD_WORDING);
  });
});
