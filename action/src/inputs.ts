// Pure: the action's inputs (action.yml) turned into the karp-drift command line it runs, checked first so that a
// wrong input fails the step with what to change, before anything reaches a cluster.
import { parseArgsStringToArgv } from 'string-argv';
import { likelyMinor, yamlFloatNote } from '../../src/ami/minors.js';

export const ACTION_COMMANDS = ['plan', 'upgrade', 'status', 'wait', 'rollback'] as const;
export type ActionCommand = (typeof ACTION_COMMANDS)[number];

export interface ActionInputs {
  command: string;
  to: string;
  context: string;
  kubeconfig: string;
  expectCluster: string;
  /** Any other flags, as a shell would split them (quotes group, newlines separate). */
  args: string;
  /** Append the Markdown summary to the job page ($GITHUB_STEP_SUMMARY). */
  summary: boolean;
}

/** A wrong input: the step fails with this message, and karp-drift never runs. */
export class InputError extends Error {}

export interface Invocation {
  command: ActionCommand;
  /** The command line after `karp-drift`. */
  argv: string[];
  /** The same as the user wrote it: without the files the action adds (--result-file, --summary-file). */
  shown: string[];
  /** The flags that pick the cluster and the AWS account (for the post step's clean-up, which runs `pause --held`). */
  connection: string[];
  /** An upgrade in stages (--canary/--waves): the post step leaves it paused if the job ends before it does. */
  staged: boolean;
}

// Flags the inputs own: given in `args` too, one of the two would silently win.
const OWNED: Record<string, string> = {
  '--to': 'to',
  '--context': 'context',
  '--kubeconfig': 'kubeconfig',
  '--expect-cluster': 'expect-cluster',
  '--summary-file': 'summary',
  '--result-file': 'json (an output, written by the action)',
};

// Global flags that choose where karp-drift connects: the clean-up must reach the same cluster the same way.
const CONNECTION_FLAGS = ['--region', '--profile', '--request-timeout', '--lock-namespace'];
const COMMANDS_WITH_TO: readonly ActionCommand[] = ['plan', 'upgrade'];
// In a job nobody answers a prompt: `command: upgrade` is the decision, as `terraform apply -auto-approve` is.
const APPLYING: readonly ActionCommand[] = ['upgrade', 'rollback'];

const flagName = (arg: string): string => arg.split('=')[0]!;

export function invocation(inputs: ActionInputs, files: { result: string; summary?: string }): Invocation {
  const command = inputs.command.trim();
  if (!(ACTION_COMMANDS as readonly string[]).includes(command)) {
    throw new InputError(
      `input command: ${JSON.stringify(command)} is not one of ${ACTION_COMMANDS.join(', ')} (e.g. command: plan)`,
    );
  }
  const cmd = command as ActionCommand;
  const to = inputs.to.trim();
  if (COMMANDS_WITH_TO.includes(cmd) && to === '') {
    throw new InputError(
      `input to is required for command ${cmd}: the Kubernetes minor to move the nodes to, e.g. to: '1.31' (quoted, or YAML reads 1.30 as 1.3)`,
    );
  }
  const meant = likelyMinor(to);
  if (COMMANDS_WITH_TO.includes(cmd) && meant !== undefined) {
    throw new InputError(`input to: ${to} is no Kubernetes minor EKS ever ran; did you mean ${meant}? ${yamlFloatNote(meant)}`);
  }
  if (!COMMANDS_WITH_TO.includes(cmd) && to !== '') {
    throw new InputError(
      `input to does not apply to command ${cmd}: ${cmd === 'rollback' ? 'rollback restores what karp-drift recorded' : `${cmd} follows the AMIs the EC2NodeClasses select`}; remove it`,
    );
  }
  let extra: string[];
  try {
    extra = parseArgsStringToArgv(inputs.args);
  } catch (err) {
    throw new InputError(`input args cannot be split into flags: ${(err as Error).message}`);
  }
  for (const arg of extra) {
    const owner = OWNED[flagName(arg)];
    if (owner !== undefined)
      throw new InputError(`input args: ${flagName(arg)} is set by the input ${owner}; use that instead`);
  }
  const cluster = [
    ...(inputs.kubeconfig.trim() !== '' ? ['--kubeconfig', inputs.kubeconfig.trim()] : []),
    ...(inputs.context.trim() !== '' ? ['--context', inputs.context.trim()] : []),
    ...(inputs.expectCluster.trim() !== '' ? ['--expect-cluster', inputs.expectCluster.trim()] : []),
  ];
  const connection = [...cluster, ...connectionFlags(extra)];
  const shown = [
    cmd,
    ...(to !== '' ? ['--to', to] : []),
    ...cluster,
    ...(APPLYING.includes(cmd) && !extra.some((a) => a === '--yes' || a === '-y') ? ['--yes'] : []),
    ...extra,
  ];
  const written = [
    '--result-file',
    files.result,
    ...(inputs.summary && files.summary !== undefined ? ['--summary-file', files.summary] : []),
  ];
  const staged = cmd === 'upgrade' && extra.some((a) => ['--canary', '--waves'].includes(flagName(a)));
  return { command: cmd, argv: [...shown, ...written], shown, connection, staged };
}

/** The connection flags among `args`, with their values (`--region x` or `--region=x`). */
function connectionFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!CONNECTION_FLAGS.includes(flagName(arg))) continue;
    if (arg.includes('=')) out.push(arg);
    else if (i + 1 < args.length) out.push(arg, args[++i]!);
  }
  return out;
}
