// Commander wiring: flags -> parsed options -> a lazily imported command (STYLE.md "Commands").
// Nothing here may import the Kubernetes client, the AWS SDK or zod: `--help` and `--version` must stay fast.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Help, Option } from 'commander';
import { ExitCode, InterruptedError, KarpDriftError, WindowPausedError } from '../errors.js';
import type { CommandContext, Io } from '../commands/context.js';
import { packagePath } from '../package-root.js';
import type { SummaryRecord } from '../report/summary.js';
import type { RunHistory } from '../commands/run-history.js';

export type { CommandContext } from '../commands/context.js';

export interface RunEnvironment {
  io: Io;
  env: NodeJS.ProcessEnv;
  stdoutIsTTY: boolean;
  signal: AbortSignal;
  /** argv[1]'s basename, so `kubectl karp-drift` names itself that way. */
  invokedAs?: string;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Each --help ends with examples, as kubectl's do: a comment saying what, then the command as the user runs it. */
function examples(bin: string, list: Array<[what: string, args: string]>): string {
  return `\nExamples:\n${list.map(([what, args]) => `  # ${what}\n  ${bin} ${args}`).join('\n\n')}`;
}

/**
 * The built-in scenarios, one line each, for `sandbox --help`, read from scenarios/*.yaml without a YAML parser (help
 * must stay fast): each file has a top-level `summary: "…"` line (the longer `description` is printed at start).
 */
function builtInScenarios(command: Command): string {
  const dir = packagePath('scenarios');
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const rows = names.map((file) => {
    const line = /^summary:\s*(.*)$/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1]?.trim() ?? '';
    const description = line.startsWith('"') ? (JSON.parse(line) as string) : line;
    return [file.slice(0, -'.yaml'.length), description] as const;
  });
  const width = Math.max(...rows.map(([n]) => n.length));
  const help = command.createHelp();
  help.prepareContext({ helpWidth: command.configureOutput().getOutHelpWidth?.() ?? 80 });
  return `\nBuilt-in scenarios (--scenario):\n${rows.map(([n, d]) => help.formatItem(n, width, d, help)).join('\n')}`;
}

/** The options a command requires (commander's `mandatory`, which `requiredAfterUnknown` takes over). */
const REQUIRED = new WeakSet<Option>();

export function isRequired(option: Option): boolean {
  return option.mandatory || REQUIRED.has(option);
}

/**
 * Commander checks the required options before the unknown ones, so `plan --too 1.30` said `--to` was missing instead
 * of naming the typo. The required options are checked in a preAction hook instead, which runs after commander has
 * refused an unknown option with its own suggestion: `unknown option '--too' (Did you mean --to?)`.
 */
function requiredAfterUnknown(cmd: Command): void {
  const required = cmd.options.filter((o) => o.mandatory);
  if (required.length === 0) return;
  for (const o of required) {
    o.mandatory = false;
    REQUIRED.add(o);
  }
  cmd.hook('preAction', (self) => {
    const missing = required.find((o) => self.getOptionValue(o.attributeName()) === undefined);
    if (missing !== undefined)
      self.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
  });
}

/** Global options `sandbox --help` leaves out: documented as its own (--kubeconfig, --context), or refused. */
const SANDBOX_HIDDEN_GLOBALS = ['--kubeconfig', '--context', '--region', '--profile', '--request-timeout', '--expect-cluster'];

/** What a run shares between the command and runCli's end: the record it keeps for --summary-file and --result-file. */
interface Session {
  summary?: { file?: string; resultFile?: string; record: SummaryRecord };
  /** The run's record in the cluster, ended with the exit code once the command has ended (commands/run-history.ts). */
  history?: RunHistory;
}

/** The commands that leave a record of their run in the cluster (issue 37: `karp-drift history`). */
const RECORDED = new Set(['upgrade', 'rollback', 'pause', 'resume', 'wait']);

/**
 * The program. With `argv`, only the commands it names get their options: defining every option of every command
 * (about 150, each parsed and camel-cased by commander) was half of what `--help` costs, while a run needs one
 * command's. Without `argv` (tests that read the whole definition), every command is defined.
 */
export function buildProgram(run: RunEnvironment, session: Session = {}, argv?: readonly string[]): Command {
  const program = new Command();
  // Commands created but not defined: the top-level help still lists them with their `[options]`.
  const undefinedCommands = new WeakSet<Command>();
  const command = (name: string, description: string, define: (cmd: Command) => unknown) => {
    // A name may carry its arguments (`pin <paths...>`, `history [run]`): part of the name, the top-level help shows
    // them before the command is defined.
    const cmd = program.command(name).description(description);
    if (argv === undefined || argv.includes(cmd.name())) {
      define(cmd);
      requiredAfterUnknown(cmd);
    } else undefinedCommands.add(cmd);
  };
  // As a kubectl plugin (kubectl finds kubectl-karp_drift on PATH) it is run as `kubectl karp-drift`.
  const bin = run.invokedAs === 'kubectl-karp_drift' ? 'kubectl karp-drift' : 'karp-drift';
  program
    .name(bin)
    .description(
      'Upgrade Karpenter-managed EKS worker nodes through drift: resolve EKS-optimized AMIs, pin them, apply, follow.',
    )
    .version(version(), '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use')
    .option('--region <region>', 'AWS region (default: the SDK chain, e.g. $AWS_REGION)')
    .option('--profile <name>', 'AWS shared-config profile')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['human', 'wide', 'json']).default('human'))
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option('-v, --verbose', 'log API calls and decisions to stderr')
    .option('-q, --quiet', 'print results only, no progress')
    .option(
      '--request-timeout <duration>',
      'how long one Kubernetes or AWS request may take before it fails (default 30s)',
    )
    .option(
      '--summary-file <path>',
      'append a Markdown summary of the run to this file when it ends (e.g. $GITHUB_STEP_SUMMARY)',
    )
    .option(
      '--result-file <path>',
      "write the run's outcome (result, exit code, nodes replaced, blockers, error) as a JSON document to this file when it ends",
    )
    .option(
      '--expect-cluster <name|arn>',
      'commands that reach a cluster first confirm with EKS (DescribeCluster) that the context is this cluster',
    )
    .configureHelp({
      showGlobalOptions: true,
      subcommandTerm(this: Help, cmd: Command) {
        const term = Help.prototype.subcommandTerm.call(this, cmd);
        return undefinedCommands.has(cmd) ? term.replace(cmd.name(), `${cmd.name()} [options]`) : term;
      },
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => run.io.out(s), writeErr: (s) => run.io.err(s) })
    .addHelpText(
      'after',
      examples(bin, [
        ['See what upgrading the worker nodes to Kubernetes 1.30 AMIs would change; changes nothing', 'plan --to 1.30'],
        [
          'Upgrade them: the plan, a confirmation, the apply, and the drift rollout followed to the end',
          'upgrade --to 1.30',
        ],
        ['Try it all on a simulated EKS cluster with Karpenter, on this machine', 'demo'],
      ]),
    );

  const context = async (cmd: Command): Promise<CommandContext> => {
    const { parseGlobalOptions } = await import('./options.js');
    const globals = parseGlobalOptions(cmd.optsWithGlobals(), run.env, run.stdoutIsTTY);
    if (globals.summaryFile !== undefined || globals.resultFile !== undefined) {
      const { newSummaryRecord } = await import('../report/summary.js');
      session.summary = {
        ...(globals.summaryFile !== undefined ? { file: globals.summaryFile } : {}),
        ...(globals.resultFile !== undefined ? { resultFile: globals.resultFile } : {}),
        record: newSummaryRecord(cmd.name()),
      };
    }
    const commandLine = argv !== undefined ? argv.map(shellWord).join(' ') : undefined;
    // A recorded command keeps the summary record whatever the flags: its record in the cluster is built from it.
    if (session.summary === undefined && RECORDED.has(cmd.name())) session.summary = { record: await recordFor(cmd.name()) };
    const summary = session.summary?.record;
    if (summary !== undefined && RECORDED.has(cmd.name())) session.history = await historyFor(cmd, globals, summary, commandLine);
    return {
      globals,
      io: run.io,
      env: run.env,
      signal: run.signal,
      ...(summary ? { summary } : {}),
      ...(commandLine !== undefined ? { commandLine } : {}),
      ...(session.history ? { history: session.history } : {}),
    };
  };
  const recordFor = async (name: string) => (await import('../report/summary.js')).newSummaryRecord(name);
  // The run's record: beside the lock (--lock-namespace), told of each milestone the summary record keeps.
  const historyFor = async (cmd: Command, globals: CommandContext['globals'], summary: SummaryRecord, commandLine: string | undefined) => {
    const [{ RunHistory }, { logger }, { parseReportFile }] = await Promise.all([
      import('../commands/run-history.js'),
      import('../commands/context.js'),
      import('./options.js'),
    ]);
    const flags = cmd.opts();
    const reportFile = cmd.name() === 'upgrade' ? parseReportFile(flags) : undefined;
    return new RunHistory({
      summary,
      namespace: typeof flags.lockNamespace === 'string' && flags.lockNamespace !== '' ? flags.lockNamespace : 'kube-system',
      command: cmd.name(),
      commandLine: commandLine ?? cmd.name(),
      log: logger(run.io, globals),
      ...(reportFile !== undefined ? { reportFile } : {}),
    });
  };

  command('amis', 'Resolve EKS-optimized AMI IDs from SSM public parameters and verify them in EC2', (cmd) =>
    cmd
      .requiredOption('--to <minor>', 'Kubernetes minor version, e.g. 1.31')
      .option(
        '--family <list>',
        'al2, al2023, bottlerocket, windows2019, windows2022, windows2025; a comma list or all (default: al2023)',
      )
      .option('--arch <list>', 'amd64, arm64; a comma list or all (default: all)')
      .option('--variant <list>', 'standard, nvidia, neuron; a comma list or all (default: standard)')
      .option(
        '--release <release>',
        'latest, latest~N (N releases behind the newest), or a pinned AMI release: vYYYYMMDD (AL2, AL2023), X.Y.Z (Bottlerocket)',
        'latest',
      )
      .option('--min-age <duration>', 'only releases at least this old, dated by name and EC2 CreationDate: 7d, 36h, 1d12h (0: no minimum)')
      .addHelpText(
        'after',
        examples(bin, [
          ['The newest AL2023 AMIs for Kubernetes 1.31, amd64 and arm64', 'amis --to 1.31'],
          ['Bottlerocket on arm64, as JSON', 'amis --to 1.31 --family bottlerocket --arch arm64 -o json'],
          ['A pinned release', 'amis --to 1.30 --release v20241109'],
          ['One release behind the newest that is a week old', 'amis --to 1.31 --release latest~1 --min-age 7d'],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseAmisOptions }, { amis }] = await Promise.all([
          import('./options.js'),
          import('../commands/amis.js'),
        ]);
        await amis(parseAmisOptions(flags), ctx);
      }),
  );

  command(
    'render',
    'Render an EC2NodeClass and a NodePool with pinned amiSelectorTerms (multi-document YAML on stdout)',
    (cmd) =>
      cmd
        .requiredOption('--to <minor>', 'Kubernetes minor version, e.g. 1.31')
        .requiredOption(
          '--cluster-name <name>',
          'EKS cluster name (selects subnets and security groups tagged karpenter.sh/discovery)',
        )
        .requiredOption('--role <iam-role>', 'IAM role name of the nodes')
        .option(
          '--family <family>',
          'AMI family: al2, al2023, bottlerocket, windows2019, windows2022, windows2025',
          'al2023',
        )
        .addOption(
          new Option('--pin <form>', 'id: one id term per architecture; alias: family@release')
            .choices(['id', 'alias'])
            .default('id'),
        )
        .option(
          '--release <release>',
          'AMI release to pin: latest (the newest concrete release, never @latest), latest~N, vYYYYMMDD, or X.Y.Z for Bottlerocket',
          'latest',
        )
        .option('--min-age <duration>', 'only releases at least this old, dated by name and EC2 CreationDate: 7d, 36h, 1d12h (0: no minimum)')
        .option('--templates <dir>', 'directory holding your own ec2nodeclass.yaml and nodepool.yaml')
        .option('--name <name>', 'name of both objects', 'default')
        .addHelpText(
          'after',
          examples(bin, [
            [
              'An EC2NodeClass and a NodePool for cluster prod, pinned to the newest 1.31 AL2023 AMIs',
              'render --to 1.31 --cluster-name prod --role KarpenterNodeRole-prod > karpenter.yaml',
            ],
            [
              'Your own templates, pinned by alias',
              'render --to 1.31 --cluster-name prod --role KarpenterNodeRole-prod --templates ./karpenter --pin alias',
            ],
          ]),
        )
        .action(async (flags: Record<string, unknown>, cmd: Command) => {
          const ctx = await context(cmd);
          const [{ parseRenderOptions }, { render }] = await Promise.all([
            import('./options.js'),
            import('../commands/render.js'),
          ]);
          await render(parseRenderOptions(flags), ctx);
        }),
  );

  // --nodeclass may be given several times.
  const repeated = (v: string, acc: string[] = []) => [...acc, v];
  const planFlags = (cmd: Command) =>
    cmd
      .requiredOption(
        '--to <minor>',
        'Kubernetes minor of the target AMIs, e.g. 1.30 (not newer than the control plane)',
      )
      .option('--nodeclass <name>', 'an EC2NodeClass to upgrade (repeatable; default: all)', repeated)
      .option(
        '--release <release>',
        'AMI release: latest (the newest concrete release), latest~N (N behind the newest), vYYYYMMDD, or X.Y.Z for Bottlerocket',
        'latest',
      )
      .option('--min-age <duration>', 'only releases at least this old, dated by name and EC2 CreationDate: 7d, 36h, 1d12h (0: no minimum)')
      .addOption(
        new Option(
          '--pin <form>',
          'id: one id term per architecture and variant, plus amiFamily; alias: family@release; name: one exact name term per image, with its owner account',
        )
          .choices(['id', 'alias', 'name'])
          .default('id'),
      )
      .option('--allow-downgrade', 'let --to take nodes to an older Kubernetes minor than they run')
      .option('--allow-deprecated', 'pin an AMI release that EC2 already marks deprecated')
      .option('--replace-custom-amis', "replace a class's custom (not EKS-optimized) AMIs with EKS-optimized ones")
      .option(
        '--amis-file <path>',
        'pin exactly the AMIs a lower environment tested: the file amis -o json or plan -o json wrote there, verified again here',
      )
      .option(
        '--from-context <context>',
        'pin exactly the AMIs the cluster of this kubeconfig context (e.g. staging) pins and runs on its nodes, verified again here; read only',
      )
      .option(
        '--from-kubeconfig <path>',
        "with --from-context: the kubeconfig that has it (default: this cluster's); alone: that file's current-context",
      )
      .option(
        '--canary <nodepool>',
        'a staged rollout: this NodePool goes first, the others wait until it is done and soaked (repeatable)',
        repeated,
      )
      .option(
        '--waves <list>',
        'a staged rollout: each stage in cumulative waves of counts or percentages of its old nodes, e.g. 1,10%,100%',
      )
      .option(
        '--soak <duration>',
        'with --waves/--canary: wait this long after each wave and stage before the next (default 0: no soak)',
      )
      .option(
        '--hold-with <how>',
        'with --waves/--canary: auto (a budget, or node holds where GitOps/IaC owns the budgets), budget or node',
      )
      .option(
        '--window <cron/duration>',
        "drift only inside this UTC window, Karpenter's budget form, e.g. '0 2 * * mon-thu/3h' (repeatable; alone: --waves 100%)",
        repeated,
      )
      .option(
        '--exclude <from/to>',
        'with --window: no drift in these UTC dates or minutes, e.g. 2026-11-27/2026-11-30 (repeatable)',
        repeated,
      );
  // The health gates of a staged rollout (docs/health-gates.md).
  const gateFlags = (cmd: Command) =>
    cmd
      .option(
        '--gate-cmd <command>',
        'with --waves/--canary: your check, run through the shell after each wave and soak; exit 0 passes',
      )
      .option(
        '--gate-timeout <duration>',
        'with --gate-cmd: kill it after this long; the gate is then inconclusive and the rollout pauses (default 5m)',
      )
      .option('--gate-interval <duration>', 'with --gate-cmd: also run it this often while waves run and soak')
      .option(
        '--failure-limit <n>',
        'with --waves/--canary: failures that halt the rollout: each failed replacement or drift command, each failed gate evaluation (default 1)',
      )
      .option(
        '--on-failure <action>',
        'with --waves/--canary: pause (hold every NodePool; default) or rollback (also restore the classes and follow the nodes back)',
      )
      .option(
        '--init-deadline <duration>',
        'with --waves/--canary: a replacement must be Initialized this long after it was created (default 10m)',
      )
      .option(
        '--pod-ready-deadline <duration>',
        'with --waves/--canary: a pod on a replaced node must be Ready this long after it was created (default 5m)',
      )
      .option(
        '--max-restarts <n>',
        'with --waves/--canary: more container restarts than this on a replaced node fail the gate (default 3)',
      )
      .option('--no-gates', 'with --waves/--canary: no built-in health gates (only --gate-cmd, if given)');

  command('plan', 'Show what upgrade would change and replace, with preflight checks; changes nothing', (cmd) =>
    gateFlags(planFlags(cmd))
      .option(
        '--force-conflicts',
        'plan as upgrade --force-conflicts would: a GitOps/IaC owner of amiSelectorTerms is a warning, not an error',
      )
      .addOption(
        new Option('--apply-by <applier>', 'plan as upgrade --apply-by git would: the owner of amiSelectorTerms applies the change from Git').choices([
          'karp-drift',
          'git',
        ]),
      )
      .addHelpText(
        'after',
        examples(bin, [
          ['What upgrading every EC2NodeClass to Kubernetes 1.30 AMIs would change and replace', 'plan --to 1.30'],
          ['One class, as JSON', 'plan --to 1.30 --nodeclass default -o json'],
          [
            'The plan with amiSelectorTerms taken from Argo CD, Flux or Terraform (FIELD-OWNER-GITOPS)',
            'plan --to 1.30 --force-conflicts',
          ],
          [
            'Exactly the AMIs staging tested (its `amis --to 1.30 -o json`), verified again here',
            'plan --to 1.30 --amis-file amis-staging.json',
          ],
          [
            'Exactly the AMIs the staging cluster runs now (read from its context), verified again here',
            'plan --to 1.30 --from-context staging',
          ],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parsePlanOptions }, { parseStagedOptions }, { planCommand }] = await Promise.all([
          import('./options.js'),
          import('./stage-options.js'),
          import('../commands/plan.js'),
        ]);
        const staged = parseStagedOptions(flags);
        await planCommand({ ...parsePlanOptions(flags), ...(staged ? { staged } : {}) }, ctx);
      }),
  );

  // What upgrade and rollback share: they apply, then follow the rollout.
  const applyFlags = (cmd: Command, timeoutHelp = 'give up following after this long (exit 5); it starts once the apply is done') =>
    cmd
      .option('-y, --yes', 'apply without asking (required without a terminal)')
      .option('--dry-run', 'send the apply with dryRun=All: the API server validates it, nothing changes')
      .option('--no-wait', 'exit after the apply instead of following the rollout')
      .option('--timeout <duration>', timeoutHelp, '60m')
      .option('--stall-timeout <duration>', 'no progress for this long is a stall (exit 4, with the diagnosis)', '15m')
      .option(
        '--lock-namespace <ns>',
        'namespace of the cluster lock (Lease karp-drift) taken before the first write',
        'kube-system',
      );

  command('upgrade', 'Pin the target AMIs and follow Karpenter drift replacement to completion', (cmd) =>
    applyFlags(
      gateFlags(planFlags(cmd)),
      'give up following after this long (exit 5); it starts once the apply is done; time spent soaking does not count, gate waits do; an --on-failure rollback follows back with a --timeout of its own',
    )
      .option(
        '--force-conflicts',
        'take amiSelectorTerms from a GitOps/IaC field manager (it may put the old value back)',
      )
      .addOption(
        new Option(
          '--apply-by <applier>',
          "who applies the new amiSelectorTerms: karp-drift (default), or git: the GitOps/IaC tool syncing the files you merge (karp-drift holds, says what to merge, waits for the sync, then paces the rollout it starts)",
        ).choices(['karp-drift', 'git']),
      )
      .option('--sync-timeout <duration>', 'with --apply-by git: how long to wait for the change to be merged and synced (default 1h; exit 5, the rollout left held)')
      .option(
        '--rollback-waves <list>',
        'with --on-failure rollback: take the nodes back in these waves, gated and soaked as the upgrade, e.g. 1,100% (default: at once)',
      )
      .option(
        '--resume-halted',
        'go on with a rollout a health gate halted, once you have looked at why (without it such a re-run exits 6 and changes nothing)',
      )
      .option(
        '--window-exit-code <n>',
        'with --window: exit status of a run paused by its window (default 7; 0 for a scheduler that counts only 0 as success, e.g. a CronJob)',
      )
      .option(
        '--templates <dir>',
        'render these ec2nodeclass.yaml and nodepool.yaml (or, with no --templates but --cluster-name, the bundled ones) and apply them whole',
      )
      .option('--cluster-name <name>', 'with --templates: the karpenter.sh/discovery tag value')
      .option('--role <iam-role>', 'with --templates: the node IAM role')
      .option('--family <family>', 'with --templates: the AMI family (default al2023)')
      .option('--name <name>', 'with --templates: the name of both objects (default default)')
      .option(
        '--accept-template-drift',
        'with --templates: apply changes Karpenter hashes or NodePool requirements, re-rolling nodes (otherwise TEMPLATE-DRIFT refuses them)',
      )
      .option(
        '--allow-create',
        'with --templates and --yes: create the EC2NodeClass or NodePool the templates name when absent (the prompt asks otherwise)',
      )
      .option('--report <file>', "when the run ends, write its timeline to this file as one self-contained HTML page (as history <run> --html)")
      .addHelpText(
        'after',
        examples(bin, [
          [
            'Upgrade every EC2NodeClass to Kubernetes 1.30 AMIs: the plan, a confirmation, then the rollout followed to the end',
            'upgrade --to 1.30',
          ],
          [
            'Without a terminal (CI): NDJSON events on stdout',
            'upgrade --to 1.30 --nodeclass default --yes -o json > events.ndjson',
          ],
          ['Have the API server validate the change; nothing changes', 'upgrade --to 1.30 --dry-run'],
          [
            'Promote the AMIs staging tested (the file its plan -o json wrote)',
            'upgrade --to 1.30 --amis-file plan-staging.json',
          ],
          [
            'Promote the AMIs the staging cluster runs, read from another kubeconfig',
            'upgrade --to 1.30 --from-context staging --from-kubeconfig ~/.kube/staging',
          ],
          [
            'Render your templates with the pinned AMIs and apply them whole',
            'upgrade --to 1.30 --templates ./karpenter --cluster-name prod --role KarpenterNodeRole-prod',
          ],
          [
            'In stages: NodePool canary first, then the rest; one node, then 10 %, then all, soaking 15m between',
            'upgrade --to 1.30 --canary canary --waves 1,10%,100% --soak 15m',
          ],
          [
            'The same, with your smoke test as a gate, rolling back if a gate fails',
            "upgrade --to 1.30 --canary canary --soak 15m --gate-cmd './smoke.sh' --on-failure rollback",
          ],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseUpgradeOptions }, { parseLockOptions, parseStagedOptions, withRollbackWaves }, { upgrade }] = await Promise.all([
          import('./options.js'),
          import('./stage-options.js'),
          import('../commands/upgrade.js'),
        ]);
        // Nothing follows a --no-wait run, so nothing would pace or gate it; --templates applies whole objects.
        const unstaged = flags.wait === false ? ('--no-wait' as const) : ['templates', 'clusterName', 'role'].some((k) => flags[k] !== undefined) ? ('--templates' as const) : undefined;
        const staged = withRollbackWaves(flags, parseStagedOptions(flags, unstaged !== undefined ? { flag: unstaged } : undefined));
        await upgrade(
          { ...parseUpgradeOptions(flags), ...parseLockOptions(flags), ...(staged ? { staged } : {}) },
          ctx,
        );
      }),
  );

  // A staged rollback: the same stages, holds and gates as a staged upgrade, its targets the previous AMIs.
  const rollbackStageFlags = (cmd: Command) =>
    cmd
      .option(
        '--canary <nodepool>',
        'a staged rollback: this NodePool goes back first, the others wait until it is done and soaked (repeatable)',
        repeated,
      )
      .option(
        '--waves <list>',
        'a staged rollback: each stage in cumulative waves of counts or percentages of the nodes going back, e.g. 1,100%',
      )
      .option('--soak <duration>', 'with --waves/--canary: wait this long after each wave and stage before the next (default 0: no soak)')
      .option(
        '--hold-with <how>',
        'with --waves/--canary: auto (a budget, or node holds where GitOps/IaC owns the budgets), budget or node',
      );

  command('rollback', 'Restore the AMI selection the last upgrade recorded, and follow the nodes back', (cmd) =>
    applyFlags(
      gateFlags(
        rollbackStageFlags(
          cmd
            .option(
              '--nodeclass <name>',
              'an EC2NodeClass to roll back (repeatable; default: every class an upgrade recorded)',
              repeated,
            )
            .option(
              '--resume-halted',
              'go on with a rollback a health gate halted, once you have looked at why (without it such a re-run exits 6 and changes nothing)',
            )
            .option(
              '--sync-timeout <duration>',
              'for a class upgraded with --apply-by git (its terms came from Git): how long to wait for the revert to be merged and synced (default 1h)',
            ),
        ),
      ),
    )
      .addHelpText(
        'after',
        examples(bin, [
          [
            'Restore the AMI selection the last upgrade recorded on every EC2NodeClass, and follow the nodes back at once',
            'rollback',
          ],
          ['One class, without asking', 'rollback --nodeclass default --yes'],
          [
            'Back in waves, gated as a staged upgrade (the previous AMIs may have gone bad since): one node, then the rest',
            'rollback --waves 1,100% --soak 10m',
          ],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseRollbackOptions }, { parseLockOptions, parseRollbackStagedOptions }, { rollback }] = await Promise.all([
          import('./options.js'),
          import('./stage-options.js'),
          import('../commands/rollback.js'),
        ]);
        const staged = parseRollbackStagedOptions(flags);
        await rollback({ ...parseRollbackOptions(flags), ...parseLockOptions(flags), ...(staged ? { staged } : {}) }, ctx);
      }),
  );

  command(
    'status',
    'Show each NodePool: nodes by kubelet version and AMI, drift and disruption counts, blockers',
    (cmd) =>
      cmd
        .option('--nodeclass <name>', 'only the NodePools of this EC2NodeClass (repeatable)', repeated)
        .option('-w, --watch', 'keep it live until interrupted')
        .option(
          '--lock-namespace <ns>',
          'namespace of the cluster lock (Lease karp-drift): says whether a live run paces the holds shown',
          'kube-system',
        )
        .addHelpText(
          'after',
          examples(bin, [
            ['Every NodePool: nodes by kubelet version and AMI, drift, blockers', 'status'],
            ['Keep it live while Karpenter replaces nodes (Ctrl-C ends it)', 'status --watch'],
            ['As JSON', 'status --nodeclass default -o json'],
          ]),
        )
        .action(async (flags: Record<string, unknown>, cmd: Command) => {
          const ctx = await context(cmd);
          const [{ parseStatusOptions }, { parseLockOptions }, { status }] = await Promise.all([
            import('./options.js'),
            import('./stage-options.js'),
            import('../commands/status.js'),
          ]);
          await status(parseStatusOptions(flags, parseLockOptions(flags).lockNamespace), ctx);
        }),
  );

  command(
    'wait',
    'Follow the rollout the cluster is in until it is done (read-only): after upgrade --no-wait, or a GitOps sync',
    (cmd) =>
      cmd
        .option(
          '--nodeclass <name>',
          'only the NodePools of this EC2NodeClass (repeatable; default: every class)',
          repeated,
        )
        .option('--timeout <duration>', 'give up after this long (exit 5; run wait again to go on)', '60m')
        .option(
          '--stall-timeout <duration>',
          'no progress for this long is a stall (exit 4, with the diagnosis)',
          '15m',
        )
        .option(
          '--lock-namespace <ns>',
          'namespace of the cluster lock (Lease karp-drift): a staged upgrade pacing the rollout holds it',
          'kube-system',
        )
        .addHelpText(
          'after',
          examples(bin, [
            [
              'After an upgrade --no-wait (exit 0 done, 4 stalled, 5 timeout, 6 paused or holds left)',
              'wait --timeout 5h',
            ],
            [
              'In an Argo CD PostSync hook: follow the drift the sync caused, as NDJSON',
              'wait --nodeclass default -o json',
            ],
          ]),
        )
        .action(async (flags: Record<string, unknown>, cmd: Command) => {
          const ctx = await context(cmd);
          const [{ parseWaitOptions }, { parseLockOptions }, { wait }] = await Promise.all([
            import('./options.js'),
            import('./stage-options.js'),
            import('../commands/wait.js'),
          ]);
          await wait(parseWaitOptions(flags, parseLockOptions(flags).lockNamespace), ctx);
        }),
  );

  command('pause', 'Hold Drifted disruption on NodePools now (recorded on them, reversible with resume)', (cmd) =>
    cmd
      .option('--nodepool <name>', 'a NodePool to hold (repeatable; default: every NodePool)', repeated)
      .option(
        '--held',
        'only the NodePools karp-drift already holds (a staged rollout that was cut short): hold them at zero; nothing held is not an error',
      )
      .option(
        '--hold-with <how>',
        'auto (a budget, or node holds where GitOps/IaC owns the budgets), budget or node',
        'auto',
      )
      .option(
        '--force-conflicts',
        'with --hold-with budget: write the budget even where a GitOps/IaC tool owns the budgets',
      )
      .option('--lock-namespace <ns>', 'namespace of the cluster lock (Lease karp-drift)', 'kube-system')
      .addHelpText(
        'after',
        examples(bin, [
          ['Stop every drift replacement now, before a freeze (consolidation goes on)', 'pause'],
          ['A dead staged run\'s hold still lets Karpenter drain (status says): hold at 0', 'pause --held'],
          ['One NodePool whose budgets Argo CD owns: hold its nodes instead', 'pause --nodepool batch --hold-with node'],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parsePauseOptions }, { pause }] = await Promise.all([
          import('./stage-options.js'),
          import('../commands/pause.js'),
        ]);
        await pause(parsePauseOptions(flags), ctx);
      }),
  );

  command('resume', "Release karp-drift's drift holds, restoring each NodePool's own budgets exactly", (cmd) =>
    cmd
      .option(
        '--nodepool <name>',
        'a NodePool to release (repeatable; default: every NodePool karp-drift holds)',
        repeated,
      )
      .option('--lock-namespace <ns>', 'namespace of the cluster lock (Lease karp-drift)', 'kube-system')
      .addHelpText(
        'after',
        examples(bin, [
          ["Release every hold: each NodePool's own budgets come back exactly", 'resume'],
          ['Only one NodePool (see what is held first: karp-drift status)', 'resume --nodepool general'],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseResumeOptions }, { resume }] = await Promise.all([
          import('./stage-options.js'),
          import('../commands/resume.js'),
        ]);
        await resume(parseResumeOptions(flags), ctx);
      }),
  );

  command('history [run]', 'List the runs that changed or followed a rollout on this cluster (read-only), or show one', (cmd) =>
    cmd
      .option('--html <file>', "write the run's timeline to this file as one self-contained HTML page")
      .option('--lock-namespace <ns>', 'namespace of the cluster lock, where the records are kept', 'kube-system')
      .addHelpText(
        'after',
        examples(bin, [
          ['The runs this cluster remembers, newest first: when, who, command, result, nodes replaced, AMIs', 'history'],
          ['One run in full: its AMIs, waves, soaks, gate verdicts with their evidence', 'history 3f2a9c1e'],
          ['Its timeline as a page to open in a browser or attach to a ticket', 'history 3f2a9c1e --html run.html'],
        ]),
      )
      .action(async (runId: unknown, flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseHistoryOptions }, { parseLockOptions }, { history }] = await Promise.all([
          import('./options.js'),
          import('./stage-options.js'),
          import('../commands/history.js'),
        ]);
        await history(parseHistoryOptions(runId, flags, parseLockOptions(flags).lockNamespace), ctx);
      }),
  );

  command('pin <paths...>', "Pin the AMIs (and upgrade windows) in the files (manifests, kustomizations, Helm values) Argo CD, Flux, Helm or Terraform apply, in place", (cmd) =>
    cmd
      .option('--to <minor>', 'Kubernetes minor of the target AMIs, e.g. 1.31')
      .option(
        '--release <release>',
        'AMI release: latest (the newest concrete release), latest~N (N behind the newest), vYYYYMMDD, or X.Y.Z for Bottlerocket',
        'latest',
      )
      .option('--min-age <duration>', 'only releases at least this old, dated by name and EC2 CreationDate: 7d, 36h, 1d12h (0: no minimum)')
      .addOption(
        new Option('--pin <form>', 'id: one id term per architecture and variant, plus amiFamily; alias: family@release; name: exact name terms')
          .choices(['id', 'alias', 'name'])
          .default('id'),
      )
      .option('--allow-downgrade', 'let --to take nodes to an older Kubernetes minor than they run (with a cluster)')
      .option('--allow-deprecated', 'pin an AMI release that EC2 already marks deprecated')
      .option('--replace-custom-amis', "replace a class's custom (not EKS-optimized) AMIs with EKS-optimized ones")
      .option('--amis-file <path>', 'pin exactly the AMIs a lower environment tested (its amis -o json or plan -o json), verified again here')
      .option('--from-context <context>', 'pin exactly the AMIs the cluster of this kubeconfig context pins and runs, verified again here; read only')
      .option('--from-kubeconfig <path>', "with --from-context: the kubeconfig that has it (default: this one); alone: that file's current-context")
      .option('--values-path <path>', 'in Helm values files: the list of amiSelectorTerms, or the map holding amiSelectorTerms and amiFamily, e.g. karpenter.nodeClass')
      .option('--window <cron/duration>', "write budgets that keep drift closed outside this UTC window into every NodePool, e.g. '0 2 * * mon-thu/3h' (repeatable)", repeated)
      .option('--exclude <from/to>', 'with --window: no drift in these UTC dates or minutes, e.g. 2026-11-27/2026-11-30 (repeatable)', repeated)
      .option('--check', 'change nothing: exit 1 when the files do not pin what the policy picks now (for a scheduled CI job), 0 when they do')
      .option('--pr-body <file>', "write a pull request's description (Markdown) of the change to this file")
      .option('--tfvars <file>', 'write the pins as a Terraform variables file (JSON), e.g. karpenter-amis.auto.tfvars.json')
      .option('--tfvars-variable <name>', 'with --tfvars: the variable it sets (default karpenter_ami_pins)')
      .option('--no-cluster', 'never read a cluster, even where a kubeconfig context answers (its checks are then not made)')
      .addHelpText(
        'after',
        examples(bin, [
          ['Pin the newest Kubernetes 1.31 AMIs in the manifests Argo CD syncs, in place; the diff is printed', 'pin --to 1.31 clusters/prod/karpenter'],
          ['A kustomize tree: each overlay is changed where it sets the terms (its patch), else the base', 'pin --to 1.31 --release latest~1 --min-age 7d karpenter/overlays'],
          ['A scheduled CI job: exit 1 when the files are behind the policy, with a pull request body', 'pin --to 1.31 --check --pr-body pr.md karpenter/'],
          ['A Helm values file that holds the class under karpenter.nodeClass', 'pin --to 1.31 --values-path karpenter.nodeClass values-prod.yaml'],
          ['The AMIs staging tested, and the pins for Terraform', 'pin --to 1.31 --amis-file amis-staging.json --tfvars karpenter-amis.auto.tfvars.json clusters/prod'],
          ['Upgrade windows that Git carries: drift only Monday to Thursday 02:00-05:00 UTC', "pin --window '0 2 * * mon-thu/3h' clusters/prod/karpenter"],
        ]),
      )
      .action(async (paths: string[], flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parsePinOptions }, { pin }] = await Promise.all([import('./pin-options.js'), import('../commands/pin.js')]);
        await pin(parsePinOptions(paths, flags), ctx);
      }),
  );

  command('demo', 'Run the main job on the embedded sandbox: upgrade a simulated EKS cluster with Karpenter', (cmd) =>
    gateFlags(
      cmd
        .option('--scenario <name|file>', 'sandbox scenario', 'default')
        .option('--speed <n>', 'simulated seconds per real second (default 120)')
        .option('--timeout <duration>', 'give up following after this long (exit 5)', '10m')
        .option('--stall-timeout <duration>', 'no progress for this long is a stall (exit 4, with the diagnosis)', '2m')
        .option(
          '--canary <nodepool>',
          'upgrade in stages: this NodePool first (repeatable; see upgrade --help)',
          repeated,
        )
        .option('--waves <list>', 'upgrade in stages: cumulative waves of each stage, e.g. 1,10%,100%')
        .option('--soak <duration>', 'with --waves/--canary: wait this long after each wave and stage')
        .option('--hold-with <how>', 'with --waves/--canary: auto, budget or node'),
    )
      .addHelpText(
        'after',
        examples(bin, [
          ['Upgrade a simulated cluster of 12 nodes and watch Karpenter replace them', 'demo'],
          ['A bad AMI: the canary is caught by the health gates and rolled back', 'demo --scenario bad-ami'],
          [
            'A staged rollout: NodePool canary first, then three waves of the rest, soaking 5s between',
            'demo --scenario staged --canary canary --waves 1,10%,100% --soak 5s',
          ],
          [
            'A rollout that a PodDisruptionBudget blocks, diagnosed after 30 s without progress',
            'demo --scenario pdb-blocked --stall-timeout 30s',
          ],
        ]),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await context(cmd);
        const [{ parseDemoOptions }, { parseStagedOptions }, { demo }] = await Promise.all([
          import('./options.js'),
          import('./stage-options.js'),
          import('../commands/demo.js'),
        ]);
        const staged = parseStagedOptions(flags);
        await demo({ ...parseDemoOptions(flags), ...(staged ? { staged } : {}) }, ctx);
      }),
  );

  command(
    'sandbox',
    'Run a simulated EKS cluster with Karpenter locally (API server, SSM/EC2 endpoints, drift simulator) until stopped',
    (cmd) =>
      cmd
        .option('--scenario <name|file>', 'a built-in scenario or a scenario YAML file', 'default')
        .option('--speed <n>', "simulated seconds per real second (default: the scenario's, usually 60)")
        .option('--port <n>', 'API server port on 127.0.0.1 (default: a free port)')
        .option('--env-out <path>', 'also write the export lines to this file once it serves (whole, never half), for scripts')
        .option('--detach', 'serve from a background process and return once it serves (stop it with: kill <pid>)')
        .option(
          '--gitops-dir <dir>',
          "sync this directory of manifests as Argo CD or Flux does: server-side apply under its field manager every few seconds, with self-heal (an empty one is seeded with the scenario's GitOps-owned objects)",
        )
        .addOption(
          new Option('--gitops-tool <tool>', "whose sync --gitops-dir stands for (default: the scenario's, else argocd)").choices(['argocd', 'flux']),
        )
        // The global --kubeconfig names the file to read and --context the context to use; here they are the file the
        // sandbox writes and its context's name. The program parses them wherever they stand, so these options only
        // document them, and the global ones are left out of this help, as are those a sandbox refuses.
        .option(
          '--kubeconfig <path>',
          "where to write the sandbox's kubeconfig (default: a temp folder, removed on exit)",
        )
        .option(
          '--context <name>',
          "the kubeconfig context it writes, also its cluster's name (default: karp-drift-sandbox-<scenario>-<port>)",
        )
        .addOption(new Option('--detached-log <path>').hideHelp())
        .configureHelp({
          showGlobalOptions: true,
          visibleGlobalOptions(this: Help, cmd: Command) {
            return Help.prototype
              .visibleGlobalOptions.call(this, cmd)
              .filter((o) => !SANDBOX_HIDDEN_GLOBALS.includes(o.long ?? ''));
          },
        })
        .addHelpText('after', ({ command }) => builtInScenarios(command))
        .addHelpText(
          'after',
          examples(bin, [
            [
              'Start the default scenario in the background, point this shell at it, and stop it when done',
              'sandbox --detach --env-out /tmp/sandbox.env\n  . /tmp/sandbox.env\n  kubectl get nodeclaims\n  kill "$KARP_DRIFT_SANDBOX_PID"',
            ],
            [
              'Serve in this terminal until Ctrl-C; its export lines point other shells at it',
              'sandbox --scenario pdb-blocked --speed 120',
            ],
            [
              'Two sandboxes in one merged kubeconfig, told apart by their contexts',
              'sandbox --detach --context staging --kubeconfig /tmp/staging.yaml > /tmp/staging.env\n' +
                `  ${bin} sandbox --detach --context prod --kubeconfig /tmp/prod.yaml > /tmp/prod.env\n` +
                '  KUBECONFIG=/tmp/staging.yaml:/tmp/prod.yaml kubectl config get-contexts',
            ],
          ]),
        )
        .action(async (flags: Record<string, unknown>, cmd: Command) => {
          const ctx = await context(cmd);
          const [{ parseSandboxOptions }, { sandbox }, { detachSandbox }] = await Promise.all([
            import('./options.js'),
            import('../commands/sandbox.js'),
            import('../commands/sandbox-detach.js'),
          ]);
          const options = parseSandboxOptions(
            { ...flags, kubeconfig: ctx.globals.kubeconfig ?? flags.kubeconfig, context: ctx.globals.context ?? flags.context },
            cmd.optsWithGlobals(),
          );
          await (options.detach ? detachSandbox : sandbox)(options, ctx);
        }),
  );

  return program;
}

async function printError(io: Io, err: KarpDriftError, verbose: boolean): Promise<void> {
  // On a terminal, wrapped at spaces to its width (a `next:` command kept whole on a row where it fits one); loaded
  // only then, so a piped run and --help never load what wrapping needs.
  const wrap = io.screen?.('err') !== undefined ? (await import('../commands/screen-text.js')).forScreen : undefined;
  const say = (text: string) => io.err(wrap ? wrap(io, 'err', text) : text);
  // Paused by the upgrade window is success so far (exit 7, or --window-exit-code's), not an error: said as it is.
  say(err instanceof WindowPausedError ? `${err.message}\n` : `error: ${err.message}\n`);
  if (err.hint) say(`  next: ${err.hint}\n`);
  if (verbose && err.cause instanceof Error) say(`  cause: ${err.cause.message}\n`);
}

/** A word of a command line as a POSIX shell would take it back: quoted only when it must be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the CLI and returns the exit code; never exits the process itself. An `ExitCode`, but for a run paused by its
 * window, which exits with what `--window-exit-code` asks (7 by default).
 */
export async function runCli(argv: string[], run: RunEnvironment): Promise<number> {
  const session: Session = {};
  const code = await runProgram(argv, run, session);
  // The record's last write, after the command's end: it carries the exit code the process exits with.
  await session.history?.finish(code);
  if (session.summary) await writeRecord(run, session.summary, code);
  return code;
}

/**
 * Appends the run's summary (GitHub's step summary is appended to) and writes its result document. A failure to write
 * is a warning, not the verdict: the command's own outcome stands.
 */
async function writeRecord(run: RunEnvironment, s: NonNullable<Session['summary']>, code: number): Promise<void> {
  const [{ summaryMarkdown }, { resultDocument }, { appendFile, writeFile }] = await Promise.all([
    import('../report/summary.js'),
    import('../report/result-file.js'),
    import('node:fs/promises'),
  ]);
  const write = async (what: string, file: string, task: () => Promise<void>) => {
    try {
      await task();
    } catch (err) {
      run.io.err(
        `warning: could not write the ${what} to ${file}: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
  };
  if (s.file !== undefined) await write('summary', s.file, () => appendFile(s.file!, summaryMarkdown(s.record, code)));
  if (s.resultFile !== undefined)
    await write('result', s.resultFile, () =>
      writeFile(s.resultFile!, `${JSON.stringify(resultDocument(s.record, code), null, 2)}\n`),
    );
}

async function runProgram(argv: string[], run: RunEnvironment, session: Session): Promise<number> {
  const program = buildProgram(run, session, argv);
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  // The error's own code: 7 for paused by the window, whatever --window-exit-code made the process exit with, so the
  // summary and the result document still say `paused`.
  const failed = (err: KarpDriftError) => {
    if (session.summary)
      session.summary.record.error = {
        exitCode: err.exitCode,
        message: err.message,
        ...(err.hint ? { hint: err.hint } : {}),
      };
  };
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.Success;
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      return ok ? ExitCode.Success : ExitCode.Usage;
    }
    if (err instanceof KarpDriftError) {
      await printError(run.io, err, verbose);
      failed(err);
      return err instanceof WindowPausedError ? err.exitStatus : err.exitCode;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    // A request cut short by Ctrl-C/SIGTERM that no command turned into its own message is still an interrupt.
    if (run.signal.aborted && e.name === 'AbortError') {
      await printError(run.io, new InterruptedError('interrupted; the request in flight was abandoned'), verbose);
      return ExitCode.Interrupted;
    }
    run.io.err(`internal error (a bug in karp-drift; please report it with this output):\n${e.stack ?? e.message}\n`);
    return ExitCode.Internal;
  }
}
