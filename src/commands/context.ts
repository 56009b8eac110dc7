// The three outputs a command has: results on stdout, progress and logs on stderr, and whether a person is watching.
import type { ExpectedCluster } from '../cluster/expected-cluster.js';
import type { Logger } from '../logger.js';
import type { Screen } from '../report/screen.js';
import { forScreen } from './screen-text.js';
import type { SummaryRecord } from '../report/summary.js';
import type { RunHistory } from './run-history.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** stdout and stdin are a terminal: confirmation prompts and live redraws are allowed. */
  interactive: boolean;
  /**
   * stdin is a terminal and the question can be shown on one: the confirmation can be asked whatever stdout is
   * (`upgrade | tee log` asks, as `terraform apply | tee` does). Absent means no.
   */
  canPrompt?: boolean;
  /**
   * Where the question is shown: stderr, or with stderr a pipe (`2>&1 | tee log`) the controlling terminal itself,
   * /dev/tty, as ssh and sudo ask for a password. Absent: stderr.
   */
  promptOn?: 'stderr' | 'tty';
  /** The size of the terminal `stream` is shown on; undefined when that stream is a pipe or a file. */
  screen?(stream: 'out' | 'err'): Screen | undefined;
  /** Calls `listener` when the terminal is resized (SIGWINCH); returns how to stop. */
  onResize?(listener: () => void): () => void;
}

export type OutputFormat = 'human' | 'json';

/** Options every command takes (docs/getting-started.md "Options every command takes"). */
export interface GlobalOptions {
  kubeconfig?: string;
  context?: string;
  region?: string;
  profile?: string;
  output: OutputFormat;
  /** `-o wide`: human output with the wider columns (status's KUBELET, AMI and AMI-SELECTOR). */
  wide?: boolean;
  color: boolean;
  verbose: boolean;
  quiet: boolean;
  /** --request-timeout: how long one API request may wait for an answer (Kubernetes and AWS alike). */
  requestTimeoutMs?: number;
  /** --expect-cluster: the EKS cluster the kubeconfig context must be (checked in commands/planning.ts `connect`). */
  expectCluster?: ExpectedCluster;
  /** --summary-file: where the run's Markdown summary is appended when the command ends (report/summary.ts). */
  summaryFile?: string;
  /** --result-file: where the run's outcome is written as JSON when the command ends (report/result-file.ts). */
  resultFile?: string;
}

/**
 * What every command receives besides its own options. In the commands' room, not cli/, so that the commands
 * cli/program.ts imports lazily do not import it back.
 */
export interface CommandContext {
  globals: GlobalOptions;
  io: Io;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** With --summary-file or --result-file: what the command records for them. */
  summary?: SummaryRecord;
  /**
   * The command line as typed, after `karp-drift`, quoted for a shell: what the cluster lock and the pause records say
   * a run is (never a `--yes` that was not given). Absent where a command is run other than from a command line.
   */
  commandLine?: string;
  /**
   * The run's record in the cluster (`upgrade`, `rollback`, `pause`, `resume`, `wait`; commands/run-history.ts): begun
   * where the run takes the lock or starts following, ended by the CLI with the exit code.
   */
  history?: RunHistory;
}

export function logger(io: Io, options: Pick<GlobalOptions, 'quiet' | 'verbose'>): Logger {
  const err = (text: string) => io.err(forScreen(io, 'err', text));
  return {
    info: (m) => {
      if (!options.quiet) err(`${m}\n`);
    },
    warn: (m) => err(`warning: ${m}\n`),
    debug: (m) => {
      if (options.verbose) err(`debug: ${m}\n`);
    },
  };
}
