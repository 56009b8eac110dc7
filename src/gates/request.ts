// What the health-gate flags ask for (cli/stage-options.ts parses them). Types and defaults only, so options, the pure
// gates and the plan can share them without importing each other.
import { DEFAULT_HEALTH_LIMITS } from '../rollout/replacement-health.js';

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
  /** --failure-limit: failures that halt the rollout (failed replacements and commands, failed evaluations). */
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

/**
 * The init deadline counts from the NodeClaim's creation, as Karpenter's liveness does (it deletes one not registered
 * 15 minutes after its creation), and defaults to the drift queue's timeout (10 minutes: Karpenter gives the command
 * up then and picks the old node again): a replacement that slow has failed by Karpenter's own measure. The stall
 * diagnosis judges a bad AMI by the same defaults (rollout/replacement-health.ts).
 */
export const DEFAULT_GATES: GateRequest = {
  builtIn: true,
  ...DEFAULT_HEALTH_LIMITS,
  failureLimit: 1,
  commandTimeoutMs: 5 * 60_000,
  onFailure: 'pause',
};

/** Where a gate is evaluated: the end of a wave (its last replacement done), the end of a soak, or the last wave. */
export interface Checkpoint {
  stage: number;
  wave: number;
  point: 'wave-end' | 'soak-end';
  /**
   * The stage's last wave, with a later stage still to begin: the gates pass here only when each target AMI of the
   * stage has been tested (gates/coverage.ts). Not part of the key: the controller says it the same way each time.
   */
  stageEnd?: boolean;
  /**
   * The stage's `1/ami` wave, whose point is to test each target AMI on one node: the gates pass here only when each
   * AMI a drift replacement of the stage runs has been tested on one (gates/coverage.ts `untestedByWave`). Not part of
   * the key either.
   */
  amiWave?: boolean;
}

export const checkpointKey = (c: Checkpoint): string => `${c.stage}/${c.wave}/${c.point}`;
