// What `--canary`, `--waves`, `--soak`, `--hold-with` and the gate flags ask for (cli/stage-options.ts parses them), and
// the flags that ask for it again. Pure, so the options and the planning of stages share it without importing each
// other.
import { DEFAULT_GATES, type GateRequest } from '../gates/request.js';
import { AMI_WAVE, type WaveStep } from './waves.js';
import type { Exclusion, UpgradeWindow } from '../windows/flags.js';
import { ExitCode } from '../errors.js';

export type HoldWith = 'auto' | 'budget' | 'node';

export interface StagedRequest {
  /** --canary: the NodePools of the first stage, in the order given. */
  canary: string[];
  /** --waves, cumulative; `100%` when not given (each stage in one wave). */
  waves: WaveStep[];
  /** --soak, after each wave and each stage; 0: the next opens as soon as the last replacement is Ready. */
  soakMs: number;
  holdWith: HoldWith;
  /** The health gates (docs/health-gates.md); absent: the defaults. */
  gates?: GateRequest;
  /** --window/--exclude: drift only inside these (absent: whenever the run is alive). */
  windows?: WindowRequest;
  /**
   * upgrade --rollback-waves (with --on-failure rollback): a halt's rollback is itself staged, in one stage of these
   * waves, gated and soaked as the upgrade is (commands/rollback-stages.ts); absent, it goes back at once.
   */
  rollbackWaves?: WaveStep[];
  /**
   * No --canary, --waves or --window: what `upgrade` does by default (docs/staged-rollouts.md): `--waves 1/ami,100%`,
   * the health gates on. The plan says so, and how to choose otherwise.
   */
  defaulted?: boolean;
}

/** The default rollout's waves: each target AMI on one node, then the rest at the NodePools' own budgets. */
export const DEFAULT_WAVES: WaveStep[] = [AMI_WAVE, { kind: 'percent', value: 100, text: '100%' }];

/** `--window` (at least one) and `--exclude`, parsed (windows/flags.ts). */
export interface WindowRequest {
  windows: UpgradeWindow[];
  exclusions: Exclusion[];
  /** `upgrade --window-exit-code`: what a run paused by its window exits with; absent: 7 (docs/reference/exit-codes.md). */
  exitCode?: number;
}

/** The flags that ask for `request` again: each `--window` and `--exclude` as given, quoted for a shell. */
export function windowFlags(request: WindowRequest): string[] {
  const quote = (s: string) => (/^[\w./:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [
    ...request.windows.map((w) => `--window ${quote(w.text)}`),
    ...request.exclusions.map((e) => `--exclude ${quote(e.text)}`),
  ];
}

/** The flags that ask for `request` again, for the commands a message tells the user to run. */
export function stagedFlags(request: StagedRequest): string[] {
  return [
    ...request.canary.map((c) => `--canary ${c}`),
    // The default rollout is asked for by giving no stage flag.
    ...(request.defaulted === true ? [] : [`--waves ${request.waves.map((w) => w.text).join(',')}`]),
    ...(request.soakMs > 0 ? [`--soak ${durationFlag(request.soakMs)}`] : []),
    ...(request.holdWith !== 'auto' ? [`--hold-with ${request.holdWith}`] : []),
    ...gateFlags(request.gates ?? DEFAULT_GATES),
    ...(request.windows !== undefined ? windowFlags(request.windows) : []),
    ...(request.windows?.exitCode !== undefined && request.windows.exitCode !== ExitCode.PausedByWindow
      ? [`--window-exit-code ${request.windows.exitCode}`]
      : []),
    ...(request.rollbackWaves !== undefined ? [`--rollback-waves ${request.rollbackWaves.map((w) => w.text).join(',')}`] : []),
  ];
}

/** A duration as a flag value that parses back to exactly it. */
const durationFlag = (ms: number): string =>
  ms % 3_600_000 === 0
    ? `${ms / 3_600_000}h`
    : ms % 60_000 === 0
      ? `${ms / 60_000}m`
      : ms % 1000 === 0
        ? `${ms / 1000}s`
        : `${ms}ms`;

/** The gate flags that differ from the defaults. */
function gateFlags(g: GateRequest): string[] {
  const d = DEFAULT_GATES;
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    ...(g.builtIn ? [] : ['--no-gates']),
    ...(g.initDeadlineMs !== d.initDeadlineMs ? [`--init-deadline ${durationFlag(g.initDeadlineMs)}`] : []),
    ...(g.podReadyDeadlineMs !== d.podReadyDeadlineMs
      ? [`--pod-ready-deadline ${durationFlag(g.podReadyDeadlineMs)}`]
      : []),
    ...(g.maxRestarts !== d.maxRestarts ? [`--max-restarts ${g.maxRestarts}`] : []),
    ...(g.failureLimit !== d.failureLimit ? [`--failure-limit ${g.failureLimit}`] : []),
    ...(g.command !== undefined ? [`--gate-cmd ${quote(g.command)}`] : []),
    ...(g.command !== undefined && g.commandTimeoutMs !== d.commandTimeoutMs
      ? [`--gate-timeout ${durationFlag(g.commandTimeoutMs)}`]
      : []),
    ...(g.commandIntervalMs !== undefined ? [`--gate-interval ${durationFlag(g.commandIntervalMs)}`] : []),
    ...(g.onFailure !== d.onFailure ? [`--on-failure ${g.onFailure}`] : []),
  ];
}
