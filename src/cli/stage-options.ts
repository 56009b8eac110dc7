// Flags → options for the commands that hold and release drift: `pause`, `resume` (and the staged `upgrade`).
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used
import { UsageError } from '../errors.js';
import { objectNames, parseWith } from './options.js';
import { parseFlagDuration, type DurationFlag } from './durations.js';
import type { LockOptions, PauseOptions, ResumeOptions } from '../commands/options.js';
import { LEASE_NAMESPACE } from '../apis/lock.js';
import type { StagedRequest } from '../stages/stage-plan.js';
import { DEFAULT_WAVES, type WindowRequest } from '../stages/request.js';
import { parseExclusion, parseWindow, type FlagRefusal } from '../windows/flags.js';
import { parseWaves, type WaveStep } from '../stages/waves.js';
import { DEFAULT_GATES, type GateRequest } from '../gates/request.js';

const nodePoolNamesOf = (flag: string) => objectNames(flag, 'a NodePool');
const nodePoolNames = nodePoolNamesOf('--nodepool');

const NOT_A_NAMESPACE = 'is not a namespace name (a lowercase DNS-1123 label)';
const lockNamespace = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: NOT_A_NAMESPACE })
  .max(63, { message: NOT_A_NAMESPACE })
  .default(LEASE_NAMESPACE);

const holdWith = z.enum(['auto', 'budget', 'node'], { message: 'must be auto, budget or node' }).default('auto');

export function parsePauseOptions(flags: Record<string, unknown>): PauseOptions {
  const o = parseWith(
    z.object({
      nodepool: nodePoolNames,
      holdWith,
      forceConflicts: z.boolean().default(false),
      held: z.boolean().default(false),
      lockNamespace,
    }),
    flags,
  );
  return {
    nodePools: o.nodepool,
    holdWith: o.holdWith,
    forceConflicts: o.forceConflicts,
    held: o.held,
    lockNamespace: o.lockNamespace,
  };
}

export function parseResumeOptions(flags: Record<string, unknown>): ResumeOptions {
  const o = parseWith(z.object({ nodepool: nodePoolNames, lockNamespace }), flags);
  return { nodePools: o.nodepool, lockNamespace: o.lockNamespace };
}

/**
 * `upgrade`/`plan` --canary, --waves, --soak, --hold-with and the gate flags: the staged rollout they ask for. With none
 * of --canary, --waves and --window, `unstaged` says whether there is one: `upgrade --no-wait` (nothing follows, so
 * nothing paces or gates: undefined) and `upgrade --templates` have none, and there --soak, --hold-with and the gate
 * flags are an error that says so, rather than a flag silently ignored; everywhere else it is the default rollout
 * (`--waves 1/ami,100%`, gated), which they adjust.
 */
export function parseStagedOptions(
  flags: Record<string, unknown>,
  unstaged?: { flag: '--no-wait' | '--templates' },
): StagedRequest | undefined {
  const canary = parseWith(z.object({ canary: nodePoolNamesOf('--canary') }), { canary: flags.canary }).canary;
  const windows = parseWindowOptions(flags);
  // --window alone is a staged rollout of one stage in one wave (--waves 100%): the windows are its hold's budgets.
  const wavesText = typeof flags.waves === 'string' ? flags.waves : windows !== undefined ? '100%' : undefined;
  const asked = canary.length > 0 || wavesText !== undefined;
  if (!asked && unstaged !== undefined) {
    const lone = (['soak', 'holdWith'] as const).find((k) => flags[k] !== undefined);
    if (lone !== undefined) {
      const name = lone === 'soak' ? '--soak' : '--hold-with';
      throw new UsageError(`${name} paces a staged rollout, and ${unstaged.flag} has none`, {
        hint: unstagedHint(unstaged.flag),
      });
    }
    const gate = GATE_FLAGS.find(([k]) => (k === 'gates' ? flags.gates === false : flags[k] !== undefined));
    if (gate !== undefined) {
      throw new UsageError(`${gate[1]} gates a staged rollout, and ${unstaged.flag} has none`, {
        hint: unstagedHint(unstaged.flag),
      });
    }
    return undefined;
  }
  let waves: WaveStep[] = asked ? [{ kind: 'percent', value: 100, text: '100%' }] : DEFAULT_WAVES;
  if (wavesText !== undefined) {
    const parsed = parseWaves(wavesText);
    if ('error' in parsed)
      throw new UsageError(`--waves: ${parsed.error}`, {
        hint: 'e.g. --waves 1/ami,10%,100% (cumulative: one node per target AMI, then up to 10 %, then the rest)',
      });
    waves = parsed.steps;
  }
  const soakText = typeof flags.soak === 'string' ? flags.soak : '0s';
  const soakMs = parseFlagDuration(soakText, '--soak');
  const { holdWith: how } = parseWith(z.object({ holdWith }), { holdWith: flags.holdWith });
  return {
    canary,
    waves,
    soakMs,
    holdWith: how,
    gates: parseGateOptions(flags),
    ...(windows ? { windows } : {}),
    ...(asked ? {} : { defaulted: true }),
  };
}

function unstagedHint(flag: '--no-wait' | '--templates'): string {
  return flag === '--no-wait'
    ? 'drop --no-wait: upgrade then stages and gates the rollout while it follows it'
    : 'apply the templates first (upgrade --templates ...), then stage the rollout with upgrade --to <minor>';
}

/**
 * --window (repeatable), --exclude (repeatable) and upgrade's --window-exit-code; --exclude needs a --window (it closes
 * part of one), and so does --window-exit-code (only a windowed run ends paused by its window).
 */
export function parseWindowOptions(flags: Record<string, unknown>): WindowRequest | undefined {
  const texts = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
  const [windowTexts, excludeTexts] = [texts(flags.window), texts(flags.exclude)];
  const exitCode = windowExitCode(flags.windowExitCode);
  if (windowTexts.length === 0) {
    if (excludeTexts.length > 0) {
      throw new UsageError('--exclude closes part of an upgrade window, and there is none: give --window with it', {
        hint: "e.g. --window '0 2 * * mon-thu/3h' --exclude 2026-11-27/2026-11-30",
      });
    }
    if (exitCode !== undefined) {
      throw new UsageError(
        '--window-exit-code is the exit status of a run paused by its upgrade window, and there is none: give --window with it',
        { hint: "e.g. --window '0 2 * * mon-thu/3h' --window-exit-code 0 (for a scheduler that counts only 0 as success)" },
      );
    }
    return undefined;
  }
  const windows = windowTexts.map((t) => orUsage(parseWindow(t)));
  const exclusions = excludeTexts.map((t) => orUsage(parseExclusion(t)));
  return { windows, exclusions, ...(exitCode !== undefined ? { exitCode } : {}) };
}

/** A process exit status: 0–255 (POSIX keeps the low 8 bits, so 256 would exit 0 unasked). */
function windowExitCode(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{1,3}$/.test(value.trim()) || Number(value) > 255) {
    throw new UsageError(`--window-exit-code ${JSON.stringify(value)} is not valid; expected an exit status from 0 to 255`, {
      hint: 'e.g. --window-exit-code 0 where the scheduler counts only 0 as success (a Kubernetes CronJob); 7 is the default',
    });
  }
  return Number(value);
}

function orUsage<T extends object>(parsed: T | FlagRefusal): T {
  if (isRefusal(parsed)) throw new UsageError(parsed.error, { hint: parsed.hint });
  return parsed;
}

const isRefusal = (v: object): v is FlagRefusal => 'error' in v && 'hint' in v;

const GATE_FLAGS = [
  ['gates', '--no-gates'],
  ['initDeadline', '--init-deadline'],
  ['podReadyDeadline', '--pod-ready-deadline'],
  ['maxRestarts', '--max-restarts'],
  ['failureLimit', '--failure-limit'],
  ['gateCmd', '--gate-cmd'],
  ['gateTimeout', '--gate-timeout'],
  ['gateInterval', '--gate-interval'],
  ['onFailure', '--on-failure'],
] as const;

const count = (value: unknown, flag: string, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim()) || n < min) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not valid; expected a whole number of at least ${min}`);
  }
  return n;
};
const duration = (value: unknown, flag: DurationFlag): number | undefined =>
  typeof value === 'string' ? parseFlagDuration(value, flag) : undefined;

/** The health-gate flags of a staged rollout (docs/health-gates.md); the defaults where not given. */
export function parseGateOptions(flags: Record<string, unknown>): GateRequest {
  const command = typeof flags.gateCmd === 'string' ? flags.gateCmd.trim() : undefined;
  if (command !== undefined && command === '') {
    throw new UsageError('--gate-cmd is empty; give the command to run after each wave and soak (exit 0 passes)');
  }
  if (command === undefined) {
    const lone = (['gateTimeout', 'gateInterval'] as const).find((k) => flags[k] !== undefined);
    if (lone !== undefined)
      throw new UsageError(
        `${lone === 'gateTimeout' ? '--gate-timeout' : '--gate-interval'} goes with --gate-cmd, and there is none`,
        {
          hint: "e.g. --gate-cmd './smoke-test.sh' --gate-timeout 2m",
        },
      );
  }
  const onFailure = flags.onFailure;
  if (onFailure !== undefined && onFailure !== 'pause' && onFailure !== 'rollback') {
    throw new UsageError(`--on-failure ${JSON.stringify(onFailure)} is not valid; expected pause or rollback`);
  }
  const interval = duration(flags.gateInterval, '--gate-interval');
  return {
    builtIn: flags.gates !== false,
    initDeadlineMs: duration(flags.initDeadline, '--init-deadline') ?? DEFAULT_GATES.initDeadlineMs,
    podReadyDeadlineMs: duration(flags.podReadyDeadline, '--pod-ready-deadline') ?? DEFAULT_GATES.podReadyDeadlineMs,
    maxRestarts: count(flags.maxRestarts, '--max-restarts', 0) ?? DEFAULT_GATES.maxRestarts,
    failureLimit: count(flags.failureLimit, '--failure-limit', 1) ?? DEFAULT_GATES.failureLimit,
    ...(command !== undefined ? { command } : {}),
    commandTimeoutMs: duration(flags.gateTimeout, '--gate-timeout') ?? DEFAULT_GATES.commandTimeoutMs,
    ...(interval !== undefined ? { commandIntervalMs: interval } : {}),
    onFailure: onFailure ?? DEFAULT_GATES.onFailure,
  };
}

/**
 * `rollback` --canary, --waves, --soak, --hold-with and the gate flags: with --canary or --waves a staged rollback,
 * whose flags mean what a staged upgrade's mean (parseStagedOptions); without them the rollback is the fast one
 * (undefined), and a lone --soak, --hold-with or gate flag is an error rather than a flag silently ignored. A gate that
 * halts a staged rollback leaves it paused: --on-failure rollback would roll the rollback back, and nothing recorded
 * says to what.
 */
export function parseRollbackStagedOptions(flags: Record<string, unknown>): StagedRequest | undefined {
  if (flags.onFailure === 'rollback') {
    throw new UsageError('--on-failure rollback cannot go with rollback: nothing is recorded to roll a rollback back to', {
      hint: 'a staged rollback that a health gate halts stays paused (exit 6): upgrade to a release you trust, or go on with the same rollback once you are sure',
    });
  }
  const canary = Array.isArray(flags.canary) ? flags.canary : flags.canary !== undefined ? [flags.canary] : [];
  if (canary.length > 0 || typeof flags.waves === 'string') return withoutAmiWave(parseStagedOptions(flags), '--waves')!;
  const lone = (['soak', 'holdWith'] as const).find((k) => flags[k] !== undefined);
  const gate = GATE_FLAGS.find(([k]) => (k === 'gates' ? flags.gates === false : flags[k] !== undefined));
  const flag = lone === 'soak' ? '--soak' : lone === 'holdWith' ? '--hold-with' : gate?.[1];
  if (flag !== undefined) {
    throw new UsageError(`${flag} paces or gates a staged rollback, and there is none: give --waves or --canary with it`, {
      hint: 'e.g. rollback --waves 1,100% --soak 5m; without them the rollback goes back at once, at the NodePools\' own budgets',
    });
  }
  return undefined;
}

/**
 * upgrade --rollback-waves: the rollback that --on-failure rollback starts after a halt, itself staged in these waves;
 * without --on-failure rollback there is no such rollback, an error rather than a flag silently ignored.
 */
export function withRollbackWaves(flags: Record<string, unknown>, staged: StagedRequest | undefined): StagedRequest | undefined {
  if (flags.rollbackWaves === undefined) return staged;
  if (staged === undefined) {
    // --no-wait or --templates: nothing stages or gates this upgrade, so no gate can halt it and start a rollback.
    throw new UsageError('--rollback-waves paces the rollback of a halted staged rollout, and this upgrade has none', {
      hint: 'drop --no-wait (or --templates): upgrade then stages and gates the rollout while it follows it',
    });
  }
  if (staged.gates?.onFailure !== 'rollback') {
    throw new UsageError('--rollback-waves paces the rollback of --on-failure rollback, and there is none: give --on-failure rollback with it', {
      hint: 'e.g. --waves 1,10%,100% --on-failure rollback --rollback-waves 1,100%',
    });
  }
  const parsed = typeof flags.rollbackWaves === 'string' ? parseWaves(flags.rollbackWaves) : { error: 'expected a list such as 1,100%' };
  if ('error' in parsed)
    throw new UsageError(`--rollback-waves: ${parsed.error}`, {
      hint: 'e.g. --rollback-waves 1,100% (cumulative: one node back first, then the rest)',
    });
  withoutAmiWave({ waves: parsed.steps }, '--rollback-waves');
  return { ...staged, rollbackWaves: parsed.steps };
}

/**
 * A rollback's waves count nodes: `1/ami` picks one node per target AMI by its family, arch and variant, and a
 * rollback's targets are the previous AMIs, which only Karpenter resolves (after the restore), and then only as IDs.
 */
function withoutAmiWave<T extends Pick<StagedRequest, 'waves'> | undefined>(request: T, flag: string): T {
  if (request?.waves.some((w) => w.kind === 'ami') !== true) return request;
  throw new UsageError(`${flag}: a rollback cannot take a 1/ami wave: its AMIs are the previous ones, known only as the IDs Karpenter resolves once they are restored`, {
    hint: `give counts or percentages, e.g. ${flag} 1,100%`,
  });
}

/** --lock-namespace of upgrade and rollback. */
export function parseLockOptions(flags: Record<string, unknown>): LockOptions {
  return parseWith(z.object({ lockNamespace }), { lockNamespace: flags.lockNamespace });
}
