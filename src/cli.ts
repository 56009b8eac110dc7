// Commander wiring: flags -> parsed options -> a lazily imported command (STYLE.md "Commands").
// Nothing here may import the Kubernetes client, the AWS SDK or zod: `--help` and `--version` must stay fast.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, KarpDriftError } from './errors.js';
import type { GlobalOptions, Io } from './io.js';

/** What every command receives besides its own options. */
export interface CommandContext {
  globals: GlobalOptions;
  io: Io;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

export interface RunEnvironment {
  io: Io;
  env: NodeJS.ProcessEnv;
  stdoutIsTTY: boolean;
  signal: AbortSignal;
  /** argv[1]'s basename, so `kubectl karp-drift` names itself that way. */
  invokedAs?: string;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(run: RunEnvironment): Command {
  const program = new Command();
  program
    .name(run.invokedAs === 'kubectl-karp_drift' ? 'kubectl karp-drift' : 'karp-drift')
    .description('Upgrade Karpenter-managed EKS worker nodes through drift: resolve EKS-optimized AMIs, pin them, apply, follow.')
    .version(version(), '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use')
    .option('--region <region>', 'AWS region (default: the SDK chain, e.g. $AWS_REGION)')
    .option('--profile <name>', 'AWS shared-config profile')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['human', 'json']).default('human'))
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option('-v, --verbose', 'log API calls and decisions to stderr')
    .option('-q, --quiet', 'print results only, no progress')
    .option('--request-timeout <duration>', 'how long one Kubernetes or AWS request may take before it fails (default 30s)')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => run.io.out(s), writeErr: (s) => run.io.err(s) });

  const context = async (cmd: Command): Promise<CommandContext> => {
    const { parseGlobalOptions } = await import('./options.js');
    return { globals: parseGlobalOptions(cmd.optsWithGlobals(), run.env, run.stdoutIsTTY), io: run.io, env: run.env, signal: run.signal };
  };

  program
    .command('amis')
    .description('Resolve EKS-optimized AMI IDs from SSM public parameters and verify them in EC2')
    .requiredOption('--to <minor>', 'Kubernetes minor version, e.g. 1.31')
    .option('--family <list>', 'al2, al2023, bottlerocket, windows2019, windows2022, windows2025; a comma list or all (default: al2023)')
    .option('--arch <list>', 'amd64, arm64; a comma list or all (default: all)')
    .option('--variant <list>', 'standard, nvidia, neuron; a comma list or all (default: standard)')
    .option('--release <release>', 'latest, or a pinned AMI release: vYYYYMMDD (AL2, AL2023), X.Y.Z (Bottlerocket)', 'latest')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseAmisOptions }, { amis }] = await Promise.all([import('./options.js'), import('./commands/amis.js')]);
      await amis(parseAmisOptions(flags), ctx);
    });

  program
    .command('render')
    .description('Render an EC2NodeClass and a NodePool with pinned amiSelectorTerms (multi-document YAML on stdout)')
    .requiredOption('--to <minor>', 'Kubernetes minor version, e.g. 1.31')
    .requiredOption('--cluster-name <name>', 'EKS cluster name (selects subnets and security groups tagged karpenter.sh/discovery)')
    .requiredOption('--role <iam-role>', 'IAM role name of the nodes')
    .option('--family <family>', 'AMI family: al2, al2023, bottlerocket, windows2019, windows2022, windows2025', 'al2023')
    .addOption(new Option('--pin <form>', 'id: one id term per architecture; alias: family@release').choices(['id', 'alias']).default('id'))
    .option('--release <release>', 'AMI release to pin: latest (the newest concrete release, never @latest), vYYYYMMDD, or X.Y.Z for Bottlerocket', 'latest')
    .option('--templates <dir>', 'directory holding your own ec2nodeclass.yaml and nodepool.yaml')
    .option('--name <name>', 'name of both objects', 'default')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseRenderOptions }, { render }] = await Promise.all([import('./options.js'), import('./commands/render.js')]);
      await render(parseRenderOptions(flags), ctx);
    });

  // --nodeclass may be given several times.
  const repeated = (v: string, acc: string[] = []) => [...acc, v];
  const planFlags = (cmd: Command) =>
    cmd
      .requiredOption('--to <minor>', 'Kubernetes minor of the target AMIs, e.g. 1.30 (not newer than the control plane)')
      .option('--nodeclass <name>', 'an EC2NodeClass to upgrade (repeatable; default: all)', repeated)
      .option('--release <release>', 'AMI release: latest (the newest concrete release), vYYYYMMDD, or X.Y.Z for Bottlerocket', 'latest')
      .addOption(new Option('--pin <form>', 'id: one id term per architecture and variant, plus amiFamily; alias: family@release').choices(['id', 'alias']).default('id'))
      .option('--allow-downgrade', 'let --to take nodes to an older Kubernetes minor than they run')
      .option('--allow-deprecated', 'pin an AMI release that EC2 already marks deprecated')
      .option('--replace-custom-amis', 'replace a class\'s custom (not EKS-optimized) AMIs with EKS-optimized ones');

  planFlags(program.command('plan').description('Show what upgrade would change and replace, with preflight checks; changes nothing')).action(
    async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parsePlanOptions }, { planCommand }] = await Promise.all([import('./options.js'), import('./commands/plan.js')]);
      await planCommand(parsePlanOptions(flags), ctx);
    },
  );

  // What upgrade and rollback share: they apply, then follow the rollout.
  const applyFlags = (cmd: Command) =>
    cmd
      .option('-y, --yes', 'apply without asking (required without a terminal)')
      .option('--dry-run', 'send the apply with dryRun=All: the API server validates it, nothing changes')
      .option('--no-wait', 'exit after the apply instead of following the rollout')
      .option('--timeout <duration>', 'give up following after this long (exit 5)', '60m')
      .option('--stall-timeout <duration>', 'no progress for this long is a stall (exit 4, with the diagnosis)', '15m');

  applyFlags(planFlags(program.command('upgrade').description('Pin the target AMIs and follow Karpenter drift replacement to completion')))
    .option('--force-conflicts', 'take amiSelectorTerms from a GitOps/IaC field manager (it may put the old value back)')
    .option('--templates <dir>', 'render these ec2nodeclass.yaml and nodepool.yaml (or, with no --templates but --cluster-name, the bundled ones) and apply them whole')
    .option('--cluster-name <name>', 'with --templates: the karpenter.sh/discovery tag value')
    .option('--role <iam-role>', 'with --templates: the node IAM role')
    .option('--family <family>', 'with --templates: the AMI family (default al2023)')
    .option('--name <name>', 'with --templates: the name of both objects (default default)')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseUpgradeOptions }, { upgrade }] = await Promise.all([import('./options.js'), import('./commands/upgrade.js')]);
      await upgrade(parseUpgradeOptions(flags), ctx);
    });

  applyFlags(
    program
      .command('rollback')
      .description('Restore the AMI selection the last upgrade recorded, and follow the nodes back')
      .option('--nodeclass <name>', 'an EC2NodeClass to roll back (repeatable; default: every class an upgrade recorded)', repeated),
  ).action(async (flags: Record<string, unknown>, cmd: Command) => {
    const ctx = await context(cmd);
    const [{ parseRollbackOptions }, { rollback }] = await Promise.all([import('./options.js'), import('./commands/rollback.js')]);
    await rollback(parseRollbackOptions(flags), ctx);
  });

  program
    .command('status')
    .description('Show each NodePool: nodes by kubelet version and AMI, drift and disruption counts, blockers')
    .option('--nodeclass <name>', 'only the NodePools of this EC2NodeClass (repeatable)', repeated)
    .option('-w, --watch', 'keep it live until interrupted')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseStatusOptions }, { status }] = await Promise.all([import('./options.js'), import('./commands/status.js')]);
      await status(parseStatusOptions(flags), ctx);
    });

  program
    .command('pause')
    .description('Hold Drifted disruption on NodePools now (recorded on them, reversible with resume)')
    .option('--nodepool <name>', 'a NodePool to hold (repeatable; default: every NodePool)', repeated)
    .option('--hold-with <how>', 'auto (a budget, or node holds where GitOps/IaC owns the budgets), budget or node', 'auto')
    .option('--force-conflicts', 'with --hold-with budget: write the budget even where a GitOps/IaC tool owns the budgets')
    .option('--lock-namespace <ns>', 'namespace of the cluster lock (Lease karp-drift)', 'kube-system')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parsePauseOptions }, { pause }] = await Promise.all([import('./stage-options.js'), import('./commands/pause.js')]);
      await pause(parsePauseOptions(flags), ctx);
    });

  program
    .command('resume')
    .description("Release karp-drift's drift holds, restoring each NodePool's own budgets exactly")
    .option('--nodepool <name>', 'a NodePool to release (repeatable; default: every NodePool karp-drift holds)', repeated)
    .option('--lock-namespace <ns>', 'namespace of the cluster lock (Lease karp-drift)', 'kube-system')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseResumeOptions }, { resume }] = await Promise.all([import('./stage-options.js'), import('./commands/resume.js')]);
      await resume(parseResumeOptions(flags), ctx);
    });

  program
    .command('demo')
    .description('Run the main job on the embedded sandbox: upgrade a simulated EKS cluster with Karpenter')
    .option('--scenario <name|file>', 'sandbox scenario', 'default')
    .option('--speed <n>', 'simulated seconds per real second (default 120)')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseSandboxOptions }, { demo }] = await Promise.all([import('./options.js'), import('./commands/demo.js')]);
      const o = parseSandboxOptions(flags);
      await demo({ scenario: o.scenario, ...(o.speed !== undefined ? { speed: o.speed } : {}) }, ctx);
    });

  program
    .command('sandbox')
    .description('Run a simulated EKS cluster with Karpenter locally (API server, SSM/EC2 endpoints, drift simulator) until interrupted')
    .option('--scenario <name|file>', 'a built-in scenario or a scenario YAML file', 'default')
    .option('--speed <n>', 'simulated seconds per real second (default: the scenario\'s, usually 60)')
    .option('--port <n>', 'API server port on 127.0.0.1 (default: a free port)')
    .option('--env-out <path>', 'also write the export lines to this file, for scripts')
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await context(cmd);
      const [{ parseSandboxOptions }, { sandbox }] = await Promise.all([import('./options.js'), import('./commands/sandbox.js')]);
      // --kubeconfig is global: here it is where the sandbox writes its kubeconfig.
      await sandbox(parseSandboxOptions({ ...flags, kubeconfig: ctx.globals.kubeconfig }), ctx);
    });

  return program;
}

function printError(io: Io, err: KarpDriftError, verbose: boolean): void {
  io.err(`error: ${err.message}\n`);
  if (err.hint) io.err(`  next: ${err.hint}\n`);
  if (verbose && err.cause instanceof Error) io.err(`  cause: ${err.cause.message}\n`);
}

/** Runs the CLI and returns the exit code; never exits the process itself. */
export async function runCli(argv: string[], run: RunEnvironment): Promise<ExitCode> {
  const program = buildProgram(run);
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.Success;
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      return ok ? ExitCode.Success : ExitCode.Usage;
    }
    if (err instanceof KarpDriftError) {
      printError(run.io, err, verbose);
      return err.exitCode;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    run.io.err(`internal error (a bug in karp-drift; please report it with this output):\n${e.stack ?? e.message}\n`);
    return ExitCode.Internal;
  }
}
