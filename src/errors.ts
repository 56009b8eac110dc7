// Typed errors carrying the exit-code contract (docs/reference/exit-codes.md). Only src/main.ts exits.
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

/**
 * What each exit code means, for every command: the reference (docs/reference/exit-codes.md) is generated from this
 * table, and test/docs/reference.test.ts fails when the two disagree.
 */
export const EXIT_CODE_MEANINGS: Record<ExitCode, string> = {
  [ExitCode.Success]: 'success',
  [ExitCode.Failure]:
    'runtime failure: an AWS or Kubernetes API call failed, an apply was rejected; for `pin --check`, the files do not pin what the release policy picks now (nothing was written: a scheduled job opens the pull request)',
  [ExitCode.Usage]:
    'usage or input error: bad flag or value, unknown version/family, nothing found for what was asked; nothing was changed',
  [ExitCode.Refused]:
    "refused: a preflight check or a field-manager conflict stopped it, the identity lacks a permission the run needs (docs/rbac-and-iam.md; or may not ask, a SelfSubjectAccessReview being forbidden), `--expect-cluster` found the kubeconfig is not that EKS cluster (or no such cluster), or the `--from-context` source has no one tested state for what the plan pins (mid-rollout, mixed releases, another minor), or `upgrade --templates --yes` would create an object without `--allow-create`; nothing was changed. With `upgrade --apply-by git`, also terms the GitOps tool synced that are not the planned ones, on arrival or mid-rollout (a revert, a sync rollback): said as that, never as a stall; karp-drift's holds stay (the rollout is paused)",
  [ExitCode.Stalled]:
    'rollout stalled: no progress for `--stall-timeout`; changes are applied, the diagnosis is printed (a staged rollout stays paused)',
  [ExitCode.Timeout]:
    'timed out: `--timeout` reached; changes are applied (a staged rollout stays paused); or `--sync-timeout` reached waiting for the change to be merged and synced (`upgrade --apply-by git`, the rollout held; `rollback`, waiting for the revert)',
  [ExitCode.Halted]:
    "halted by a health gate; drift is paused (every NodePool in scope held), or rolled back with `--on-failure rollback` (docs/health-gates.md); a staged `rollback --waves` halted by a gate is paused alike, and so is the staged rollback of `--on-failure rollback --rollback-waves`; for `upgrade`, also a re-run on a rollout a gate halted, without `--resume-halted`, and for `rollback`, going on with a rollback a gate halted without it (nothing was changed); for `wait` and an upgrade that paces nothing (`--templates`), the rollout is paused (karp-drift's holds and no run left to release them: at once, not at `--stall-timeout`), or every node is on target but karp-drift's holds or its windows' budgets are still on a NodePool (\"held\": the message says what is left and names the `karp-drift resume` that clears it)",
  [ExitCode.PausedByWindow]:
    "paused by the upgrade window (`--window`): success so far. Started outside a window (holds and windows' budgets written, nothing applied) or the window closed mid-rollout (left paused); the same command goes on in the next window (docs/windows-and-release-policy.md); for `wait`, the rollout is paused by its windows. Printed without `error:`. `upgrade --window-exit-code <n>` exits `n` instead (0 for a Kubernetes CronJob); `result` still says `paused`",
  [ExitCode.Internal]:
    'internal error (a bug): the stack is printed; please report it',
  [ExitCode.Interrupted]:
    'interrupted (SIGINT/SIGTERM); a staged rollout stays paused, and the message says how to go on',
};

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
