// Typed errors carrying the exit-code contract (README "Exit codes"). Only src/main.ts exits.
export const ExitCode = {
  Success: 0,
  Failure: 1,
  Usage: 2,
  Refused: 3,
  Stalled: 4,
  Timeout: 5,
  Halted: 6,
  PausedByWindow: 7,
  Internal: 70,
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface KarpDriftErrorOptions extends ErrorOptions {
  /** What the user should do next; printed on its own line under the message. */
  hint?: string;
}

export abstract class KarpDriftError extends Error {
  abstract readonly exitCode: ExitCode;
  readonly hint?: string;
  constructor(message: string, options: KarpDriftErrorOptions = {}) {
    super(message, options);
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** An AWS or Kubernetes API call failed, or an apply was rejected. */
export class RuntimeFailure extends KarpDriftError {
  readonly exitCode = ExitCode.Failure;
}
/** Bad flag or value, unknown version or family, nothing found for what was asked. Nothing was changed. */
export class UsageError extends KarpDriftError {
  readonly exitCode = ExitCode.Usage;
}
/**
 * `pin --check`: the files do not pin what the release policy picks now (exit 1, as `diff` and `terraform plan
 * -detailed-exitcode` say "there are changes"); nothing was written.
 */
export class FilesDifferError extends KarpDriftError {
  readonly exitCode = ExitCode.Failure;
}
/** A preflight check or a field-manager conflict stopped it. Nothing was changed. */
export class RefusedError extends KarpDriftError {
  readonly exitCode = ExitCode.Refused;
}
/** No progress for --stall-timeout; changes are applied and the diagnosis has been printed. */
export class StalledError extends KarpDriftError {
  readonly exitCode = ExitCode.Stalled;
}
/** --timeout reached; changes are applied. */
export class TimeoutError extends KarpDriftError {
  readonly exitCode = ExitCode.Timeout;
}
/** A health gate failed (or could not be evaluated): the staged rollout is paused, and rolled back if asked. */
export class HaltedError extends KarpDriftError {
  readonly exitCode = ExitCode.Halted;
  /** The NodePools left held, and the failed gate as its NDJSON `gate` event (for the `done` a rollback reports). */
  readonly paused: string[];
  readonly gate: Record<string, unknown>;
  /** The rollout's NodePools as its `done` counts them at the halt (what was replaced), when a rollout was followed. */
  readonly nodePools?: Array<Record<string, unknown>>;
  constructor(
    message: string,
    options: KarpDriftErrorOptions & { paused: string[]; gate: Record<string, unknown>; nodePools?: Array<Record<string, unknown>> },
  ) {
    super(message, options);
    this.paused = options.paused;
    this.gate = options.gate;
    if (options.nodePools !== undefined) this.nodePools = options.nodePools;
  }
}
/**
 * Outside the upgrade windows (`--window`): the run wrote its holds and the windows' budgets and stopped, or the
 * window closed mid-rollout and it left the rollout held. Success so far: the same command goes on in the next window.
 */
export class WindowPausedError extends KarpDriftError {
  readonly exitCode = ExitCode.PausedByWindow;
  /** The NodePools left held, when known (`wait`'s `done` names them). */
  readonly paused?: string[];
  /**
   * What the process exits with: 7, or `upgrade --window-exit-code`'s (0 for a scheduler that counts only 0 as
   * success, such as a Kubernetes CronJob). The run still reports itself paused by the window.
   */
  readonly exitStatus: number;
  constructor(message: string, options: KarpDriftErrorOptions & { paused?: string[]; exitStatus?: number } = {}) {
    super(message, options);
    if (options.paused !== undefined) this.paused = options.paused;
    this.exitStatus = options.exitStatus ?? ExitCode.PausedByWindow;
  }
}
/** SIGINT/SIGTERM. */
export class InterruptedError extends KarpDriftError {
  readonly exitCode = ExitCode.Interrupted;
}
