// Strings in, typed options out: the pure parsing behind every command's flags (STYLE.md "Commands").
// Imported lazily from cli/program.ts so that `--help` loads neither zod nor anything heavier.
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used (scripts/build.mjs)
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseFlagDuration } from './durations.js';
import { issueWords } from '../text/issues.js';
import { AMI_FAMILIES, ARCHES, VARIANTS } from '../ami/families.js';
import { parseExpectedCluster } from '../cluster/expected-cluster.js';
import type { GlobalOptions, OutputFormat } from '../commands/context.js';
import { FIRST_EKS_MINOR, preEksMinor, yamlFloatNote } from '../ami/minors.js';
import type { KubernetesMinor } from '../ami/select.js';
import type {
  AmisOptions,
  ApplyOptions,
  DemoOptions,
  HistoryOptions,
  PlanOptions,
  RenderOptions,
  RollbackOptions,
  SandboxCommandOptions,
  StatusOptions,
  UpgradeOptions,
  UpgradeTemplates,
  WaitOptions,
} from '../commands/options.js';

/** kubectl's --request-timeout has no default (0 = wait forever); a tool that must never hang needs one. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const MINOR_FORMS = 'accepted forms: 1.31, v1.31, or 1.31.4 (AMIs are published per minor)';

export function parseKubernetesMinor(value: string, flag = '--to'): KubernetesMinor {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m || m[1] !== '1') {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a Kubernetes version; ${MINOR_FORMS}`);
  }
  const version = `1.${Number(m[2])}`;
  const old = preEksMinor(value);
  if (old !== undefined) {
    throw new UsageError(`${flag} ${value}: EKS never ran Kubernetes ${old.minor} (it began with 1.${FIRST_EKS_MINOR}), so no EKS-optimized AMI exists for it`, {
      hint: old.meant
        ? `did you mean ${flag} ${old.meant}? ${yamlFloatNote(old.meant)}`
        : `give a minor EKS supports, e.g. ${flag} 1.31 (${MINOR_FORMS})`,
    });
  }
  if (m[3] !== undefined) {
    return { version, note: `${flag} ${value}: EKS-optimized AMIs are published per minor; using ${version}` };
  }
  return { version };
}

/** One value, a comma list, or `all`. */
export function parseChoiceList<T extends string>(
  value: string,
  allowed: readonly T[],
  flag: string,
): { values: T[]; all: boolean } {
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length === 1 && items[0] === 'all') return { values: [...allowed], all: true };
  if (items.length === 0)
    throw new UsageError(`${flag} is empty; expected one of ${allowed.join(', ')}, a comma list, or all`);
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      const hint = item === 'x86_64' ? ' (architectures use Kubernetes names: amd64, arm64)' : '';
      throw new UsageError(
        `${flag} ${JSON.stringify(item)} is not valid${hint}; expected one of ${allowed.join(', ')}, a comma list, or all`,
      );
    }
  }
  return { values: [...new Set(items)] as T[], all: false };
}

/**
 * Releases as the versioned SSM paths name them: vYYYYMMDD (AL2, AL2023) or X.Y.Z (Bottlerocket, `v` optional); or
 * `latest~N`, N releases behind the newest per family (ami/release-policy.ts). `latest~0` is `latest`.
 */
export function parseRelease(value: string): string {
  const text = value.trim();
  if (text === 'latest') return 'latest';
  const behind = /^latest~(\d+)$/.exec(text);
  if (behind) return Number(behind[1]) === 0 ? 'latest' : `latest~${Number(behind[1])}`;
  if (/^v?\d{8}$/.test(text)) return text.startsWith('v') ? text : `v${text}`;
  if (/^v?\d+\.\d+\.\d+$/.test(text)) return text.replace(/^v/, '');
  throw new UsageError(
    `--release ${JSON.stringify(value)} is not an AMI release; use latest, latest~N (N releases behind the newest, e.g. latest~1), vYYYYMMDD (AL2, AL2023, e.g. v20241109) or X.Y.Z (Bottlerocket, e.g. 1.26.1)`,
  );
}

/**
 * `--min-age`: a duration as every duration flag takes it (`7d`, `36h`, `1d12h`); 0 is no minimum, as if left out. The
 * text is kept for the messages and the plan that name the policy.
 */
export function parseMinAge(value: string): { text: string; ms: number } | undefined {
  const ms = parseFlagDuration(value, '--min-age');
  return ms === 0 ? undefined : { text: value.trim(), ms };
}

/** --min-age chooses among the releases SSM lists: it has nothing to choose from once --release names one. */
function requirePolicyRelease(release: string, minAge: { text: string } | undefined): void {
  if (minAge === undefined || release === 'latest' || release.startsWith('latest~')) return;
  throw new UsageError(`--min-age ${minAge.text} cannot go with --release ${release}: it chooses among the releases SSM lists, and --release names one`, {
    hint: `drop --release to take the newest release at least ${minAge.text} old, or drop --min-age to pin ${release}`,
  });
}

// Each flag parser throws UsageError; it rides on a zod issue (hint and all) so one schema reports the first bad flag.
function flag<T>(parse: (v: string) => T) {
  return z.string().transform((v, ctx) => {
    try {
      return parse(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err), params: { error: err } });
      return z.NEVER;
    }
  });
}

/** `summaryFile` → `--summary-file`: the flag commander camel-cased into the key. */
const flagOf = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

// An empty value is nearly always a shell variable that is not set (`--summary-file "$GITHUB_STEP_SUMMARY"` outside a
// job): say so, and what the flag wants, rather than how the value fails a check.
const EMPTY_VALUES: Record<string, { cause?: string; give: string }> = {
  '--summary-file': {
    cause: 'is $GITHUB_STEP_SUMMARY unset? GitHub Actions sets it only inside a job step',
    give: 'pass the file to append the summary to, or leave --summary-file out',
  },
  '--result-file': { give: 'pass the file to write the result to (e.g. "$RUNNER_TEMP/karp-drift.json"), or leave --result-file out' },
  '--kubeconfig': { give: 'pass the kubeconfig file, or leave --kubeconfig out to use $KUBECONFIG or ~/.kube/config' },
  '--context': { give: 'pass a context of the kubeconfig (kubectl config get-contexts), or leave --context out for its current one' },
  '--region': { give: 'pass an AWS region (e.g. us-west-2), or leave --region out for the SDK chain\'s ($AWS_REGION, the profile)' },
  '--profile': { give: 'pass a profile of ~/.aws/config, or leave --profile out' },
  '--to': { give: 'pass the Kubernetes minor to move the nodes to, e.g. --to 1.31' },
  '--amis-file': { give: 'pass the file `amis -o json` or `plan -o json` wrote where the AMIs were tested' },
  '--from-context': { give: 'pass the kubeconfig context of the cluster the AMIs were tested in (e.g. staging)' },
  '--from-kubeconfig': { give: 'pass the kubeconfig that reaches the cluster the AMIs were tested in' },
  '--templates': { give: 'pass the folder with ec2nodeclass.yaml and nodepool.yaml, or leave --templates out for the bundled ones' },
  '--cluster-name': { give: 'pass the cluster name the subnets and security groups are tagged with (karpenter.sh/discovery)' },
  '--role': { give: 'pass the IAM role of the nodes (e.g. KarpenterNodeRole-prod)' },
  '--expect-cluster': { give: 'pass the EKS cluster name or ARN the context must reach, or leave --expect-cluster out' },
  '--html': { give: 'pass the file to write the run\'s page to (e.g. run.html), or leave --html out' },
  '--report': { give: 'pass the file to write the run\'s page to (e.g. "$RUNNER_TEMP/karp-drift.html"), or leave --report out' },
};

/** `--summary-file ""`: the flag, the likely cause, and what it wants. */
function emptyValue(flag: string): UsageError {
  const known = EMPTY_VALUES[flag];
  const cause = known?.cause ?? 'is the shell variable you passed unset?';
  return new UsageError(`${flag} is empty (${cause})`, { hint: known?.give ?? `pass a value, or leave ${flag} out` });
}

/** The first flag given an empty value (a repeatable flag's values too), if any. */
function firstEmpty(flags: unknown): string | undefined {
  if (flags == null || typeof flags !== 'object') return undefined;
  const blank = (v: unknown) => typeof v === 'string' && v.trim() === '';
  const found = Object.entries(flags).find(([, v]) => blank(v) || (Array.isArray(v) && v.some(blank)));
  return found && flagOf(found[0]);
}

/**
 * Flags in, typed options out, every refusal in the CLI's words: a flag's own parser says what it expects, an empty
 * value is reported as the unset variable it most likely is, and what zod finds is worded by text/issues.ts after the
 * flag's name (never zod's "Too small: expected string to have >=1 characters").
 */
export function parseWith<S extends z.ZodType>(schema: S, flags: unknown): z.output<S> {
  const empty = firstEmpty(flags);
  if (empty !== undefined) throw emptyValue(empty);
  const result = schema.safeParse(flags, { error: (issue) => issueWords(issue) });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const original = issue.code === 'custom' ? (issue.params as { error?: unknown } | undefined)?.error : undefined;
    if (original instanceof UsageError) throw original;
    if (issue.code === 'custom' || /^-/.test(issue.message)) throw new UsageError(issue.message);
    const key = issue.path[0];
    const value = typeof key === 'string' ? (flags as Record<string, unknown>)[key] : undefined;
    const where = typeof key === 'string' ? flagOf(key) : 'a flag';
    throw new UsageError(`${where}${typeof value === 'string' ? ` ${JSON.stringify(value)}` : ''} ${issue.message}`);
  }
  return result.data;
}

/** --summary-file and --result-file must be writable where they are: checked before the command does anything (exit 2, nothing changed). */
function outputFileProblem(flag: string, path: string, example: string): void {
  const folder = dirname(resolve(path));
  if (!existsSync(folder)) {
    throw new UsageError(`${flag} ${path}: the folder ${folder} does not exist`, {
      hint: `create it first, or give a file in an existing folder (${example})`,
    });
  }
  if (existsSync(path) && statSync(path).isDirectory()) {
    const what = flag === '--summary-file' ? 'the summary is appended to it' : flag === '--result-file' ? 'the result is written to it' : 'the page is written to it';
    throw new UsageError(`${flag} ${path} is a folder`, { hint: `give a file path; ${what}` });
  }
}

export function parseGlobalOptions(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  stdoutIsTTY: boolean,
): GlobalOptions {
  const schema = z.object({
    kubeconfig: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    region: z.string().min(1).optional(),
    profile: z.string().min(1).optional(),
    output: z
      .enum(['human', 'json', 'wide'] satisfies Array<OutputFormat | 'wide'>, {
        message: '-o/--output must be human, wide or json',
      })
      .default('human'),
    color: z.boolean().default(true),
    verbose: z.boolean().default(false),
    quiet: z.boolean().default(false),
    requestTimeout: flag((v) => parseFlagDuration(v, '--request-timeout')).optional(),
    expectCluster: flag(parseExpectedCluster).optional(),
    summaryFile: z.string().min(1).optional(),
    resultFile: z.string().min(1).optional(),
  });
  const { requestTimeout, output: format, ...rest } = parseWith(schema, flags);
  // kubectl's `-o wide`: human output with more columns (status); commands without wider columns print as for human.
  const g = {
    ...rest,
    output: format === 'wide' ? ('human' as const) : format,
    ...(format === 'wide' ? { wide: true } : {}),
  };
  if (g.verbose && g.quiet) throw new UsageError('-v/--verbose and -q/--quiet cannot be used together');
  if (g.summaryFile !== undefined) outputFileProblem('--summary-file', g.summaryFile, 'in GitHub Actions: --summary-file "$GITHUB_STEP_SUMMARY"');
  if (g.resultFile !== undefined) outputFileProblem('--result-file', g.resultFile, 'e.g. --result-file "$RUNNER_TEMP/karp-drift.json"');
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return {
    ...g,
    color: g.color && !noColorEnv && stdoutIsTTY && g.output === 'human',
    requestTimeoutMs: requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
}

export function parseAmisOptions(flags: Record<string, unknown>): AmisOptions {
  const schema = z.object({
    to: flag((v) => parseKubernetesMinor(v)),
    family: flag((v) => parseChoiceList(v, AMI_FAMILIES, '--family')).default({ values: ['al2023'], all: false }),
    arch: flag((v) => parseChoiceList(v, ARCHES, '--arch')).default({ values: ['amd64', 'arm64'], all: true }),
    variant: flag((v) => parseChoiceList(v, VARIANTS, '--variant')).default({ values: ['standard'], all: false }),
    release: flag(parseRelease).default('latest'),
    minAge: flag(parseMinAge).optional(),
  });
  const o = parseWith(schema, flags);
  requirePolicyRelease(o.release, o.minAge);
  return {
    kubernetes: o.to,
    families: o.family.values,
    arches: o.arch.values,
    variants: o.variant.values,
    expand: { families: o.family.all, arches: o.arch.all, variants: o.variant.all },
    release: o.release,
    ...(o.minAge !== undefined ? { minAge: o.minAge } : {}),
  };
}

// Kubernetes object names (DNS-1123 subdomain), as the API server would check them.
export const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function parseRenderOptions(flags: Record<string, unknown>): RenderOptions {
  const schema = z.object({
    to: flag((v) => parseKubernetesMinor(v)),
    clusterName: z.string().min(1, '--cluster-name is empty'),
    role: z.string().min(1, '--role is empty'),
    family: flag((v) => {
      const list = parseChoiceList(v, AMI_FAMILIES, '--family');
      if (list.all || list.values.length !== 1) throw new UsageError('--family takes exactly one family for render');
      return list.values[0]!;
    }).default('al2023'),
    pin: z.enum(['id', 'alias'], { message: '--pin must be id or alias' }).default('id'),
    release: flag(parseRelease).default('latest'),
    minAge: flag(parseMinAge).optional(),
    templates: z.string().min(1).optional(),
    name: z
      .string()
      .max(63, '--name must be at most 63 characters')
      .regex(DNS1123, '--name must be a lowercase DNS-1123 name (a-z, 0-9, -, .)')
      .default('default'),
  });
  const o = parseWith(schema, flags);
  requirePolicyRelease(o.release, o.minAge);
  return {
    kubernetes: o.to,
    clusterName: o.clusterName,
    role: o.role,
    family: o.family,
    pin: o.pin,
    release: o.release,
    ...(o.minAge !== undefined ? { minAge: o.minAge } : {}),
    templates: o.templates,
    name: o.name,
  };
}

function positiveNumber(value: unknown, flag: string, integer: boolean, max = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > max || (integer && !Number.isInteger(n))) {
    const what = integer ? `a whole number from 1 to ${max}` : 'a number greater than 0';
    throw new UsageError(
      `${flag} ${JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value))} is not valid; expected ${what}`,
    );
  }
  return n;
}

/** The demo's waits are shorter than upgrade's: its rollout plays `speed` times faster than real time. */
export function parseDemoOptions(flags: Record<string, unknown>): DemoOptions {
  const { scenario, speed } = parseSandboxOptions(flags);
  const { timeoutMs, stallTimeoutMs } = parseApplyOptions({
    timeout: '10m',
    stallTimeout: '2m',
    ...definedOnly(flags),
  });
  const upgradeTo = (minor: string) => parseUpgradeOptions({ to: minor, yes: true });
  return { scenario, ...(speed !== undefined ? { speed } : {}), timeoutMs, stallTimeoutMs, upgradeTo };
}

const definedOnly = (flags: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));

/**
 * Global options that mean nothing to a sandbox: it reaches no cluster and no AWS account (it is one), so taking them
 * silently would let a user believe they did something.
 */
const SANDBOX_UNUSED_GLOBALS = [
  ['region', '--region', 'its simulated AWS endpoints are always in us-west-2'],
  ['profile', '--profile', 'its AWS endpoints take the dummy credentials it prints'],
  ['expectCluster', '--expect-cluster', 'it is the cluster; the commands run against it take --expect-cluster'],
  ['requestTimeout', '--request-timeout', 'it makes no requests; the commands run against it take --request-timeout'],
] as const;

/**
 * `karp-drift sandbox`: the scenario stays a string here; the sandbox resolves built-in names and files. `globals`:
 * the global flags as given, to refuse those a sandbox does not use.
 */
export function parseSandboxOptions(flags: Record<string, unknown>, globals: Record<string, unknown> = {}): SandboxCommandOptions {
  const unused = SANDBOX_UNUSED_GLOBALS.find(([key]) => globals[key] !== undefined);
  if (unused) throw new UsageError(`sandbox takes no ${unused[1]}: ${unused[2]}`, { hint: `leave ${unused[1]} out` });
  const scenario = typeof flags.scenario === 'string' && flags.scenario.trim() ? flags.scenario.trim() : 'default';
  const context = typeof flags.context === 'string' ? flags.context : undefined;
  if (context !== undefined && !/^[^\s]+$/.test(context)) {
    throw new UsageError(`--context ${JSON.stringify(context)}: a context name for the sandbox's kubeconfig cannot be empty or contain spaces`, {
      hint: 'name it as you will pass it to --context later, e.g. --context staging',
    });
  }
  return {
    scenario,
    speed: positiveNumber(flags.speed, '--speed', false),
    port: positiveNumber(flags.port, '--port', true, 65535),
    ...(typeof flags.kubeconfig === 'string' ? { kubeconfig: flags.kubeconfig } : {}),
    ...(typeof flags.envOut === 'string' ? { envOut: flags.envOut } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(flags.detach === true ? { detach: true } : {}),
    ...(typeof flags.detachedLog === 'string' ? { detachedLog: flags.detachedLog } : {}),
    ...gitopsFlags(flags),
  };
}

/** --gitops-dir (resolved here: a --detach'ed sandbox runs elsewhere) and --gitops-tool, which needs it. */
function gitopsFlags(flags: Record<string, unknown>): Pick<SandboxCommandOptions, 'gitopsDir' | 'gitopsTool'> {
  const dir = typeof flags.gitopsDir === 'string' ? flags.gitopsDir.trim() : undefined;
  if (dir === '') throw new UsageError('--gitops-dir needs a directory', { hint: 'e.g. --gitops-dir ./manifests (an empty or new one is seeded with the scenario\'s GitOps-owned objects)' });
  const tool = flags.gitopsTool === 'argocd' || flags.gitopsTool === 'flux' ? flags.gitopsTool : undefined;
  if (tool !== undefined && dir === undefined) throw new UsageError('--gitops-tool goes with --gitops-dir', { hint: 'name the directory to sync: --gitops-dir <dir>' });
  return { ...(dir !== undefined ? { gitopsDir: resolve(dir) } : {}), ...(tool !== undefined ? { gitopsTool: tool } : {}) };
}

/** A repeatable flag of object names (`--nodeclass`, `--nodepool`, `--canary`): each a DNS-1123 name, each once. */
export const objectNames = (flag: string, kind: string) =>
  z
    .array(z.string())
    .default([])
    .transform((names, ctx) => {
      const bad = names.find((n) => !DNS1123.test(n));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `${flag} ${JSON.stringify(bad)} is not ${kind} name (a lowercase DNS-1123 name)`,
        });
        return z.NEVER;
      }
      return [...new Set(names)];
    });
const nodeClassNames = objectNames('--nodeclass', 'an EC2NodeClass');

const planFlags = {
  to: flag((v) => parseKubernetesMinor(v)),
  nodeclass: nodeClassNames,
  release: flag(parseRelease).default('latest'),
  minAge: flag(parseMinAge).optional(),
  pin: z.enum(['id', 'alias', 'name'], { message: '--pin must be id, alias or name' }).default('id'),
  allowDowngrade: z.boolean().default(false),
  allowDeprecated: z.boolean().default(false),
  replaceCustomAmis: z.boolean().default(false),
  forceConflicts: z.boolean().default(false),
  amisFile: z.string().optional(),
  fromContext: z.string().optional(),
  fromKubeconfig: z.string().optional(),
  applyBy: z.enum(['karp-drift', 'git'], { message: '--apply-by must be karp-drift or git' }).default('karp-drift'),
};

export function parsePlanOptions(flags: Record<string, unknown>): PlanOptions {
  const o = parseWith(z.object(planFlags), flags);
  // The file names the release: a second source of truth for it could only disagree.
  if (o.amisFile !== undefined && o.release !== 'latest') {
    throw new UsageError(`--release ${o.release} cannot go with --amis-file: the file records the releases to pin`, {
      hint: `drop --release to pin what ${o.amisFile} records, or drop --amis-file to resolve --release from SSM`,
    });
  }
  // Promotion pins exactly what was tested: a policy applied again here could only choose something else.
  if (o.amisFile !== undefined && o.minAge !== undefined) {
    throw new UsageError(`--min-age ${o.minAge.text} cannot go with --amis-file: the file records the releases to pin`, {
      hint: `drop --min-age to pin what ${o.amisFile} records (apply the policy where the file is written: amis --min-age ${o.minAge.text} -o json)`,
    });
  }
  requirePolicyRelease(o.release, o.minAge);
  const fromCluster = parseFromCluster(o);
  return {
    kubernetes: o.to,
    nodeClasses: o.nodeclass,
    release: o.release,
    ...(o.minAge !== undefined ? { minAge: o.minAge } : {}),
    pin: o.pin,
    ...(o.allowDowngrade ? { allowDowngrade: true } : {}),
    ...(o.allowDeprecated ? { allowDeprecated: true } : {}),
    ...(o.replaceCustomAmis ? { replaceCustomAmis: true } : {}),
    ...(o.forceConflicts ? { forceConflicts: true } : {}),
    ...(o.amisFile !== undefined ? { amisFile: o.amisFile } : {}),
    ...(fromCluster ? { fromCluster } : {}),
    ...(o.applyBy === 'git' ? { applyBy: 'git' as const } : {}),
  };
}

// --from-context is the direct-read sibling of --amis-file: the same one source of truth for the releases.
function parseFromCluster(o: {
  fromContext?: string;
  fromKubeconfig?: string;
  amisFile?: string;
  release: string;
  minAge?: { text: string };
}): PlanOptions['fromCluster'] {
  const { fromContext: context, fromKubeconfig: kubeconfig } = o;
  if (context === undefined && kubeconfig === undefined) return undefined;
  const flag = context !== undefined ? `--from-context ${context}` : `--from-kubeconfig ${kubeconfig}`;
  if (o.amisFile !== undefined) {
    throw new UsageError(`${flag} cannot go with --amis-file: both name the AMIs to promote`, {
      hint: 'promote from one place: the cluster where the AMIs were tested (--from-context), or the file written there (--amis-file)',
    });
  }
  if (o.release !== 'latest') {
    throw new UsageError(`--release ${o.release} cannot go with ${flag}: the releases to pin are the ones its nodes run`, {
      hint: `drop --release to pin what the source runs, or drop ${flag.split(' ')[0]} to resolve --release from SSM`,
    });
  }
  if (o.minAge !== undefined) {
    throw new UsageError(`--min-age ${o.minAge.text} cannot go with ${flag}: the releases to pin are the ones its nodes run`, {
      hint: `drop --min-age to pin what the source runs, or drop ${flag.split(' ')[0]} to choose a release from SSM`,
    });
  }
  return { ...(context !== undefined ? { context } : {}), ...(kubeconfig !== undefined ? { kubeconfig } : {}) };
}

const applyFlags = {
  yes: z.boolean().default(false),
  dryRun: z.boolean().default(false),
  // commander's --no-wait sets wait: false.
  wait: z.boolean().default(true),
  timeout: flag((v) => parseFlagDuration(v, '--timeout')),
  stallTimeout: flag((v) => parseFlagDuration(v, '--stall-timeout')),
};

// The duration defaults apply to flags left out; commander reports those as undefined.
function parseApplyOptions(flags: Record<string, unknown>): ApplyOptions {
  const given = definedOnly(flags);
  const o = parseWith(z.object(applyFlags), { timeout: '60m', stallTimeout: '15m', ...given });
  return { yes: o.yes, dryRun: o.dryRun, wait: o.wait, timeoutMs: o.timeout, stallTimeoutMs: o.stallTimeout };
}

export function parseUpgradeOptions(flags: Record<string, unknown>): UpgradeOptions {
  const plan = parsePlanOptions(flags);
  const apply = parseApplyOptions(flags);
  const templates = parseUpgradeTemplates(flags);
  return {
    ...(templates ? { templates } : {}),
    ...plan,
    ...apply,
    forceConflicts: plan.forceConflicts ?? false,
    ...(flags.resumeHalted === true ? { resumeHalted: true } : {}),
    ...parseApplyByGit(plan, apply, flags),
  };
}

/** How long `upgrade --apply-by git` waits for the planned terms to arrive, unless --sync-timeout says. */
export const SYNC_TIMEOUT = '1h';

/**
 * --apply-by git: the run writes its holds, says what to merge and waits (--sync-timeout) for the sync; it applies
 * nothing, so the flags that are about the apply cannot go with it.
 */
function parseApplyByGit(plan: PlanOptions, apply: ApplyOptions, flags: Record<string, unknown>): Pick<UpgradeOptions, 'syncTimeoutMs'> {
  const given = flags.syncTimeout;
  if (plan.applyBy !== 'git') {
    if (given !== undefined)
      throw new UsageError('--sync-timeout goes with --apply-by git: it bounds the wait for the sync that applies the change', { hint: 'add --apply-by git, or drop --sync-timeout' });
    return {};
  }
  const refused = (
    [
      [apply.dryRun, '--dry-run', 'it has the API server validate the EC2NodeClass apply, and --apply-by git sends none', 'preview the run with plan --apply-by git'],
      [!apply.wait, '--no-wait', 'the run waits for the sync and then paces the rollout it starts', 'drop --no-wait; a run that ends early leaves the rollout held, and the same command goes on'],
      [flags.templates !== undefined || flags.clusterName !== undefined, '--templates', 'it applies rendered objects whole', 'render them into the files Git applies instead (karp-drift render), then upgrade --apply-by git'],
      [
        Array.isArray(flags.window) && flags.window.length > 0,
        '--window',
        'upgrade windows are budgets on the NodePools, which belong in the files Git applies',
        "write them there with karp-drift pin --window '<cron>/<duration>' <paths> (Karpenter then keeps drift to the windows whatever runs), and drop --window here",
      ],
      [
        flags.onFailure === 'rollback',
        '--on-failure rollback',
        'going back is a revert in Git, which a person merges',
        'leave --on-failure at pause (a halt holds every NodePool); then karp-drift rollback says what to revert and follows the nodes back once it is synced',
      ],
    ] as const
  ).find(([on]) => on);
  if (refused !== undefined) throw new UsageError(`${refused[1]} cannot go with --apply-by git: ${refused[2]}`, { hint: refused[3] });
  const ms = parseWith(z.object({ syncTimeout: flag((v) => parseFlagDuration(v, '--sync-timeout')) }), { syncTimeout: given ?? SYNC_TIMEOUT }).syncTimeout;
  return { syncTimeoutMs: ms };
}

export function parseStatusOptions(flags: Record<string, unknown>, lockNamespace: string): StatusOptions {
  const o = parseWith(z.object({ nodeclass: nodeClassNames, watch: z.boolean().default(false) }), {
    nodeclass: flags.nodeclass,
    watch: flags.watch,
  });
  return { nodeClasses: o.nodeclass, watch: o.watch, lockNamespace };
}

/** `history [run] [--html <file>]`: the file checked as --summary-file is, before anything is read. */
export function parseHistoryOptions(run: unknown, flags: Record<string, unknown>, lockNamespace: string): HistoryOptions {
  const o = parseWith(z.object({ run: z.string().min(1).optional(), html: z.string().min(1).optional() }), { run, html: flags.html });
  if (o.html !== undefined) {
    if (o.run === undefined)
      throw new UsageError('--html draws one run: name it', { hint: 'karp-drift history lists the runs; then karp-drift history <run> --html run.html' });
    outputFileProblem('--html', o.html, 'e.g. --html run.html');
  }
  return { ...(o.run !== undefined ? { run: o.run } : {}), ...(o.html !== undefined ? { html: o.html } : {}), lockNamespace };
}

/** `upgrade --report <file>`: where the run's page goes when it ends, checked before anything is sent (exit 2). */
export function parseReportFile(flags: Record<string, unknown>): string | undefined {
  const { report } = parseWith(z.object({ report: z.string().min(1).optional() }), { report: flags.report });
  if (report !== undefined) outputFileProblem('--report', report, 'e.g. --report "$RUNNER_TEMP/karp-drift.html"');
  return report;
}

/** `wait`: the follow's clocks as upgrade parses them; the lock's namespace comes from cli/stage-options.ts. */
export function parseWaitOptions(flags: Record<string, unknown>, lockNamespace: string): WaitOptions {
  const { nodeclass } = parseWith(z.object({ nodeclass: nodeClassNames }), { nodeclass: flags.nodeclass });
  const { timeoutMs, stallTimeoutMs } = parseApplyOptions({ timeout: flags.timeout, stallTimeout: flags.stallTimeout });
  return { nodeClasses: nodeclass, timeoutMs, stallTimeoutMs, lockNamespace };
}

// --templates (or --cluster-name/--role, which only make sense with templates) selects the render-and-apply flow; it
// then needs what `render` needs. --templates without a directory value is not possible: commander requires one.
function parseUpgradeTemplates(flags: Record<string, unknown>): UpgradeTemplates | undefined {
  const wanted = ['templates', 'clusterName', 'role'].some((k) => flags[k] !== undefined);
  for (const [key, flag] of [['acceptTemplateDrift', '--accept-template-drift'], ['allowCreate', '--allow-create']] as const) {
    if (!wanted && flags[key] === true) {
      throw new UsageError(`${flag} applies only to upgrade --templates (the render-and-apply flow)`, {
        hint: `e.g. karp-drift upgrade --to 1.30 --templates ./karpenter --cluster-name prod --role KarpenterNodeRole-prod ${flag}`,
      });
    }
  }
  if (!wanted) return undefined;
  if (typeof flags.clusterName !== 'string' || typeof flags.role !== 'string') {
    throw new UsageError(
      'upgrade --templates needs --cluster-name and --role (the discovery tag value and the node IAM role)',
      {
        hint: 'e.g. karp-drift upgrade --to 1.30 --templates ./karpenter --cluster-name prod --role KarpenterNodeRole-prod',
      },
    );
  }
  if (flags.amisFile !== undefined) {
    throw new UsageError('--amis-file cannot go with --templates: the render-and-apply flow resolves its AMIs from SSM', {
      hint: 'pin the promoted AMIs on the live EC2NodeClasses: karp-drift upgrade --to <minor> --amis-file <path>',
    });
  }
  if (flags.fromContext !== undefined || flags.fromKubeconfig !== undefined) {
    const flag = flags.fromContext !== undefined ? '--from-context' : '--from-kubeconfig';
    throw new UsageError(`${flag} cannot go with --templates: the render-and-apply flow resolves its AMIs from SSM`, {
      hint: 'pin the promoted AMIs on the live EC2NodeClasses: karp-drift upgrade --to <minor> --from-context <context>',
    });
  }
  if ((flags.nodeclass as string[] | undefined)?.length)
    throw new UsageError(
      '--nodeclass and --templates cannot be used together: the templates name the objects (--name)',
    );
  const r = parseRenderOptions({
    to: flags.to,
    clusterName: flags.clusterName,
    role: flags.role,
    family: flags.family,
    pin: flags.pin,
    release: flags.release,
    minAge: flags.minAge,
    templates: flags.templates,
    name: flags.name,
  });
  return {
    ...(r.templates ? { dir: r.templates } : {}),
    clusterName: r.clusterName,
    role: r.role,
    family: r.family,
    name: r.name,
    acceptTemplateDrift: flags.acceptTemplateDrift === true,
    allowCreate: flags.allowCreate === true,
  };
}

export function parseRollbackOptions(flags: Record<string, unknown>): RollbackOptions {
  const { nodeclass } = parseWith(z.object({ nodeclass: nodeClassNames }), flags);
  // Only a class whose terms came from Git is waited for; the records say which, once the cluster is read.
  const syncTimeoutMs = parseWith(z.object({ syncTimeout: flag((v) => parseFlagDuration(v, '--sync-timeout')) }), { syncTimeout: flags.syncTimeout ?? SYNC_TIMEOUT }).syncTimeout;
  return { nodeClasses: nodeclass, ...parseApplyOptions(flags), ...(flags.resumeHalted === true ? { resumeHalted: true } : {}), syncTimeoutMs };
}
