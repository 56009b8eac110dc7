// Flag parsing: strings in, typed options out, and the exact message for each bad value (exit 2).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  parseAmisOptions,
  parseChoiceList,
  parseGlobalOptions,
  parseKubernetesMinor,
  parseMinAge,
  parseRelease,
  parseRenderOptions,
  parsePlanOptions,
  parseRollbackOptions,
  parseSandboxOptions,
  parseDemoOptions,
  parseStatusOptions,
  parseUpgradeOptions,
  parseHistoryOptions,
  parseReportFile,
} from '../../src/cli/options.js';
import { ARCHES } from '../../src/ami/families.js';
import { DURATION_FLAGS, parseDuration, parseFlagDuration, type DurationFlag } from '../../src/cli/durations.js';

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error('expected a UsageError');
}

const FORMS = 'accepted forms: 1.31, v1.31, or 1.31.4 (AMIs are published per minor)';

describe('parseKubernetesMinor', () => {
  it.each([
    ['1.31', { version: '1.31' }],
    ['v1.31', { version: '1.31' }],
    [' 1.30 ', { version: '1.30' }],
    ['1.031', { version: '1.31' }],
    ['1.31.4', { version: '1.31', note: '--to 1.31.4: EKS-optimized AMIs are published per minor; using 1.31' }],
    ['v1.29.10', { version: '1.29', note: '--to v1.29.10: EKS-optimized AMIs are published per minor; using 1.29' }],
  ])('%j -> %j', (input, expected) => {
    expect(parseKubernetesMinor(input)).toEqual(expected);
  });

  it.each(['1.3O', '2', 'latest', '2.1', '', '1', 'v1.31.x', '1.31.4.1'])(
    'refuses %j listing the accepted forms',
    (input) => {
      expect(usageMessage(() => parseKubernetesMinor(input))).toBe(
        `--to ${JSON.stringify(input)} is not a Kubernetes version; ${FORMS}`,
      );
    },
  );
});

describe('parseKubernetesMinor: a minor EKS never ran', () => {
  it.each([
    ['1.3', '1.30'],
    ['v1.2', '1.20'],
    ['1.1.0', '1.10'],
  ])('%j: refused, suggesting %s with the YAML reason', (input, meant) => {
    const err = (() => {
      try {
        parseKubernetesMinor(input);
      } catch (e) {
        return e as UsageError;
      }
      throw new Error('expected a UsageError');
    })();
    expect(err.message).toMatch(new RegExp(`^--to ${input.replace(/\./g, '\\.')}: EKS never ran Kubernetes 1\\.\\d \\(it began with 1\\.10\\)`));
    expect(err.hint).toBe(`did you mean --to ${meant}? YAML reads an unquoted ${meant} as the number ${Number(meant)}: quote the version (to: '${meant}')`);
  });

  it('1.0 has no likely meaning: the accepted forms instead', () => {
    expect(() => parseKubernetesMinor('1.0')).toThrow('EKS never ran Kubernetes 1.0');
  });

  it('the hint survives the flag schema (upgrade --to 1.3)', () => {
    expect(() => parseUpgradeOptions({ to: '1.3', yes: true })).toThrow(expect.objectContaining({ hint: expect.stringContaining('did you mean --to 1.30?') }));
  });
});

describe('parseChoiceList', () => {
  it.each([
    ['amd64', { values: ['amd64'], all: false }],
    ['arm64, AMD64', { values: ['arm64', 'amd64'], all: false }],
    ['amd64,amd64', { values: ['amd64'], all: false }],
    ['all', { values: ['amd64', 'arm64'], all: true }],
  ])('%j -> %j', (input, expected) => {
    expect(parseChoiceList(input, ARCHES, '--arch')).toEqual(expected);
  });

  it.each([
    [
      'x86_64',
      '--arch "x86_64" is not valid (architectures use Kubernetes names: amd64, arm64); expected one of amd64, arm64, a comma list, or all',
    ],
    ['amd64,all', '--arch "all" is not valid; expected one of amd64, arm64, a comma list, or all'],
    [',', '--arch is empty; expected one of amd64, arm64, a comma list, or all'],
  ])('refuses %j', (input, message) => {
    expect(usageMessage(() => parseChoiceList(input, ARCHES, '--arch'))).toBe(message);
  });
});

describe('parseRelease', () => {
  it.each([
    ['latest', 'latest'],
    ['v20241109', 'v20241109'],
    ['20241109', 'v20241109'],
    ['1.26.1', '1.26.1'],
    ['v1.26.1', '1.26.1'],
    ['latest~1', 'latest~1'],
    ['latest~01', 'latest~1'],
    ['latest~0', 'latest'],
  ])('%j -> %j', (input, expected) => {
    expect(parseRelease(input)).toBe(expected);
  });

  it.each(['v2024', 'newest', '1.26', 'al2023@v20241109', 'latest~', 'latest~-1', 'latest-1', 'latest~1.5'])('refuses %j', (input) => {
    expect(usageMessage(() => parseRelease(input))).toBe(
      `--release ${JSON.stringify(input)} is not an AMI release; use latest, latest~N (N releases behind the newest, e.g. latest~1), vYYYYMMDD (AL2, AL2023, e.g. v20241109) or X.Y.Z (Bottlerocket, e.g. 1.26.1)`,
    );
  });
});

describe('parseMinAge', () => {
  it.each([
    ['7d', 7 * 86_400_000],
    ['36h', 36 * 3_600_000],
    ['1d12h', 36 * 3_600_000],
    [' 14d ', 14 * 86_400_000],
    ['90m', 90 * 60_000],
    ['1.5d', 36 * 3_600_000],
  ])('%j -> %d ms', (input, ms) => {
    expect(parseMinAge(input)).toEqual({ text: input.trim(), ms });
  });

  it.each(['0', '0d', '0h0m'])('%j is no minimum, as if left out', (input) => {
    expect(parseMinAge(input)).toBeUndefined();
    expect(parseAmisOptions({ to: '1.31', minAge: input })).not.toHaveProperty('minAge');
  });

  it.each(['7', '1w', '7 d', ''])('refuses %j', (input) => {
    expect(usageMessage(() => parseMinAge(input))).toBe(
      `--min-age ${JSON.stringify(input)} is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)`,
    );
  });

  it.each<[string, () => unknown, string]>([
    [
      'a release named outright (amis)',
      () => parseAmisOptions({ to: '1.31', release: 'v20261010', minAge: '7d' }),
      '--min-age 7d cannot go with --release v20261010: it chooses among the releases SSM lists, and --release names one',
    ],
    [
      'a release named outright (render)',
      () => parseRenderOptions({ to: '1.31', clusterName: 'c', role: 'r', release: '1.26.1', minAge: '36h' }),
      '--min-age 36h cannot go with --release 1.26.1: it chooses among the releases SSM lists, and --release names one',
    ],
    [
      '--amis-file: promotion pins what was tested',
      () => parsePlanOptions({ to: '1.31', amisFile: 'amis.json', minAge: '7d' }),
      '--min-age 7d cannot go with --amis-file: the file records the releases to pin',
    ],
    [
      '--release latest~1 with --amis-file',
      () => parsePlanOptions({ to: '1.31', amisFile: 'amis.json', release: 'latest~1' }),
      '--release latest~1 cannot go with --amis-file: the file records the releases to pin',
    ],
    [
      '--from-context',
      () => parseUpgradeOptions({ to: '1.31', fromContext: 'staging', minAge: '7d' }),
      '--min-age 7d cannot go with --from-context staging: the releases to pin are the ones its nodes run',
    ],
  ])('is refused with %s', (_name, parse, message) => {
    expect(usageMessage(parse)).toBe(message);
  });

  it('goes with latest and latest~N, into the options plan and upgrade take', () => {
    expect(parsePlanOptions({ to: '1.31', release: 'latest~2', minAge: '7d' })).toMatchObject({
      release: 'latest~2',
      minAge: { text: '7d', ms: 7 * 86_400_000 },
    });
    expect(parseAmisOptions({ to: '1.31', minAge: '36h' })).toMatchObject({ release: 'latest', minAge: { text: '36h' } });
  });
});

describe('parseDuration: one grammar for every duration flag (Go\'s, plus d for 24h)', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['1d', 86_400_000],
    ['2d12h', 60 * 3_600_000],
    ['0', 0],
    ['0s', 0],
  ])('%j -> %d ms', (input, ms) => {
    expect(parseDuration(input, '--timeout')).toBe(ms);
  });

  it.each(['10', '', 'm5', '1w', '-5m', '5 m'])('refuses %j', (input) => {
    expect(usageMessage(() => parseDuration(input, '--timeout'))).toBe(
      `--timeout ${JSON.stringify(input)} is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)`,
    );
  });

  // Every duration flag takes `1d` (`--timeout 1d` was refused while `--min-age 7d` was the documented form), and says
  // what 0 is: the table the reference docs are generated from.
  it.each(Object.keys(DURATION_FLAGS) as DurationFlag[])('%s takes 1d, and 0 means what DURATION_FLAGS says', (flag) => {
    expect(parseFlagDuration('1d', flag)).toBe(86_400_000);
    const meaning = DURATION_FLAGS[flag] as { zero: string } | { refused: string };
    if ('zero' in meaning) expect(parseFlagDuration('0', flag)).toBe(0);
    else expect(usageMessage(() => parseFlagDuration('0', flag))).toBe(`${flag} "0" must be longer than 0: ${meaning.refused}`);
  });
});

describe('parseGlobalOptions', () => {
  const defaults = { output: 'human', color: true, verbose: false, quiet: false, requestTimeoutMs: 30_000 };

  it.each<[string, Record<string, unknown>, NodeJS.ProcessEnv, boolean, Record<string, unknown>]>([
    ['colour on a terminal', {}, {}, true, { ...defaults, color: true }],
    ['no colour when stdout is not a terminal', {}, {}, false, { ...defaults, color: false }],
    ['no colour with NO_COLOR', {}, { NO_COLOR: '1' }, true, { ...defaults, color: false }],
    ['colour with an empty NO_COLOR', {}, { NO_COLOR: '' }, true, { ...defaults, color: true }],
    ['no colour with --no-color', { color: false }, {}, true, { ...defaults, color: false }],
    ['no colour in JSON', { output: 'json' }, {}, true, { ...defaults, output: 'json', color: false }],
    ['-o wide is human output with the wide columns', { output: 'wide' }, {}, true, { ...defaults, output: 'human', wide: true }],
    [
      'AWS and kube flags',
      { region: 'eu-west-1', profile: 'prod', kubeconfig: '/k', context: 'c', verbose: true },
      {},
      false,
      {
        ...defaults,
        color: false,
        verbose: true,
        region: 'eu-west-1',
        profile: 'prod',
        kubeconfig: '/k',
        context: 'c',
      },
    ],
    [
      '--expect-cluster by ARN',
      { expectCluster: 'arn:aws:eks:eu-west-1:111122223333:cluster/prod' },
      {},
      false,
      { ...defaults, color: false, expectCluster: { text: 'arn:aws:eks:eu-west-1:111122223333:cluster/prod', name: 'prod', region: 'eu-west-1', account: '111122223333' } },
    ],
    ['--expect-cluster by name', { expectCluster: 'prod' }, {}, false, { ...defaults, color: false, expectCluster: { text: 'prod', name: 'prod' } }],
  ])('%s', (_name, flags, env, tty, expected) => {
    expect(parseGlobalOptions(flags, env, tty)).toEqual(expected);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ verbose: true, quiet: true }, '-v/--verbose and -q/--quiet cannot be used together'],
    [{ output: 'yaml' }, '-o/--output must be human, wide or json'],
    [{ expectCluster: 'arn:aws:eks:us-west-2:1:cluster/prod' }, '--expect-cluster "arn:aws:eks:us-west-2:1:cluster/prod" is not an EKS cluster ARN'],
  ])('refuses %j', (flags, message) => {
    // toContain: zod-checked flags may carry a `--flag: ` prefix in front of their own message.
    expect(usageMessage(() => parseGlobalOptions(flags, {}, false))).toContain(message);
  });
});

describe('parseAmisOptions', () => {
  it.each<[Record<string, string>, ReturnType<typeof parseAmisOptions>]>([
    [
      { to: '1.31' },
      {
        kubernetes: { version: '1.31' },
        families: ['al2023'],
        arches: ['amd64', 'arm64'],
        variants: ['standard'],
        expand: { families: false, arches: true, variants: false },
        release: 'latest',
      },
    ],
    [
      { to: 'v1.30.2', family: 'all', arch: 'arm64', variant: 'nvidia,standard', release: 'v1.20.4' },
      {
        kubernetes: { version: '1.30', note: '--to v1.30.2: EKS-optimized AMIs are published per minor; using 1.30' },
        families: ['al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'],
        arches: ['arm64'],
        variants: ['nvidia', 'standard'],
        expand: { families: true, arches: false, variants: false },
        release: '1.20.4',
      },
    ],
  ])('%j', (flags, expected) => {
    expect(parseAmisOptions(flags)).toEqual(expected);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ to: 'latest' }, `--to "latest" is not a Kubernetes version; ${FORMS}`],
    [
      { to: '1.31', family: 'ubuntu' },
      '--family "ubuntu" is not valid; expected one of al2, al2023, bottlerocket, windows2019, windows2022, windows2025, a comma list, or all',
    ],
    [
      { to: '1.31', variant: 'gpu' },
      '--variant "gpu" is not valid; expected one of standard, nvidia, neuron, a comma list, or all',
    ],
  ])('refuses %j', (flags, message) => {
    expect(usageMessage(() => parseAmisOptions(flags))).toBe(message);
  });
});

describe('parseRenderOptions', () => {
  const required = { to: '1.31', clusterName: 'prod', role: 'KarpenterNodeRole-prod' };

  it('defaults to al2023 pinned by id, the newest release, named default', () => {
    expect(parseRenderOptions(required)).toEqual({
      kubernetes: { version: '1.31' },
      clusterName: 'prod',
      role: 'KarpenterNodeRole-prod',
      family: 'al2023',
      pin: 'id',
      release: 'latest',
      templates: undefined,
      name: 'default',
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ family: 'al2,al2023' }, '--family takes exactly one family for render'],
    [{ family: 'all' }, '--family takes exactly one family for render'],
    [{ pin: 'name' }, '--pin must be id or alias'],
    [{ name: 'Default' }, '--name must be a lowercase DNS-1123 name (a-z, 0-9, -, .)'],
    [{ name: 'a'.repeat(64) }, '--name must be at most 63 characters'],
    [{ clusterName: '' }, '--cluster-name is empty'],
  ])('refuses %j', (flags, message) => {
    expect(usageMessage(() => parseRenderOptions({ ...required, ...flags }))).toContain(message);
  });
});

describe('parsePlanOptions / parseUpgradeOptions / parseStatusOptions / parseSandboxOptions', () => {
  it.each([
    [{ to: '1.30' }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id' }],
    [{ to: 'v1.31', nodeclass: ['default', 'gpu', 'default'], pin: 'alias', release: '20261023' }, { kubernetes: { version: '1.31' }, nodeClasses: ['default', 'gpu'], release: 'v20261023', pin: 'alias' }],
    [{ to: '1.30', forceConflicts: true }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id', forceConflicts: true }],
    [{ to: '1.30', pin: 'name' }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'name' }],
    [{ to: '1.30', amisFile: 'amis.json' }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id', amisFile: 'amis.json' }],
    [{ to: '1.30', fromContext: 'staging' }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id', fromCluster: { context: 'staging' } }],
    [{ to: '1.30', fromKubeconfig: 'staging.yaml' }, { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id', fromCluster: { kubeconfig: 'staging.yaml' } }],
    [
      { to: '1.30', fromContext: 'staging', fromKubeconfig: 'all.yaml', release: 'latest' },
      { kubernetes: { version: '1.30' }, nodeClasses: [], release: 'latest', pin: 'id', fromCluster: { context: 'staging', kubeconfig: 'all.yaml' } },
    ],
  ])('plan %j', (flags, expected) => {
    expect(parsePlanOptions(flags)).toEqual(expected);
  });

  it('upgrade --templates: --accept-template-drift is off unless given', () => {
    const templates = { to: '1.30', clusterName: 'prod', role: 'KarpenterNodeRole-prod' };
    expect(parseUpgradeOptions(templates).templates).toMatchObject({ clusterName: 'prod', acceptTemplateDrift: false });
    expect(parseUpgradeOptions({ ...templates, acceptTemplateDrift: true }).templates).toMatchObject({ acceptTemplateDrift: true, allowCreate: false });
    expect(parseUpgradeOptions({ ...templates, allowCreate: true }).templates).toMatchObject({ allowCreate: true });
  });

  it('upgrade --apply-by git: the wait for the sync, 1h unless --sync-timeout; karp-drift applies by default', () => {
    expect(parseUpgradeOptions({ to: '1.30' })).not.toHaveProperty('applyBy');
    expect(parseUpgradeOptions({ to: '1.30', applyBy: 'karp-drift' })).not.toHaveProperty('syncTimeoutMs');
    expect(parseUpgradeOptions({ to: '1.30', applyBy: 'git' })).toMatchObject({ applyBy: 'git', syncTimeoutMs: 3_600_000 });
    expect(parseUpgradeOptions({ to: '1.30', applyBy: 'git', syncTimeout: '4h' })).toMatchObject({ applyBy: 'git', syncTimeoutMs: 14_400_000 });
    expect(parsePlanOptions({ to: '1.30', applyBy: 'git' })).toMatchObject({ applyBy: 'git' });
    expect(parseRollbackOptions({ syncTimeout: '30m' })).toMatchObject({ syncTimeoutMs: 1_800_000 });
    expect(parseRollbackOptions({})).toMatchObject({ syncTimeoutMs: 3_600_000 });
  });

  it('upgrade: defaults, durations and --no-wait', () => {
    expect(parseUpgradeOptions({ to: '1.30' })).toMatchObject({ yes: false, dryRun: false, wait: true, timeoutMs: 3_600_000, stallTimeoutMs: 900_000, forceConflicts: false });
    expect(parseUpgradeOptions({ to: '1.30', yes: true, wait: false, timeout: '90s', stallTimeout: '2m30s', forceConflicts: true, dryRun: true })).toMatchObject({
      yes: true,
      dryRun: true,
      wait: false,
      timeoutMs: 90_000,
      stallTimeoutMs: 150_000,
      forceConflicts: true,
    });
  });

  it.each([
    [{ to: '1.30', timeout: '2w' }, '--timeout "2w" is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)'],
    [{ to: '1.30', stallTimeout: '0s' }, '--stall-timeout "0s" must be longer than 0: every moment would be a stall; give a long one to wait out slow replacements, e.g. 2h'],
    [{ to: '1.30', timeout: '0m' }, '--timeout "0m" must be longer than 0: there is no "never"; give a long one, e.g. 7d'],
    [{ to: '1.30', nodeclass: ['Default'] }, '--nodeclass "Default" is not an EC2NodeClass name (a lowercase DNS-1123 name)'],
    [{ to: '1.30', pin: 'ssm' }, '--pin must be id, alias or name'],
    [{ to: '1.30', acceptTemplateDrift: true }, '--accept-template-drift applies only to upgrade --templates (the render-and-apply flow)'],
    [{ to: '1.30', allowCreate: true }, '--allow-create applies only to upgrade --templates (the render-and-apply flow)'],
    [{ to: '1.30', amisFile: 'amis.json', release: 'v20261023' }, '--release v20261023 cannot go with --amis-file: the file records the releases to pin'],
    [{ to: '1.30', amisFile: ' ' }, '--amis-file is empty (is the shell variable you passed unset?)'],
    [{ to: '1.30', amisFile: 'amis.json', clusterName: 'prod', role: 'r' }, '--amis-file cannot go with --templates: the render-and-apply flow resolves its AMIs from SSM'],
    [{ to: '1.30', fromContext: 'staging', amisFile: 'amis.json' }, '--from-context staging cannot go with --amis-file: both name the AMIs to promote'],
    [{ to: '1.30', fromKubeconfig: 'staging.yaml', amisFile: 'amis.json' }, '--from-kubeconfig staging.yaml cannot go with --amis-file: both name the AMIs to promote'],
    [{ to: '1.30', fromContext: 'staging', release: 'v20261023' }, '--release v20261023 cannot go with --from-context staging: the releases to pin are the ones its nodes run'],
    [{ to: '1.30', fromContext: '' }, '--from-context is empty (is the shell variable you passed unset?)'],
    [{ to: '1.30', fromKubeconfig: ' ' }, '--from-kubeconfig is empty (is the shell variable you passed unset?)'],
    [{ to: '1.30', fromContext: 'staging', clusterName: 'prod', role: 'r' }, '--from-context cannot go with --templates: the render-and-apply flow resolves its AMIs from SSM'],
    [{ to: '1.30', syncTimeout: '10m' }, '--sync-timeout goes with --apply-by git: it bounds the wait for the sync that applies the change'],
    [{ to: '1.30', applyBy: 'git', dryRun: true }, '--dry-run cannot go with --apply-by git: it has the API server validate the EC2NodeClass apply, and --apply-by git sends none'],
    [{ to: '1.30', applyBy: 'git', wait: false }, '--no-wait cannot go with --apply-by git: the run waits for the sync and then paces the rollout it starts'],
    [{ to: '1.30', applyBy: 'git', clusterName: 'prod', role: 'r' }, '--templates cannot go with --apply-by git: it applies rendered objects whole'],
    [{ to: '1.30', applyBy: 'git', window: ['0 2 * * */3h'] }, '--window cannot go with --apply-by git: upgrade windows are budgets on the NodePools, which belong in the files Git applies'],
    [{ to: '1.30', applyBy: 'git', onFailure: 'rollback' }, '--on-failure rollback cannot go with --apply-by git: going back is a revert in Git, which a person merges'],
    [{ to: '1.30', applyBy: 'git', syncTimeout: '0s' }, '--sync-timeout "0s" must be longer than 0: the wait for the sync needs an end; give a long one, e.g. 1d'],
    [{ to: '1.30', applyBy: 'git', syncTimeout: '2 d' }, '--sync-timeout "2 d" is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)'],
    [{ to: '1.30', applyBy: 'svn' }, '--apply-by must be karp-drift or git'],
  ])('upgrade refuses %j', (flags, message) => {
    expect(usageMessage(() => parseUpgradeOptions(flags))).toBe(message);
  });

  it('status and sandbox', () => {
    expect(parseStatusOptions({ nodeclass: ['default'], watch: true }, 'kube-system')).toEqual({ nodeClasses: ['default'], watch: true, lockNamespace: 'kube-system' });
    expect(parseSandboxOptions({ speed: '120', port: '6443' })).toEqual({ scenario: 'default', speed: 120, port: 6443 });
    expect(usageMessage(() => parseSandboxOptions({ port: '70000' }))).toBe('--port "70000" is not valid; expected a whole number from 1 to 65535');
    expect(parseSandboxOptions({ context: 'staging', detach: true, envOut: 'f' })).toEqual({ scenario: 'default', context: 'staging', detach: true, envOut: 'f' });
  });

  // A sandbox reaches no cluster and no AWS account: a global flag that would mean one is refused, never ignored.
  it.each([
    [{ region: 'eu-west-1' }, 'sandbox takes no --region: its simulated AWS endpoints are always in us-west-2'],
    [{ profile: 'prod' }, 'sandbox takes no --profile: its AWS endpoints take the dummy credentials it prints'],
    [{ expectCluster: 'prod' }, 'sandbox takes no --expect-cluster: it is the cluster; the commands run against it take --expect-cluster'],
    [{ requestTimeout: '5s' }, 'sandbox takes no --request-timeout: it makes no requests; the commands run against it take --request-timeout'],
  ])('sandbox refuses the global %j', (globals, message) => {
    expect(usageMessage(() => parseSandboxOptions({}, globals))).toBe(message);
  });

  it.each<[Record<string, unknown>, Partial<ReturnType<typeof parseSandboxOptions>> | string]>([
    [{ gitopsDir: '/tmp/manifests' }, { gitopsDir: '/tmp/manifests' }],
    [{ gitopsDir: 'manifests', gitopsTool: 'flux' }, { gitopsDir: `${process.cwd()}/manifests`, gitopsTool: 'flux' }],
    [{ gitopsDir: ' ' }, '--gitops-dir needs a directory'],
    [{ gitopsTool: 'flux' }, '--gitops-tool goes with --gitops-dir'],
  ])('sandbox --gitops-dir %j', (flags, expected) => {
    if (typeof expected === 'string') expect(usageMessage(() => parseSandboxOptions(flags))).toBe(expected);
    else expect(parseSandboxOptions(flags)).toEqual({ scenario: 'default', ...expected });
  });

  it('sandbox refuses a context name with a space', () => {
    expect(usageMessage(() => parseSandboxOptions({ context: 'my staging' }))).toBe(
      '--context "my staging": a context name for the sandbox\'s kubeconfig cannot be empty or contain spaces',
    );
  });

  it.each<[Record<string, unknown>, Omit<ReturnType<typeof parseDemoOptions>, 'upgradeTo'> | string]>([
    [{ scenario: 'default', timeout: '10m', stallTimeout: '2m' }, { scenario: 'default', timeoutMs: 600_000, stallTimeoutMs: 120_000 }],
    [{ scenario: 'pdb-blocked', speed: '600', timeout: '1m', stallTimeout: '20s' }, { scenario: 'pdb-blocked', speed: 600, timeoutMs: 60_000, stallTimeoutMs: 20_000 }],
    [{}, { scenario: 'default', timeoutMs: 600_000, stallTimeoutMs: 120_000 }],
    [{ stallTimeout: '0s' }, '--stall-timeout "0s" must be longer than 0: every moment would be a stall; give a long one to wait out slow replacements, e.g. 2h'],
  ])('demo %j', (flags, expected) => {
    if (typeof expected === 'string') expect(usageMessage(() => parseDemoOptions(flags))).toBe(expected);
    else {
      const { upgradeTo, ...parsed } = parseDemoOptions(flags);
      expect(parsed).toEqual(expected);
      // The demo's upgrade is `upgrade --to <the sandbox's control plane> --yes`, parsed as upgrade parses it.
      expect(upgradeTo('1.30')).toEqual(parseUpgradeOptions({ to: '1.30', yes: true }));
    }
  });
});

describe('--request-timeout', () => {
  it('defaults to 30 s and takes a Go duration', () => {
    expect(parseGlobalOptions({}, {}, false).requestTimeoutMs).toBe(30_000);
    expect(parseGlobalOptions({ requestTimeout: '90s' }, {}, false).requestTimeoutMs).toBe(90_000);
    expect(usageMessage(() => parseGlobalOptions({ requestTimeout: '0s' }, {}, false))).toBe(
      '--request-timeout "0s" must be longer than 0: a request needs a limit, or an API server that never answers hangs the run',
    );
  });
});

describe('history [run] [--html <file>] and upgrade --report <file>', () => {
  it.each<[unknown, Record<string, unknown>, object]>([
    [undefined, {}, { lockNamespace: 'kube-system' }],
    ['3f2a9c1e', {}, { run: '3f2a9c1e', lockNamespace: 'kube-system' }],
    ['3f2a9c1e', { html: '/tmp/run.html' }, { run: '3f2a9c1e', html: '/tmp/run.html', lockNamespace: 'kube-system' }],
  ])('history %s %j', (run, flags, expected) => {
    expect(parseHistoryOptions(run, flags, 'kube-system')).toEqual(expected);
  });

  it.each<[string, () => unknown, string]>([
    ['--html without a run', () => parseHistoryOptions(undefined, { html: 'run.html' }, 'kube-system'), '--html draws one run: name it'],
    ['--html in a folder that does not exist', () => parseHistoryOptions('3f2a', { html: '/nonexistent-dir/run.html' }, 'kube-system'), '--html /nonexistent-dir/run.html: the folder /nonexistent-dir does not exist'],
    ['--html a folder', () => parseHistoryOptions('3f2a', { html: '/tmp' }, 'kube-system'), '--html /tmp is a folder'],
    ['--report empty', () => parseReportFile({ report: '' }), '--report is empty (is the shell variable you passed unset?)'],
    ['--report in a folder that does not exist', () => parseReportFile({ report: '/nonexistent-dir/r.html' }), '--report /nonexistent-dir/r.html: the folder /nonexistent-dir does not exist'],
  ])('%s: exit 2, before anything is read or sent', (_name, fn, message) => {
    expect(usageMessage(fn)).toBe(message);
  });

  it('--report absent is none', () => {
    expect(parseReportFile({})).toBeUndefined();
  });
});
