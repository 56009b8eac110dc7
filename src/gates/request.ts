// What the health-gate flags ask for (cli/stage-options.ts parses them). Types and defaults only, so options, the pure
// gates and the plan can share them without importing each other.

export type OnFailure = 'pause' | 'rollback';

export interface GateRequest {
  /** The built-in gates (replacements come up, workloads stay healthy); off with --no-gates. */
  builtIn: boolean;
  /** --init-deadline: a replacement NodeClaim must be Launched, Registered and Initialized this long after creation. */
  initDeadlineMs: number;
  /** --pod-ready-deadline: a pod that landed on a replaced node must be Ready this long after it was created. */
  podReadyDeadlineMs: number;
  /** --max-restarts: more container restarts than this on a replaced node fail the gate. */
  maxRestarts: number;
  /** --failure-limit: failed evaluations that halt the rollout. */
  failureLimit: number;
  /** --gate-cmd: run after each wave and at the end of each soak; exit 0 passes. */
  command?: string;
  /** --gate-timeout: a command still running then is killed and the gate is inconclusive. */
  commandTimeoutMs: number;
  /** --gate-interval: also run the command this often while waves run and soak. */
  commandIntervalMs?: number;
  /** --on-failure: leave the rollout paused (default), or also roll the changed classes back. */
  onFailure: OnFailure;
}

/** Karpenter deletes a NodeClaim not registered 15 minutes after launch (liveness.go): the default init deadline. */
export const DEFAULT_GATES: GateRequest = {
  builtIn: true,
  initDeadlineMs: 15 * 60_000,
  podReadyDeadlineMs: 5 * 60_000,
  maxRestarts: 3,
  failureLimit: 1,
  commandTimeoutMs: 5 * 60_000,
  onFailure: 'pause',
};

/** Where a gate is evaluated: the end of a wave (its last replacement done), the end of a soak, or the last wave. */
export interface Checkpoint {
  stage: number;
  wave: number;
  point: 'wave-end' | 'soak-end';
}

export const checkpointKey = (c: Checkpoint): string => `${c.stage}/${c.wave}/${c.point}`;
